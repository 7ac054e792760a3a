// package-lock.json lockfileVersion 1 (npm 5 and 6) → a flat (schemaVersion 1) part. The file is the node_modules
// tree itself: `dependencies` maps the names installed in a folder to their entries, an entry's own `dependencies`
// are the ones nested in its node_modules, and `requires` names what it needs. A required name resolves the way
// Node's require() does: the entry's own nested scope first, then each enclosing scope up to the top level.
//
// The lockfile does not say which top-level entries the project asked for (npm 6 hoists transitive packages to the
// top too), so the sections come from the package.json next to it; without one, every top-level entry is taken as
// direct (by its dev/optional flags), which over-reports direct packages, and a warning says so. There are no
// workspaces in npm 6: the project is the only module.
import type { SnapshotNode, SnapshotRoot } from '../../shared/types';
import {
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
  type Obj,
  type Section,
} from './npm-common';
import { objectKeyLines } from './npm-lines';
import type { LockfileInput, PackageLocation, ProducedPart } from './types';

interface Scope {
  parent?: Scope;
  /** Names installed in this folder's node_modules. */
  children: Map<string, V1Entry>;
}

interface V1Entry extends Scope {
  /** The name it is installed under (an alias's own name, not the real one). */
  name: string;
  /** name@version; empty for a local folder (file: directory), which is first-party code. */
  id: string;
  local: boolean;
  requires: string[];
  dev: boolean;
  optional: boolean;
  /** 1-based line of its key, when the file is pretty-printed. */
  line?: number;
}

/** "a > b": where an entry sits, for warnings (walked up only for the few shown). */
function placeOf(e: V1Entry): string {
  const names: string[] = [];
  for (let s: Scope | undefined = e; s && 'name' in s; s = s.parent) names.push((s as V1Entry).name);
  return names.reverse().join(' > ');
}

const TARBALL = /\.(tgz|tar\.gz|tar)$/;

/** name and version of an entry installed under `key`: aliases are written "npm:<real name>@<version>". */
function identify(file: string, key: string, version: string, where: () => string): { id: string; local: boolean } {
  if (version.startsWith('npm:')) {
    const spec = version.slice(4);
    const at = spec.lastIndexOf('@');
    if (at <= 0 || at === spec.length - 1)
      throw inputError(file, `${where()}.version ${JSON.stringify(version)} is not npm:<name>@<version>`);
    return { id: spec, local: false };
  }
  // A file: directory is a symlink to the user's own code; a file: tarball is a package like any other.
  if (version.startsWith('file:') && !TARBALL.test(version)) return { id: '', local: true };
  return { id: `${key}@${version}`, local: false };
}

/** Every entry of the tree in the file's order (each entry before the ones nested in it). */
function readTree(file: string, lock: Obj): { top: Scope; entries: V1Entry[] } {
  const top: Scope = { children: new Map() };
  const entries: V1Entry[] = [];
  // An explicit stack, not recursion: a hostile file may nest deeper than the call stack. Each scope's entries go
  // on it in reverse, so that they come off in the file's order. Member paths for messages are built only for a
  // message: built eagerly, they would cost the square of the depth.
  type Item = { scope: Scope; name: string; raw: unknown; where: () => string };
  const stack: Item[] = [];
  const pushScope = (scope: Scope, deps: unknown, where: () => string) => {
    if (deps === undefined) return;
    if (!isObject(deps)) throw inputError(file, `${where()} must be an object`);
    const names = Object.keys(deps);
    for (let i = names.length - 1; i >= 0; i--) stack.push({ scope, name: names[i], raw: deps[names[i]], where });
  };
  pushScope(top, lock.dependencies, () => 'dependencies');
  while (stack.length > 0) {
    const { scope, name, raw, where } = stack.pop()!;
    const at = () => member(where(), name);
    if (!isObject(raw)) throw inputError(file, `${at()} must be an object`);
    const version = optionalString(file, raw, 'version', at);
    if (version === undefined || version === '') throw inputError(file, `${at()}.version is missing`);
    const e: V1Entry = {
      parent: scope,
      children: new Map(),
      name,
      ...identify(file, name, version, at),
      requires: dependencyNames(file, raw, 'requires', at),
      dev: raw.dev === true,
      optional: raw.optional === true,
    };
    scope.children.set(name, e);
    entries.push(e);
    pushScope(e, raw.dependencies, () => `${at()}.dependencies`);
  }
  return { top, entries };
}

/** The entry `name` resolves to from inside `from` (its own node_modules first, then up). */
function resolve(from: Scope, name: string): V1Entry | undefined {
  for (let s: Scope | undefined = from; s; s = s.parent) {
    const e = s.children.get(name);
    if (e) return e;
  }
  return undefined;
}

