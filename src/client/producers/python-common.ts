// Helpers shared by the Python producers (poetry-lock.ts, uv-lock.ts, requirements-txt.ts): PEP 503 names, TOML
// reading that ends in an InputError, PEP 508 requirement names, the `[[package]]` header lines, and the graph
// builder both TOML lockfiles use. Like npm-common.ts, every field read from the (untrusted) file is checked here
// or by the caller before it is used, so a malformed file is an InputError naming it, never a TypeError.
import { parse } from 'smol-toml';
import type { SnapshotNode, SnapshotRoot, SnapshotVertex } from '../../shared/types';
import { byCodeUnit, inputError, isObject, sortedUnique, type Obj } from './npm-common';

export { byCodeUnit, inputError, isObject, sortedUnique, someOf, lockDir, type Obj } from './npm-common';

/** PEP 503 normalised name: lowercase, every run of -, _ and . one "-". Ids and edges use it, so that
 *  "typing_extensions", "Typing-Extensions" and "typing.extensions" are one package, as pip sees them. */
export const normalize = (name: string): string => name.replace(/[-_.]+/g, '-').toLowerCase();

/**
 * The text with the per-file hash lists (Poetry's `files = [...]`, uv's `wheels = [...]`) emptied: they are most of a
 * lockfile's bytes (200 KB of the Poetry project's 78-package lock is 80% hashes) and no producer reads them, while
 * parsing them is most of the cold run. Only the exact shape both tools write is touched: the key at the start of a
 * line, then lines that are one inline table each (TOML 1.0 inline tables cannot span lines), then `]`; the removed
 * lines become empty lines, so the parser's line numbers stay right. Anything else is left for the parser.
 */
export function withoutHashLists(text: string, key: 'files' | 'wheels'): string {
  const open = `\n${key} = [\n`;
  let out = '';
  let from = 0;
  for (let at = text.indexOf(open); at !== -1; at = text.indexOf(open, at + 1)) {
    if (at < from) continue;
    let pos = at + open.length;
    let lines = 0;
    for (;;) {
      const end = text.indexOf('\n', pos);
      if (end === -1) break;
      let line = text.slice(pos, end);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === ']') {
        out += `${text.slice(from, at)}\n${key} = []${'\n'.repeat(lines + 1)}`;
        from = end;
        break;
      }
      const t = line.trim();
      if (!(t.startsWith('{') && (t.endsWith('}') || t.endsWith('},')))) break;
      lines++;
      pos = end + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/** The text as TOML; InputError (with the parser's line and column) when it is not. */
export function parseToml(file: string, text: string): Obj {
  try {
    return parse(text) as Obj;
  } catch (err) {
    throw inputError(file, `not valid TOML (${(err as Error).message.split('\n')[0]})`);
  }
}

/** A PEP 508 requirement's name and extras: "coverage[toml] (>=7) ; python_version < '3.11'" → coverage, [toml].
 *  undefined when the string does not start with a name (a URL, an option). */
export function requirementName(req: string): { name: string; extras: string[] } | undefined {
  const m = /^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[([^\]]*)\])?/.exec(req);
  if (!m) return undefined;
  const extras = (m[2] ?? '')
    .split(',')
    .map((e) => normalize(e.trim()))
    .filter((e) => e !== '');
  return { name: normalize(m[1]), extras };
}

/** A string field of a TOML table; InputError when it is absent (and required) or not a string. */
export function stringField(file: string, o: Obj, field: string, where: string, required: true): string;
export function stringField(file: string, o: Obj, field: string, where: string, required?: boolean): string | undefined;
export function stringField(file: string, o: Obj, field: string, where: string, required = false): string | undefined {
  const v = o[field];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || (required && v === ''))
    throw inputError(file, `${where}.${field} must be a${required ? ' non-empty' : ''} string`);
  return v;
}

/**
 * Line numbers of `[[package]]` tables: one pass over the text, no TOML positions needed. Both Poetry and uv write
 * `name = "..."` and `version = "..."` as the first keys after the header, so the header's line is recorded under
 * the id normalised-name@version; the first header wins (uv may list a name twice, at different versions).
 */
export function packageHeaderLines(text: string): Map<string, number> {
  const out = new Map<string, number>();
  const lines = text.split('\n');
  let header = 0;
  let name: string | undefined;
  let version: string | undefined;
  const flush = () => {
    if (header > 0 && name !== undefined && version !== undefined) {
      const id = `${normalize(name)}@${version}`;
      if (!out.has(id)) out.set(id, header);
    }
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.startsWith('[')) {
      if (l.trimEnd() === '[[package]]') {
        flush();
        header = i + 1;
        name = version = undefined;
      } else if (!l.startsWith('[package.')) {
        flush();
        header = 0;
      }
      continue;
    }
    if (header === 0) continue;
    const m = /^(name|version)\s*=\s*"([^"\\]*)"/.exec(l);
    if (m && m[1] === 'name' && name === undefined) name = m[2];
    else if (m && m[1] === 'version' && version === undefined) version = m[2];
  }
  flush();
  return out;
}

