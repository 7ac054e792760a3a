// uv.lock (version 1) → a schemaVersion 2 part. uv records the whole workspace in one lock: every `[[package]]` is
// a package or a first-party project, and each names its dependencies, its extras' (`optional-dependencies`) and
// its dependency groups' (`dev-dependencies`), so the lock alone holds every module's graph; pyproject.toml files
// are named as manifests, not read.
//
// Modules: the workspace members ([manifest] members) and every package whose source is first-party code
// (editable, virtual, workspace, and directory: a local folder installed as is, like npm's file: folders), named by
// their folder relative to the project root. Contexts per module: "dependencies", each dependency group by its name
// and each extra as "extra:<name>" (the names Poetry's producer uses too). A dependency asked for with extras that
// add packages is a separate vertex of the same node (python-common.ts buildGraph). uv may lock several versions of
// one name for different markers: a dependency then carries `version` (or `source`) saying which entry it means.
import { posix } from 'node:path';
import type { Obj } from './npm-common';
import {
  buildGraph,
  byCodeUnit,
  inputError,
  isObject,
  lockDir,
  normalize,
  optionalTable,
  packageHeaderLines,
  parseToml,
  someOf,
  sortedUnique,
  stringField,
  withoutHashLists,
  type Dep,
  type GraphEntry,
  type RootSpec,
} from './python-common';
import type { LockfileInput, PackageLocation, ProducedPart, Producer } from './types';

/** A dependency as written: a name, maybe the version and source that tell apart two locked versions, extras. */
interface RawDep {
  name: string;
  version?: string;
  source?: string;
  extras: string[];
}

interface UvPackage {
  name: string;
  version?: string;
  /** JSON of the source table, to match a dependency's `source`. */
  source: string;
  /** The module's folder (relative to the project root) when the package is first-party. */
  module?: string;
  deps: RawDep[];
  extras: Map<string, RawDep[]>;
  groups: Map<string, RawDep[]>;
}

const FIRST_PARTY = ['editable', 'virtual', 'workspace', 'directory'] as const;

function rawDeps(file: string, list: unknown, where: string): RawDep[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw inputError(file, `${where} must be an array of tables`);
  return list.map((d, i) => {
    const w = `${where}[${i}]`;
    if (!isObject(d)) throw inputError(file, `${w} must be a table`);
    const name = stringField(file, d, 'name', w, true);
    const extras = d.extra ?? [];
    if (!Array.isArray(extras) || !extras.every((x) => typeof x === 'string'))
      throw inputError(file, `${w}.extra must be a list of strings`);
    stringField(file, d, 'marker', w);
    const source = d.source === undefined ? undefined : isObject(d.source) ? JSON.stringify(d.source) : undefined;
    if (d.source !== undefined && source === undefined) throw inputError(file, `${w}.source must be a table`);
    return {
      name: normalize(name),
      version: stringField(file, d, 'version', w),
      source,
      extras: extras.map(normalize),
    };
  });
}

/** A table of named dependency lists (optional-dependencies, dev-dependencies). */
function depTable(file: string, o: Obj, field: string, where: string): Map<string, RawDep[]> {
  const t = optionalTable(file, o, field, where) ?? {};
  return new Map(Object.entries(t).map(([k, v]) => [normalize(k), rawDeps(file, v, `${where}.${field}.${k}`)]));
}

function readPackages(file: string, lock: Obj, dir: string): UvPackage[] {
  const list = lock.package ?? [];
  if (!Array.isArray(list)) throw inputError(file, '"package" must be an array of tables ([[package]])');
  const manifest = optionalTable(file, lock, 'manifest', '');
  const members = manifest?.members ?? [];
  if (!Array.isArray(members) || !members.every((m) => typeof m === 'string'))
    throw inputError(file, 'manifest.members must be a list of strings');
  const memberNames = new Set(members.map(normalize));
  return list.map((raw, i) => {
    const where = `package[${i}]`;
    if (!isObject(raw)) throw inputError(file, `${where} must be a table`);
    const name = normalize(stringField(file, raw, 'name', where, true));
    const source = optionalTable(file, raw, 'source', where) ?? {};
    const kind = FIRST_PARTY.find((k) => source[k] !== undefined);
    // A first-party package names its folder (relative to the lock); `workspace = true` does not, hence the name.
    const folder = kind === undefined ? undefined : typeof source[kind] === 'string' ? (source[kind] as string) : name;
    const isModule = kind !== undefined || memberNames.has(name);
    // uv leaves out the version of a project whose version is dynamic: only third-party packages need one.
    const version = stringField(file, raw, 'version', where, !isModule);
    return {
      name,
      version,
      source: JSON.stringify(source),
      module: isModule ? posix.normalize(posix.join(dir, folder ?? '.')) : undefined,
      deps: rawDeps(file, raw.dependencies, `${where}.dependencies`),
      extras: depTable(file, raw, 'optional-dependencies', where),
      groups: depTable(file, raw, 'dev-dependencies', where),
    };
  });
}

