// The intelligence feeds (KEV, EPSS) as packed generations, held in memory by every process that reads them.
//
// A generation is one imported file: a few chunk documents of gzip-compressed JSON (at most EPSS_CHUNK_ROWS rows or
// KEV_CHUNK_BYTES of JSON each, far under MongoDB's 16 MB document limit), then one metadata document, both written
// before anything points at them; then the kind's pointer (settings `intel:kev` / `intel:epss`) is switched in one
// single-document write, so a reader sees the old generation or the new one, never a mix. An EPSS file of 300,000 rows
// is 3 chunks, not 300,000 documents: FerretDB pays per document decoded, and the same few documents serve real MongoDB.
//
// After the switch the generation before it (the "previous") is kept, for a process still reading it; older ones are
// deleted, and so are generations that never became current (an import that died between its chunks and its
// switch) once they are an hour old.
//
// loadIntel: the current generations decoded into maps, kept per Store. A call reads the two pointers (one query) at
// most once every INTEL_POINTER_TTL_MS and decodes a kind again only when its pointer moved: a hot read path costs no
// database read, and a new generation is seen everywhere within that time.
import { createHash } from 'node:crypto';
import { newId } from '../domain/ids';
import type { ParsedEpss } from '../domain/intel/epss';
import type { ParsedKev } from '../domain/intel/kev';
import { INTEL_KINDS, type IntelKind } from '../domain/intel/refused';
import type { EpssScores, Intel, KevCatalog, KevEntry } from '../domain/intel/types';
import { NO_INTEL } from '../domain/intel/types';
import { jsonChunks, packJson, packJsonText, unpackJson } from './codec';
import type { IntelChunkDoc, IntelGenerationDoc } from './documents/intel';
import type { Store } from './mongo';

export const EPSS_CHUNK_ROWS = 100_000;
export const KEV_CHUNK_BYTES = 4 * 1024 * 1024;
/** How long loadIntel trusts what it holds before it reads the pointers again. */
export const INTEL_POINTER_TTL_MS = 1000;
/** A generation that never became current is deleted once this old (no import takes that long). */
const ORPHAN_AGE_MS = 60 * 60 * 1000;

const pointerId = (kind: IntelKind) => `intel:${kind}`;
const ID_PREFIX = { kev: 'kev', epss: 'eps' } as const;

type KevTuple = [cve: string, dateAdded: string, dueDate: string, knownRansomwareCampaignUse: string];
interface EpssChunk {
  cves: string[];
  scores: number[];
  percentiles: number[];
}

/** sha256 of a feed file's decompressed bytes (and of what else decides its content, e.g. a score date given). */
export function feedDigest(bytes: Uint8Array, extra = ''): string {
  return createHash('sha256').update(bytes).update('\0').update(extra).digest('hex');
}

export async function currentIntelGeneration(store: Store, kind: IntelKind): Promise<string | null> {
  const doc = await store.c.settings.findOne({ _id: pointerId(kind) });
  return typeof doc?.value === 'string' ? doc.value : null;
}

export interface IntelWrite {
  kind: IntelKind;
  generation: string;
  /** The generation current before (null: the first import of this kind). */
  previous: string | null;
  /** false: the file was the current generation's own (same digest); nothing was written. */
  changed: boolean;
  doc: IntelGenerationDoc;
}

type GenerationMeta = Pick<
  IntelGenerationDoc,
  'count' | 'catalogVersion' | 'dateReleased' | 'modelVersion' | 'scoreDate'
>;

/**
 * The current generation when it holds this very file (same digest): marked checked, and no new generation is made.
 */
export async function unchangedGeneration(store: Store, kind: IntelKind, digest: string): Promise<IntelWrite | null> {
  const current = await currentIntelGeneration(store, kind);
  if (!current) return null;
  const doc = await store.c.intelGenerations.findOne({ _id: current });
  if (!doc || doc.digest !== digest) return null;
  const checkedAt = new Date();
  await store.c.intelGenerations.updateOne({ _id: current }, { $set: { checkedAt } });
  return { kind, generation: current, previous: current, changed: false, doc: { ...doc, checkedAt } };
}

async function writeGeneration(
  store: Store,
  kind: IntelKind,
  chunks: Array<IntelChunkDoc['data']>,
  meta: GenerationMeta & { source: string; digest: string },
  id = newId(ID_PREFIX[kind]),
): Promise<IntelWrite> {
  const createdAt = new Date();
  if (chunks.length)
    await store.c.intelChunks.insertMany(
      chunks.map((data, n) => ({ _id: `${id}:${n}`, generation: id, kind, n, createdAt, data })),
      { ordered: true },
    );
  const doc: IntelGenerationDoc = { _id: id, kind, createdAt, chunks: chunks.length, ...meta };
  await store.c.intelGenerations.insertOne(doc);
  // The switch: one single-document write makes the whole generation current at once. The document before it says
  // which generation this one replaces (atomically, whatever another import does meanwhile).
  const before = await store.c.settings.findOneAndUpdate(
    { _id: pointerId(kind) },
    { $set: { value: id } },
    { upsert: true, returnDocument: 'before' },
  );
  const previous = typeof before?.value === 'string' ? before.value : null;
  if (previous && previous !== id)
    await store.c.intelGenerations.updateOne({ _id: previous }, { $set: { supersededAt: new Date() } });
  await pruneGenerations(store, kind, [id, ...(previous ? [previous] : [])]);
  return { kind, generation: id, previous, changed: true, doc };
}

