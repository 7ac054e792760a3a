// poetry.lock (lock-version 1.x, 2.0, 2.1) → a schemaVersion 2 part. The lock is a flat `[[package]]` list whose
// entries name their dependencies by name, so it holds a graph; what it does not hold is which packages the project
// itself asked for. That comes from pyproject.toml beside the lock when there is one (Poetry's own sections and
// PEP 621's [project]); without one it is inferred from the lock's groups, as explained at inferRoots below.
//
// One module (the lockfile's folder), one root per dependency group ("main", "dev", ...) and per extra ("extra:<name>").
// Names are PEP 503 normalised in ids and edges. Markers are not evaluated: the lock lists what some platform
// installs, and a dependency the lock does not list (its marker excluded it everywhere) is skipped. When the lock
// holds several versions of one name (Poetry does this for marker-split requirements) an edge goes to each of them.
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
  requirementName,
  someOf,
  stringField,
  type Dep,
  type GraphEntry,
  type RootSpec,
  withoutHashLists,
} from './python-common';
import type { LockfileInput, PackageLocation, ProducedPart, Producer } from './types';

/** A requirement as written: a normalised name and the extras asked for. */
interface Req {
  name: string;
  extras: string[];
}

interface LockPackage {
  entry: GraphEntry;
  name: string;
  /** [package.dependencies] and [package.extras], by name, before they are resolved to entries. */
  reqs: Req[];
  extraReqs: Map<string, Req[]>;
  /** Lock 2.x `groups`, or lock 1.x `category`; undefined when the lock records neither. */
  groups?: string[];
}

const MODULE_KEY = '\u0000module';

/** A Poetry dependency value: "^1.0", {version, extras, markers, optional}, or a list of those (per marker). */
function poetryReqs(file: string, name: string, value: unknown, where: string, skipOptional = false): Req[] {
  const items = Array.isArray(value) ? value : [value];
  const out: Req[] = [];
  for (const v of items) {
    if (typeof v === 'string') out.push({ name: normalize(name), extras: [] });
    else if (isObject(v)) {
      if (skipOptional && v.optional === true) continue;
      const extras = v.extras ?? [];
      if (!Array.isArray(extras) || !extras.every((x) => typeof x === 'string'))
        throw inputError(file, `${where}.extras must be a list of strings`);
      out.push({ name: normalize(name), extras: extras.map(normalize) });
    } else throw inputError(file, `${where} must be a version string, a table or a list of tables`);
  }
  return out;
}

/** A table of Poetry dependencies (name → value) as requirements; "python" is the interpreter, not a package. */
function poetryTable(file: string, table: unknown, where: string, skipOptional = false): Req[] {
  if (table === undefined) return [];
  if (!isObject(table)) throw inputError(file, `${where} must be a table`);
  return Object.entries(table).flatMap(([n, v]) =>
    n.toLowerCase() === 'python' ? [] : poetryReqs(file, n, v, `${where}.${n}`, skipOptional),
  );
}

/** A list of PEP 508 strings (PEP 621 dependencies, Poetry's [package.extras] values). */
function pep508List(file: string, list: unknown, where: string): Req[] {
  if (!Array.isArray(list) || !list.every((x) => typeof x === 'string'))
    throw inputError(file, `${where} must be a list of strings`);
  return list.flatMap((s) => requirementName(s) ?? []);
}

function readPackages(file: string, lock: Obj): LockPackage[] {
  const list = lock.package ?? [];
  if (!Array.isArray(list)) throw inputError(file, '"package" must be an array of tables ([[package]])');
  return list.map((raw, i) => {
    const where = `package[${i}]`;
    if (!isObject(raw)) throw inputError(file, `${where} must be a table`);
    const name = stringField(file, raw, 'name', where, true);
    const version = stringField(file, raw, 'version', where, true);
    const id = `${normalize(name)}@${version}`;
    const reqs = poetryTable(file, raw.dependencies, `${where}.dependencies`);
    const extraReqs = new Map<string, Req[]>();
    for (const [x, list] of Object.entries(optionalTable(file, raw, 'extras', where) ?? {}))
      extraReqs.set(normalize(x), pep508List(file, list, `${where}.extras.${x}`));
    let groups: string[] | undefined;
    if (raw.groups !== undefined) {
      if (!Array.isArray(raw.groups) || !raw.groups.every((g) => typeof g === 'string'))
        throw inputError(file, `${where}.groups must be a list of strings`);
      groups = raw.groups;
    } else if (raw.category !== undefined) groups = [stringField(file, raw, 'category', where)!];
    return { entry: { key: id, id, deps: [], extras: new Map() }, name: normalize(name), reqs, extraReqs, groups };
  });
}

