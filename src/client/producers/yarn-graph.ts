// The part both yarn formats make, from a graph they have already resolved (yarn-lock.ts does the format-specific
// work: which entry a dependency names). Items are third-party packages (one per lockfile entry: two entries can be
// one name@version, a patched copy beside its original) and workspaces (modules). Everything the snapshot format asks
// of a v2 part is decided here: one root per module and non-empty manifest section, a BFS resolution per root, nodes
// once per name@version over what some resolution reached, direct = referenced by a root.
//
// Peer dependencies (berry): yarn installs a package with peers once per consumer ("virtual" instances), the peer
// being whatever that consumer itself depends on. So a peer edge is resolved from the vertex that reached the
// package, and a package with peers gets one vertex per distinct set of resolved peers: separate vertices for one
// package, as v2 allows when different variants expose different dependencies.
import type { SnapshotModule, SnapshotNode, SnapshotRoot, SnapshotVertex } from '../../shared/types';
import { byCodeUnit, someOf, sortedUnique } from './npm-common';
import type { PackageLocation, ProducedPart } from './types';

/** The manifest sections yarn resolves for a workspace; each non-empty one becomes a root context. */
export const YARN_SECTIONS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;
export type YarnSection = (typeof YARN_SECTIONS)[number];

/** A dependency as resolved: its name and the item it leads to. */
export type Edge = [name: string, target: number];

export interface PackageItem {
  kind: 'package';
  /** name@version, under the real name of an alias. */
  id: string;
  /** Header line of its lockfile entry (1-based), for locations; 0 when unknown. */
  line: number;
  /** dependencies and optionalDependencies: what it needs wherever it is installed. */
  runtime: Edge[];
  /** Peer dependency names, resolved per consumer. */
  peers: string[];
}

export interface ModuleItem {
  kind: 'module';
  path: string;
  manifest: string;
  /** Per manifest section: the declared names (a section with declarations is a root even if none resolved)
   *  and the edges of those that resolved. */
  sections: Record<YarnSection, { declared: number; edges: Edge[] }>;
  peers: string[];
}

export type Item = PackageItem | ModuleItem;

export interface YarnGraph {
  file: string;
  items: Item[];
  warnings: string[];
  projectName?: string;
}

const runtimeOf = (item: Item): Edge[] =>
  item.kind === 'package'
    ? item.runtime
    : [...item.sections.dependencies.edges, ...item.sections.optionalDependencies.edges];

interface Vertex {
  item: number;
  /** Resolved peers of this instance: name → item. */
  peers?: Map<string, number>;
}

