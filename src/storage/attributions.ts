// A paged scan's attributions, stored apart from its findings: the findings chunks carry
// `attributions: []` and `attributionCount`, and every read answers from a few _id reads, whatever the graph's size:
//   `${scan}:list:${pkg}:${n}`   the attributions of one vulnerable package without their paths (what an attributions
//                                page shows), in the API's order, compressed, in chunks; chunk 0 also holds how many
//                                chunks there are and where each chunk of paths starts
//   `${scan}:path:${pkg}:${n}`   their paths and origins' paths, in smaller chunks (a path read decodes one)
//   `${scan}:scope:${view}:${kind}:${bucket}`   per view and module or team: the findings in it, with counts (the
//                                lists of the modules or teams whose hash falls in that bucket)
//   `${scan}:modcounts`          per-module counts of the affected view, in module order
// (pkg is a hash: package ids can be 2,000 characters). Written before the scan is
// marked completed and never changed after: reads are cached per process within byte budgets, like the findings.
// Also the shard outputs of a paged scan's attribution (scanWork, so that completion or failure clears them).
import { createHash } from 'node:crypto';
import { Binary, MongoBulkWriteError } from 'mongodb';
import type {
  AttributionListItem,
  AttributionPathItem,
  ModuleCounts,
  ScopeEntry,
  View,
} from '../domain/attribution/views';
import type { ScanAttributionDoc } from './documents/scans';
import { packBytes, packJson, unpackBytes } from './codec';
import type { Store } from './mongo';
import { byteBoundedCache } from './results';
import { envInt } from '../config';

/** Chunk bounds (items, and bytes of JSON before compression): documents stay far below MongoDB's 16 MB. */
export const LIST_CHUNK_ITEMS = 2000;
export const LIST_CHUNK_BYTES = 2 * 1024 * 1024;
export const PATH_CHUNK_ITEMS = 200;
export const PATH_CHUNK_BYTES = 1024 * 1024;

const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32);
const listId = (scanId: string, pkg: string, n: number) => `${scanId}:list:${hash(pkg)}:${n}`;
const pathId = (scanId: string, pkg: string, n: number) => `${scanId}:path:${hash(pkg)}:${n}`;

/** Start positions of chunks of at most `maxItems` items and about `maxBytes` bytes of JSON (at least one item each). */
export function chunkStarts(sizes: readonly number[], maxItems: number, maxBytes: number): number[] {
  const starts = [0];
  let bytes = 0;
  for (let i = 0; i < sizes.length; i++) {
    if (i > starts[starts.length - 1] && (i - starts[starts.length - 1] >= maxItems || bytes + sizes[i] > maxBytes)) {
      starts.push(i);
      bytes = 0;
    }
    bytes += sizes[i];
  }
  return starts;
}

function slices<T>(items: readonly T[], starts: readonly number[]): T[][] {
  return starts.map((s, k) => items.slice(s, k + 1 < starts.length ? starts[k + 1] : items.length));
}

/** Scope lists are stored in this many documents per view and kind (by a hash of the module path or team name). */
export const SCOPE_BUCKETS = 64;
export const scopeBucket = (key: string): number => parseInt(hash(key).slice(0, 8), 16) % SCOPE_BUCKETS;
const scopeId = (scanId: string, view: View, kind: 'module' | 'team', bucket: number) =>
  `${scanId}:scope:${view}:${kind}:${bucket}`;

/** A bulk write that failed only because documents with those _ids exist already (written by an earlier attempt). */
function onlyDuplicates(err: unknown): boolean {
  if (!(err instanceof MongoBulkWriteError)) return false;
  const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
  return errors.length > 0 && errors.every((e) => e.code === 11000);
}

/**
 * Writes a paged scan's attribution documents in bulk inserts (a few MB per round trip, two in flight at most): on
 * FerretDB an insert costs a fraction of an update. start() first removes whatever an earlier attempt of the
 * completion left (nothing reads these documents before the scan is completed); every document is a pure function of
 * the scan, so one that exists already (an attempt still running beside this one) is as good as a new one.
 */
export class AttributionWriter {
  private docs: ScanAttributionDoc[] = [];
  private bytes = 0;
  private inFlight: Promise<unknown>[] = [];

  constructor(
    private readonly store: Store,
    private readonly scanId: string,
  ) {}

  async start(): Promise<void> {
    await clearAttributions(this.store, this.scanId);
  }

  async put(_id: string, data: Binary, extra: Partial<ScanAttributionDoc> = {}): Promise<void> {
    this.docs.push({ _id, scanId: this.scanId, data, ...extra });
    this.bytes += data.length() + 200;
    if (this.docs.length >= 500 || this.bytes >= 4 * 1024 * 1024) await this.flush();
  }

  private async flush(): Promise<void> {
    if (!this.docs.length) return;
    const docs = this.docs;
    this.docs = [];
    this.bytes = 0;
    const p = this.store.c.scanAttributions.insertMany(docs, { ordered: false }).catch((err) => {
      if (!onlyDuplicates(err)) throw err;
    });
    this.inFlight.push(p);
    void p.then(
      () => (this.inFlight = this.inFlight.filter((x) => x !== p)),
      () => undefined, // awaited in close() or below
    );
    if (this.inFlight.length >= 2) await this.inFlight[0];
  }

