// Intermediate results of a scan's activities, so that each activity is retriable on its own and Temporal
// payloads stay tiny. Keyed by (scan, kind) and replaced on retry: a retried activity never duplicates anything.
import { packJson, unpackJson } from './compress';
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
