// pnpm-lock.yaml (lockfileVersion 6.x and 9.0) → a schemaVersion 2 part. pnpm records the resolved graph itself:
// every importer (the project and its workspace members) lists the instance each dependency resolved to, and every
// instance ("snapshot") lists its own; nothing is derived from a node_modules layout. pnpm-read.ts reads the file
// into that shape; this file builds modules, roots and nodes from it.
//
// Peer variants: pnpm installs a package once per set of peers it resolved with ("a@1.0.0(react@18.3.1)" and
// "a@1.0.0(react@19.1.0)"). They are one node (a@1.0.0) but separate vertices, so a resolution keeps which react each
// consumer got. Links ("link:../lib") lead to workspace members, which are modules, never nodes.
import { posix } from 'node:path';
import type { SnapshotNode, SnapshotRoot, SnapshotVertex } from '../../shared/types';
import { byCodeUnit, inputError, isObject, lockDir, manifestOf, modulePath, someOf, sortedUnique } from './npm-common';
import {
  PNPM_RUNTIME,
  PNPM_SECTIONS,
  baseKey,
  packageLines,
  parseYaml,
  readLock,
  type PnpmSection,
  type Ref,
} from './pnpm-read';
import type { LockfileInput, PackageLocation, ProducedPart, Producer } from './types';

/** The lockfile versions this producer reads: 6.x (pnpm 8) and 9.0 (pnpm 9 and 10). */
function majorOf(file: string, v: unknown): 6 | 9 {
  if (v === '9.0') return 9;
  if (typeof v === 'string' && /^6\.\d+$/.test(v)) return 6;
  throw inputError(
    file,
    v === undefined
      ? 'no lockfileVersion (6.x and 9.0 are supported)'
      : `lockfileVersion ${JSON.stringify(v)} is not supported (6.x and 9.0 are)`,
  );
}