  /** Sends what is left and waits for every write. */
  async close(): Promise<void> {
    await this.flush();
    await Promise.all(this.inFlight);
  }

  /** One package's attributions: the list chunks (chunk 0 says how many, and where the path chunks start), the paths. */
  async putPackage(packageId: string, list: AttributionListItem[], paths: AttributionPathItem[]): Promise<void> {
    const listStarts = chunkStarts(
      list.map((x) => JSON.stringify(x).length),
      LIST_CHUNK_ITEMS,
      LIST_CHUNK_BYTES,
    );
    const pathStarts = chunkStarts(
      paths.map((x) => JSON.stringify(x).length),
      PATH_CHUNK_ITEMS,
      PATH_CHUNK_BYTES,
    );
    const listParts = slices(list, listStarts);
    const pathParts = slices(paths, pathStarts);
    const packed = await Promise.all([...listParts, ...pathParts].map((part) => packJson(part)));
    for (let n = 0; n < listParts.length; n++) {
      await this.put(
        listId(this.scanId, packageId, n),
        packed[n],
        n === 0 ? { chunks: listParts.length, count: list.length, pathStarts } : {},
      );
    }
    for (let n = 0; n < pathParts.length; n++)
      await this.put(pathId(this.scanId, packageId, n), packed[listParts.length + n]);
  }

  /** The scope index: per view and kind, the lists grouped in SCOPE_BUCKETS documents (empty buckets not written). */
  async putScopes(entries: readonly ScopeEntry[]): Promise<void> {
    const buckets = new Map<
      string,
      { view: View; kind: 'module' | 'team'; bucket: number; lists: Record<string, number[]> }
    >();
    for (const e of entries) {
      const bucket = scopeBucket(e.key);
      const id = scopeId(this.scanId, e.view, e.kind, bucket);
      let b = buckets.get(id);
      if (!b) buckets.set(id, (b = { view: e.view, kind: e.kind, bucket, lists: {} }));
      b.lists[e.key] = Array.from(e.pairs);
    }
    for (const [id, b] of buckets) await this.put(id, await packJson(b.lists), { count: Object.keys(b.lists).length });
  }

  async putModuleCounts(counts: ModuleCounts[]): Promise<void> {
    await this.put(`${this.scanId}:modcounts`, await packJson(counts));
  }
}

/** Every stored attribution document of a scan (a failed scan keeps none). */
export async function clearAttributions(store: Store, scanId: string): Promise<void> {
  await store.c.scanAttributions.deleteMany({ scanId });
}

// ------------------------------------------------------------------------------------------------------ reads --

export interface PackageAttributions {
  items: AttributionListItem[];
  /** Start (attribution position) of each path chunk. */
  pathStarts: number[];
  /** attribution id → position */
  positions: Map<string, number>;
}

const EMPTY: PackageAttributions = { items: [], pathStarts: [], positions: new Map() };

/** Default byte budget of the per-process cache of packages' attribution lists and path chunks (ATTRIBUTIONS_CACHE_BYTES). */
export const ATTRIBUTIONS_CACHE_BYTES = 64 * 1024 * 1024;
const budget = envInt('ATTRIBUTIONS_CACHE_BYTES', ATTRIBUTIONS_CACHE_BYTES);

const lists = byteBoundedCache<PackageAttributions, { store: Store; scanId: string; packageId: string }>(
  budget,
  async (_key, { store, scanId, packageId }) => {
    const head = await store.c.scanAttributions.findOne({ _id: listId(scanId, packageId, 0) });
    if (!head) return { value: EMPTY, bytes: 0 };
    const rest = await Promise.all(
      Array.from({ length: (head.chunks ?? 1) - 1 }, async (_, k) => {
        const doc = await store.c.scanAttributions.findOne({ _id: listId(scanId, packageId, k + 1) });
        if (!doc) throw new Error(`attribution chunk ${k + 1} of ${packageId} in ${scanId} missing`);
        return doc.data;
      }),
    );
    let bytes = 0;
    const items: AttributionListItem[] = [];
    for (const data of [head.data, ...rest]) {
      const raw = await unpackBytes(data);
      bytes += raw.length;
      for (const item of JSON.parse(raw.toString('utf8')) as AttributionListItem[]) items.push(item);
    }
    const positions = new Map(items.map((a, i) => [a.id, i]));
    return { value: { items, pathStarts: head.pathStarts ?? [0], positions }, bytes: bytes * 2 };
  },
);

/** The attributions of a vulnerable package of a completed paged scan, without paths (empty when it has none). */
export function readPackageAttributions(store: Store, scanId: string, packageId: string): Promise<PackageAttributions> {
  return lists.get(`${scanId}\0${packageId}`, { store, scanId, packageId });
}

