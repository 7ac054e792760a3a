// yarn.lock v1 (yarn 1, "classic") → the graph yarn-graph.ts turns into a part. An entry's keys are the `name@range`
// requests it satisfies, so a dependency `name: range` (of a package or a workspace manifest) leads to the entry
// keyed `name@range`. Workspaces are not in the lockfile at all: a request no entry satisfies whose name is a
// workspace's is that workspace (yarn 1 links a workspace whenever its version satisfies the range; a registry copy
// it fetched instead has an entry). Local folders (`file:`, `link:`) are first-party: neither nodes nor modules.
import { lockDir, manifestOf, modulePath, someOf } from './npm-common';
import type { LockfileInput } from './types';
import { YARN_SECTIONS, type Edge, type Item, type ModuleItem, type YarnGraph } from './yarn-graph';
import { expandWorkspaces, readManifest, type Manifest } from './yarn-manifest';
import { parseV1 } from './yarn-v1-parse';

/** The name part of `name@range` (a scoped name starts with its own @). */
export const nameOfKey = (key: string): string => {
  const at = key.indexOf('@', 1);
  return at === -1 ? key : key.slice(0, at);
};

/** A local folder, not a package: `file:../x`, `link:x` (a `file:` tarball is a package). */
const isLocalFolder = (range: string) =>
  range.startsWith('link:') || (range.startsWith('file:') && !/\.(tgz|tar|tar\.gz)$/.test(range));

export const emptySections = (): ModuleItem['sections'] => ({
  dependencies: { declared: 0, edges: [] },
  devDependencies: { declared: 0, edges: [] },
  optionalDependencies: { declared: 0, edges: [] },
});

export function graphV1(input: LockfileInput): YarnGraph {
  const file = input.path;
  const entries = parseV1(file, input.text);
  const dir = lockDir(file);
  const warnings: string[] = [];
  const items: Item[] = [];
  const index = new Map<string, number>(); // key → item, -1 for a local folder
  const noVersion: string[] = [];
  const itemOf: number[] = []; // entry → its item (-1: none), since a key repeated in a later entry is not its own
  for (const e of entries) {
    const first = e.keys[0];
    const name = nameOfKey(first);
    const range = first.slice(name.length + 1);
    let target = -1;
    if (isLocalFolder(range)) target = -1;
    else if (!e.version) noVersion.push(first);
    else {
      // An alias key (`even@npm:is-even@^1.0.0`) is the real package to advisories.
      const real = range.startsWith('npm:') ? nameOfKey(range.slice(4)) : name;
      target = items.push({ kind: 'package', id: `${real}@${e.version}`, line: e.line, runtime: [], peers: [] }) - 1;
    }
    for (const k of e.keys) if (!index.has(k)) index.set(k, target);
    itemOf.push(target);
  }
  if (noVersion.length > 0) warnings.push(`entries without a version are left out: ${someOf(noVersion)}`);

  // Modules: the project, then the workspaces its manifest names.
  const root = readManifest(input, manifestOf(dir, '.'));
  const manifests: Array<[string, Manifest | undefined]> = [['.', root]];
  if (root)
    for (const f of expandWorkspaces(input, dir, root.workspaces, warnings))
      manifests.push([f, readManifest(input, manifestOf(dir, f))]);
  else
    warnings.push(
      `${manifestOf(dir, '.')} is missing: every package no other package needs is taken as a dependency of the project`,
    );
  const byName = new Map<string, number>();
  const moduleAt: Array<[number, Manifest | undefined]> = [];
  for (const [folder, m] of manifests) {
    const i =
      items.push({
        kind: 'module',
        path: modulePath(dir, folder),
        manifest: manifestOf(dir, folder),
        sections: emptySections(),
        peers: [],
      }) - 1;
    if (m?.name !== undefined && !byName.has(m.name)) byName.set(m.name, i);
    moduleAt.push([i, m]);
  }

  const missing: string[] = [];
  const resolve = (name: string, range: string, out: Edge[]) => {
    const key = `${name}@${range}`;
    const t = index.get(key) ?? byName.get(name);
    if (t === undefined) missing.push(key);
    else if (t !== -1) out.push([name, t]);
  };
  const needed = new Uint8Array(items.length);
  entries.forEach((e, n) => {
    const item = items[itemOf[n]];
    if (item?.kind !== 'package') return;
    for (const [n, r] of [...e.dependencies, ...e.optionalDependencies]) resolve(n, r, item.runtime);
    for (const [, t] of item.runtime) needed[t] = 1;
  });
  for (const [i, m] of moduleAt) {
    const item = items[i] as ModuleItem;
    if (m) {
      for (const s of YARN_SECTIONS) {
        item.sections[s].declared = m.sections[s].length;
        for (const [n, r] of m.sections[s]) resolve(n, r, item.sections[s].edges);
      }
    } else {
      // No manifest: the lockfile's top-level packages (those nothing else needs) are the best guess at its own.
      const tops = items.flatMap((it, t): Edge[] => (it.kind === 'package' && !needed[t] ? [[it.id, t]] : []));
      item.sections.dependencies = { declared: tops.length, edges: tops };
    }
  }
  if (missing.length > 0)
    warnings.push(
      `requests the lockfile has no entry for (is it up to date?) are left out: ${someOf([...new Set(missing)])}`,
    );
  return { file, items, warnings, ...(root?.name ? { projectName: root.name } : {}) };
}