// ------------------------------------------------------------------------------------------- graph builder --

/** A dependency as a lockfile records it: the key of the entry it resolves to, and the extras it asks for. */
export interface Dep {
  key: string;
  extras: string[];
}

/** A lockfile entry: a third-party package (id set) or a first-party module (module set). */
export interface GraphEntry {
  key: string;
  /** name@version with the normalised name, for packages. */
  id?: string;
  module?: string;
  /** What the entry needs whatever extras are asked for (for a module: its runtime dependencies). */
  deps: Dep[];
  /** What each extra adds (extra names normalised). */
  extras: Map<string, Dep[]>;
}

/** One root to build: its module's entry key and the dependencies of its context. */
export interface RootSpec {
  module: string;
  manifest: string;
  context: string;
  start: string;
  direct: Dep[];
}

/**
 * One resolution per RootSpec (a BFS from the module's vertex), then the nodes every resolution reached. A package
 * asked for with extras that add dependencies is a separate vertex of the same node (a variant), so that
 * the extra's packages hang from the consumers that asked for it only. Entries no root reaches are not nodes: their
 * keys come back in `unreached` for the caller's warning (every package must occur in some resolution).
 */
export function buildGraph(
  entries: Map<string, GraphEntry>,
  specs: RootSpec[],
): { roots: SnapshotRoot[]; nodes: SnapshotNode[]; unreached: string[] } {
  const reached = new Set<string>();
  const nodeDeps = new Map<string, Set<string>>();
  // The dependencies of a variant (entry + extras), resolved once: extras that add nothing collapse to the base.
  const variants = new Map<string, { entry: GraphEntry; vkey: string; deps: Dep[] }>();
  const variantOf = (d: Dep) => {
    const entry = entries.get(d.key)!;
    const extras = sortedUnique(d.extras.filter((x) => entry.extras.has(x)));
    const full = extras.length === 0 ? d.key : `${d.key}[${extras.join(',')}]`;
    let v = variants.get(full);
    if (v) return v;
    const deps = [...entry.deps];
    const seen = new Set(deps.map(depKey));
    for (const x of extras)
      for (const e of entry.extras.get(x)!) if (!seen.has(depKey(e))) (seen.add(depKey(e)), deps.push(e));
    v = { entry, vkey: deps.length === entry.deps.length ? d.key : full, deps };
    variants.set(full, v);
    return v;
  };
  const roots: SnapshotRoot[] = [];
  for (const spec of specs) {
    const vertices: SnapshotVertex[] = [];
    const ids = new Map<string, string>();
    const queue: Array<{ vid: string; deps: Dep[] }> = [];
    const vertex = (d: Dep): string => {
      const v = variantOf(d);
      let vid = ids.get(v.vkey);
      if (vid === undefined) {
        vid = String(vertices.length);
        ids.set(v.vkey, vid);
        vertices.push(
          v.entry.id !== undefined
            ? { id: vid, node: v.entry.id, dependencies: [] }
            : { id: vid, module: v.entry.module!, dependencies: [] },
        );
        queue.push({ vid, deps: v.deps });
        if (v.entry.id !== undefined) {
          reached.add(v.entry.key);
          let nd = nodeDeps.get(v.entry.id);
          if (!nd) nodeDeps.set(v.entry.id, (nd = new Set()));
          for (const t of v.deps) {
            const id = entries.get(t.key)!.id;
            if (id !== undefined && id !== v.entry.id) nd.add(id);
          }
        }
      }
      return vid;
    };
    // The start vertex expands with its context's dependencies, not with its own runtime ones.
    vertices.push({ id: '0', module: spec.module, dependencies: [] });
    ids.set(spec.start, '0');
    vertices[0].dependencies = unique(spec.direct.map(vertex));
    for (let q = 0; q < queue.length; q++)
      vertices[Number(queue[q].vid)].dependencies = unique(queue[q].deps.map(vertex));
    const direct = spec.direct.map((d) => entries.get(d.key)!.id).filter((id): id is string => id !== undefined);
    roots.push({
      module: spec.module,
      manifest: spec.manifest,
      context: spec.context,
      dependencies: sortedUnique(direct),
      resolution: { root: '0', vertices },
    });
  }
  const directIds = new Set(roots.flatMap((r) => r.dependencies));
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
  const unreached = [...entries.values()].filter((e) => e.id !== undefined && !reached.has(e.key)).map((e) => e.id!);
  return { roots, nodes, unreached: sortedUnique(unreached) };
}

const depKey = (d: Dep) => `${d.key}[${[...d.extras].sort(byCodeUnit).join(',')}]`;
const unique = (xs: string[]) => [...new Set(xs)];

/** A value that must be a table when present. */
export function optionalTable(file: string, o: Obj, field: string, where: string): Obj | undefined {
  const v = o[field];
  if (v === undefined) return undefined;
  if (!isObject(v)) throw inputError(file, `${where}.${field} must be a table`);
  return v;
}