const pathChunks = byteBoundedCache<AttributionPathItem[], { store: Store; id: string }>(
  Math.floor(budget / 4),
  async (_key, { store, id }) => {
    const doc = await store.c.scanAttributions.findOne({ _id: id });
    if (!doc) throw new Error(`attribution paths ${id} missing`);
    const raw = await unpackBytes(doc.data);
    return { value: JSON.parse(raw.toString('utf8')) as AttributionPathItem[], bytes: raw.length * 2 };
  },
);

/** The paths of the attribution at `position` of a package (one chunk read). */
export async function readAttributionPath(
  store: Store,
  scanId: string,
  packageId: string,
  pkg: PackageAttributions,
  position: number,
): Promise<AttributionPathItem> {
  let n = 0;
  while (n + 1 < pkg.pathStarts.length && pkg.pathStarts[n + 1] <= position) n++;
  const id = pathId(scanId, packageId, n);
  const chunk = await pathChunks.get(id, { store, id });
  return chunk[position - pkg.pathStarts[n]];
}

const scopes = byteBoundedCache<Map<string, Int32Array>, { store: Store; id: string }>(
  budget,
  async (_key, { store, id }) => {
    const doc = await store.c.scanAttributions.findOne({ _id: id });
    if (!doc) return { value: new Map(), bytes: 1 };
    const raw = await unpackBytes(doc.data);
    const lists = JSON.parse(raw.toString('utf8')) as Record<string, number[]>;
    return { value: new Map(Object.entries(lists).map(([k, v]) => [k, Int32Array.from(v)])), bytes: raw.length * 2 };
  },
);

/** A list of the scope index: [finding position, attributions in scope, ...]; empty for a module or team without any. */
export async function readScope(
  store: Store,
  scanId: string,
  view: View,
  kind: 'module' | 'team',
  key: string,
): Promise<Int32Array> {
  const id = scopeId(scanId, view, kind, scopeBucket(key));
  return (await scopes.get(id, { store, id })).get(key) ?? new Int32Array(0);
}

const moduleCounts = byteBoundedCache<ModuleCounts[] | null, Store>(budget, async (scanId, store) => {
  const doc = await store.c.scanAttributions.findOne({ _id: `${scanId}:modcounts` });
  if (!doc) return { value: null, bytes: 1 };
  const raw = await unpackBytes(doc.data);
  return { value: JSON.parse(raw.toString('utf8')) as ModuleCounts[], bytes: raw.length * 2 };
});

/** Per-module counts (affected view) of a completed paged scan, in module order; null when none were stored. */
export function readModuleCounts(store: Store, scanId: string): Promise<ModuleCounts[] | null> {
  return moduleCounts.get(scanId, store);
}

// ------------------------------------------------------------------------------------------- shard outputs --

/** A shard output is stored in parts of at most this many bytes before compression. */
export const SHARD_PART_BYTES = 8 * 1024 * 1024;

export interface ShardMeta {
  segments: number;
  characters: number;
  parts: number;
}

/** Stores shard k's output: the parts first, then the head that names them (a head means the whole shard is stored). */
export async function putShardOutput(
  store: Store,
  scanId: string,
  shard: number,
  data: Int32Array,
  meta: Omit<ShardMeta, 'parts'>,
): Promise<void> {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const parts = Math.max(1, Math.ceil(bytes.length / SHARD_PART_BYTES));
  for (let p = 0; p < parts; p++) {
    const _id = `${scanId}:paged:${shard}:${p}`;
    const data = await packBytes(bytes.subarray(p * SHARD_PART_BYTES, (p + 1) * SHARD_PART_BYTES));
    await store.c.scanWork.replaceOne({ _id }, { scanId, kind: `paged-part:${shard}`, data }, { upsert: true });
  }
  const _id = `${scanId}:paged:${shard}`;
  await store.c.scanWork.replaceOne(
    { _id },
    { scanId, kind: `paged:${shard}`, data: new Binary(Buffer.alloc(0)), meta: { ...meta, parts } },
    { upsert: true },
  );
}

/** Whether shard k's output is stored, and its counts. */
export async function shardMeta(store: Store, scanId: string, shard: number): Promise<ShardMeta | null> {
  const doc = await store.c.scanWork.findOne({ _id: `${scanId}:paged:${shard}` }, { projection: { meta: 1 } });
  return doc?.meta ? (doc.meta as unknown as ShardMeta) : null;
}

export async function getShardOutput(store: Store, scanId: string, shard: number): Promise<Int32Array> {
  const meta = await shardMeta(store, scanId, shard);
  if (!meta) throw new Error(`attribution shard ${shard} of ${scanId} missing`);
  const parts = await Promise.all(
    Array.from({ length: meta.parts }, async (_, p) => {
      const doc = await store.c.scanWork.findOne({ _id: `${scanId}:paged:${shard}:${p}` });
      if (!doc) throw new Error(`attribution shard ${shard} of ${scanId}: part ${p} missing`);
      return unpackBytes(doc.data);
    }),
  );
  const total = parts.reduce((n, b) => n + b.length, 0);
  // An aligned buffer of its own: a Buffer from the pool may start at any byte offset.
  const out = new Int32Array(total / 4);
  const view = new Uint8Array(out.buffer);
  let at = 0;
  for (const b of parts) {
    view.set(b, at);
    at += b.length;
  }
  return out;
}
