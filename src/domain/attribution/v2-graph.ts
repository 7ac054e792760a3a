// The v2 resolution graphs of a snapshot as compact typed arrays, built once per scan and shared with the walk
// threads without copying (every array sits on a SharedArrayBuffer). Each resolution keeps its own vertices: two
// vertices of one package id stay apart, and edges never cross resolutions.
//
// Vertices are numbered globally, resolution after resolution. A vertex's label is a module path (module vertex) or
// a package id (package vertex); labels are numbered in sorted order (UTF-16 code units, as paths compare), so that
// comparing two label numbers compares the strings, and a path is an Int32Array of label numbers until the end.
import type { Snapshot } from '../../shared/types';

/** Bits of AttributionGraph.resFlags. */
export const RES_DUPLICATE_LABELS = 1;
export const RES_PACKAGE_TO_MODULE = 2;

export interface AttributionGraph {
  /** Vertex v's edges are targets[offsets[v] .. offsets[v + 1]), sorted by the targets' labels. */
  offsets: Int32Array;
  targets: Int32Array;
  /** The reverse edges, for the backward walks from a vulnerable package. */
  rOffsets: Int32Array;
  rTargets: Int32Array;
  /** Label number of every vertex. */
  label: Int32Array;
  /** 1 for a module vertex, 0 for a package vertex. */
  isModule: Uint8Array;
  /** Resolution r owns vertices resStart[r] .. resStart[r + 1]; its root vertex is resRoot[r]. */
  resStart: Int32Array;
  resRoot: Int32Array;
  /** Module vertices of resolution r: modVertices[modStart[r] .. modStart[r + 1]) (the starts of origins). */
  modStart: Int32Array;
  modVertices: Int32Array;
  /** Length in UTF-16 units of every label (for the derived-path budget, counted in the threads). */
  labelLength: Int32Array;
  /**
   * Per resolution: RES_DUPLICATE_LABELS when two of its vertices carry one label (variants, a package in two
   * places), RES_PACKAGE_TO_MODULE when a package vertex depends on a module vertex. The walk's forward strategy
   * needs neither (v2-walk.ts).
   */
  resFlags: Uint8Array;
}

/** What stays on the thread that built the graph: the label strings. */
export interface BuiltGraph {
  graph: AttributionGraph;
  labels: string[];
  /** Label number of a string, when the snapshot has it. */
  labelOf: Map<string, number>;
}

function shared<T extends Int32Array | Uint8Array>(
  Ctor: { new (b: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number },
  n: number,
): T {
  return new Ctor(new SharedArrayBuffer(n * Ctor.BYTES_PER_ELEMENT));
}

function sharedFrom(values: ArrayLike<number>): Int32Array {
  const a = shared(Int32Array, values.length);
  a.set(values);
  return a;
}

const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Builds the graph of a validated v2 snapshot (every reference resolves: the upload checked it). */
export function buildAttributionGraph(snapshot: Snapshot): BuiltGraph {
  const roots = snapshot.roots;
  // Labels: every module path and package id that a vertex carries.
  const labelSet = new Set<string>();
  let vertexCount = 0;
  let edgeCount = 0;
  for (const root of roots) {
    for (const v of root.resolution!.vertices) {
      labelSet.add(v.module ?? v.node!);
      edgeCount += v.dependencies.length;
    }
    vertexCount += root.resolution!.vertices.length;
  }
  const labels = [...labelSet].sort(cmpStr);
  const labelOf = new Map(labels.map((l, i) => [l, i]));

  const offsets = shared(Int32Array, vertexCount + 1);
  const targets = shared(Int32Array, edgeCount);
  const label = shared(Int32Array, vertexCount);
  const isModule = shared(Uint8Array, vertexCount);
  const resStart = shared(Int32Array, roots.length + 1);
  const resRoot = shared(Int32Array, roots.length);
  const modStart = shared(Int32Array, roots.length + 1);
  const resFlags = shared(Uint8Array, roots.length);
  const mods: number[] = [];
  const labelSeenIn = new Int32Array(labels.length).fill(-1); // resolution that last carried the label

  let base = 0;
  let e = 0;
  roots.forEach((root, r) => {
    const vertices = root.resolution!.vertices;
    const local = new Map<string, number>();
    vertices.forEach((v, i) => local.set(v.id, base + i));
    resStart[r] = base;
    resRoot[r] = local.get(root.resolution!.root)!;
    modStart[r] = mods.length;
    vertices.forEach((v, i) => {
      const g = base + i;
      label[g] = labelOf.get(v.module ?? v.node!)!;
      if (labelSeenIn[label[g]] === r) resFlags[r] |= RES_DUPLICATE_LABELS;
      labelSeenIn[label[g]] = r;
      if (v.module != null) {
        isModule[g] = 1;
        mods.push(g);
      }
      offsets[g] = e;
      for (const d of v.dependencies) targets[e++] = local.get(d)!;
    });
    // Edges sorted by their targets' labels (a breadth-first walk in that order visits each layer in the order of
    // its smallest paths), and the package → module edges flagged.
    for (let g = base; g < base + vertices.length; g++) {
      sortByLabel(targets, offsets[g], g + 1 < base + vertices.length ? offsets[g + 1] : e, label);
      if (isModule[g]) continue;
      for (let k = offsets[g]; k < (g + 1 < base + vertices.length ? offsets[g + 1] : e); k++) {
        if (isModule[targets[k]]) resFlags[r] |= RES_PACKAGE_TO_MODULE;
      }
    }
    base += vertices.length;
  });
  offsets[vertexCount] = e;
  resStart[roots.length] = base;
  modStart[roots.length] = mods.length;

  // Reverse CSR: count in-degrees, prefix sums, fill.
  const rOffsets = shared(Int32Array, vertexCount + 1);
  for (let k = 0; k < edgeCount; k++) rOffsets[targets[k] + 1]++;
  for (let v = 0; v < vertexCount; v++) rOffsets[v + 1] += rOffsets[v];
  const rTargets = shared(Int32Array, edgeCount);
  const fill = rOffsets.slice(0, vertexCount);
  for (let v = 0; v < vertexCount; v++) {
    for (let k = offsets[v]; k < offsets[v + 1]; k++) rTargets[fill[targets[k]]++] = v;
  }
  const labelLength = sharedFrom(labels.map((l) => l.length));
  return {
    graph: {
      offsets,
      targets,
      rOffsets,
      rTargets,
      label,
      isModule,
      resStart,
      resRoot,
      modStart,
      modVertices: sharedFrom(mods),
      labelLength,
      resFlags,
    },
    labels,
    labelOf,
  };
}

/** Sorts targets[from, to) by label, then vertex number: insertion sort for the usual short lists. */
function sortByLabel(targets: Int32Array, from: number, to: number, label: Int32Array): void {
  if (to - from > 32) {
    const sorted = Array.from(targets.subarray(from, to)).sort((a, b) => label[a] - label[b] || a - b);
    targets.set(sorted, from);
    return;
  }
  for (let i = from + 1; i < to; i++) {
    const t = targets[i];
    const l = label[t];
    let j = i - 1;
    while (j >= from && (label[targets[j]] > l || (label[targets[j]] === l && targets[j] > t))) {
      targets[j + 1] = targets[j];
      j--;
    }
    targets[j + 1] = t;
  }
}

/** Vertices plus edges: the size that decides between the in-process walk and the pool. */
export function graphSize(g: AttributionGraph): number {
  return g.label.length + g.targets.length;
}