function produce(input: LockfileInput): ProducedPart {
  const file = input.path;
  const lock = parseToml(file, withoutHashLists(input.text, 'wheels'));
  if (lock.version !== 1)
    throw inputError(
      file,
      lock.version === undefined
        ? 'not a uv.lock (no version)'
        : `version ${JSON.stringify(lock.version)} is not supported (1 is)`,
    );
  const dir = lockDir(file);
  const pkgs = readPackages(file, lock, dir);
  const warnings: string[] = [];

  // Entry keys: name@version for packages (a name may be locked at several versions), the name for modules.
  const keyOf = (p: UvPackage) => (p.module !== undefined ? p.name : `${p.name}@${p.version}`);
  const byName = new Map<string, UvPackage[]>();
  const seenKeys = new Set<string>();
  for (const p of pkgs) {
    if (seenKeys.has(keyOf(p))) throw inputError(file, `package ${keyOf(p)} is listed twice`);
    seenKeys.add(keyOf(p));
    byName.set(p.name, [...(byName.get(p.name) ?? []), p]);
  }
  const missing = new Set<string>();
  const resolve = (deps: RawDep[], from: string): Dep[] =>
    deps.flatMap((d) => {
      let targets = byName.get(d.name) ?? [];
      if (d.version !== undefined) targets = targets.filter((t) => t.version === d.version);
      if (d.source !== undefined && targets.length > 1) targets = targets.filter((t) => t.source === d.source);
      if (targets.length === 0) missing.add(`${from} → ${d.name}${d.version ? `@${d.version}` : ''}`);
      return targets.map((t) => ({ key: keyOf(t), extras: d.extras }));
    });

  const entries = new Map<string, GraphEntry>();
  for (const p of pkgs) {
    const key = keyOf(p);
    const entry: GraphEntry =
      p.module !== undefined
        ? { key, module: p.module, deps: [], extras: new Map() }
        : { key, id: key, deps: [], extras: new Map() };
    entry.deps = resolve(p.deps, key);
    for (const [x, deps] of p.extras) entry.extras.set(x, resolve(deps, `${key}[${x}]`));
    entries.set(key, entry);
  }
  if (missing.size > 0)
    warnings.push(`dependencies on packages the lock does not list are left out: ${someOf([...missing])}`);

  const modulePkgs = pkgs.filter((p) => p.module !== undefined).sort((a, b) => byCodeUnit(a.module!, b.module!));
  const paths = new Map<string, string>();
  for (const p of modulePkgs) {
    if (paths.has(p.module!))
      throw inputError(
        file,
        `packages ${paths.get(p.module!)} and ${p.name} are both the project in ${JSON.stringify(p.module)}`,
      );
    paths.set(p.module!, p.name);
  }
  const manifestOf = (p: UvPackage) => posix.join(p.module!, 'pyproject.toml');
  const specs: RootSpec[] = [];
  const modules: ProducedPart['modules'] = modulePkgs.map((p) => {
    const e = entries.get(keyOf(p))!;
    const contexts: Array<[string, Dep[]]> = [['dependencies', e.deps]];
    for (const [g, deps] of [...p.groups].sort(([a], [b]) => byCodeUnit(a, b)))
      contexts.push([g, resolve(deps, `${p.name} (group ${g})`)]);
    for (const [x, deps] of [...e.extras].sort(([a], [b]) => byCodeUnit(a, b))) contexts.push([`extra:${x}`, deps]);
    for (const [context, direct] of contexts)
      if (direct.length > 0) specs.push({ module: p.module!, manifest: manifestOf(p), context, start: e.key, direct });
    const moduleDeps = contexts
      .flatMap(([, ds]) => ds.map((d) => entries.get(d.key)!.module ?? ''))
      .filter((m) => m !== '' && m !== p.module);
    return { path: p.module!, manifest: manifestOf(p), dependencies: sortedUnique(moduleDeps) };
  });
  const { roots, nodes, unreached } = buildGraph(entries, specs);
  if (unreached.length > 0)
    warnings.push(
      `${unreached.length} locked ${unreached.length === 1 ? 'package is' : 'packages are'} not needed by any workspace member and left out: ${someOf(unreached)}`,
    );

  const lines = packageHeaderLines(input.text);
  const locations: Record<string, PackageLocation> = {};
  for (const n of nodes) {
    const line = lines.get(n.id);
    locations[n.id] = line === undefined ? { file } : { file, line };
  }
  const project = modulePkgs.find((p) => p.module === dir) ?? modulePkgs[0];
  return {
    ecosystem: 'python',
    schemaVersion: 2,
    manifests: [file, ...modules.map((m) => m.manifest)],
    modules,
    roots,
    nodes,
    locations,
    warnings,
    ...(project ? { projectName: project.name } : {}),
  };
}

export const uvLockProducer: Producer = {
  format: 'uv.lock',
  matches: (fileName) => fileName === 'uv.lock',
  produce,
};
