// The v2 attribution walk of one shard of resolutions (decisions.md "Paths and attribution"), over the typed arrays
// of v2-graph.ts. Pure and synchronous: it runs in a piscina thread for large scans and inline for small ones.
//
// For every resolution r and every vulnerable package T that r contains, one backward BFS from T's vertices gives
// every vertex's distance to T. Then:
//   - the attribution path is the lexicographically smallest shortest path from r's root vertex to T: walk forward
//     from the root, each step to the successors one hop closer to T, keeping only those with the smallest label
//     (several vertices may share it: they are carried together, so ties resolve on the whole remaining path);
//   - every edge from a module vertex M to a package vertex D with D reaching T is an introduction: one origin per
//     distinct (M's module, D's package id), its path M then the smallest shortest path from D (or from the set of
//     same-labelled D vertices at the smallest distance) to T.
// The backward BFS touches only T's ancestors, which is usually a small part of a resolution.
//
// Output, an Int32Array of records, one per (resolution, vulnerable package):
//   r, T, pathLength, ...path, originCount, then per origin: length, ...path   (paths as label numbers)
import type { AttributionGraph } from './v2-graph';

export interface ShardTask {
  graph: AttributionGraph;
  /** Resolution (root) indexes of this shard. */
  resolutions: Int32Array;
  /** 1 at the label number of every vulnerable package id. */
  vulnerable: Uint8Array;
  /** The scan's derived-path budget: a shard alone over it stops early. */
  maxSegments: number;
  maxCharacters: number;
}

export interface ShardOutput {
  data: Int32Array;
  segments: number;
  characters: number;
  overBudget: boolean;
}

class IntBuilder {
  buf = new Int32Array(1 << 12);
  n = 0;
  push(v: number): void {
    if (this.n === this.buf.length) {
      const next = new Int32Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.n++] = v;
  }
  /** A copy that owns its whole ArrayBuffer, so that it can be moved to another thread. */
  result(): Int32Array {
    return this.buf.slice(0, this.n);
  }
}

