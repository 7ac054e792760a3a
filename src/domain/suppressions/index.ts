// Suppressions sent with the snapshot (spec; decisions.md): one matches a finding when its `cve` is any id of the
// advisory's alias group and its optional `package` glob matches the package name; expired ones are ignored.
import type { Ecosystem, SnapshotSuppression } from '../types';

/**
 * Glob → RegExp, hand-written on purpose: `*` must match any run of characters including `/` and `:` (Maven
 * coordinates, npm scopes), which path-oriented glob libraries (picomatch, minimatch) refuse by design.
 */
export function globToRegExp(glob: string, caseInsensitive = false): RegExp {
  let re = '';
  for (const ch of glob) {
    if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else re += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, caseInsensitive ? 'is' : 's');
}

/** PEP 503 normalisation: lowercase, runs of -, _ and . become one -. */
export const pep503 = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

export interface ActiveSuppression {
  ids: string;
  reason: string;
  test: (packageName: string) => boolean;
}

/** The suppressions in force on the processing day (YYYY-MM-DD, UTC), in snapshot order. */
export function activeSuppressions(list: SnapshotSuppression[] | undefined, ecosystem: Ecosystem, processingDay: string): ActiveSuppression[] {
  const python = ecosystem === 'python';
  return (list ?? [])
    .filter((s) => !s.expires || s.expires >= processingDay)
    .map((s) => {
      const glob = s.package === undefined ? null : globToRegExp(python ? pep503(s.package) : s.package);
      return { ids: s.cve, reason: s.reason, test: (name: string) => glob === null || glob.test(python ? pep503(name) : name) };
    });
}

/** The first suppression (in snapshot order) that matches, or null. */
export function findSuppression(active: ActiveSuppression[], groupIds: readonly string[], packageName: string): ActiveSuppression | null {
  // Advisory ids are compared case-insensitively: GHSA ids are written both ways in the wild.
  const ids = new Set(groupIds.map((id) => id.toUpperCase()));
  for (const s of active) if (ids.has(s.ids.toUpperCase()) && s.test(packageName)) return s;
  return null;
}
