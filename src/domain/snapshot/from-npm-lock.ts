// npm package-lock.json (lockfileVersion 2 or 3: the flat `packages` map keyed by install path) → v1 javascript
// snapshot. The lockfile records the installed tree, so the graph is rebuilt the way Node's require() resolves:
// a dependency of the package at P is the nearest P/node_modules/<name>, walking up the node_modules nesting.
//
// First-party code (the top-level package and workspace folders, i.e. keys outside node_modules, which links point
// to) becomes roots, never nodes (first-party modules appear only as roots). An edge to first-party code is
// dropped, since v1 has no module-to-module edges. Only packages reachable from the roots are kept, so without
// includeDev the dev-only part of the tree is left out. A declared dependency that is not installed (an optional or
// peer dependency skipped on this platform, or an inconsistent lockfile) is skipped.
import { posix } from 'node:path';
import type { Snapshot, SnapshotNode, SnapshotRoot } from '../../shared/types';

export interface NpmLockOptions {
  project: string;
  /** Path of the top-level package.json, as the snapshot should name it. Default "package.json". */
  manifest?: string;
  /** Add a devDependencies root for every first-party package that declares dev dependencies. Default false. */
  includeDev?: boolean;
}

interface LockEntry {
  name?: string;
  version?: string;
  link?: boolean;
  resolved?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInstalled = (key: string) => key.startsWith('node_modules/') || key.includes('/node_modules/');
const names = (m: Record<string, string> | undefined): string[] => (isObject(m) ? Object.keys(m) : []);
/** What npm installs for a package: its dependencies, optional ones and (npm 7+) peers. */
const runtimeNames = (e: LockEntry) => [
  ...names(e.dependencies),
  ...names(e.optionalDependencies),
  ...names(e.peerDependencies),
];

/** The folder whose node_modules is searched next: "a/node_modules/b/node_modules/@s/c" → "a/node_modules/b". */
function parentFolder(key: string): string | undefined {
  if (key === '') return undefined;
  const i = key.lastIndexOf('/node_modules/');
  return i === -1 ? '' : key.slice(0, i);
}

const sortedUnique = (xs: Iterable<string>) => [...new Set(xs)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

export function snapshotFromNpmLock(lock: unknown, opts: NpmLockOptions): Snapshot {
  if (!isObject(lock) || !isObject(lock.packages)) {
    throw new Error('package-lock.json: a "packages" map is required (lockfileVersion 2 or 3)');
  }
  const packages = lock.packages as Record<string, LockEntry>;
  const entry = (key: string): LockEntry | undefined =>
    Object.hasOwn(packages, key) && isObject(packages[key]) ? packages[key] : undefined;

  /** The installed package (its key) that `name` resolves to from the folder `from`; undefined for first-party code. */
  const resolve = (from: string, name: string): string | undefined => {
    for (let dir: string | undefined = from; dir !== undefined; dir = parentFolder(dir)) {
      const key = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
      const e = entry(key);
      if (!e) continue;
      if (e.link)
        return typeof e.resolved === 'string' && isInstalled(e.resolved) && entry(e.resolved) ? e.resolved : undefined;
      return typeof e.version === 'string' ? key : undefined;
    }
    return undefined;
  };
  const idOf = (key: string): string => {
    const e = entry(key)!;
    const name =
      typeof e.name === 'string' ? e.name : key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    return `${name}@${e.version}`;
  };

  const manifest = opts.manifest ?? 'package.json';
  const dir = posix.dirname(manifest);
  const firstParty = Object.keys(packages)
    .filter((k) => !isInstalled(k) && entry(k) && !entry(k)!.link)
    .sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1));

  const nodes = new Map<string, { name: string; version: string; deps: Set<string> }>();
  const visited = new Set<string>();
  const queue: string[] = [];
  const reach = (from: string, depNames: string[]): string[] => {
    const ids: string[] = [];
    for (const name of depNames) {
      const key = resolve(from, name);
      if (key === undefined) continue;
      ids.push(idOf(key));
      if (!visited.has(key)) {
        visited.add(key);
        queue.push(key);
      }
    }
    return ids;
  };

  const roots: SnapshotRoot[] = [];
  const manifests: string[] = [];
  for (const key of firstParty) {
    const e = entry(key)!;
    const module = typeof e.name === 'string' && e.name !== '' ? e.name : key === '' ? '.' : key;
    const rootManifest = key === '' ? manifest : posix.join(dir, key, 'package.json');
    manifests.push(rootManifest);
    roots.push({
      module,
      manifest: rootManifest,
      context: 'dependencies',
      dependencies: sortedUnique(reach(key, runtimeNames(e))),
    });
    if (opts.includeDev && names(e.devDependencies).length > 0) {
      roots.push({
        module,
        manifest: rootManifest,
        context: 'devDependencies',
        dependencies: sortedUnique(reach(key, names(e.devDependencies))),
      });
    }
  }

  while (queue.length > 0) {
    const key = queue.pop()!;
    const id = idOf(key);
    const e = entry(key)!;
    let node = nodes.get(id);
    if (!node) {
      node = { name: id.slice(0, id.lastIndexOf('@')), version: String(e.version), deps: new Set() };
      nodes.set(id, node);
    }
    // The same name@version installed at several paths is one node; its copies may resolve differently.
    for (const dep of reach(key, runtimeNames(e))) node.deps.add(dep);
  }

  const direct = new Set(roots.flatMap((r) => r.dependencies));
  const nodeList: SnapshotNode[] = sortedUnique(nodes.keys()).map((id) => {
    const n = nodes.get(id)!;
    return {
      id,
      name: n.name,
      version: n.version,
      relationship: direct.has(id) ? 'direct' : 'transitive',
      dependencies: sortedUnique(n.deps),
    };
  });
  return { schemaVersion: 1, project: opts.project, ecosystem: 'javascript', manifests, roots, nodes: nodeList };
}
