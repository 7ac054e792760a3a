// A completed scan's findings: immutable, written as a few _id-keyed compressed chunks in list order before the scan
// is flipped to completed. Writes are replace-by-_id, so a retried activity overwrites rather than duplicates.
// Reads are cached per process, within a byte budget: results never change once published.
import type { ScanModule } from '../domain/attribution/module-order';
import type { Finding } from '../shared/types';
import { LRUCache } from 'lru-cache';
import type { Binary } from 'mongodb';
import { jsonChunks, packJson, packJsonText, unpackBytes } from './codec';
import type { Store } from './mongo';
import { envInt } from '../config';

/** A chunk holds at most this many findings and about this much JSON (before compression): bounded documents. */
export const RESULT_CHUNK_SIZE = 1000;
export const RESULT_CHUNK_BYTES = 4 * 1024 * 1024;

/** Writes the chunks a few at a time (never the whole result in flight at once); returns how many there are. */
export async function writeResults(store: Store, scanId: string, findings: Finding[]): Promise<number> {
  const chunks = jsonChunks(findings, RESULT_CHUNK_SIZE, RESULT_CHUNK_BYTES);
  // Kept for this process's next read of them (the worker's next step, moving the alerts): never changed after this.
  findingsCache.set(
    scanId,
    findings,
    chunks.reduce((n, c) => n + c.json.length, 0),
  );
  const PARALLEL = 4;
  for (let i = 0; i < chunks.length; i += PARALLEL) {
    await Promise.all(
      chunks.slice(i, i + PARALLEL).map(async (part, k) => {
        const n = i + k;
        await store.c.scanResults.replaceOne(
          { _id: `${scanId}:${n}` },
          { scanId, n, count: part.count, data: await packJsonText(part.json) },
          { upsert: true },
        );
      }),
    );
  }
  return chunks.length;
}

/** A v2 scan's ordered module metadata, beside its results; made visible by the same completion update. */
export async function writeModules(store: Store, scanId: string, modules: ScanModule[]): Promise<void> {
  await store.c.scanResults.replaceOne(
    { _id: `${scanId}:modules` },
    { scanId, n: -1, count: modules.length, data: await packJson(modules) },
    { upsert: true },
  );
}

/** Default byte budgets of the per-process read caches (decompressed JSON bytes; the parsed objects take a small
 * multiple of that on the heap). */
export const FINDINGS_CACHE_BYTES = 64 * 1024 * 1024;
export const MODULES_CACHE_BYTES = 16 * 1024 * 1024;

export interface Sized<V> {
  value: V;
  bytes: number;
}

/**
 * A per-process cache of immutable values keyed by scan id, bounded by bytes: least recently used entries go first,
 * an entry bigger than the whole budget is returned but never kept, concurrent reads of one key share one load, and
 * a failed load is not kept (the next read tries again).
 */
export function byteBoundedCache<V, C>(maxBytes: number, load: (key: string, context: C) => Promise<Sized<V>>) {
  if (maxBytes <= 0)
    return {
      get: async (key: string, context: C) => (await load(key, context)).value,
      delete: (_key: string) => undefined,
      set: (_key: string, _value: V, _bytes: number) => undefined,
      calculatedSize: () => 0,
    };
  const lru = new LRUCache<string, Sized<V>, unknown>({
    maxSize: maxBytes,
    sizeCalculation: (e) => Math.max(1, e.bytes),
    fetchMethod: (key, _stale, { context }) => load(key, context as C),
  });
  return {
    async get(key: string, context: C): Promise<V> {
      return (await lru.fetch(key, { context }))!.value;
    },
    delete(key: string): void {
      lru.delete(key);
    },
    /** Keeps a value this process just stored, so that its next read needs no load. */
    set(key: string, value: V, bytes: number): void {
      if (bytes <= maxBytes) lru.set(key, { value, bytes });
    },
    calculatedSize: () => lru.calculatedSize,
  };
}

/** Gunzips a stored value and parses it, with its decompressed size. */
async function unpackSized<T>(bin: Binary): Promise<Sized<T>> {
  const bytes = await unpackBytes(bin);
  return { value: JSON.parse(bytes.toString('utf8')) as T, bytes: bytes.length };
}

// Budgets from the environment: FINDINGS_CACHE_BYTES, MODULES_CACHE_BYTES (0 turns a cache off).
const moduleCache = byteBoundedCache<ScanModule[], Store>(
  envInt('MODULES_CACHE_BYTES', MODULES_CACHE_BYTES),
  async (scanId, store) => {
    const doc = await store.c.scanResults.findOne({ _id: `${scanId}:modules` });
    return doc ? unpackSized<ScanModule[]>(doc.data) : { value: [], bytes: 0 };
  },
);

/** The module metadata of a completed scan (cached: it never changes once published). */
export function readModules(store: Store, scanId: string): Promise<ScanModule[]> {
  return moduleCache.get(scanId, store);
}

const findingsCache = byteBoundedCache<Finding[], { store: Store; chunks: number }>(
  envInt('FINDINGS_CACHE_BYTES', FINDINGS_CACHE_BYTES),
  async (scanId, { store, chunks }) => {
    const parts = await Promise.all(
      Array.from({ length: chunks }, async (_, n) => {
        const doc = await store.c.scanResults.findOne({ _id: `${scanId}:${n}` });
        if (!doc) throw new Error(`result chunk ${scanId}:${n} missing`);
        return unpackSized<Finding[]>(doc.data);
      }),
    );
    return { value: parts.flatMap((p) => p.value), bytes: parts.reduce((sum, p) => sum + p.bytes, 0) };
  },
);

/** A completed scan's findings in list order (cached: they never change once published). */
export function readResults(store: Store, scanId: string, chunks: number): Promise<Finding[]> {
  return findingsCache.get(scanId, { store, chunks });
}
