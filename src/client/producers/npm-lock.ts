// package-lock.json and npm-shrinkwrap.json → a snapshot part. lockfileVersion 2 and 3 (npm 7+) record the
// installed tree as a flat `packages` map keyed by install path; they hold a graph, so the part is schemaVersion 2.
// lockfileVersion 1 (npm 5/6) is a nested tree without workspaces: npm-lock-v1.ts makes a flat part of it.
//
// The graph is rebuilt the way Node's require() resolves (npm lays node_modules out for exactly that): a dependency
// N of the package installed at P is the nearest P/node_modules/N walking up the node_modules nesting, ending at
// the project's own node_modules. First-party folders (the project, workspaces, file: folders: keys outside
// node_modules that are not links) are modules, never nodes; a link entry leads to one. Dev or prod is decided per
// module from its own manifest sections, which npm copies into the lockfile: the lockfile's dev/optional flags
// describe the whole tree (a package is "dev" only if no module needs it at runtime) and are not used.
import type { SnapshotNode, SnapshotRoot, SnapshotVertex } from '../../shared/types';
import { produceV1 } from './npm-lock-v1';
import {
  RUNTIME_SECTIONS,
  SECTIONS,
  byCodeUnit,
  dependencyNames,
  inputError,
  isObject,
  lockDir,
  manifestOf,
  member,
  modulePath,
  optionalString,
  parseJson,
  someOf,
  sortedUnique,
  type Section,
} from './npm-common';
import { objectKeyLines } from './npm-lines';
import type { LockfileInput, PackageLocation, ProducedPart, Producer } from './types';

/** installed: under node_modules, with a version (a third-party package); firstParty: outside node_modules and
 *  not a link (the project, a workspace or another local folder); broken: under node_modules without a version. */
type Kind = 'installed' | 'firstParty' | 'link' | 'broken';

interface Entry {
  key: string;
  kind: Kind;
  /** Installed: name@version, under the real name of an alias. */
  id: string;
  /** Link: the folder it points to (relative to the lockfile's folder). */
  target?: string;
  /** Names per manifest section, as the entry records them. */
  sections: Record<Section, string[]>;
}

const isInstalledKey = (key: string) => key.startsWith('node_modules/') || key.includes('/node_modules/');

/** The folder whose node_modules is searched next: "a/node_modules/b/node_modules/@s/c" → "a/node_modules/b". */
function parentFolder(key: string): string | undefined {
  if (key === '') return undefined;
  const i = key.lastIndexOf('/node_modules/');
  return i === -1 ? '' : key.slice(0, i);
}

function readEntries(file: string, packages: Record<string, unknown>): Entry[] {
  const entries: Entry[] = [];
  for (const key of Object.keys(packages)) {
    const raw = packages[key];
    const where = () => member('packages', key);
    if (!isObject(raw)) throw inputError(file, `${where()} must be an object`);
    const version = optionalString(file, raw, 'version', where);
    const name = optionalString(file, raw, 'name', where);
    const resolved = optionalString(file, raw, 'resolved', where);
    if (raw.link !== undefined && typeof raw.link !== 'boolean')
      throw inputError(file, `${where()}.link must be a boolean`);
    const sections = {} as Record<Section, string[]>;
    for (const s of SECTIONS) sections[s] = dependencyNames(file, raw, s, where);
    let kind: Kind;
    if (raw.link === true) kind = 'link';
    else if (!isInstalledKey(key)) kind = 'firstParty';
    else kind = version === undefined || version === '' ? 'broken' : 'installed';
    // An alias (`"foo": "npm:bar@^1"`) is installed at node_modules/foo with name "bar": it is bar to advisories.
    const realName = name || key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    entries.push({ key, kind, id: kind === 'installed' ? `${realName}@${version}` : '', target: resolved, sections });
  }
  return entries;
}