function produce(input: LockfileInput): ProducedPart {
  const file = input.path;
  const doc = parseYaml(file, input.text);
  if (!isObject(doc)) throw inputError(file, 'not a pnpm-lock.yaml (the top level is not a mapping)');
  const lock = readLock(file, doc, majorOf(file, doc.lockfileVersion));
  const warnings: string[] = [];
  const dir = lockDir(file);

  // Vertex targets are numbers: snapshots 0..S-1 in key order, then the importers S..S+M-1.
  const keys = [...lock.snapshots.keys()];
  const snaps = keys.map((k) => lock.snapshots.get(k)!);
  const S = keys.length;
  const snapIndex = new Map<string, number>();
  keys.forEach((k, i) => snapIndex.set(k, i));
  // Importers: the project first, then the others by path (their keys are folders relative to the lockfile's).
  const importers = [...lock.importers].sort((a, b) =>
    a.key === '.' ? -1 : b.key === '.' ? 1 : byCodeUnit(a.key, b.key),
  );
  const importerIndex = new Map<string, number>();
  importers.forEach((m, i) => importerIndex.set(posix.normalize(m.key), S + i));
  const paths = importers.map((m) => modulePath(dir, m.key));

  const missing = new Set<string>();
  const dangling = new Set<string>();
  /** A reference from the folder `from` (relative to the lockfile's) → a target number, or -1 (said in a warning). */
  const resolve = (from: string, ref: Ref): number => {
    if (ref.startsWith('link:')) {
      const t = importerIndex.get(posix.normalize(posix.join(from, ref.slice(5))));
      if (t === undefined) dangling.add(`${from} → ${ref}`);
      return t ?? -1;
    }
    const t = snapIndex.get(ref);
    if (t === undefined) missing.add(ref);
    return t ?? -1;
  };
  const targetsOf = (from: string, refs: Iterable<Ref>): number[] => {
    const out = new Set<number>();
    for (const r of refs) {
      const t = resolve(from, r);
      if (t !== -1) out.add(t);
    }
    return [...out];
  };
  const sectionsOf = (m: number, sections: readonly PnpmSection[]) => sections.flatMap((s) => importers[m].sections[s]);
  // What each target needs at runtime, computed once: a snapshot's dependencies and optionalDependencies (a link in
  // a snapshot is relative to the lockfile's folder), a linked workspace member's runtime sections.
  const runtime: Array<number[] | undefined> = new Array(S + importers.length);
  const runtimeOf = (t: number) =>
    (runtime[t] ??=
      t < S ? targetsOf('.', snaps[t].deps) : targetsOf(importers[t - S].key, sectionsOf(t - S, PNPM_RUNTIME)));

  const modules: ProducedPart['modules'] = importers.map((m, i) => {
    const deps = targetsOf(m.key, sectionsOf(i, PNPM_SECTIONS)).filter((t) => t >= S && t !== S + i);
    return {
      path: paths[i],
      manifest: manifestOf(dir, m.key),
      dependencies: sortedUnique(deps.map((t) => paths[t - S])),
    };
  });

  // One resolution per importer and non-empty section: BFS from the module's vertex, one vertex per snapshot key
  // (so per peer variant) and per module. stamp/vertexOf are indexed by target and reused by every root.
  const stamp = new Int32Array(S + importers.length).fill(-1);
  const vertexOf = new Int32Array(S + importers.length);
  const reached = new Uint8Array(S);
  const idStrings: string[] = [];
  const idString = (n: number) => (idStrings[n] ??= String(n));
  const roots: SnapshotRoot[] = [];
  for (let m = 0; m < importers.length; m++) {
    for (const section of PNPM_SECTIONS) {
      const refs = importers[m].sections[section];
      if (refs.length === 0) continue;
      const direct = targetsOf(importers[m].key, refs);
      const r = roots.length;
      const vertices: SnapshotVertex[] = [];
      const queue: number[] = [];
      const vertex = (t: number): string => {
        if (stamp[t] !== r) {
          stamp[t] = r;
          vertexOf[t] = vertices.length;
          const id = idString(vertices.length);
          vertices.push(
            t < S ? { id, node: snaps[t].id, dependencies: [] } : { id, module: paths[t - S], dependencies: [] },
          );
          queue.push(t);
        }
        return idString(vertexOf[t]);
      };
      vertex(S + m);
      queue.length = 0; // the start vertex expands with this section, not with its runtime sections
      vertices[0].dependencies = direct.map(vertex);
      for (let q = 0; q < queue.length; q++) {
        const t = queue[q];
        if (t < S) reached[t] = 1;
        vertices[vertexOf[t]].dependencies = runtimeOf(t).map(vertex);
      }
      roots.push({
        module: paths[m],
        manifest: modules[m].manifest,
        context: section,
        dependencies: sortedUnique(direct.filter((t) => t < S).map((t) => snaps[t].id)),
        resolution: { root: '0', vertices },
      });
    }
  }
  if (missing.size > 0)
    warnings.push(
      `references to packages the lockfile does not describe are left out: ${someOf([...missing].sort(byCodeUnit))}`,
    );
  if (dangling.size > 0)
    warnings.push(
      `links to folders that are not importers of the lockfile are left out: ${someOf([...dangling].sort(byCodeUnit))}`,
    );

  // Nodes: once per name@version over the snapshots some resolution reached (their targets are reached too, so no
  // dependency dangles). Packages no root reaches would break the rule that every package occurs in some resolution:
  // left out, and said so.
  const directIds = new Set(roots.flatMap((r) => r.dependencies));
  const nodeDeps = new Map<string, Set<string>>();
  const firstKey = new Map<string, string>();
  for (let t = 0; t < S; t++) {
    if (!reached[t]) continue;
    const id = snaps[t].id;
    if (!firstKey.has(id)) firstKey.set(id, keys[t]);
    let deps = nodeDeps.get(id);
    if (!deps) nodeDeps.set(id, (deps = new Set()));
    for (const d of runtimeOf(t)) if (d < S) deps.add(snaps[d].id);
  }
  const unreached = [...lock.packageIds].filter((id) => !nodeDeps.has(id)).sort(byCodeUnit);
  if (unreached.length > 0) {
    warnings.push(
      `${unreached.length} ${unreached.length === 1 ? 'package is' : 'packages are'} not needed by any importer section and left out: ${someOf(unreached)}`,
    );
  }
  const nodes: SnapshotNode[] = [...nodeDeps.keys()].sort(byCodeUnit).map((id) => {
    const at = id.indexOf('@', 1);
    return {
      id,
      name: id.slice(0, at),
      version: id.slice(at + 1),
      relationship: directIds.has(id) ? 'direct' : 'transitive',
      dependencies: sortedUnique(nodeDeps.get(id)!),
    };
  });

  // The line of the package's `packages:` entry: v9 keys it name@version, v6 by the full (peer-suffixed) key.
  const lines = packageLines(input.text);
  const locations: Record<string, PackageLocation> = {};
  for (const n of nodes) {
    const key = firstKey.get(n.id)!;
    const line = lines.get(key) ?? lines.get(baseKey(key));
    locations[n.id] = line === undefined ? { file } : { file, line };
  }

  const projectName = nameOf(input.readFile(manifestOf(dir, '.')));
  return {
    ecosystem: 'javascript',
    schemaVersion: 2,
    manifests: [file, ...modules.map((m) => m.manifest)],
    modules,
    roots,
    nodes,
    locations,
    warnings,
    ...(projectName ? { projectName } : {}),
  };
}

/** The name of the root package.json, which pnpm does not copy into its lockfile; nothing when it is unreadable. */
function nameOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    const pkg: unknown = JSON.parse(text);
    return isObject(pkg) && typeof pkg.name === 'string' && pkg.name !== '' ? pkg.name : undefined;
  } catch {
    return undefined;
  }
}

export const pnpmLockProducer: Producer = {
  format: 'pnpm-lock.yaml',
  matches: (fileName) => fileName === 'pnpm-lock.yaml',
  produce,
};
