// The dependency inventory of one scan: one item per package (name@version as the ecosystem compares
// names) with its id, whether a module declares it, and the path a finding of it would show: v1 [manifest, direct
// dependency, ..., package], v2 module paths then package ids, the shortest over all roots, ties element by element.
// One walk over the whole graph (lex-bfs.ts) gives every package's path at once.
import { buildAttributionGraph, type BuiltGraph } from '../attribution/v2-graph';
import { cmpStr } from '../attribution/paths';
import type { Snapshot, SnapshotNode } from '../../shared/types';
import { compareCodePoints, dependencyId } from '../../shared/inventory-ids';
import { before, lexBfs, pathOf, type LexWalk } from './lex-bfs';

/** One package of a scan's inventory, as stored (the API adds project and ecosystem). */
export interface InventoryItem {
  id: string;
  name: string;
  version: string;
  direct: boolean;
  path: string[];
  manifest: string;
}

/** Item order within one scan: name, then version, then id, in code-point order. */
export function compareItems(a: InventoryItem, b: InventoryItem): number {
  return compareCodePoints(a.name, b.name) || compareCodePoints(a.version, b.version) || compareCodePoints(a.id, b.id);
}

/**
 * The inventory of a validated snapshot, sorted. `built`: the v2 graph when the caller has it already (the scan's
 * attribution built it); otherwise it is built here.
 */
export function computeInventory(snapshot: Snapshot, projectId: string, built?: BuiltGraph): InventoryItem[] {
  const items =
    snapshot.schemaVersion === 2
      ? v2Items(snapshot, projectId, built ?? buildAttributionGraph(snapshot))
      : v1Items(snapshot, projectId);
  return items.sort(compareItems);
}

/** The nodes of each package: v1 ids are used as sent, and names differing only as the ecosystem ignores are one. */
function packages(snapshot: Snapshot, projectId: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  snapshot.nodes.forEach((node, i) => {
    const id = dependencyId(projectId, snapshot.ecosystem, node.name, node.version);
    const list = out.get(id);
    if (list) list.push(i);
    else out.set(id, [i]);
  });
  return out;
}

/**
 * For each package, its node with the best path (`vertexOf` gives a node's vertex, -1 when unreached), or its first
 * node when none is reached: the item takes that node's name and version.
 */
function choose(nodes: number[], vertexOf: (node: number) => number, walk: LexWalk): { node: number; vertex: number } {
  let best = { node: nodes[0], vertex: -1 };
  for (const i of nodes) {
    const v = vertexOf(i);
    if (v >= 0 && (best.vertex < 0 || before(walk, v, best.vertex))) best = { node: i, vertex: v };
  }
  return best;
}

const item = (id: string, node: SnapshotNode, direct: boolean, path: string[], manifest: string): InventoryItem => ({
  id,
  name: node.name,
  version: node.version,
  direct,
  path,
  manifest,
});

/**
 * A root's manifest, else the snapshot's first manifest, else the root's module: a v1 path's first element
 * (as findings show it), and a v2 item's manifest for the root whose resolution gives its path.
 */
function manifestOf(snapshot: Snapshot, root: Snapshot['roots'][number]): string {
  return root.manifest || snapshot.manifests?.[0] || root.module;
}

