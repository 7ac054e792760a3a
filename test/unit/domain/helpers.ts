// Small builders shared by the domain tests: OSV advisories, npm snapshots, one-call matching.
import { buildAdvisoryIndex } from '../../../src/domain/advisories/build-index';
import { matchSnapshot, type Match } from '../../../src/domain/matching';
import type { OsvAdvisory, OsvEvent, OsvRange, Snapshot, SnapshotNode } from '../../../src/shared/types';

export const range = (...events: OsvEvent[]): OsvRange => ({ type: 'ECOSYSTEM', events });

export function adv(id: string, fields: Partial<OsvAdvisory> = {}): OsvAdvisory {
  return { id, modified: '2024-01-01T00:00:00Z', published: '2024-01-01T00:00:00Z', ...fields };
}

/** An npm advisory on one package with the given ranges (and optional explicit versions). */
export function npmAdv(
  id: string,
  name: string,
  ranges: OsvRange[],
  extra: Partial<OsvAdvisory> & { versions?: string[] } = {},
): OsvAdvisory {
  const { versions, ...rest } = extra;
  return adv(id, {
    affected: [{ package: { ecosystem: 'npm', name }, ranges, ...(versions ? { versions } : {}) }],
    ...rest,
  });
}

export function node(id: string, deps: string[] = []): SnapshotNode {
  const at = id.lastIndexOf('@');
  return { id, name: id.slice(0, at), version: id.slice(at + 1), relationship: 'transitive', dependencies: deps };
}

export function npmSnapshot(ids: string[]): Snapshot {
  return {
    schemaVersion: 1,
    project: 'p',
    ecosystem: 'javascript',
    manifests: ['package.json'],
    roots: [{ module: 'p', manifest: 'package.json', context: 'dependencies', dependencies: ids }],
    nodes: ids.map((id) => node(id)),
  };
}

export function matchesOf(advisories: OsvAdvisory[], ids: string[]): Match[] {
  return matchSnapshot(npmSnapshot(ids), buildAdvisoryIndex(advisories)).matches;
}

/** For one installed version: 'not affected', or the finding's fixedVersion (null = no fix). */
export function verdict(advisories: OsvAdvisory[], name: string, version: string): string | null | 'not affected' {
  const ms = matchesOf(advisories, [`${name}@${version}`]);
  if (ms.length === 0) return 'not affected';
  if (ms.length > 1) throw new Error(`${ms.length} matches for one group`);
  return ms[0].fixedVersion;
}