/** The dependency declarations of pyproject.toml, by context; empty when it declares none. */
function declaredContexts(path: string, text: string): { contexts: Map<string, Req[]>; projectName?: string } {
  const doc = parseToml(path, text);
  const contexts = new Map<string, Req[]>();
  const add = (context: string, reqs: Req[]) => contexts.set(context, [...(contexts.get(context) ?? []), ...reqs]);
  const project = optionalTable(path, doc, 'project', '');
  const poetry = isObject(doc.tool) ? optionalTable(path, doc.tool, 'poetry', 'tool') : undefined;
  if (project) {
    if (project.dependencies !== undefined) add('main', pep508List(path, project.dependencies, 'project.dependencies'));
    for (const [x, list] of Object.entries(optionalTable(path, project, 'optional-dependencies', 'project') ?? {}))
      add(`extra:${normalize(x)}`, pep508List(path, list, `project.optional-dependencies.${x}`));
  }
  if (poetry) {
    // Poetry installs an optional main dependency only through an extra that names it.
    if (poetry.dependencies !== undefined)
      add('main', poetryTable(path, poetry.dependencies, 'tool.poetry.dependencies', true));
    const all = poetryTable(path, poetry.dependencies, 'tool.poetry.dependencies');
    for (const [x, names] of Object.entries(optionalTable(path, poetry, 'extras', 'tool.poetry') ?? {})) {
      const wanted = new Set(pep508List(path, names, `tool.poetry.extras.${x}`).map((r) => r.name));
      add(
        `extra:${normalize(x)}`,
        all.filter((r) => wanted.has(r.name)),
      );
    }
    if (poetry['dev-dependencies'] !== undefined)
      add('dev', poetryTable(path, poetry['dev-dependencies'], 'tool.poetry.dev-dependencies'));
    for (const [g, table] of Object.entries(optionalTable(path, poetry, 'group', 'tool.poetry') ?? {})) {
      if (!isObject(table)) throw inputError(path, `tool.poetry.group.${g} must be a table`);
      if (table.dependencies !== undefined)
        add(g, poetryTable(path, table.dependencies, `tool.poetry.group.${g}.dependencies`));
    }
  }
  const name = project?.name ?? poetry?.name;
  return { contexts, ...(typeof name === 'string' && name !== '' ? { projectName: name } : {}) };
}

/**
 * Without declarations, each group's root depends on the packages of that group that no other package of the same
 * group needs: Poetry puts a package in a group when that group's requirements reach it, so those are the group's
 * top-level requirements (or what they asked for beyond them, which is the same set of vertices). A cycle with no
 * way in gets its first member (by id) as a direct dependency, so every package of a group is in its resolution.
 */
function inferRoots(pkgs: LockPackage[]): Map<string, Dep[]> {
  const byKey = new Map(pkgs.map((p) => [p.entry.key, p]));
  const groups = new Map<string, LockPackage[]>();
  for (const p of pkgs) for (const g of p.groups ?? ['main']) groups.set(g, [...(groups.get(g) ?? []), p]);
  const out = new Map<string, Dep[]>();
  for (const [g, members] of groups) {
    const inGroup = new Set(members.map((p) => p.entry.key));
    const needed = new Set<string>();
    for (const p of members) for (const t of outKeys(p, byKey)) if (t !== p.entry.key && inGroup.has(t)) needed.add(t);
    const direct = members.filter((p) => !needed.has(p.entry.key)).map((p) => p.entry.key);
    const seen = new Set<string>();
    const walk = (k: string) => {
      const stack = [k];
      while (stack.length) {
        const x = stack.pop()!;
        if (seen.has(x)) continue;
        seen.add(x);
        stack.push(...outKeys(byKey.get(x)!, byKey));
      }
    };
    direct.forEach(walk);
    for (const p of [...members].sort((a, b) => byCodeUnit(a.entry.key, b.entry.key)))
      if (!seen.has(p.entry.key)) (direct.push(p.entry.key), walk(p.entry.key));
    out.set(
      g,
      direct.sort(byCodeUnit).map((key) => ({ key, extras: [] })),
    );
  }
  return out;
}

