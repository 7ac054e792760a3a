// v1 display paths: [manifest, direct dependency id, ..., vulnerable package id], the shortest over
// all roots, ties broken by the path that sorts first element by element. One BFS per root over a CSR adjacency of
// integer ids, layer by layer: a node's best path is its best-ranked parent's path plus itself, so ranking each
// layer by (parent's rank, own id) yields the lexicographically smallest shortest path without building strings.
import type { Snapshot } from '../../shared/types';
import { cmpStr, comparePaths } from './paths';

/** v1 paths start with a manifest; v2 paths with module paths (until v2 attribution derives them properly). */
function manifestOf(snapshot: Snapshot, root: Snapshot['roots'][number]): string {
  if (snapshot.schemaVersion === 2) return root.module;
  return root.manifest || snapshot.manifests?.[0] || root.module;
}

export function v1Paths(snapshot: Snapshot, targetIds: Iterable<string>): Map<string, string[]> {
  const ids = snapshot.nodes.map((n) => n.id);
  const index = new Map(ids.map((id, i) => [id, i]));
  const n = ids.length;
  // CSR adjacency: offsets + flat targets.
  const offsets = new Int32Array(n + 1);
  snapshot.nodes.forEach((node, i) => (offsets[i + 1] = offsets[i] + node.dependencies.length));
  const edges = new Int32Array(offsets[n]);
  snapshot.nodes.forEach((node, i) =>
    node.dependencies.forEach((d, k) => (edges[offsets[i] + k] = index.get(d) ?? -1)),
  );
  // Node ids in sorted order give a rank to break ties by id without string compares in the hot loop.
  const idRank = new Int32Array(n);
  [...ids.keys()].sort((a, b) => cmpStr(ids[a], ids[b])).forEach((node, r) => (idRank[node] = r));

  const targets = new Set<number>();
  for (const t of targetIds) {
    const i = index.get(t);
    if (i !== undefined) targets.add(i);
  }
  const best = new Map<number, string[]>();
  const parent = new Int32Array(n);
  const rank = new Int32Array(n);
  const seen = new Uint8Array(n);

  for (const root of snapshot.roots) {
    seen.fill(0);
    let layer: number[] = [];
    for (const d of root.dependencies) {
      const i = index.get(d);
      if (i !== undefined && !seen[i]) {
        seen[i] = 1;
        parent[i] = -1;
        layer.push(i);
      }
    }
    let remaining = targets.size;
    let depth = 1;
    while (layer.length && remaining > 0) {
      layer.sort((a, b) => (depth === 1 ? 0 : rank[parent[a]] - rank[parent[b]]) || idRank[a] - idRank[b]);
      layer.forEach((node, r) => (rank[node] = r));
      for (const node of layer) {
        if (!targets.has(node)) continue;
        remaining--;
        const prev = best.get(node);
        if (prev && prev.length < depth + 1) continue;
        const path: string[] = [];
        for (let x = node; x !== -1; x = parent[x]) path.push(ids[x]);
        path.push(manifestOf(snapshot, root));
        path.reverse();
        if (!prev || comparePaths(path, prev) < 0) best.set(node, path);
      }
      const next: number[] = [];
      for (const node of layer) {
        for (let e = offsets[node]; e < offsets[node + 1]; e++) {
          const m = edges[e];
          if (m < 0) continue;
          // The layer is walked in rank order, so the first parent to reach m is its best-ranked one.
          if (!seen[m]) {
            seen[m] = 1;
            parent[m] = node;
            next.push(m);
          }
        }
      }
      layer = next;
      depth++;
    }
  }
  // A vulnerable package no root reaches still gets a path: the first root's manifest, then the package.
  const fallback = snapshot.roots[0]
    ? manifestOf(snapshot, snapshot.roots[0])
    : (snapshot.manifests?.[0] ?? snapshot.project);
  for (const t of targets) if (!best.has(t)) best.set(t, [fallback, ids[t]]);
  const out = new Map<string, string[]>();
  for (const [i, path] of best) out.set(ids[i], path);
  return out;
}