/** The package.json sections, or undefined when there is no package.json. */
function readManifest(
  input: LockfileInput,
  manifest: string,
): (Record<Section, string[]> & { name?: string }) | undefined {
  const text = input.readFile(manifest);
  if (text === undefined) return undefined;
  const pkg = parseJson(manifest, text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (!isObject(pkg)) throw inputError(manifest, 'not a package.json (the top level is not an object)');
  const out = {} as Record<Section, string[]> & { name?: string };
  for (const s of SECTIONS) out[s] = dependencyNames(manifest, pkg, s, () => 'package.json');
  if (typeof pkg.name === 'string' && pkg.name !== '') out.name = pkg.name;
  return out;
}

export function produceV1(input: LockfileInput, lock: Obj): ProducedPart {
  const file = input.path;
  const { top, entries } = readTree(file, lock);
  const dir = lockDir(file);
  const module = modulePath(dir, '');
  const manifest = manifestOf(dir, '');
  const warnings: string[] = [];

  const pkg = readManifest(input, manifest);
  let sections: Record<Section, string[]>;
  if (pkg) {
    sections = pkg;
  } else {
    warnings.push(
      `${manifest} not found: every top-level entry is taken as a direct dependency (its dev/optional flag as its section)`,
    );
    sections = { dependencies: [], devDependencies: [], optionalDependencies: [], peerDependencies: [] };
    for (const [name, e] of top.children)
      sections[e.dev ? 'devDependencies' : e.optional ? 'optionalDependencies' : 'dependencies'].push(name);
  }

  const locals = new Set<string>();
  const targets = (from: Scope, names: string[]): V1Entry[] => {
    const out: V1Entry[] = [];
    for (const name of names) {
      const e = resolve(from, name);
      if (!e) continue; // not installed: an optional dependency skipped, or an inconsistent lockfile
      if (e.local) locals.add(placeOf(e));
      else out.push(e);
    }
    return out;
  };

  const roots: SnapshotRoot[] = [];
  const reached = new Set<V1Entry>();
  const queue: V1Entry[] = [];
  for (const section of SECTIONS) {
    if (sections[section].length === 0) continue;
    const direct = targets(top, sections[section]);
    if (section === 'peerDependencies' && direct.length === 0) continue; // npm 6 installs no peers
    roots.push({ module, manifest, context: section, dependencies: sortedUnique(direct.map((e) => e.id)) });
    for (const e of direct) if (!reached.has(e)) (reached.add(e), queue.push(e));
  }
  // The same name@version installed at several places is one node; its copies may resolve differently.
  const deps = new Map<string, Set<string>>();
  for (let q = 0; q < queue.length; q++) {
    const e = queue[q];
    let set = deps.get(e.id);
    if (!set) deps.set(e.id, (set = new Set()));
    for (const t of targets(e, e.requires)) {
      set.add(t.id);
      if (!reached.has(t)) (reached.add(t), queue.push(t));
    }
  }
  if (locals.size > 0)
    warnings.push(`local folders (file:) are first-party code and not scanned: ${someOf([...locals])}`);
  const unreached = entries.filter((e) => !e.local && !reached.has(e));
  if (unreached.length > 0) {
    const some = unreached.slice(0, 10).map((e) => `${placeOf(e)} (${e.id})`);
    warnings.push(
      `${unreached.length} installed ${unreached.length === 1 ? 'entry is' : 'entries are'} not needed by any package.json section and left out: ${someOf(some, unreached.length)}`,
    );
  }

  const direct = new Set(roots.flatMap((r) => r.dependencies));
  const nodes: SnapshotNode[] = [...deps.keys()].sort(byCodeUnit).map((id) => {
    const at = id.lastIndexOf('@');
    return {
      id,
      name: id.slice(0, at),
      version: id.slice(at + 1),
      relationship: direct.has(id) ? 'direct' : 'transitive',
      dependencies: sortedUnique(deps.get(id)!),
    };
  });

  // An entry's key line: path ["dependencies", a, "dependencies", b] is the entry b inside a. Key lines come in the
  // file's order, so the last one seen at each depth is the ancestor of the next deeper one: entryAt[n] is the entry
  // of the last key line whose path had n keys (undefined if it was not an entry).
  const entryAt: Array<Scope | undefined> = [top];
  objectKeyLines(input.text, (path, line) => {
    const n = path.length;
    const parent = n % 2 === 0 && path[n - 2] === 'dependencies' ? entryAt[n - 2] : undefined;
    const e = parent?.children.get(path[n - 1]);
    entryAt[n] = e;
    if (e && e.line === undefined) e.line = line;
  });
  const locations: Record<string, PackageLocation> = {};
  for (const e of entries) {
    if (!deps.has(e.id) || Object.hasOwn(locations, e.id)) continue; // entries are in file order: first copy wins
    locations[e.id] = e.line === undefined ? { file } : { file, line: e.line };
  }

  const projectName = pkg?.name ?? (typeof lock.name === 'string' && lock.name !== '' ? lock.name : undefined);
  return {
    ecosystem: 'javascript',
    schemaVersion: 1,
    manifests: pkg ? [file, manifest] : [file],
    modules: [{ path: module, manifest, dependencies: [] }],
    roots,
    nodes,
    locations,
    warnings,
    ...(projectName ? { projectName } : {}),
  };
}