/**
 * Deletes the kind's generations that are neither in `keep` (the current one and the one before) nor possibly in the
 * making: those superseded, and any older than an hour (an import that never switched). Chunks first, then metadata.
 */
async function pruneGenerations(store: Store, kind: IntelKind, keep: string[]): Promise<void> {
  const cutoff = new Date(Date.now() - ORPHAN_AGE_MS);
  const gens = await store.c.intelGenerations
    .find({ kind }, { projection: { _id: 1, createdAt: 1, supersededAt: 1 } })
    .toArray();
  const doomed = new Set(
    gens.filter((g) => !keep.includes(g._id) && (g.supersededAt || g.createdAt < cutoff)).map((g) => g._id),
  );
  // Chunks whose metadata was never written (the import died in between), once old enough.
  const known = new Set(gens.map((g) => g._id));
  for (const c of await store.c.intelChunks
    .find({ kind, createdAt: { $lt: cutoff } }, { projection: { _id: 1, generation: 1 } })
    .toArray())
    if (!known.has(c.generation) && !keep.includes(c.generation)) doomed.add(c.generation);
  if (doomed.size === 0) return;
  const ids = [...doomed];
  await store.c.intelChunks.deleteMany({ generation: { $in: ids } });
  await store.c.intelGenerations.deleteMany({ _id: { $in: ids } });
}

/** A parsed KEV catalog as the new current generation (unchangedGeneration first tells whether it is one). */
export async function writeKevGeneration(
  store: Store,
  kev: ParsedKev,
  meta: { source: string; digest: string },
): Promise<IntelWrite> {
  const tuples: KevTuple[] = [];
  for (const [cve, e] of kev.entries) tuples.push([cve, e.dateAdded, e.dueDate, e.knownRansomwareCampaignUse]);
  const chunks = await Promise.all(
    jsonChunks(tuples, Number.MAX_SAFE_INTEGER, KEV_CHUNK_BYTES).map((c) => packJsonText(c.json)),
  );
  return writeGeneration(store, 'kev', chunks, {
    ...meta,
    count: kev.count,
    catalogVersion: kev.catalogVersion,
    dateReleased: kev.dateReleased,
  });
}

/** Parsed EPSS scores as the new current generation. */
export async function writeEpssGeneration(
  store: Store,
  epss: ParsedEpss,
  meta: { source: string; digest: string },
): Promise<IntelWrite> {
  const parts: EpssChunk[] = [];
  for (let from = 0; from < epss.count; from += EPSS_CHUNK_ROWS) {
    const to = Math.min(epss.count, from + EPSS_CHUNK_ROWS);
    parts.push({
      cves: epss.cves.slice(from, to),
      scores: Array.from(epss.scores.subarray(from, to)),
      percentiles: Array.from(epss.percentiles.subarray(from, to)),
    });
  }
  const chunks = await Promise.all(parts.map((p) => packJson(p)));
  return writeGeneration(store, 'epss', chunks, {
    ...meta,
    count: epss.count,
    modelVersion: epss.modelVersion,
    scoreDate: epss.scoreDate,
  });
}

// Reads --------------------------------------------------------------------------------------------------------------

async function chunksOf<T>(store: Store, gen: IntelGenerationDoc): Promise<T[]> {
  const docs = await store.c.intelChunks.find({ generation: gen._id }).toArray();
  if (docs.length !== gen.chunks)
    throw new Error(`intel generation ${gen._id}: ${docs.length} of its ${gen.chunks} chunks found`);
  docs.sort((a, b) => a.n - b.n);
  return Promise.all(docs.map((d) => unpackJson<T>(d.data)));
}

async function decodeKev(store: Store, gen: IntelGenerationDoc): Promise<KevCatalog> {
  const entries = new Map<string, KevEntry>();
  for (const part of await chunksOf<KevTuple[]>(store, gen))
    for (const [cve, dateAdded, dueDate, knownRansomwareCampaignUse] of part)
      entries.set(cve, { dateAdded, dueDate, knownRansomwareCampaignUse });
  return {
    generation: gen._id,
    catalogVersion: gen.catalogVersion ?? '',
    dateReleased: gen.dateReleased ?? '',
    entries,
  };
}

async function decodeEpss(store: Store, gen: IntelGenerationDoc): Promise<EpssScores> {
  const scores = new Map<string, readonly [number, number]>();
  for (const part of await chunksOf<EpssChunk>(store, gen))
    for (let i = 0; i < part.cves.length; i++) scores.set(part.cves[i], [part.scores[i], part.percentiles[i]]);
  return { generation: gen._id, modelVersion: gen.modelVersion ?? null, scoreDate: gen.scoreDate ?? '', scores };
}

