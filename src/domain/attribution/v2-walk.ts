// The v2 attribution walk of one shard of resolutions (docs/scanning.md, "Paths and attribution"), over the typed
// arrays of v2-graph.ts. Pure and synchronous: it runs in a piscina thread for large scans and inline for small ones.
//
// What it finds, per resolution r and vulnerable package T that r's root reaches:
//   - the attribution path: the smallest (element by element) of the shortest paths from r's root vertex to any
//     vertex of T;
//   - the origins: for every distinct (module M, dependency D) of an edge from a module vertex to a package vertex
//     from which T is reachable, M then the smallest shortest path from D (or from the D vertices of that pair at the
//     smallest distance) to T.
//
// Two strategies give the same output; each resolution takes the cheaper one:
//   - backward: one breadth-first walk back from T's vertices per vulnerable package T gives every vertex's distance
//     to T; then every path is walked forward from its start, each step to the successors one hop closer to T with
//     the smallest label (vertices sharing it are carried together, so ties resolve on the whole remaining path).
//     Cost: T's ancestors, per vulnerable package. Works on every resolution.
//   - forward: one breadth-first walk from each introduced dependency vertex D, following edges in label order (the
//     graph sorts them), so that a vertex's first parent ends its smallest shortest path from D; and one walk over
//     the module vertices from the root. The root's path to T is the smallest of (module path to M) + (D's path to T)
//     over the introductions M → D at the shortest total length. Cost: D's descendants, per introduced dependency.
//     Needs a resolution whose labels are all distinct (so smallest paths are unique and every pair is one edge),
//     whose package vertices depend on no module vertex (so every path from the root is modules, one introduction,
//     packages), and whose root is a module vertex. Chosen when it has fewer introduced dependencies than
//     vulnerable packages: a module declaring a few dependencies that bring many vulnerable packages.
//
// Output, an Int32Array of records, one per (resolution, vulnerable package):
//   r, T, pathLength, ...path, originCount, then per origin: length, ...path   (paths as label numbers)
import { RES_DUPLICATE_LABELS, RES_PACKAGE_TO_MODULE, type AttributionGraph } from './v2-graph';

export interface ShardTask {
  graph: AttributionGraph;
  /** Resolution (root) indexes of this shard. */
  resolutions: Int32Array;
  /** 1 at the label number of every vulnerable package id. */
  vulnerable: Uint8Array;
  /** The scan's derived-path budget: a shard alone over it stops early. */
  maxSegments: number;
  maxCharacters: number;
  /** Tests and the benchmark: force one strategy where it applies (default: the cheaper one per resolution). */
  strategy?: 'auto' | 'backward' | 'forward';
}

export interface ShardOutput {
  data: Int32Array;
  segments: number;
  characters: number;
  overBudget: boolean;
  /** Resolutions with vulnerable packages walked by each strategy. */
  forward: number;
  backward: number;
}

/** The forward strategy keeps a distance and a parent per (introduced dependency, vertex): at most this many. */
const FORWARD_MAX_CELLS = 1 << 22;
/**
 * Auto: forward when introduced dependencies < FORWARD_RATIO × vulnerable packages. A backward walk per package
 * (ancestors, then a walk down per path) measured about twice a forward walk per dependency (descendants, parents
 * read back): `npm run bench` prints both strategies on the largest document.
 */
const FORWARD_RATIO = 2;

/**
 * The output buffer, kept from one shard to the next in this thread (a shard's output is copied out of it), so that
 * it is not grown again from scratch for every shard.
 */
let kept = new Int32Array(1 << 16);

class IntBuilder {
  buf = kept;
  n = 0;
  push(v: number): void {
    if (this.n === this.buf.length) this.grow(this.n + 1);
    this.buf[this.n++] = v;
  }
  grow(min: number): void {
    let size = this.buf.length * 2;
    while (size < min) size *= 2;
    const next = new Int32Array(size);
    next.set(this.buf.subarray(0, this.n));
    this.buf = kept = next;
  }
  /** A copy that owns its whole ArrayBuffer, so that it can be moved to another thread. */
  result(): Int32Array {
    return this.buf.slice(0, this.n);
  }
}

