// A completed scan's findings: immutable, written as a few _id-keyed compressed chunks in list order before the scan
// is flipped to completed. Writes are replace-by-_id, so a retried activity overwrites rather than duplicates.
// Reads are cached per process: results never change once published.
import type { Finding } from '../domain/types';
import { packJson, unpackJson } from './compress';
import type { Store } from './mongo';

export const RESULT_CHUNK_SIZE = 1000;

export async function writeResults(store: Store, scanId: string, findings: Finding[]): Promise<number> {
  const chunks = Math.max(1, Math.ceil(findings.length / RESULT_CHUNK_SIZE));
  await Promise.all(
    Array.from({ length: chunks }, async (_, n) => {
      const part = findings.slice(n * RESULT_CHUNK_SIZE, (n + 1) * RESULT_CHUNK_SIZE);
      const _id = `${scanId}:${n}`;
      await store.c.scanResults.replaceOne({ _id }, { scanId, n, count: part.length, data: await packJson(part) }, { upsert: true });
    }),
  );
  return chunks;
}

const cache = new Map<string, Promise<Finding[]>>();
const CACHE_ENTRIES = 64;

export function readResults(store: Store, scanId: string, chunks: number): Promise<Finding[]> {
  const hit = cache.get(scanId);
  if (hit) {
    cache.delete(scanId);
    cache.set(scanId, hit); // LRU: most recent last
    return hit;
  }
  const p = Promise.all(
    Array.from({ length: chunks }, async (_, n) => {
      const doc = await store.c.scanResults.findOne({ _id: `${scanId}:${n}` });
      if (!doc) throw new Error(`result chunk ${scanId}:${n} missing`);
      return unpackJson<Finding[]>(doc.data);
    }),
  ).then((parts) => parts.flat());
  p.catch(() => cache.delete(scanId));
  cache.set(scanId, p);
  while (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  return p;
}
