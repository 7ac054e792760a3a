// Inventory identity: one item per package of a project and ecosystem, its id derived from what the
// ecosystem considers the same package, so that the same package keeps its id across scans, and a finding's
// packageRef is the id of its package's item.
//
// The CI client bundles this file (the bom-refs of its `--format cyclonedx`, src/shared/cyclonedx): so it imports no
// advisory code, and hashes through ./sha256.ts, which requires node:crypto on first use (the bundle hoists every
// static import to its top and would load node:crypto on every start of the client: src/client/builtins.ts).
import type { Ecosystem } from './types';
import { normalizedName } from './package-names';
import { sha256Hex } from './sha256';

export { normalizedName };

/** dep_ + a hash of (project id, ecosystem, normalised name, version). */
export function dependencyId(projectId: string, ecosystem: Ecosystem | string, name: string, version: string): string {
  return 'dep_' + sha256Hex(`${projectId}\0${ecosystem}\0${normalizedName(ecosystem, name)}\0${version}`).slice(0, 24);
}

/**
 * Code-point order (what the inventory and project lists promise), which differs from JavaScript's UTF-16 order only
 * where a surrogate pair meets a character from U+E000 to U+FFFF: moving the surrogates above that range makes code
 * unit order agree with code point order, without decoding.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x <= 0xdfff ? x + 0x2000 : x - 0x800;
      y = y <= 0xdfff ? y + 0x2000 : y - 0x800;
    }
    return x - y;
  }
  return a.length - b.length;
}
