// yarn.lock of yarn 2+ ("berry") → the graph yarn-graph.ts turns into a part. The file is YAML: `__metadata`, then
// one entry per resolved package (a locator), keyed by the descriptors it satisfies ("a@npm:^1.0.0, a@npm:^1.2.0"),
// with its `resolution` (the locator), `version`, `dependencies` (name → range: descriptor `name@range`),
// `peerDependencies` and `linkType`. Workspaces are entries too (`name@workspace:path`): they are the modules.
//
// Locators other than npm ones: `virtual:<hash>#<locator>` is one peer context of the package it wraps (the same
// name@version; yarn-graph.ts makes peer contexts separate vertices); `patch:` is a patched copy of a package, the
// same name@version to advisories, its own entry and vertex; `link:`/`portal:`/`file:` folders (soft links, or a
// folder copied in) are first-party: neither nodes nor modules. yarn-syml.ts reads what yarn writes; anything else
// goes to the yaml package, whose failsafe schema keeps every scalar a string (a version 1.10 must not become 1.1).
import { parse } from 'yaml';
import { inputError, isObject, lockDir, manifestOf, modulePath, someOf, type Obj } from './npm-common';
import type { LockfileInput } from './types';
import { YARN_SECTIONS, type Edge, type Item, type ModuleItem, type YarnGraph } from './yarn-graph';
import { readManifest } from './yarn-manifest';
import { parseSyml } from './yarn-syml';
import { emptySections, nameOfKey } from './yarn-v1';

/** `name@virtual:<hash>#npm:1.2.3` → `name@npm:1.2.3`; anything else unchanged. */
export function devirtualize(locator: string): string {
  const name = nameOfKey(locator);
  const ref = locator.slice(name.length + 1);
  if (!ref.startsWith('virtual:')) return locator;
  const hash = ref.indexOf('#');
  return hash === -1 ? locator : `${name}@${ref.slice(hash + 1)}`;
}

/** A descriptor without its `::locator=` binding (yarn binds relative patch and file paths to the workspace). */
const unbound = (d: string) => {
  const i = d.indexOf('::');
  return i === -1 ? d : d.slice(0, i);
};

const isLocalFolder = (ref: string) =>
  ref.startsWith('link:') ||
  ref.startsWith('portal:') ||
  (ref.startsWith('file:') && !/\.(tgz|tar|tar\.gz)(#|::|$)/.test(ref));

/** Header lines of the top-level keys, without a position-tracking parse: a key line starts at column 0. */
function keyLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  let n = 0;
  for (let pos = 0; pos < text.length;) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = text.length;
    n++;
    let line = text.slice(pos, end);
    pos = end + 1;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line === '' || line.charCodeAt(0) === 32 || line.charCodeAt(0) === 35 || !line.endsWith(':')) continue;
    let key = line.slice(0, -1);
    if (key.startsWith('"')) {
      try {
        key = JSON.parse(key) as string;
      } catch {
        continue; // a YAML-only escape: that entry simply has no line
      }
    }
    if (!lines.has(key)) lines.set(key, n);
  }
  return lines;
}

/** A map of name → string, or an empty one; anything else is malformed. */
function stringMap(file: string, raw: Obj, field: string, key: string): Array<[string, string]> {
  const v = raw[field];
  if (v === undefined || v === null) return [];
  if (!isObject(v) || Object.values(v).some((x) => typeof x !== 'string'))
    throw inputError(file, `${JSON.stringify(key)}.${field} must be a map of name → range`);
  return Object.entries(v as Record<string, string>);
}