/** An Int32Array that grows, for scratch lists whose size is not known up front. */
function ensure(a: Int32Array, n: number): Int32Array {
  if (a.length >= n) return a;
  const b = new Int32Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

export function walkShard(task: ShardTask): ShardOutput {
  const g = task.graph;
  const { offsets, targets, rOffsets, rTargets, label, isModule, labelLength } = g;
  const strategy = task.strategy ?? 'auto';
  // Scratch arrays sized to the largest resolution of the shard, indexed by vertex - lo (its resolution's start).
  let size = 1;
  for (const r of task.resolutions) size = Math.max(size, g.resStart[r + 1] - g.resStart[r]);
  let lo = 0;
  const dist = new Int32Array(size).fill(-1);
  const mark = new Int32Array(size); // visit stamps for de-duplicating vertex sets
  let stamp = 0;
  const queue = new Int32Array(size + 1); // + 1: the backward strategy puts the root after a full walk
  const out = new IntBuilder();
  let segments = 0;
  let characters = 0;
  let forwardCount = 0;
  let backwardCount = 0;
  // Two ping-pong buffers for the vertex sets of walkDown (no allocation per step).
  let cur = new Int32Array(size);
  let next = new Int32Array(size);
  // The vulnerable vertices of a resolution, sorted by label; its introductions M → D, sorted by (M's label, D's label).
  let vulnerableVertices: Int32Array = new Int32Array(64);
  let introM: Int32Array = new Int32Array(64);
  let introD: Int32Array = new Int32Array(64);
  // backward: per origin of one package, where its start set sits in `starts`
  let originAt: Int32Array = new Int32Array(64);
  let originCount: Int32Array = new Int32Array(64);
  let originModule: Int32Array = new Int32Array(64);
  let starts: Int32Array = new Int32Array(64);
  // forward: per introduced dependency, distances and parents over the resolution; per vertex, its source number
  let fDist: Int32Array = new Int32Array(0);
  let fParent: Int32Array = new Int32Array(0);
  const sourceOf = new Int32Array(size).fill(-1);
  const isTarget = new Uint8Array(size); // 1 at the resolution's vulnerable vertices
  const modDist = new Int32Array(size).fill(-1);
  const modParent = new Int32Array(size);
  let best: Int32Array = new Int32Array(64);
  let candidate: Int32Array = new Int32Array(64);

  /** Adds a finished path out.buf[at + 1 .. at + 1 + len) to the budget and writes its length at `at`. */
  function closePath(at: number, len: number): void {
    out.buf[at] = len;
    segments += len;
    for (let i = at + 1; i < at + 1 + len; i++) characters += labelLength[out.buf[i]];
  }

  /** Appends the smallest shortest path from `start` (vertices of one label at one distance) to the target. */
  function walkDown(start: Int32Array, from: number, count: number): number {
    for (let i = 0; i < count; i++) cur[i] = start[from + i];
    let size = count;
    let d = dist[cur[0] - lo];
    out.push(label[cur[0]]);
    let len = 1;
    while (d > 0) {
      let bestLabel = 0x7fffffff;
      let nextSize = 0;
      stamp++;
      for (let i = 0; i < size; i++) {
        const u = cur[i];
        for (let k = offsets[u], end = offsets[u + 1]; k < end; k++) {
          const w = targets[k];
          if (dist[w - lo] !== d - 1) continue;
          const l = label[w];
          if (l > bestLabel) break; // edges are sorted by label: nothing smaller follows
          if (l < bestLabel) {
            bestLabel = l;
            next[0] = w;
            nextSize = 1;
            mark[w - lo] = ++stamp;
          } else if (mark[w - lo] !== stamp) {
            mark[w - lo] = stamp;
            next[nextSize++] = w;
          }
        }
      }
      out.push(bestLabel);
      len++;
      const swap = cur;
      cur = next;
      next = swap;
      size = nextSize;
      d--;
    }
    return len;
  }

  /** Writes one path: its length, `prefix` (a label, or none when -1), then the walk down from the start set. */
  function emitWalk(prefix: number, start: Int32Array, from: number, count: number): void {
    const at = out.n;
    out.push(0);
    let len = 0;
    if (prefix >= 0) {
      out.push(prefix);
      len++;
    }
    len += walkDown(start, from, count);
    closePath(at, len);
  }

  /** The backward strategy for the vulnerable vertices [from, to) of one label t. */
  function backward(r: number, t: number, from: number, to: number, intros: number): void {
    let head = 0;
    let tail = 0;
    for (let i = from; i < to; i++) {
      const v = vulnerableVertices[i];
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
      queue[tail] = root; // the root as a start set of one (queue[tail] is past the walk's vertices)
      emitWalk(-1, queue, tail, 1);
      // Origins: per (M's label, D's label) group of introductions, the D vertices reaching T at the smallest distance.
      let origins = 0;
      let used = 0;
      for (let j = 0; j < intros;) {
        const lm = label[introM[j]];
        const ld = label[introD[j]];
        let bestDist = 0x7fffffff;
        let at = used;
        stamp++;
        for (; j < intros && label[introM[j]] === lm && label[introD[j]] === ld; j++) {
          const dv = introD[j];
          const dd = dist[dv - lo];
          if (dd < 0 || dd > bestDist) continue;
          if (dd < bestDist) {
            bestDist = dd;
            used = at;
            stamp++;
          }
          if (mark[dv - lo] === stamp) continue;
          mark[dv - lo] = stamp;
          starts = ensure(starts, used + 1);
          starts[used++] = dv;
        }
        if (bestDist === 0x7fffffff) continue;
        originAt = ensure(originAt, origins + 1);
        originCount = ensure(originCount, origins + 1);
        originModule = ensure(originModule, origins + 1);
        originModule[origins] = lm;
        originAt[origins] = at;
        originCount[origins++] = used - at;
      }
      out.push(origins);
      for (let o = 0; o < origins; o++) emitWalk(originModule[o], starts, originAt[o], originCount[o]);
    }
    for (let i = 0; i < tail; i++) dist[queue[i] - lo] = -1;
  }

  /** Characters of the labels written by sourcePath and modulePath since it was last reset (the budget's count). */
  let written = 0;

  /** Writes into `into` (from `at`) the path D → ... → v of source s, read back along the parents; returns its end. */
  function sourcePath(into: Int32Array, at: number, s: number, v: number): number {
    const base = s * size - lo;
    const len = fDist[base + v] + 1;
    for (let i = at + len - 1, w = v; i >= at; i--, w = fParent[base + w]) {
      const l = label[w];
      into[i] = l;
      written += labelLength[l];
    }
    return at + len;
  }

  /** Writes into `into` (from `at`) the root's module path to M; returns its end. */
  function modulePath(into: Int32Array, at: number, m: number): number {
    const len = modDist[m - lo] + 1;
    for (let i = at + len - 1, w = m; i >= at; i--, w = modParent[w - lo]) {
      const l = label[w];
      into[i] = l;
      written += labelLength[l];
    }
    return at + len;
  }

  /** Closes a path written to out.buf[at + 1 ..) by the two above, `written` counting its characters. */
  function closeWritten(at: number): void {
    const len = out.n - at - 1;
    out.buf[at] = len;
    segments += len;
    characters += written;
  }

  /** The forward strategy for a whole resolution: `sources` distinct introduced dependencies, `vulnerableCount` targets. */
  function forward(r: number, intros: number, sources: number, vulnerableCount: number): void {
    const root = g.resRoot[r];
    fDist = ensure(fDist, sources * size);
    fParent = ensure(fParent, sources * size);
    fDist.fill(-1, 0, sources * size);
    // One walk per introduced dependency, edges in label order: the first parent ends the smallest shortest path.
    for (let j = 0; j < intros; j++) {
      const d = introD[j];
      const s = sourceOf[d - lo];
      const base = s * size - lo;
      if (fDist[base + d] >= 0) continue; // walked already (introduced by several modules)
      fDist[base + d] = 0;
      fParent[base + d] = d;
      // Only the vulnerable vertices' paths are read: the walk ends once it has found them all. (It only meets
      // package vertices: none depends on a module vertex here.)
      let found = isTarget[d - lo];
      let head = 0;
      let tail = 0;
      queue[tail++] = d;
      walk: while (head < tail && found < vulnerableCount) {
        const u = queue[head++];
        const du = fDist[base + u] + 1;
        for (let k = offsets[u], end = offsets[u + 1]; k < end; k++) {
          const w = targets[k];
          if (fDist[base + w] === -1) {
            fDist[base + w] = du;
            fParent[base + w] = u;
            queue[tail++] = w;
            if (isTarget[w - lo] === 1 && ++found === vulnerableCount) break walk;
          }
        }
      }
    }
    // The module vertices from the root, edges in label order.
    let head = 0;
    let tail = 0;
    modDist[root - lo] = 0;
    modParent[root - lo] = root;
    queue[tail++] = root;
    while (head < tail) {
      const u = queue[head++];
      for (let k = offsets[u], end = offsets[u + 1]; k < end; k++) {
        const w = targets[k];
        if (isModule[w] && modDist[w - lo] === -1) {
          modDist[w - lo] = modDist[u - lo] + 1;
          modParent[w - lo] = u;
          queue[tail++] = w;
        }
      }
    }
    const maxLen = size + 1;
    best = ensure(best, maxLen);
    candidate = ensure(candidate, maxLen);
    for (let i = 0; i < vulnerableCount; i++) {
      const t = vulnerableVertices[i];
      // The root's path: the smallest over the introductions at the shortest total length. Only ties are written
      // out and compared element by element.
      let bestTotal = 0x7fffffff;
      let bestJ = -1;
      let ties = 0;
      let reached = 0;
      for (let j = 0; j < intros; j++) {
        const td = fDist[sourceOf[introD[j] - lo] * size + t - lo];
        if (td < 0) continue;
        reached++;
        const md = modDist[introM[j] - lo];
        if (md < 0 || md + 1 + td > bestTotal) continue;
        if (md + 1 + td < bestTotal) {
          bestTotal = md + 1 + td;
          bestJ = j;
          ties = 1;
        } else ties++;
      }
      if (bestJ < 0) continue;
      if (ties > 1) {
        let bestLen = sourcePath(best, modulePath(best, 0, introM[bestJ]), sourceOf[introD[bestJ] - lo], t);
        for (let j = bestJ + 1; j < intros; j++) {
          const td = fDist[sourceOf[introD[j] - lo] * size + t - lo];
          const md = modDist[introM[j] - lo];
          if (td < 0 || md < 0 || md + 1 + td !== bestTotal) continue;
          const len = sourcePath(candidate, modulePath(candidate, 0, introM[j]), sourceOf[introD[j] - lo], t);
          let k = 0;
          while (k < len && candidate[k] === best[k]) k++;
          if (k === len || candidate[k] > best[k]) continue;
          bestJ = j;
          bestLen = len;
          const swap = best;
          best = candidate;
          candidate = swap;
        }
      }
      out.push(r);
      out.push(label[t]);
      if (out.n + 2 + bestTotal + 1 + reached * (maxLen + 1) > out.buf.length)
        out.grow(out.n + 3 + bestTotal + reached * (maxLen + 1));
      let at = out.n;
      written = 0;
      out.n = sourcePath(out.buf, modulePath(out.buf, at + 1, introM[bestJ]), sourceOf[introD[bestJ] - lo], t);
      closeWritten(at);
      out.buf[out.n++] = reached;
      // Origins: every introduction reaching T (labels are distinct: one introduction per (module, dependency)).
      for (let j = 0; j < intros; j++) {
        const s = sourceOf[introD[j] - lo];
        if (fDist[s * size + t - lo] < 0) continue;
        at = out.n;
        out.buf[at + 1] = label[introM[j]];
        written = labelLength[label[introM[j]]];
        out.n = sourcePath(out.buf, at + 2, s, t);
        closeWritten(at);
      }
    }
    for (let i = 0; i < tail; i++) modDist[queue[i] - lo] = -1;
  }

  for (const r of task.resolutions) {
    lo = g.resStart[r];
    const hi = g.resStart[r + 1];
    // The vulnerable package vertices, sorted by label (then vertex).
    let vulnerableCount = 0;
    for (let v = lo; v < hi; v++) {
      if (isModule[v] || !task.vulnerable[label[v]]) continue;
      vulnerableVertices = ensure(vulnerableVertices, vulnerableCount + 1);
      vulnerableVertices[vulnerableCount++] = v;
      isTarget[v - lo] = 1;
    }
    if (vulnerableCount === 0) continue;
    sortByLabel(vulnerableVertices, vulnerableCount, label);
    // The introductions M → D, sorted by (M's label, D's label, D, M), and the distinct D vertices numbered.
    let intros = 0;
    for (let k = g.modStart[r]; k < g.modStart[r + 1]; k++) {
      const m = g.modVertices[k];
      for (let e = offsets[m], end = offsets[m + 1]; e < end; e++) {
        if (isModule[targets[e]]) continue;
        introM = ensure(introM, intros + 1);
        introD = ensure(introD, intros + 1);
        introM[intros] = m;
        introD[intros++] = targets[e];
      }
    }
    sortIntroductions(introM, introD, intros, label);
    let sources = 0;
    for (let j = 0; j < intros; j++) if (sourceOf[introD[j] - lo] === -1) sourceOf[introD[j] - lo] = sources++;

    const forwardApplies = g.resFlags[r] === 0 && isModule[g.resRoot[r]] === 1 && sources * size <= FORWARD_MAX_CELLS;
    if (
      forwardApplies &&
      (strategy === 'forward' || (strategy === 'auto' && sources < FORWARD_RATIO * vulnerableCount))
    ) {
      forward(r, intros, sources, vulnerableCount);
      forwardCount++;
    } else {
      backwardCount++;
      for (let i = 0; i < vulnerableCount;) {
        const t = label[vulnerableVertices[i]];
        let j = i + 1;
        while (j < vulnerableCount && label[vulnerableVertices[j]] === t) j++;
        backward(r, t, i, j, intros);
        i = j;
      }
    }
    for (let j = 0; j < intros; j++) sourceOf[introD[j] - lo] = -1;
    for (let i = 0; i < vulnerableCount; i++) isTarget[vulnerableVertices[i] - lo] = 0;
    if (segments > task.maxSegments || characters > task.maxCharacters) {
      return {
        data: new Int32Array(0),
        segments,
        characters,
        overBudget: true,
        forward: forwardCount,
        backward: backwardCount,
      };
    }
  }
  return {
    data: out.result(),
    segments,
    characters,
    overBudget: false,
    forward: forwardCount,
    backward: backwardCount,
  };
}

/** Shards walked one after the other in one thread: one pool task for several shards (see planBatches). */
export interface ShardBatch extends Omit<ShardTask, 'resolutions'> {
  shards: Int32Array[];
}

/** Walks the batch's shards in order; stops after a shard over the budget (its output says so). */
export function walkBatch(batch: ShardBatch): ShardOutput[] {
  const outputs: ShardOutput[] = [];
  for (const resolutions of batch.shards) {
    const out = walkShard({ ...batch, resolutions });
    outputs.push(out);
    if (out.overBudget) break;
  }
  return outputs;
}

/** Sorts the first n vertices of `vs` by label, then vertex number. */
function sortByLabel(vs: Int32Array, n: number, label: Int32Array): void {
  if (n > 32) {
    vs.set(Array.from(vs.subarray(0, n)).sort((a, b) => label[a] - label[b] || a - b));
    return;
  }
  for (let i = 1; i < n; i++) {
    const v = vs[i];
    let j = i - 1;
    while (j >= 0 && (label[vs[j]] > label[v] || (label[vs[j]] === label[v] && vs[j] > v))) {
      vs[j + 1] = vs[j];
      j--;
    }
    vs[j + 1] = v;
  }
}

/** Sorts the first n introductions by (M's label, D's label, D, M), the order origins are written in. */
function sortIntroductions(introM: Int32Array, introD: Int32Array, n: number, label: Int32Array): void {
  const before = (i: number, j: number) =>
    label[introM[i]] - label[introM[j]] ||
    label[introD[i]] - label[introD[j]] ||
    introD[i] - introD[j] ||
    introM[i] - introM[j];
  if (n > 32) {
    const order = Array.from({ length: n }, (_, i) => i).sort(before);
    const m = order.map((i) => introM[i]);
    const d = order.map((i) => introD[i]);
    introM.set(m);
    introD.set(d);
    return;
  }
  for (let i = 1; i < n; i++) {
    const m = introM[i];
    const d = introD[i];
    let j = i - 1;
    while (
      j >= 0 &&
      (label[introM[j]] - label[m] || label[introD[j]] - label[d] || introD[j] - d || introM[j] - m) > 0
    ) {
      introM[j + 1] = introM[j];
      introD[j + 1] = introD[j];
      j--;
    }
    introM[j + 1] = m;
    introD[j + 1] = d;
  }
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