export function buildPart(g: YarnGraph): ProducedPart {
  const { items, file } = g;
  const warnings = [...g.warnings];
  // What each item can hand to a peer-dependent child: its own dependencies by name (a workspace: every section).
  const scopes: Array<Map<string, number> | undefined> = new Array(items.length);
  const scopeOf = (i: number) => {
    const item = items[i];
    return (scopes[i] ??= new Map(
      item.kind === 'package' ? item.runtime : YARN_SECTIONS.flatMap((s) => item.sections[s].edges),
    ));
  };

  const moduleIdx = items.flatMap((it, i) => (it.kind === 'module' ? [i] : []));
  const pathOf = (i: number) => (items[i] as ModuleItem).path;
  moduleIdx.sort((a, b) =>
    pathOf(a) === pathOf(b) ? 0 : pathOf(a) === '.' ? -1 : pathOf(b) === '.' ? 1 : byCodeUnit(pathOf(a), pathOf(b)),
  );
  const modules: ProducedPart['modules'] = moduleIdx.map((i) => {
    const m = items[i] as ModuleItem;
    const deps = YARN_SECTIONS.flatMap((s) => m.sections[s].edges.map((e) => e[1])).filter(
      (t) => t !== i && items[t].kind === 'module',
    );
    return {
      path: m.path,
      manifest: m.manifest,
      dependencies: sortedUnique(deps.map(pathOf)),
    } satisfies SnapshotModule & { manifest: string };
  });

  // Per-root vertex lookup: peerless items through stamp/vertexOf (indexed by item, reused by every root), items
  // with peers through a map keyed by item and resolved peers.
  const stamp = new Int32Array(items.length).fill(-1);
  const vertexOf = new Int32Array(items.length);
  const nodeDeps = new Map<string, Set<string>>();
  const idStrings: string[] = [];
  const idString = (n: number) => (idStrings[n] ??= String(n));
  const roots: SnapshotRoot[] = [];

  for (const start of moduleIdx) {
    const m = items[start] as ModuleItem;
    for (const section of YARN_SECTIONS) {
      if (m.sections[section].declared === 0) continue;
      const r = roots.length;
      const vertices: SnapshotVertex[] = [];
      const info: Vertex[] = [];
      const keyed = new Map<string, number>();
      const queue: number[] = [];
      /** The vertex for item i reached from vertex `from` (whose scope resolves i's peers). */
      const vertex = (i: number, from: number): string => {
        const item = items[i];
        let peers: Map<string, number> | undefined;
        if (item.peers.length > 0) {
          peers = new Map();
          const own = scopeOf(i);
          for (const p of item.peers) {
            if (own.has(p)) continue; // its own dependency of that name wins
            const t = scopeOf(info[from].item).get(p) ?? info[from].peers?.get(p);
            if (t !== undefined) peers.set(p, t);
          }
          const key = `${i}|${[...peers].map(([p, t]) => `${p}=${t}`).join(',')}`;
          const v = keyed.get(key);
          if (v !== undefined) return idString(v);
          keyed.set(key, vertices.length);
        } else if (stamp[i] === r) {
          return idString(vertexOf[i]);
        } else {
          stamp[i] = r;
          vertexOf[i] = vertices.length;
        }
        const id = idString(vertices.length);
        vertices.push(
          item.kind === 'package'
            ? { id, node: item.id, dependencies: [] }
            : { id, module: item.path, dependencies: [] },
        );
        info.push({ item: i, peers });
        queue.push(vertices.length - 1);
        return id;
      };
      stamp[start] = r;
      vertexOf[start] = 0;
      vertices.push({ id: '0', module: m.path, dependencies: [] });
      info.push({ item: start });
      // The start vertex expands with this section only; a module reached later expands with its runtime sections.
      const direct = m.sections[section].edges.map((e) => e[1]);
      vertices[0].dependencies = [...new Set(direct.map((t) => vertex(t, 0)))];
      for (let q = 0; q < queue.length; q++) {
        const v = queue[q];
        const { item: i, peers } = info[v];
        const item = items[i];
        const targets = runtimeOf(item).map((e) => e[1]);
        if (peers) targets.push(...peers.values());
        const deps = new Set<string>();
        for (const t of targets) deps.add(vertex(t, v));
        vertices[v].dependencies = [...deps];
        if (item.kind === 'package') {
          let ids = nodeDeps.get(item.id);
          if (!ids) nodeDeps.set(item.id, (ids = new Set()));
          for (const t of targets) {
            const ti = items[t];
            if (ti.kind === 'package' && ti.id !== item.id) ids.add(ti.id);
          }
        }
      }
      roots.push({
        module: m.path,
        manifest: m.manifest,
        context: section,
        dependencies: sortedUnique(
          direct.flatMap((t) => {
            const ti = items[t];
            return ti.kind === 'package' ? [ti.id] : [];
          }),
        ),
        resolution: { root: '0', vertices },
      });
    }
  }

  // Unreached is decided per name@version: a patched copy reaches its id even when the original entry is not used.
  const unreached = sortedUnique(items.flatMap((it) => (it.kind === 'package' && !nodeDeps.has(it.id) ? [it.id] : [])));
  if (unreached.length > 0) {
    warnings.push(
      `${unreached.length} ${unreached.length === 1 ? 'package is' : 'packages are'} not needed by any package.json section and left out: ${someOf(unreached)}`,
    );
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

  // The first entry of an id in the file is where a report points.
  const locations: Record<string, PackageLocation> = {};
  for (const n of nodes) locations[n.id] = { file };
  for (const it of items) {
    if (it.kind !== 'package' || it.line <= 0 || !nodeDeps.has(it.id)) continue;
    const l = locations[it.id];
    if (l.line === undefined || it.line < l.line) l.line = it.line;
  }
  return {
    ecosystem: 'javascript',
    schemaVersion: 2,
    manifests: [file, ...modules.map((m) => m.manifest)],
    modules,
    roots,
    nodes,
    locations,
    warnings,
    ...(g.projectName ? { projectName: g.projectName } : {}),
  };
}
