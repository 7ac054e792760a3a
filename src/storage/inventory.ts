// The dependency inventory of completed scans. A scan's items are immutable: written as a few
// _id-keyed compressed chunks before the scan is marked completed (replace-by-_id, so a retried publish overwrites),
// and read through a per-process cache. "The latest completed scan of each ecosystem" of a project is found from a
// few small head entries, one per scan whose inventory was written, read by top-level equality on the project.
import { LRUCache } from 'lru-cache';
import { compareCodePoints, normalizedName, type InventoryItem } from '../domain/inventory';
import { envInt } from '../config';
import { jsonChunks, packJsonText, unpackBytes } from './codec';
import type { InventoryHeadDoc } from './documents/inventory';
import type { Store } from './mongo';
import { byteBoundedCache } from './results';
import { getScan } from './scans';

/** A chunk holds at most this many items and about this much JSON (before compression): bounded documents. */
export const INVENTORY_CHUNK_SIZE = 5000;
export const INVENTORY_CHUNK_BYTES = 4 * 1024 * 1024;
/** Default byte budget of the per-process read cache (decompressed JSON bytes). */
export const INVENTORY_CACHE_BYTES = 32 * 1024 * 1024;

/** What of a scan the inventory is keyed by. */
export interface InventoryScan {
  _id: string;
  projectId: string;
  ecosystem: string;
  startedAt: Date;
}

/**
 * Writes a scan's inventory and its head entry, at once: an entry counts only once its scan is completed, which
 * the scan is marked after this returns, so an entry seen by a reader always finds its items. Idempotent; part of
 * publishing, before the scan is marked completed. The entries it displaces are pruned after (pruneInventoryHeads).
 */
export async function writeInventory(store: Store, scan: InventoryScan, items: InventoryItem[]): Promise<void> {
  const chunks = jsonChunks(items, INVENTORY_CHUNK_SIZE, INVENTORY_CHUNK_BYTES);
  const PARALLEL = 4;
  const head = store.c.inventoryHeads.replaceOne(
    { _id: scan._id },
    { projectId: scan.projectId, ecosystem: scan.ecosystem, startedAt: scan.startedAt },
    { upsert: true },
  );
  head.catch(() => undefined); // awaited below
  for (let i = 0; i < chunks.length; i += PARALLEL) {
    await Promise.all(
      chunks.slice(i, i + PARALLEL).map(async (part, k) => {
        const n = i + k;
        await store.c.inventoryChunks.replaceOne(
          { _id: `${scan._id}:${n}` },
          { scanId: scan._id, n, chunks: chunks.length, count: part.count, data: await packJsonText(part.json) },
          { upsert: true },
        );
      }),
    );
  }
  await head;
}

/**
 * After a scan's completion: deletes the entries of its project and ecosystem that can no longer be the latest
 * completed scan. Safe whoever runs it and whenever; a failure only leaves a few more entries to read.
 */
export async function pruneInventoryHeads(store: Store, scan: Pick<InventoryScan, 'projectId' | 'ecosystem'>) {
  await pruneHeads(store, scan.projectId, scan.ecosystem);
}

/** Newest first: startedAt descending, then id descending (the scan list's order). */
function newestFirst(a: InventoryHeadDoc, b: InventoryHeadDoc): number {
  return b.startedAt.getTime() - a.startedAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);
}

// Completed and failed are terminal: a status once seen as either never changes, so it is remembered.
const terminalStatus = new LRUCache<string, 'completed' | 'failed'>({ max: 10_000 });

async function statusOf(store: Store, scanId: string): Promise<string | null> {
  const known = terminalStatus.get(scanId);
  if (known) return known;
  const scan = await getScan(store, scanId);
  if (scan?.status === 'completed' || scan?.status === 'failed') terminalStatus.set(scanId, scan.status);
  return scan?.status ?? null;
}

/**
 * Entries older than the newest completed one are never the latest again (completed is terminal), nor are entries
 * of failed or vanished scans: deleting them is safe whoever does it and whenever, and keeps the project's entries
 * few (one per ecosystem, plus scans being published).
 */
async function pruneHeads(store: Store, projectId: string, ecosystem: string): Promise<void> {
  const heads = (await store.c.inventoryHeads.find({ projectId }).toArray())
    .filter((h) => h.ecosystem === ecosystem)
    .sort(newestFirst);
  const statuses = await Promise.all(heads.map((h) => statusOf(store, h._id)));
  const newest = statuses.indexOf('completed');
  const stale = heads.filter((h, i) => (newest >= 0 && i > newest) || statuses[i] === 'failed' || statuses[i] === null);
  await Promise.all(stale.map((h) => store.c.inventoryHeads.deleteOne({ _id: h._id })));
}

/**
 * The scan id of the latest completed scan of each ecosystem of a project (newest startedAt, then id), for one
 * ecosystem or all of them. A scan completing late never displaces a newer one: the order is startedAt, not when
 * scans complete.
 */
export async function latestInventories(
  store: Store,
  projectId: string,
  ecosystem?: string,
): Promise<Record<string, string>> {
  const heads = (await store.c.inventoryHeads.find({ projectId }).toArray())
    .filter((h) => ecosystem === undefined || h.ecosystem === ecosystem)
    .sort(newestFirst);
  // Usually one entry per ecosystem, its scan completed: the statuses are read at once (and remembered).
  const statuses = await Promise.all(heads.map((h) => statusOf(store, h._id)));
  const out: Record<string, string> = {};
  heads.forEach((h, i) => {
    if (statuses[i] === 'completed' && !(h.ecosystem in out)) out[h.ecosystem] = h._id;
  });
  const sorted: Record<string, string> = {};
  for (const k of Object.keys(out).sort(compareCodePoints)) sorted[k] = out[k];
  return sorted;
}

/** A scan's items and, beside them, their names as the scan's ecosystem compares them (for the name filter). */
export interface ScanInventory {
  items: InventoryItem[];
  names: string[];
}

const cache = byteBoundedCache<ScanInventory, { store: Store; ecosystem: string }>(
  envInt('INVENTORY_CACHE_BYTES', INVENTORY_CACHE_BYTES),
  async (scanId, { store, ecosystem }) => {
    const first = await store.c.inventoryChunks.findOne({ _id: `${scanId}:0` });
    if (!first) throw new Error(`inventory chunk ${scanId}:0 missing`);
    const docs = [
      first,
      ...(await Promise.all(
        Array.from({ length: first.chunks - 1 }, async (_, k) => {
          const doc = await store.c.inventoryChunks.findOne({ _id: `${scanId}:${k + 1}` });
          if (!doc) throw new Error(`inventory chunk ${scanId}:${k + 1} missing`);
          return doc;
        }),
      )),
    ];
    const raw = await Promise.all(docs.map((d) => unpackBytes(d.data)));
    const items = raw.flatMap((b) => JSON.parse(b.toString('utf8')) as InventoryItem[]);
    return {
      value: { items, names: items.map((i) => normalizedName(ecosystem, i.name)) },
      bytes: raw.reduce((sum, b) => sum + b.length, 0),
    };
  },
);

/** A completed scan's inventory in list order (cached: it never changes once published). */
export function readInventory(store: Store, scanId: string, ecosystem: string): Promise<ScanInventory> {
  return cache.get(scanId, { store, ecosystem });
}