export function walkShard(task: ShardTask): ShardOutput {
  const g = task.graph;
  const { offsets, targets, rOffsets, rTargets, label, isModule, labelLength } = g;
  const n = label.length;
  // Scratch arrays sized to the largest resolution of the shard, indexed by vertex - lo (its resolution's start).
  let size = 1;
  for (const r of task.resolutions) size = Math.max(size, g.resStart[r + 1] - g.resStart[r]);
  let lo = 0;
  const dist = new Int32Array(size).fill(-1);
  const mark = new Int32Array(size); // visit stamps for de-duplicating vertex sets
  let stamp = 0;
  const queue = new Int32Array(size);
  const out = new IntBuilder();
  let segments = 0;
  let characters = 0;

  // Two ping-pong buffers for the vertex sets of walkDown (no allocation per step).
  let cur = new Int32Array(size);
  let next = new Int32Array(size);

  /** Appends the smallest shortest path from `start` (vertices of one label at one distance) to the target. */
  function walkDown(start: ArrayLike<number>, count: number): number {
    for (let i = 0; i < count; i++) cur[i] = start[i];
    let size = count;
    let d = dist[cur[0] - lo];
    out.push(label[cur[0]]);
    let len = 1;
    while (d > 0) {
      let best = 0x7fffffff;
      let nextSize = 0;
      stamp++;
      for (let i = 0; i < size; i++) {
        const u = cur[i];
        for (let k = offsets[u], end = offsets[u + 1]; k < end; k++) {
          const w = targets[k];
          if (dist[w - lo] !== d - 1) continue;
          const l = label[w];
          if (l < best) {
            best = l;
            next[0] = w;
            nextSize = 1;
            mark[w - lo] = ++stamp;
          } else if (l === best && mark[w - lo] !== stamp) {
            mark[w - lo] = stamp;
            next[nextSize++] = w;
          }
        }
      }
      out.push(best);
      len++;
      const swap = cur;
      cur = next;
      next = swap;
      size = nextSize;
      d--;
    }
    return len;
  }

  /** Writes a path length placeholder, the path, then the length; counts the path against the budget. */
  function emitPath(prefix: number, start: ArrayLike<number>): void {
    const at = out.n;
    out.push(0);
    let len = 0;
    if (prefix >= 0) {
      out.push(prefix);
      len++;
    }
    len += walkDown(start, start.length);
    out.buf[at] = len;
    segments += len;
    for (let i = at + 1; i < at + 1 + len; i++) characters += labelLength[out.buf[i]];
  }

  for (const r of task.resolutions) {
    lo = g.resStart[r];
    const hi = g.resStart[r + 1];
    // The vulnerable packages of this resolution, each with its vertices, in label order.
    const byLabel = new Map<number, number[]>();
    for (let v = lo; v < hi; v++) {
      if (isModule[v] || !task.vulnerable[label[v]]) continue;
      const list = byLabel.get(label[v]);
      if (list) list.push(v);
      else byLabel.set(label[v], [v]);
    }
    const order = [...byLabel.keys()].sort((a, b) => a - b);
    for (const t of order) {
      // Backward BFS from the package's vertices.
      let head = 0;
      let tail = 0;
      for (const v of byLabel.get(t)!) {
        dist[v - lo] = 0;
        queue[tail++] = v;
      }
      while (head < tail) {
        const u = queue[head++];
        const du = dist[u - lo] + 1;
        for (let k = rOffsets[u], end = rOffsets[u + 1]; k < end; k++) {
          const w = rTargets[k];
          if (dist[w - lo] === -1) {
            dist[w - lo] = du;
            queue[tail++] = w;
          }
        }
      }
      const root = g.resRoot[r];
      if (dist[root - lo] >= 0) {
        out.push(r);
        out.push(t);
        emitPath(-1, [root]);
        // Introductions: module vertex → package vertex reaching T. Per (module, dependency) label pair keep the
        // dependency vertices at the smallest distance.
        const intro = new Map<number, { m: number; d: number; dist: number; vs: number[] }>();
        for (let k = g.modStart[r]; k < g.modStart[r + 1]; k++) {
          const m = g.modVertices[k];
          if (dist[m - lo] < 1) continue;
          for (let e = offsets[m], end = offsets[m + 1]; e < end; e++) {
            const dv = targets[e];
            if (isModule[dv] || dist[dv - lo] < 0) continue;
            const key = label[m] * n + label[dv]; // label numbers are < n
            const seen = intro.get(key);
            if (!seen || dist[dv - lo] < seen.dist) intro.set(key, { m: label[m], d: label[dv], dist: dist[dv - lo], vs: [dv] });
            else if (dist[dv - lo] === seen.dist && !seen.vs.includes(dv)) seen.vs.push(dv);
          }
        }
        const origins = [...intro.values()].sort((a, b) => a.m - b.m || a.d - b.d);
        out.push(origins.length);
        for (const o of origins) emitPath(o.m, o.vs);
      }
      for (let i = 0; i < tail; i++) dist[queue[i] - lo] = -1;
      if (segments > task.maxSegments || characters > task.maxCharacters) {
        return { data: new Int32Array(0), segments, characters, overBudget: true };
      }
    }
  }
  return { data: out.result(), segments, characters, overBudget: false };
}

export interface DecodedAttribution {
  resolution: number;
  target: number;
  path: Int32Array;
  origins: Int32Array[];
}

/** Reads the records of a shard's output back (paths stay label numbers). */
export function* decodeShard(data: Int32Array): Generator<DecodedAttribution> {
  let i = 0;
  while (i < data.length) {
    const resolution = data[i++];
    const target = data[i++];
    const len = data[i++];
    const path = data.subarray(i, i + len);
    i += len;
    const count = data[i++];
    const origins: Int32Array[] = [];
    for (let k = 0; k < count; k++) {
      const l = data[i++];
      origins.push(data.subarray(i, i + l));
      i += l;
    }
    yield { resolution, target, path, origins };
  }
}
