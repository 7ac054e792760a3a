// Scan documents stay small (no module metadata or results inside), and what lists show is one Binary value:
// lists decode little (see StoredScanDoc). Every other module sees the plain ScanDoc.
import { Binary, type Filter } from 'mongodb';
import type { FailureReason, SeverityCounts } from '../domain/types';
import type { ScanDoc, StoredScanDoc } from './documents';
import { isDuplicateKey, type Store } from './mongo';

/** What processing sets; replaced whole by each status move. */
type Outcome = Pick<ScanDoc, 'finishedAt' | 'failureReason' | 'failureMessage' | 'findings' | 'suppressed' | 'advisoryGeneration' | 'unmatchedVersions' | 'resultChunks' | 'findingCount' | 'moduleCount'>;
// Multipart scans (platform.md §2) also fix, at completion of their upload: attributionMode, uploadId and moduleCount
// (the number of modules, known then; an outcome that sets moduleCount overrides it in unpack).
type Fixed = Pick<ScanDoc, 'target' | 'ecosystem' | 'schemaVersion' | 'nodeCount' | 'graphSize' | 'bodyBytes' | 'metadata' | 'attributionMode' | 'uploadId' | 'moduleCount'>;

const bin = (value: unknown) => new Binary(Buffer.from(JSON.stringify(value)));
const json = <T>(b: Binary): T => JSON.parse(Buffer.from(b.buffer).toString('utf8')) as T;

function outcomeOf(s: Partial<ScanDoc>): Outcome {
  return {
    finishedAt: s.finishedAt ?? null,
    failureReason: s.failureReason ?? null,
    failureMessage: s.failureMessage,
    findings: s.findings ?? null,
    suppressed: s.suppressed ?? null,
    advisoryGeneration: s.advisoryGeneration,
    unmatchedVersions: s.unmatchedVersions,
    resultChunks: s.resultChunks,
    findingCount: s.findingCount,
    moduleCount: s.moduleCount,
  };
}

function pack(s: ScanDoc): StoredScanDoc {
  const fixed: Fixed = { target: s.target, ecosystem: s.ecosystem, schemaVersion: s.schemaVersion, nodeCount: s.nodeCount, graphSize: s.graphSize, bodyBytes: s.bodyBytes, metadata: s.metadata };
  if (s.attributionMode === 'paged') Object.assign(fixed, { attributionMode: s.attributionMode, uploadId: s.uploadId, moduleCount: s.moduleCount });
  return { _id: s._id, orgId: s.orgId, projectId: s.projectId, status: s.status, orgBucket: s.orgBucket, projectBucket: s.projectBucket, startedAt: s.startedAt, v: bin(fixed), r: bin(outcomeOf(s)) };
}

export function unpack(d: StoredScanDoc): ScanDoc {
  const outcome = json<Outcome & { finishedAt: string | null }>(d.r);
  const doc: ScanDoc = {
    ...json<Fixed>(d.v),
    ...outcome,
    _id: d._id,
    orgId: d.orgId,
    projectId: d.projectId,
    status: d.status,
    orgBucket: d.orgBucket,
    projectBucket: d.projectBucket,
    startedAt: d.startedAt,
    finishedAt: outcome.finishedAt ? new Date(outcome.finishedAt) : null,
  };
  for (const k of ['advisoryGeneration', 'unmatchedVersions', 'resultChunks', 'findingCount', 'moduleCount', 'graphSize', 'failureMessage', 'metadata', 'attributionMode', 'uploadId'] as const) {
    if (doc[k] === undefined) delete doc[k];
  }
  return doc;
}

export async function getScan(store: Store, scanId: string): Promise<ScanDoc | null> {
  const d = await store.c.scans.findOne({ _id: scanId });
  return d ? unpack(d) : null;
}

export async function insertScan(store: Store, scan: ScanDoc): Promise<void> {
  await store.c.scans.insertOne(pack(scan));
}

/**
 * Scan lists touch a bounded number of documents on any backend, whatever the organization's history: every scan
 * gets a bucket number in its organization and in its project (a per-org / per-project counter, BUCKET_SIZE scans a
 * bucket), and a page reads the newest buckets by top-level equality (status too, when filtered) until it is full.
 * FerretDB pushes that equality down, so a page decodes about the buckets it shows instead of the organization's
 * whole history (local-database.md); on MongoDB the indexes on (orgId, orgBucket) and (orgId, projectId,
 * projectBucket) do the same. Order: bucket descending, then id descending: arrival order, stable for keyset
 * pagination.
 */
