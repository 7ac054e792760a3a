// Splitting a v2 snapshot into a multipart upload's create body and parts, for the domain and HTTP tests (the CI
// client has its own splitter, src/client/api/multipart.ts, tested against this behaviour by the client tests).
import { ApiError } from '../../../src/domain/errors';
import type { PartBody, UploadHeader } from '../../../src/domain/snapshot/parts';
import type { Snapshot } from '../../../src/shared/types';

/** The create body of a snapshot: its fields but the graph, and the number of parts. */
export function headerOf(s: Snapshot, parts: number): UploadHeader {
  const { modules: _m, roots: _r, nodes: _n, schemaVersion: _v, ...rest } = s;
  return { schemaVersion: 2, ...rest, parts } as UploadHeader;
}

/**
 * Parts that hold the snapshot's items in order: `cuts` gives, per kind, how many items go to each part (the items
 * left over go to the last part). Any grouping is allowed; this keeps the order, so that the merge is the snapshot.
 */
export function splitInto(s: Snapshot, parts: number, random: () => number = Math.random): PartBody[] {
  const out: PartBody[] = Array.from({ length: parts }, () => ({}));
  for (const kind of ['modules', 'nodes', 'roots'] as const) {
    const items = (s[kind] ?? []) as unknown[];
    // sorted random cut points: part p takes items [cut[p-1], cut[p])
    const cuts = Array.from({ length: parts - 1 }, () => Math.floor(random() * (items.length + 1))).sort(
      (a, b) => a - b,
    );
    let from = 0;
    for (let p = 0; p < parts; p++) {
      const to = p < parts - 1 ? cuts[p] : items.length;
      const slice = items.slice(from, to);
      // a part without items of a kind may leave the field out, or send it empty
      if (slice.length > 0 || random() < 0.5) (out[p] as Record<string, unknown[]>)[kind] = slice;
      from = to;
    }
  }
  return out;
}

/** The ApiError `f` throws; fails the test when it throws nothing or something else. */
export function errorOf(f: () => unknown): ApiError {
  try {
    f();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError, nothing was thrown');
}

/** mulberry32: reproducible randomness for the property tests. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
