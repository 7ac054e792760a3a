// Every vertex's smallest shortest path from a set of sources, in one breadth-first walk: the rule of Finding.path
// (fewer elements first, then element by element) for all vertices at once, in time linear in the graph (plus the
// sorting of ties), where the attribution walks find paths to the vulnerable packages only.
//
// The walk goes layer by layer. Within a layer every vertex has a rank, equal for equal paths, ordered as the paths
// compare: a vertex's smallest path is its best-ranked parent's path plus its own label, so the next layer's ranks
// follow from (parent's rank, own label). Walking a layer in rank order, each vertex's edges in label order, discovers
// the next layer already in that order, except where parents share a rank (equal paths): their children are sorted
// by label together.

/** A graph whose edges are sorted by the targets' labels; label numbers compare as the label strings do. */
export interface LabelledGraph {
  /** Vertex v's edges are targets[offsets[v] .. offsets[v + 1]). */
  offsets: Int32Array;
  targets: Int32Array;
  label: Int32Array;
}

export interface LexWalk {
  /** Hops from the nearest source; -1 when no source reaches the vertex. */
  depth: Int32Array;
  /** The previous vertex on the vertex's smallest shortest path; -1 for sources and unreached vertices. */
  parent: Int32Array;
  /** Position of the vertex's path among the paths of its layer (equal paths, equal rank). */
  rank: Int32Array;
  /** Reached vertices by (depth, rank, label, vertex number): order[0 .. reached). */
  order: Int32Array;
  reached: number;
}

export function lexBfs(g: LabelledGraph, sources: ArrayLike<number>): LexWalk {
  const { offsets, targets, label } = g;
  const n = label.length;
  const depth = new Int32Array(n).fill(-1);
  const parent = new Int32Array(n).fill(-1);
  const rank = new Int32Array(n);
  const order = new Int32Array(n);
  const byLabel = (a: number, b: number) => label[a] - label[b] || a - b;
  let tail = 0;
  for (let i = 0; i < sources.length; i++) {
    const s = sources[i];
    if (depth[s] !== -1) continue;
    depth[s] = 0;
    order[tail++] = s;
  }
  order.subarray(0, tail).sort(byLabel);
  for (let k = 0, r = -1; k < tail; k++) {
    if (k === 0 || label[order[k]] !== label[order[k - 1]]) r++;
    rank[order[k]] = r;
  }
  let start = 0;
  let end = tail;
  for (let d = 1; start < end; d++) {
    for (let i = start; i < end;) {
      let j = i + 1;
      while (j < end && rank[order[j]] === rank[order[i]]) j++;
      const from = tail;
      for (let k = i; k < j; k++) {
        const u = order[k];
        for (let e = offsets[u], stop = offsets[u + 1]; e < stop; e++) {
          const w = targets[e];
          if (depth[w] !== -1) continue;
          depth[w] = d;
          parent[w] = u;
          order[tail++] = w;
        }
      }
      // One parent lists its children in label order already; parents of one rank add theirs one after the other.
      if (j - i > 1 && tail - from > 1) order.subarray(from, tail).sort(byLabel);
      i = j;
    }
    for (let k = end, r = -1; k < tail; k++) {
      const w = order[k];
      const prev = order[k - 1];
      if (k === end || rank[parent[w]] !== rank[parent[prev]] || label[w] !== label[prev]) r++;
      rank[w] = r;
    }
    start = end;
    end = tail;
  }
  return { depth, parent, rank, order, reached: tail };
}

/** Whether vertex a's path sorts before vertex b's (shorter, then smaller; equal paths by vertex number). */
export function before(w: LexWalk, a: number, b: number): boolean {
  return (
    w.depth[a] < w.depth[b] ||
    (w.depth[a] === w.depth[b] && (w.rank[a] < w.rank[b] || (w.rank[a] === w.rank[b] && a < b)))
  );
}

/** The labels along a reached vertex's path, from its source. */
export function pathOf(w: LexWalk, label: Int32Array, v: number): number[] {
  const out: number[] = new Array(w.depth[v] + 1);
  for (let i = w.depth[v], x = v; i >= 0; i--, x = w.parent[x]) out[i] = label[x];
  return out;
}