/** lockfileVersion 2 or 3: the `packages` map → a v2 part. */
function produceV2(input: LockfileInput, lock: Record<string, unknown>): ProducedPart {
  const file = input.path;
  if (!isObject(lock.packages)) throw inputError(file, 'a "packages" object is required for lockfileVersion 2 and 3');
  const entries = readEntries(file, lock.packages);
  const index = new Map<string, number>();
  entries.forEach((e, i) => index.set(e.key, i));
  if (!index.has('') || entries[index.get('')!].kind !== 'firstParty')
    throw inputError(file, 'packages[""] (the project itself) is missing');
  const warnings: string[] = [];

  const dir = lockDir(file);
  const paths: string[] = [];
  const pathOf = (i: number) => (paths[i] ??= modulePath(dir, entries[i].key));

  // A link is followed to its folder; a link to a link (not written by npm, but cheap to allow) once more.
  const follow = (i: number, hops = 0): number => {
    const e = entries[i];
    if (e.kind === 'installed' || e.kind === 'firstParty') return i;
    if (e.kind !== 'link' || hops > 1 || e.target === undefined) return -1;
    const t = index.get(e.target);
    return t === undefined ? -1 : follow(t, hops + 1);
  };
  /** The entry (installed package or first-party folder) that `name` resolves to from the folder `from`, or -1. */
  const resolve = (from: string, name: string): number => {
    for (let d: string | undefined = from; d !== undefined; d = parentFolder(d)) {
      const i = index.get(d === '' ? `node_modules/${name}` : `${d}/node_modules/${name}`);
      if (i !== undefined) return follow(i);
    }
    return -1;
  };
  const targetsOf = (i: number, sections: readonly Section[]): number[] => {
    const out = new Set<number>();
    for (const s of sections) {
      for (const name of entries[i].sections[s]) {
        const t = resolve(entries[i].key, name);
        if (t !== -1) out.add(t);
      }
    }
    return [...out];
  };
  // What a package (or a module reached through a link) needs at runtime, computed once per install path.
  const runtime: Array<number[] | undefined> = new Array(entries.length);
  const runtimeOf = (i: number) => (runtime[i] ??= targetsOf(i, RUNTIME_SECTIONS));

  const broken = entries.filter((e) => e.kind === 'broken').map((e) => e.key);
  if (broken.length > 0) warnings.push(`entries under node_modules without a version are left out: ${someOf(broken)}`);
  const dangling = entries
    .filter((e, i) => e.kind === 'link' && follow(i) === -1)
    .map((e) => `${e.key} → ${JSON.stringify(e.target ?? '')}`);
  if (dangling.length > 0)
    warnings.push(`links to folders the lockfile does not describe are left out: ${someOf(dangling)}`);

  // Modules: the project first, then the other first-party folders by path.
  const moduleIdx = entries.flatMap((e, i) => (e.kind === 'firstParty' ? [i] : []));
  moduleIdx.sort((a, b) => (entries[a].key === '' ? -1 : entries[b].key === '' ? 1 : byCodeUnit(pathOf(a), pathOf(b))));
  const modules: ProducedPart['modules'] = moduleIdx.map((i) => {
    const deps = targetsOf(i, SECTIONS).filter((t) => t !== i && entries[t].kind === 'firstParty');
    return { path: pathOf(i), manifest: manifestOf(dir, entries[i].key), dependencies: sortedUnique(deps.map(pathOf)) };
  });

  // One resolution per module and non-empty section: BFS from the module's vertex, one vertex per install path.
  // stamp/vertexOf are indexed by entry and reused by every root (stamp = the root that set vertexOf).
  const stamp = new Int32Array(entries.length).fill(-1);
  const vertexOf = new Int32Array(entries.length);
  const reached = new Uint8Array(entries.length);
  const idStrings: string[] = []; // "0", "1", ...: made once, shared by every resolution
  const idString = (n: number) => (idStrings[n] ??= String(n));
  const roots: SnapshotRoot[] = [];
  for (let m = 0; m < moduleIdx.length; m++) {
    const start = moduleIdx[m];
    for (const section of SECTIONS) {
      if (entries[start].sections[section].length === 0) continue;
      const direct = targetsOf(start, [section]);
      // A peer section that installed nothing is a constraint on consumers, not a resolution of this module.
      if (section === 'peerDependencies' && direct.length === 0) continue;
      const r = roots.length;
      const vertices: SnapshotVertex[] = [];
      const queue: number[] = [];
      const vertex = (i: number): string => {
        if (stamp[i] !== r) {
          stamp[i] = r;
          vertexOf[i] = vertices.length;
          const id = idString(vertices.length);
          vertices.push(
            entries[i].kind === 'installed'
              ? { id, node: entries[i].id, dependencies: [] }
              : { id, module: pathOf(i), dependencies: [] },
          );
          queue.push(i);
        }
        return idString(vertexOf[i]);
      };
      vertex(start);
      queue.length = 0; // the start vertex expands with this section, not with its runtime sections
      vertices[0].dependencies = direct.map(vertex);
      for (let q = 0; q < queue.length; q++) {
        const i = queue[q];
        if (entries[i].kind === 'installed') reached[i] = 1;
        vertices[vertexOf[i]].dependencies = runtimeOf(i).map(vertex);
      }
      roots.push({
        module: modules[m].path,
        manifest: modules[m].manifest,
        context: section,
        dependencies: sortedUnique(direct.filter((t) => entries[t].kind === 'installed').map((t) => entries[t].id)),
        resolution: { root: '0', vertices },
      });
    }
  }

  // Nodes: once per name@version, over the install copies some resolution reached (whose targets are reached too,
  // so no dependency dangles). Copies no root reaches are extraneous to every manifest: left out, and said so.
  const directIds = new Set(roots.flatMap((r) => r.dependencies));
  const nodeDeps = new Map<string, Set<string>>();
  const firstCopy = new Map<string, string>();
  const unreached: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e.kind !== 'installed') continue;
    if (!firstCopy.has(e.id)) firstCopy.set(e.id, e.key);
    if (!reached[i]) {
      unreached.push(`${e.key} (${e.id})`);
      continue;
    }
    let deps = nodeDeps.get(e.id);
    if (!deps) nodeDeps.set(e.id, (deps = new Set()));
    for (const t of runtimeOf(i)) if (entries[t].kind === 'installed') deps.add(entries[t].id);
  }
  if (unreached.length > 0) {
    warnings.push(
      `${unreached.length} installed ${unreached.length === 1 ? 'entry is' : 'entries are'} not needed by any package.json section and left out: ${someOf(unreached)}`,
    );
  }
  const nodes: SnapshotNode[] = [...nodeDeps.keys()].sort(byCodeUnit).map((id) => {
    const at = id.lastIndexOf('@');
    return {
      id,
      name: id.slice(0, at),
      version: id.slice(at + 1),
      relationship: directIds.has(id) ? 'direct' : 'transitive',
      dependencies: sortedUnique(nodeDeps.get(id)!),
    };
  });

  const lines = new Map<string, number>();
  objectKeyLines(input.text, (path, line) => {
    if (path.length === 2 && path[0] === 'packages' && !lines.has(path[1])) lines.set(path[1], line);
  });
  const locations: Record<string, PackageLocation> = {};
  for (const n of nodes) {
    const line = lines.get(firstCopy.get(n.id)!);
    locations[n.id] = line === undefined ? { file } : { file, line };
  }

  const project = lock.packages[''] as Record<string, unknown>;
  return {
    ecosystem: 'javascript',
    schemaVersion: 2,
    manifests: [file, ...modules.map((m) => m.manifest)],
    modules,
    roots,
    nodes,
    locations,
    warnings,
    ...(typeof project.name === 'string' && project.name !== '' ? { projectName: project.name } : {}),
  };
}

const FILE_NAMES = new Set(['package-lock.json', 'npm-shrinkwrap.json']);

export const npmLockProducer: Producer = {
  format: 'package-lock.json',
  // npm-shrinkwrap.json is the same format, published with a package.
  matches: (fileName) => FILE_NAMES.has(fileName),
  produce(input) {
    const lock = parseJson(input.path, input.text);
    if (!isObject(lock)) throw inputError(input.path, 'not a package-lock.json (the top level is not an object)');
    const v = lock.lockfileVersion;
    if (v === 1) return produceV1(input, lock);
    if (v === 2 || v === 3) return produceV2(input, lock);
    throw inputError(
      input.path,
      v === undefined
        ? 'no lockfileVersion (1, 2 and 3 are supported)'
        : `lockfileVersion ${JSON.stringify(v)} is not supported (1, 2 and 3 are)`,
    );
  },
};
