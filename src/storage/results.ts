// A completed scan's findings: immutable, written as a few _id-keyed compressed chunks in list order before the scan
// is flipped to completed. Writes are replace-by-_id, so a retried activity overwrites rather than duplicates.
// Reads are cached per process: results never change once published.
import type { ScanModule } from '../domain/attribution/module-order';
import type { Finding } from '../domain/types';
import { packJson, unpackJson } from './compress';
import type { Store } from './mongo';

/** A chunk holds at most this many findings and about this much JSON (before compression): bounded documents. */
export const RESULT_CHUNK_SIZE = 1000;
export const RESULT_CHUNK_BYTES = 4 * 1024 * 1024;

/** Splits findings in list order into runs bounded by count and by serialized size. */
export function chunkFindings(findings: Finding[]): Finding[][] {
  const chunks: Finding[][] = [];
  let cur: Finding[] = [];
  let bytes = 0;
  for (const f of findings) {
    const size = JSON.stringify(f).length;
    if (cur.length && (cur.length >= RESULT_CHUNK_SIZE || bytes + size > RESULT_CHUNK_BYTES)) {
      chunks.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(f);
    bytes += size;
  }
  chunks.push(cur);
  return chunks;
}

/** Writes the chunks a few at a time (never the whole result in flight at once); returns how many there are. */
export async function writeResults(store: Store, scanId: string, findings: Finding[]): Promise<number> {
  const chunks = chunkFindings(findings);
  const PARALLEL = 4;
  for (let i = 0; i < chunks.length; i += PARALLEL) {
    await Promise.all(
      chunks.slice(i, i + PARALLEL).map(async (part, k) => {
        const n = i + k;
        await store.c.scanResults.replaceOne({ _id: `${scanId}:${n}` }, { scanId, n, count: part.length, data: await packJson(part) }, { upsert: true });
      }),
    );
  }
  return chunks.length;
}

/** A v2 scan's ordered module metadata, beside its results; made visible by the same completion update. */
export async function writeModules(store: Store, scanId: string, modules: ScanModule[]): Promise<void> {
  await store.c.scanResults.replaceOne({ _id: `${scanId}:modules` }, { scanId, n: -1, count: modules.length, data: await packJson(modules) }, { upsert: true });
}

const moduleCache = new Map<string, Promise<ScanModule[]>>();

/** The module metadata of a completed scan (cached: it never changes once published). */
export function readModules(store: Store, scanId: string): Promise<ScanModule[]> {
  let p = moduleCache.get(scanId);
  if (!p) {
    p = store.c.scanResults.findOne({ _id: `${scanId}:modules` }).then((doc) => (doc ? unpackJson<ScanModule[]>(doc.data) : []));
    p.catch(() => moduleCache.delete(scanId));
    moduleCache.set(scanId, p);
    while (moduleCache.size > 256) moduleCache.delete(moduleCache.keys().next().value!);
  }
  return p;
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
