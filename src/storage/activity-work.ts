// Intermediate results of a scan's activities, so that each activity is retriable on its own and Temporal
// payloads stay tiny. Keyed by (scan, kind) and replaced on retry: a retried activity never duplicates anything.
import { packBytes, packJson, unpackBytes, unpackJson } from './codec';
import type { Store } from './mongo';

export async function putWork(store: Store, scanId: string, kind: string, value: unknown): Promise<void> {
  const _id = `${scanId}:${kind}`;
  await store.c.scanWork.replaceOne({ _id }, { scanId, kind, data: await packJson(value) }, { upsert: true });
}

export async function getWork<T>(store: Store, scanId: string, kind: string): Promise<T> {
  const doc = await store.c.scanWork.findOne({ _id: `${scanId}:${kind}` });
  if (!doc) throw new Error(`intermediate result ${scanId}:${kind} missing`);
  return unpackJson<T>(doc.data);
}

export async function clearWork(store: Store, scanId: string, kinds: string[]): Promise<void> {
  await Promise.all(kinds.map((k) => store.c.scanWork.deleteOne({ _id: `${scanId}:${k}` })));
}

/** A typed array (a shard's attribution output) with a few numbers beside it, compressed. */
export async function putWorkInts(
  store: Store,
  scanId: string,
  kind: string,
  data: Int32Array,
  meta: Record<string, number | boolean>,
): Promise<void> {
  const _id = `${scanId}:${kind}`;
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  await store.c.scanWork.replaceOne({ _id }, { scanId, kind, data: await packBytes(bytes), meta }, { upsert: true });
}

export async function getWorkInts(
  store: Store,
  scanId: string,
  kind: string,
): Promise<{ data: Int32Array; meta: Record<string, number | boolean> } | null> {
  const doc = await store.c.scanWork.findOne({ _id: `${scanId}:${kind}` });
  if (!doc) return null;
  const bytes = await unpackBytes(doc.data);
  // Copy into an aligned buffer of its own: a Buffer from the pool may start at any byte offset.
  const data = new Int32Array(bytes.byteLength / 4);
  new Uint8Array(data.buffer).set(bytes);
  return { data, meta: doc.meta ?? {} };
}

/** The numbers stored beside a typed array, without reading the array. */
export async function getWorkMeta(
  store: Store,
  scanId: string,
  kind: string,
): Promise<Record<string, number | boolean> | null> {
  const doc = await store.c.scanWork.findOne({ _id: `${scanId}:${kind}` }, { projection: { meta: 1 } });
  return doc ? (doc.meta ?? {}) : null;
}

/** Every intermediate result of a scan, whatever its kind. */
export async function clearAllWork(store: Store, scanId: string): Promise<void> {
  await store.c.scanWork.deleteMany({ scanId });
}
