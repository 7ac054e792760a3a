// vulnerable_package: a server launched from a pinned npm or PyPI version is matched against the
// advisories with the very matcher of dependency scans (src/domain/matching: the ecosystem's version rules, alias
// groups, fixed version), as a one-package snapshot.
import type { AdvisoryIndex } from '../advisories/build-index';
import { matchSnapshot, type Match } from '../matching';
import type { Ecosystem, Snapshot } from '../../shared/types';
import type { McpIdentity } from './identity';

/** The registry package of a pinned npm or PyPI identity, or null (unpinned, another kind). */
export function pinnedPackage(id: McpIdentity): { ecosystem: Ecosystem; name: string; version: string } | null {
  if (!id.pinned || id.version === null) return null;
  if (id.kind === 'npm' && id.identity.startsWith('pkg:npm/')) {
    return {
      ecosystem: 'javascript',
      name: decodeURIComponent(id.identity.slice('pkg:npm/'.length)),
      version: id.version,
    };
  }
  if (id.kind === 'pypi' && id.identity.startsWith('pkg:pypi/')) {
    return { ecosystem: 'python', name: id.identity.slice('pkg:pypi/'.length), version: id.version };
  }
  return null;
}

export function packageMatches(id: McpIdentity, index: AdvisoryIndex): Match[] {
  const pkg = pinnedPackage(id);
  if (!pkg) return [];
  const snapshot: Snapshot = {
    schemaVersion: 1,
    project: 'mcp',
    ecosystem: pkg.ecosystem,
    roots: [],
    nodes: [{ id: 'server', name: pkg.name, version: pkg.version, relationship: 'direct', dependencies: [] }],
  };
  return matchSnapshot(snapshot, index).matches;
}