interface Held {
  intel: Intel;
  checkedAt: number;
  pending: Promise<Intel> | null;
}

const held = new WeakMap<Store, Held>();

const versionOf = (kev: KevCatalog | null, epss: EpssScores | null) =>
  kev || epss ? `${kev?.generation ?? '-'}+${epss?.generation ?? '-'}` : NO_INTEL.version;

async function pointers(store: Store): Promise<Record<IntelKind, string | null>> {
  const docs = await store.c.settings.find({ _id: { $in: INTEL_KINDS.map(pointerId) } }).toArray();
  const of = (kind: IntelKind) => {
    const v = docs.find((d) => d._id === pointerId(kind))?.value;
    return typeof v === 'string' ? v : null;
  };
  return { kev: of('kev'), epss: of('epss') };
}

async function refresh(store: Store, before: Intel): Promise<Intel> {
  // A generation is deleted two switches after it stopped being current: should that happen between reading the
  // pointers and reading the generation, the pointers are read again.
  for (let attempt = 1; ; attempt++) {
    const p = await pointers(store);
    try {
      const load = async <T extends KevCatalog | EpssScores>(
        kind: IntelKind,
        had: T | null,
        decode: (store: Store, gen: IntelGenerationDoc) => Promise<T>,
      ): Promise<T | null> => {
        const id = p[kind];
        if (id === null) return null;
        if (had?.generation === id) return had;
        const gen = await store.c.intelGenerations.findOne({ _id: id });
        if (!gen) throw new Error(`intel generation ${id} not found`);
        return decode(store, gen);
      };
      const [kev, epss] = await Promise.all([
        load('kev', before.kev, decodeKev),
        load('epss', before.epss, decodeEpss),
      ]);
      if (kev === before.kev && epss === before.epss) return before;
      return { kev, epss, version: versionOf(kev, epss) };
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

/**
 * The feeds in force, as this process holds them: the pointers are read at most once every `maxAgeMs` (default
 * INTEL_POINTER_TTL_MS; 0 reads them now), a kind decoded again only when its generation changed. Concurrent calls
 * share one refresh.
 */
export async function loadIntel(store: Store, opts: { maxAgeMs?: number } = {}): Promise<Intel> {
  const maxAgeMs = opts.maxAgeMs ?? INTEL_POINTER_TTL_MS;
  let h = held.get(store);
  if (!h) held.set(store, (h = { intel: NO_INTEL, checkedAt: -Infinity, pending: null }));
  if (Date.now() - h.checkedAt < maxAgeMs) return h.intel;
  if (h.pending) return h.pending;
  const state = h;
  const started = Date.now();
  state.pending = refresh(store, state.intel).then(
    (intel) => {
      state.intel = intel;
      state.checkedAt = started;
      state.pending = null;
      return intel;
    },
    (err: unknown) => {
      state.pending = null;
      throw err;
    },
  );
  return state.pending;
}

// Status -------------------------------------------------------------------------------------------------------------

export interface IntelFeedStatus {
  generation: string;
  /** The generation before it, kept until the next import. */
  previous: string | null;
  count: number;
  importedAt: string;
  /** The last import that found the same file again, if any. */
  checkedAt: string | null;
  source: string;
}

export interface IntelStatus {
  kev: (IntelFeedStatus & { catalogVersion: string; dateReleased: string }) | null;
  epss: (IntelFeedStatus & { modelVersion: string | null; scoreDate: string }) | null;
}

/** The current generation of each feed with its metadata (null: never imported). */
export async function intelStatus(store: Store): Promise<IntelStatus> {
  const p = await pointers(store);
  const ids = INTEL_KINDS.map((k) => p[k]).filter((x): x is string => x !== null);
  const [gens, superseded] = await Promise.all([
    ids.length ? store.c.intelGenerations.find({ _id: { $in: ids } }).toArray() : [],
    store.c.intelGenerations
      .find({ supersededAt: { $exists: true } }, { projection: { _id: 1, kind: 1, supersededAt: 1 } })
      .toArray(),
  ]);
  const common = (kind: IntelKind): [IntelGenerationDoc, IntelFeedStatus] | null => {
    const g = gens.find((x) => x._id === p[kind]);
    if (!g) return null;
    const before = superseded
      .filter((x) => x.kind === kind && x._id !== g._id)
      .sort((a, b) => b.supersededAt!.getTime() - a.supersededAt!.getTime())[0];
    return [
      g,
      {
        generation: g._id,
        previous: before?._id ?? null,
        count: g.count,
        importedAt: g.createdAt.toISOString(),
        checkedAt: g.checkedAt ? g.checkedAt.toISOString() : null,
        source: g.source,
      },
    ];
  };
  const kev = common('kev');
  const epss = common('epss');
  return {
    kev: kev
      ? { ...kev[1], catalogVersion: kev[0].catalogVersion ?? '', dateReleased: kev[0].dateReleased ?? '' }
      : null,
    epss: epss ? { ...epss[1], modelVersion: epss[0].modelVersion ?? null, scoreDate: epss[0].scoreDate ?? '' } : null,
  };
}