export function graphBerry(input: LockfileInput): YarnGraph {
  const file = input.path;
  let doc: unknown = parseSyml(input.text);
  if (doc === undefined) {
    try {
      doc = parse(input.text, { schema: 'failsafe', uniqueKeys: true });
    } catch (err) {
      throw inputError(file, `not valid YAML (${(err as Error).message.split('\n')[0]})`);
    }
  }
  if (!isObject(doc) || !isObject(doc.__metadata)) throw inputError(file, 'not a yarn 2+ lockfile (no __metadata)');
  const dir = lockDir(file);
  const warnings: string[] = [];
  const lines = keyLines(input.text);
  const items: Item[] = [];
  const index = new Map<string, number>(); // descriptor → item, -1 for a local folder
  const loose = new Map<string, number>(); // the same, by unbound descriptor
  const modulesByPath = new Map<string, number>();
  const deps: Array<[number, Array<[string, string]>]> = []; // item → its dependencies (name → range)
  const noVersion: string[] = [];
  const keyOf = new Map<number, string>();
  const entries = Object.entries(doc).filter(([k]) => k !== '__metadata');
  // Workspaces first, so that a virtual instance of one (`virtual:<hash>#workspace:path`) finds its module.
  entries.sort(([, a], [, b]) => Number(!isWorkspace(b)) - Number(!isWorkspace(a)));
  for (const [key, raw] of entries) {
    if (!isObject(raw)) throw inputError(file, `${JSON.stringify(key)} must be a map`);
    const resolution = raw.resolution;
    if (typeof resolution !== 'string' || resolution === '')
      throw inputError(file, `${JSON.stringify(key)}.resolution must be a string`);
    const locator = devirtualize(resolution);
    const name = nameOfKey(locator);
    const ref = locator.slice(name.length + 1);
    const peers = stringMap(file, raw, 'peerDependencies', key).map(([n]) => n);
    const dependencies = stringMap(file, raw, 'dependencies', key);
    let target: number;
    if (ref.startsWith('workspace:')) {
      const path = modulePath(dir, ref.slice('workspace:'.length));
      target = modulesByPath.get(path) ?? -2;
      if (target === -2) {
        target =
          items.push({
            kind: 'module',
            path,
            manifest: manifestOf(dir, ref.slice('workspace:'.length)),
            sections: emptySections(),
            peers,
          }) - 1;
        modulesByPath.set(path, target);
        deps.push([target, dependencies]);
        keyOf.set(target, key);
      }
    } else if (raw.linkType === 'soft' || isLocalFolder(ref)) {
      target = -1;
    } else if (typeof raw.version !== 'string' || raw.version === '') {
      noVersion.push(key);
      target = -1;
    } else {
      target =
        items.push({ kind: 'package', id: `${name}@${raw.version}`, line: lines.get(key) ?? 0, runtime: [], peers }) -
        1;
      deps.push([target, dependencies]);
    }
    for (const d of key.split(', ')) {
      if (!index.has(d)) index.set(d, target);
      if (!loose.has(unbound(d))) loose.set(unbound(d), target);
    }
  }
  if (noVersion.length > 0) warnings.push(`entries without a version are left out: ${someOf(noVersion)}`);

  const missing: string[] = [];
  const resolve = (name: string, range: string, out: Edge[]) => {
    const d = `${name}@${range}`;
    // yarn 2 and 3 (lockfile versions up to 6) write npm ranges without their protocol: `a: ^1.0.0` for `a@npm:^1.0.0`.
    const t =
      index.get(d) ??
      loose.get(unbound(d)) ??
      index.get(devirtualize(d)) ??
      (range.includes(':') ? undefined : index.get(`${name}@npm:${range}`));
    if (t === undefined) missing.push(d);
    else if (t !== -1) out.push([name, t]);
  };
  let projectName: string | undefined;
  for (const [i, dependencies] of deps) {
    const item = items[i];
    if (item.kind === 'package') {
      for (const [n, r] of dependencies) resolve(n, r, item.runtime);
      continue;
    }
    const m = readManifest(input, item.manifest);
    if (item.path === modulePath(dir, '.')) projectName = m?.name ?? nameOfKey(keyOf.get(i)!.split(', ')[0]);
    const byName = new Map(dependencies);
    if (!m) {
      // yarn lists a workspace's dependencies and devDependencies together: without its manifest they cannot be told apart.
      warnings.push(`${item.manifest} is missing: its dependencies and devDependencies are all taken as dependencies`);
      item.sections.dependencies.declared = dependencies.length;
      for (const [n, r] of dependencies) resolve(n, r, item.sections.dependencies.edges);
      continue;
    }
    for (const s of YARN_SECTIONS) {
      item.sections[s].declared = m.sections[s].length;
      for (const [n] of m.sections[s]) {
        const r = byName.get(n);
        if (r === undefined) missing.push(`${n} (${s} of ${item.manifest})`);
        else resolve(n, r, item.sections[s].edges);
      }
    }
  }
  if (missing.length > 0)
    warnings.push(
      `requests the lockfile has no entry for (is it up to date?) are left out: ${someOf([...new Set(missing)])}`,
    );
  return { file, items, warnings, ...(projectName ? { projectName } : {}) };
}

function isWorkspace(raw: unknown): boolean {
  return isObject(raw) && typeof raw.resolution === 'string' && devirtualize(raw.resolution).includes('@workspace:');
}