/** Everything a package can lead to: its dependencies and the packages of the extras it asks of them. */
function outKeys(p: LockPackage, byKey: Map<string, LockPackage>): string[] {
  const out: string[] = [];
  for (const d of p.entry.deps) {
    out.push(d.key);
    for (const x of d.extras) for (const e of byKey.get(d.key)!.entry.extras.get(x) ?? []) out.push(e.key);
  }
  return out;
}

/** Context order: main first, then groups, then extras, each by name. */
const contextOrder = (a: string, b: string) =>
  a === 'main'
    ? -1
    : b === 'main'
      ? 1
      : a.startsWith('extra:') !== b.startsWith('extra:')
        ? a.startsWith('extra:')
          ? 1
          : -1
        : byCodeUnit(a, b);

function produce(input: LockfileInput): ProducedPart {
  const file = input.path;
  const lock = parseToml(file, withoutHashLists(input.text, 'files'));
  const meta = lock.metadata;
  if (!isObject(meta)) throw inputError(file, 'not a poetry.lock (no [metadata] table)');
  const lockVersion = stringField(file, meta, 'lock-version', 'metadata');
  if (lockVersion !== undefined && !/^[12]\./.test(lockVersion))
    throw inputError(file, `lock-version ${JSON.stringify(lockVersion)} is not supported (1.x and 2.x are)`);
  const pkgs = readPackages(file, lock);
  const warnings: string[] = [];

  // Requirements by name → entries: every locked version of the name (see the header); unknown names are skipped.
  const byName = new Map<string, string[]>();
  for (const p of pkgs) {
    const keys = byName.get(p.name) ?? [];
    if (keys.includes(p.entry.key)) throw inputError(file, `package ${p.entry.key} is listed twice`);
    byName.set(p.name, [...keys, p.entry.key]);
  }
  const resolve = (reqs: Req[]): Dep[] =>
    reqs.flatMap((r) => (byName.get(r.name) ?? []).map((key) => ({ key, extras: r.extras })));
  for (const p of pkgs) {
    p.entry.deps = resolve(p.reqs);
    for (const [x, reqs] of p.extraReqs) p.entry.extras.set(x, resolve(reqs));
  }

  const dir = lockDir(file);
  const manifest = posix.join(dir, 'pyproject.toml');
  const pyproject = input.readFile(manifest);
  const declared = pyproject === undefined ? undefined : declaredContexts(manifest, pyproject);
  let contexts: Map<string, Dep[]>;
  if (declared && declared.contexts.size > 0) {
    contexts = new Map([...declared.contexts].map(([c, reqs]) => [c, resolve(reqs)]));
  } else {
    contexts = inferRoots(pkgs);
    const from = pkgs.some((p) => p.groups !== undefined)
      ? "the lock's groups"
      : 'the lock alone (it records no groups: one "main" context)';
    if (pkgs.length > 0)
      warnings.push(
        `${manifest} ${pyproject === undefined ? 'not found' : 'declares no dependencies'}: contexts from ${from}, each with the packages of the group that no other package of it needs as direct dependencies`,
      );
  }

  const entries = new Map<string, GraphEntry>(pkgs.map((p) => [p.entry.key, p.entry]));
  entries.set(MODULE_KEY, { key: MODULE_KEY, module: dir, deps: [], extras: new Map() });
  // A context whose requirements the lock does not list at all (markers excluded them everywhere) resolves nothing.
  const specs: RootSpec[] = [...contexts.keys()]
    .filter((c) => contexts.get(c)!.length > 0)
    .sort(contextOrder)
    .map((context) => ({ module: dir, manifest, context, start: MODULE_KEY, direct: contexts.get(context)! }));
  const { roots, nodes, unreached } = buildGraph(entries, specs);
  if (unreached.length > 0)
    warnings.push(
      `${unreached.length} locked ${unreached.length === 1 ? 'package is' : 'packages are'} not needed by any dependency group and left out: ${someOf(unreached)}`,
    );

  const lines = packageHeaderLines(input.text);
  const locations: Record<string, PackageLocation> = {};
  for (const n of nodes) {
    const line = lines.get(n.id);
    locations[n.id] = line === undefined ? { file } : { file, line };
  }
  return {
    ecosystem: 'python',
    schemaVersion: 2,
    manifests: [file, manifest],
    modules: [{ path: dir, manifest, dependencies: [] }],
    roots,
    nodes,
    locations,
    warnings,
    ...(declared?.projectName ? { projectName: declared.projectName } : {}),
  };
}

export const poetryLockProducer: Producer = {
  format: 'poetry.lock',
  matches: (fileName) => fileName === 'poetry.lock',
  produce,
};
