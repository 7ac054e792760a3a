// Integer-indexed graphs built while the cross-references are checked, BFS over them, and the limits that need a
// valid graph: shortest dependency hops and attribution work, both 413.
import { pointer, tooLarge } from '../errors';
import { LIMITS } from './limits';

/** Adjacency in compressed sparse rows: the successors of i are targets[offsets[i] .. offsets[i + 1]). */
export interface Csr {
  offsets: Int32Array;
  targets: Int32Array;
}

/** v1: the flat package graph, and for every root the node indexes of its direct dependencies. */
export interface FlatGraph extends Csr {
  rootDeps: Int32Array[];
}

/** v2: one resolution. `dist` is the BFS distance of every vertex from the resolution root (-1: unreachable). */
export interface ResolutionGraph extends Csr {
  root: number;
  dist: Int32Array;
  /** Distinct packages (nodes) among the resolution's vertices. */
  packages: number;
}

/** BFS distances from `sources`, which start at `start` hops. Unreached vertices stay -1. */
export function bfs(g: Csr, sources: ArrayLike<number>, start: number): Int32Array {
  const n = g.offsets.length - 1;
  const dist = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  let head = 0;
  let tail = 0;
  for (let i = 0; i < sources.length; i++) {
    const s = sources[i];
    if (dist[s] === -1) {
      dist[s] = start;
      queue[tail++] = s;
    }
  }
  const { offsets, targets } = g;
  while (head < tail) {
    const u = queue[head++];
    const d = dist[u] + 1;
    for (let k = offsets[u], end = offsets[u + 1]; k < end; k++) {
      const v = targets[k];
      if (dist[v] === -1) {
        dist[v] = d;
        queue[tail++] = v;
      }
    }
  }
  return dist;
}

const hopsMessage = (d: number, from: string) => `${d} dependency hops from ${from}, over the limit of ${LIMITS.hops}`;

/** v1: a node's hops are its smallest BFS distance over all roots (root → direct dependency = 1 hop). */
export function checkHopsV1(g: FlatGraph): void {
  let total = 0;
  for (const deps of g.rootDeps) total += deps.length;
  const sources = new Int32Array(total);
  let k = 0;
  for (const deps of g.rootDeps) {
    sources.set(deps, k);
    k += deps.length;
  }
  const dist = bfs(g, sources, 1);
  for (let i = 0; i < dist.length; i++) {
    if (dist[i] > LIMITS.hops) throw tooLarge(pointer('nodes', i), hopsMessage(dist[i], 'the nearest root'));
  }
}

/** v2: every vertex's BFS distance from its resolution root. */
export function checkHopsV2(resolutions: ResolutionGraph[]): void {
  resolutions.forEach((r, ri) => {
    for (let i = 0; i < r.dist.length; i++) {
      if (r.dist[i] > LIMITS.hops) {
        throw tooLarge(
          pointer('roots', ri, 'resolution', 'vertices', i),
          hopsMessage(r.dist[i], 'the resolution root'),
        );
      }
    }
  });
}

/** Sum over roots of (vertices + edges) × distinct packages: the size of the per-root attribution walks. */
export function attributionWork(resolutions: ResolutionGraph[]): number {
  let work = 0;
  for (const r of resolutions) work += (r.offsets.length - 1 + r.targets.length) * r.packages;
  return work;
}

export function checkWork(resolutions: ResolutionGraph[]): void {
  const work = attributionWork(resolutions);
  if (work > LIMITS.attributionWork) {
    throw tooLarge(
      '/roots',
      `attribution work ${work} (sum over roots of (vertices + edges) × distinct packages) is over the limit of ${LIMITS.attributionWork}`,
    );
  }
}