/** Part of the stored format: changing it needs the buckets of existing scans recomputed. */
export const BUCKET_SIZE = 16;
/**
 * Buckets one list request may read. A page needs about limit / BUCKET_SIZE of them; lists filtered by status or
 * over a restricted key's projects skip buckets without a match, and past this many the page ends early (possibly
 * empty) with a cursor to where it stopped, rather than read on through years of history.
 */
export const MAX_BUCKETS_PER_PAGE = 32;

async function nextSeq(store: Store, counter: string): Promise<number> {
  // Two first upserts of one counter can race to insert it: the loser gets E11000 and simply increments again
  // (MongoDB retries such upserts itself on recent servers; FerretDB does not). On FerretDB concurrent increments
  // may also be lost (it updates by read-then-write): buckets then hold more than BUCKET_SIZE scans, which costs
  // list speed, never list correctness.
  for (let attempt = 0; ; attempt++) {
    try {
      const doc = await store.c.counters.findOneAndUpdate({ _id: counter }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
      return doc!.seq;
    } catch (err) {
      if (!isDuplicateKey(err) || attempt >= 3) throw err;
    }
  }
}

export async function allocateBuckets(store: Store, orgId: string, projectId: string): Promise<{ orgBucket: number; projectBucket: number }> {
  const [o, p] = await Promise.all([nextSeq(store, `scans:${orgId}`), nextSeq(store, `scans:${orgId}:${projectId}`)]);
  return { orgBucket: Math.floor((o - 1) / BUCKET_SIZE), projectBucket: Math.floor((p - 1) / BUCKET_SIZE) };
}

export interface ScanListPosition {
  bucket: number;
  /** Continue with the scans of `bucket` whose id sorts below this one; null (or absent): the whole bucket. */
  id: string | null;
}

export interface ScanListQuery {
  orgId: string;
  projectIds?: string[]; // undefined = every project of the org
  status?: string;
  /** Keyset: continue after this position. */
  after?: ScanListPosition;
  limit: number;
}

/**
 * One page, newest first, and the position the next page starts from (null: nothing older). At most one counter read
 * and MAX_BUCKETS_PER_PAGE bucket reads, each of at most limit + 1 documents: about limit + 2 * BUCKET_SIZE documents
 * in all when buckets hold BUCKET_SIZE scans.
 */
export async function listScans(store: Store, q: ScanListQuery): Promise<{ scans: ScanDoc[]; next: ScanListPosition | null }> {
  const single = q.projectIds?.length === 1 ? q.projectIds[0] : undefined;
  const field = single ? 'projectBucket' : 'orgBucket';
  const base: Filter<StoredScanDoc> = { orgId: q.orgId };
  if (single) base.projectId = single;
  else if (q.projectIds) base.projectId = { $in: q.projectIds };
  if (q.status) base.status = q.status as StoredScanDoc['status'];
  let bucket: number;
  let afterId = q.after?.id ?? null;
  if (q.after) bucket = q.after.bucket;
  else {
    const counter = await store.c.counters.findOne({ _id: single ? `scans:${q.orgId}:${single}` : `scans:${q.orgId}` });
    bucket = counter ? Math.floor((counter.seq - 1) / BUCKET_SIZE) : -1;
  }
  // Newest first within a bucket, and never more than the page still needs (a bucket may hold more than BUCKET_SIZE).
  const read = (b: number, below: string | null, n: number) => {
    const filter = { ...base, [field]: b, ...(below === null ? {} : { _id: { $lt: below } }) } as Filter<StoredScanDoc>;
    return store.c.scans.find(filter).sort({ _id: -1 }).limit(n).toArray();
  };
  const want = q.limit + 1; // one more than shown tells whether a next page exists
  const found: Array<{ scan: ScanDoc; bucket: number }> = [];
  let budget = MAX_BUCKETS_PER_PAGE;
  while (bucket >= 0 && found.length < want && budget > 0) {
    // The buckets a full page needs are read at once (the newest may be nearly empty, hence one more).
    const need = want - found.length;
    const count = Math.min(Math.ceil(need / BUCKET_SIZE) + 1, budget, bucket + 1);
    const first = bucket;
    const docs = await Promise.all(Array.from({ length: count }, (_, i) => read(first - i, i === 0 ? afterId : null, need)));
    for (let i = 0; i < count && found.length < want; i++) {
      for (const d of docs[i].slice(0, want - found.length)) found.push({ scan: unpack(d), bucket: first - i });
    }
    bucket -= count;
    budget -= count;
    afterId = null;
  }
  const shown = found.slice(0, q.limit);
  // A bucket read short of its limit was read whole, so with the page not full every bucket before `bucket` is done.
  let next: ScanListPosition | null = null;
  if (found.length > q.limit) next = { bucket: shown[shown.length - 1].bucket, id: shown[shown.length - 1].scan._id };
  else if (bucket >= 0) next = { bucket, id: null };
  return { scans: shown.map((f) => f.scan), next };
}

/**
 * Moves a scan from one of `from` to `status` with this outcome: one update, conditional on the current status, so
 * that a retried activity or a replayed workflow (the move already happened) changes nothing.
 */
async function transition(store: Store, scanId: string, from: ScanDoc['status'][], status: ScanDoc['status'], outcome: Partial<ScanDoc>): Promise<boolean> {
  const r = await store.c.scans.updateOne({ _id: scanId, status: from.length === 1 ? from[0] : { $in: from } }, { $set: { status, r: bin(outcomeOf(outcome)) } });
  return r.modifiedCount === 1;
}

/**
 * The first of several racing writers decides, by inserting a document whose _id names the decision: the one
 * uniqueness guarantee every MongoDB-wire backend gives. A conditional update alone is not enough on FerretDB,
 * which evaluates the filter and writes in two steps (15 of 32 concurrent compare-and-sets on one document all
 * succeeded there); on MongoDB the conditional update in transition() alone would do. Returns the winning value; a
 * writer that lost must not write. A retry of the winner finds its own value and proceeds (idempotent).
 */
async function claim(store: Store, id: string, value: string): Promise<string> {
  try {
    await store.c.claims.insertOne({ _id: id, value, at: new Date() });
    return value;
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const doc = await store.c.claims.findOne({ _id: id });
    return doc ? doc.value : value;
  }
}

/** queued → running, pinning the advisory generation the scan will use (the first attempt's, on a retry). */
export async function markRunning(store: Store, scanId: string, advisoryGeneration: string | null): Promise<void> {
  const won = await claim(store, `${scanId}:running`, JSON.stringify(advisoryGeneration));
  await transition(store, scanId, ['queued'], 'running', { advisoryGeneration: JSON.parse(won) as string | null });
}

/** Completed and failed are terminal: the first one claimed is the only one ever written. */
async function terminal(store: Store, scanId: string, status: 'completed' | 'failed', outcome: Partial<ScanDoc>, claimed?: Promise<string>, takeOver = false): Promise<boolean> {
  const won = await (claimed ?? claim(store, `${scanId}:final`, status));
  if (won !== status) {
    // A completion was claimed but never landed (its publish failed for good; the workflow fails a scan only after
    // that, with takeOver): the failure takes the claim over, so that no scan stays running with a dead claim.
    if (!takeOver || status !== 'failed' || (await getScan(store, scanId))?.status === 'completed') return false;
    await store.c.claims.updateOne({ _id: `${scanId}:final`, value: won }, { $set: { value: 'failed', at: new Date() } });
  }
  return transition(store, scanId, ['queued', 'running'], status, outcome);
}

export interface Completion {
  findings: SeverityCounts;
  suppressed: number;
  advisoryGeneration: string | null;
  unmatchedVersions: number;
  resultChunks: number;
  findingCount: number;
  /** v2: modules in the metadata document written beside the results. */
  moduleCount?: number;
}

/** The single-document update that publishes a scan's results: readers see all of them or none. */
/** Claims completion ahead of markCompleted, so that the claim's round trip overlaps the writing of the results. */
export function claimCompletion(store: Store, scanId: string): Promise<string> {
  return claim(store, `${scanId}:final`, 'completed');
}

export async function markCompleted(store: Store, scanId: string, c: Completion, now = new Date(), claimed?: Promise<string>): Promise<void> {
  await terminal(store, scanId, 'completed', { finishedAt: now, ...c }, claimed);
}

/**
 * → failed. `takeOver`: the caller knows no completion is in flight any more (the workflow, after publishing failed
 * for good), so a completion claimed but never written is overridden. True when this call failed the scan.
 */
export async function markFailed(store: Store, scanId: string, reason: FailureReason, message: string, now = new Date(), takeOver = false): Promise<boolean> {
  return terminal(store, scanId, 'failed', { finishedAt: now, failureReason: reason, failureMessage: message.slice(0, 500) }, undefined, takeOver);
}

/** Scans accepted but possibly never handed to Temporal (the sweeper's work list). */
export async function queuedScans(store: Store, olderThan: Date, limit = 100): Promise<ScanDoc[]> {
  const docs = await store.c.scans.find({ status: 'queued' }).limit(limit * 4).toArray();
  return docs.filter((d) => d.startedAt < olderThan).slice(0, limit).map(unpack);
}