function v1Items(snapshot: Snapshot, projectId: string): InventoryItem[] {
  const nodes = snapshot.nodes;
  const n = nodes.length;
  const index = new Map(nodes.map((node, i) => [node.id, i]));
  // Vertices: the nodes, then one per distinct manifest (the sources), each with an edge to its roots' dependencies.
  const manifests = [...new Set(snapshot.roots.map((r) => manifestOf(snapshot, r)))];
  const manifestVertex = new Map(manifests.map((m, k) => [m, n + k]));
  const labels = [...new Set([...nodes.map((node) => node.id), ...manifests])].sort(cmpStr);
  const labelOf = new Map(labels.map((l, i) => [l, i]));
  const adjacency: number[][] = nodes.map((node) =>
    node.dependencies.map((d) => index.get(d) ?? -1).filter((t) => t >= 0),
  );
  for (let k = 0; k < manifests.length; k++) adjacency.push([]);
  const direct = new Uint8Array(n);
  for (const root of snapshot.roots) {
    const from = adjacency[manifestVertex.get(manifestOf(snapshot, root))!];
    for (const d of root.dependencies) {
      const t = index.get(d);
      if (t === undefined) continue;
      from.push(t);
      direct[t] = 1;
    }
  }
  const label = Int32Array.from([
    ...nodes.map((node) => labelOf.get(node.id)!),
    ...manifests.map((m) => labelOf.get(m)!),
  ]);
  const offsets = new Int32Array(adjacency.length + 1);
  adjacency.forEach((list, v) => (offsets[v + 1] = offsets[v] + list.length));
  const targets = new Int32Array(offsets[adjacency.length]);
  adjacency.forEach((list, v) =>
    targets.set(
      list.sort((a, b) => label[a] - label[b] || a - b),
      offsets[v],
    ),
  );
  const walk = lexBfs(
    { offsets, targets, label },
    Int32Array.from(manifests, (m) => manifestVertex.get(m)!),
  );

  // A package no root reaches still gets a path, as a finding of it would: the first root's manifest, then itself.
  const fallback = snapshot.roots[0]
    ? manifestOf(snapshot, snapshot.roots[0])
    : (snapshot.manifests?.[0] ?? snapshot.project);
  const out: InventoryItem[] = [];
  for (const [id, group] of packages(snapshot, projectId)) {
    const { node, vertex } = choose(group, (i) => (walk.depth[i] >= 0 ? i : -1), walk);
    const path = vertex >= 0 ? pathOf(walk, label, vertex).map((l) => labels[l]) : [fallback, nodes[node].id];
    out.push(
      item(
        id,
        nodes[node],
        group.some((i) => direct[i] === 1),
        path,
        path[0],
      ),
    );
  }
  return out;
}

function v2Items(snapshot: Snapshot, projectId: string, built: BuiltGraph): InventoryItem[] {
  const { graph: g, labels, labelOf } = built;
  const walk = lexBfs(g, g.resRoot);
  // Per label, its package vertex with the best path: the first reached in walk order.
  const bestOf = new Int32Array(labels.length).fill(-1);
  for (let k = 0; k < walk.reached; k++) {
    const v = walk.order[k];
    if (!g.isModule[v] && bestOf[g.label[v]] === -1) bestOf[g.label[v]] = v;
  }
  // direct: some module vertex has an edge to a vertex of the package.
  const direct = new Uint8Array(labels.length);
  for (const m of g.modVertices) {
    for (let e = g.offsets[m]; e < g.offsets[m + 1]; e++)
      if (!g.isModule[g.targets[e]]) direct[g.label[g.targets[e]]] = 1;
  }
  const labelOfNode = (i: number) => labelOf.get(snapshot.nodes[i].id) ?? -1;
  const out: InventoryItem[] = [];
  for (const [id, group] of packages(snapshot, projectId)) {
    const { node, vertex } = choose(group, (i) => (labelOfNode(i) >= 0 ? bestOf[labelOfNode(i)] : -1), walk);
    const isDirect = group.some((i) => labelOfNode(i) >= 0 && direct[labelOfNode(i)] === 1);
    if (vertex < 0) {
      // Not in any resolution (the upload refuses such a snapshot): the first root's module, then the package.
      const root = snapshot.roots[0];
      const path = [root ? root.module : (snapshot.manifests?.[0] ?? snapshot.project), snapshot.nodes[node].id];
      out.push(item(id, snapshot.nodes[node], isDirect, path, root ? manifestOf(snapshot, root) : path[0]));
      continue;
    }
    const path = pathOf(walk, g.label, vertex).map((l) => labels[l]);
    out.push(
      item(
        id,
        snapshot.nodes[node],
        isDirect,
        path,
        manifestOf(snapshot, snapshot.roots[resolutionOf(g.resStart, vertex)]),
      ),
    );
  }
  return out;
}

/** The resolution owning vertex v: resStart is ascending, resolution r owns [resStart[r], resStart[r + 1]). */
function resolutionOf(resStart: Int32Array, v: number): number {
  let lo = 0;
  let hi = resStart.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (resStart[mid] <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
