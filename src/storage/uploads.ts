// Multipart uploads: the upload document, its parts (the create body is part 0), the budget ledger,
// the outcome claim, and the cleanup of expired and rejected uploads. Every decision with one winner goes through an
// insert whose _id names it (the ledger's sequence numbers, the part itself, the outcome), the one uniqueness every
// MongoDB-wire backend guarantees (see storage/scans.ts claim()).
import { Binary } from 'mongodb';
import { gunzip as gunzipCb, gzip as gzipCb } from 'node:zlib';
import { promisify } from 'node:util';
import type { PartCounts } from '../domain/snapshot/parts';
import type { LedgerEntry } from '../domain/snapshot/parts-ledger';
import type { SnapshotStats } from '../shared/types';
import { envInt } from '../config';
import type { UploadDoc, UploadPartDoc } from './documents/uploads';
import { isDuplicateKey, type Store } from './mongo';

const gzip = promisify(gzipCb);
const gunzip = promisify(gunzipCb);

/** An upload not completed within 24 hours expires (UPLOADS_EXPIRY_MS shortens it, for tests). */
export const UPLOAD_EXPIRY_MS = 24 * 3600 * 1000;
export const uploadExpiryMs = (): number => envInt('UPLOADS_EXPIRY_MS', UPLOAD_EXPIRY_MS, { min: 1 });

/**
 * How long past its expiry an open upload is left before the cleanup claims it: longer than any request that found
 * it open may still take to store a part (such a part is deleted by that request itself, see storePart).
 */
export const CLEANUP_GRACE_MS = 60_000;

export type UploadStatus = UploadDoc['status'];

/** The status as read: an open upload past its expiry is expired, whether or not the cleanup has run. */
export function uploadStatus(u: UploadDoc, now = new Date()): UploadStatus {
  return u.status === 'open' && now >= u.expiresAt ? 'expired' : u.status;
}

const partId = (uploadId: string, n: number) => `${uploadId}:${n}`;

export async function getUpload(store: Store, uploadId: string): Promise<UploadDoc | null> {
  return store.c.uploads.findOne({ _id: uploadId });
}

/** Stores the create body (part 0), then the upload document, which makes the upload visible. */
export async function insertUpload(store: Store, doc: UploadDoc, header: Buffer): Promise<void> {
  await store.c.uploadParts.insertOne({
    _id: partId(doc._id, 0),
    uploadId: doc._id,
    n: 0,
    sha256: doc.headerSha256,
    bytes: header.length,
    counts: { nodes: 0, modules: 0, roots: 0, vertices: 0, edges: 0 },
    data: new Binary(await gzip(header, { level: 3 })),
    at: doc.createdAt,
  });
  await store.c.uploads.insertOne(doc);
}

export interface PartMeta {
  n: number;
  sha256: string;
  bytes: number;
  counts: PartCounts;
}

const META = { projection: { data: 0 } } as const;
const meta = (d: Omit<UploadPartDoc, 'data'>): PartMeta => ({
  n: d.n,
  sha256: d.sha256,
  bytes: d.bytes,
  counts: d.counts,
});

export async function getPartMeta(store: Store, uploadId: string, n: number): Promise<PartMeta | null> {
  const d = await store.c.uploadParts.findOne({ _id: partId(uploadId, n) }, META);
  return d ? meta(d) : null;
}

/** The parts stored (create body excluded), by part number. */
export async function listParts(store: Store, uploadId: string): Promise<PartMeta[]> {
  const docs = await store.c.uploadParts.find({ uploadId }, META).toArray();
  return docs
    .filter((d) => d.n > 0)
    .map(meta)
    .sort((a, b) => a.n - b.n);
}

/** The upload's budget ledger, in sequence order. */
export async function readLedger(store: Store, uploadId: string): Promise<LedgerEntry[]> {
  const docs = await store.c.uploadLedger.find({ uploadId }).toArray();
  return docs.map((d) => ({ seq: d.seq, n: d.n, sha256: d.sha256, counts: d.counts })).sort((a, b) => a.seq - b.seq);
}

/**
 * Appends an entry at the next sequence number, an insert that only one writer can make; a writer that loses the
 * number reads again and takes the next one. Entries are never inserted past a gap (the next number is always one
 * past the last entry read, which exists), so the returned ledger is exactly the entries before this one, and it.
 */
export async function appendLedger(
  store: Store,
  uploadId: string,
  e: Omit<LedgerEntry, 'seq'>,
): Promise<LedgerEntry[]> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const entries = await readLedger(store, uploadId);
    const seq = entries.length === 0 ? 1 : entries[entries.length - 1].seq + 1;
    try {
      await store.c.uploadLedger.insertOne({
        _id: `${uploadId}:${String(seq).padStart(6, '0')}`,
        uploadId,
        seq,
        n: e.n,
        sha256: e.sha256,
        counts: e.counts,
        at: new Date(),
      });
      return [...entries, { ...e, seq }];
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }
  throw new Error(`upload ${uploadId}: could not append to the ledger`);
}

/** Stores a part (its bytes gzip-compressed already); false when a part with that number is stored already (first writer wins). */
export async function insertPart(
  store: Store,
  uploadId: string,
  n: number,
  gzipped: Uint8Array,
  bytes: number,
  sha256: string,
  counts: PartCounts,
): Promise<boolean> {
  try {
    await store.c.uploadParts.insertOne({
      _id: partId(uploadId, n),
      uploadId,
      n,
      sha256,
      bytes,
      counts,
      data: new Binary(gzipped),
      at: new Date(),
    });
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

export async function deletePart(store: Store, uploadId: string, n: number): Promise<void> {
  await store.c.uploadParts.deleteOne({ _id: partId(uploadId, n) });
}

/** The raw bytes of part n (0: the create body); null when it is not stored. */
export async function readPartBytes(store: Store, uploadId: string, n: number): Promise<Buffer | null> {
  const d = await store.c.uploadParts.findOne({ _id: partId(uploadId, n) });
  return d ? gunzip(Buffer.from(d.data.buffer)) : null;
}

/** Reads parts 0..parts a few at a time, each handed to `use` as it arrives; throws when one is missing. */
async function eachPart(
  store: Store,
  uploadId: string,
  parts: number,
  use: (n: number, raw: Buffer) => void,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(4, parts + 1) }, async () => {
      for (let n = next++; n <= parts; n = next++) {
        const raw = await readPartBytes(store, uploadId, n);
        if (!raw) throw new Error(`upload ${uploadId}: part ${n} missing`);
        use(n, raw);
      }
    }),
  );
}

/**
 * The create body and parts 1..parts, parsed, in part order; each part's bytes are dropped once parsed. Throws when
 * one is missing (the caller checked that all were received).
 */
export async function readUploadBodies(
  store: Store,
  uploadId: string,
  parts: number,
): Promise<{ header: unknown; parts: unknown[]; bytes: number }> {
  const out: unknown[] = new Array(parts + 1);
  let bytes = 0;
  await eachPart(store, uploadId, parts, (n, raw) => {
    bytes += raw.length;
    out[n] = JSON.parse(raw.toString('utf8'));
  });
  return { header: out[0], parts: out.slice(1), bytes };
}

/** The create body and parts 1..parts as stored (raw bytes), in part order. */
export async function readUploadRaw(
  store: Store,
  uploadId: string,
  parts: number,
): Promise<{ header: Buffer; parts: Buffer[]; bytes: number }> {
  const out: Buffer[] = new Array(parts + 1);
  let bytes = 0;
  await eachPart(store, uploadId, parts, (n, raw) => {
    bytes += raw.length;
    out[n] = raw;
  });
  return { header: out[0], parts: out.slice(1), bytes };
}

/** What became of an upload, decided once (first writer wins): a scan, a rejection, or expiry. */
export type Outcome =
  | { kind: 'scan'; scanId: string; stats: SnapshotStats; bytes: number }
  /** `rejection`: the answer, carried by the claim so that every completion repeats it at once (absent in older claims). */
  | { kind: 'rejected'; rejection?: { status: number; code: string; message: string } }
  | { kind: 'expired' };

const outcomeId = (uploadId: string) => `upload:${uploadId}:outcome`;

/** Claims the outcome; returns the one that won (this one, or an earlier writer's). */
export async function claimOutcome(store: Store, uploadId: string, outcome: Outcome): Promise<Outcome> {
  const value = JSON.stringify(outcome);
  try {
    await store.c.claims.insertOne({ _id: outcomeId(uploadId), value, at: new Date() });
    return outcome;
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const won = await readOutcome(store, uploadId);
    if (!won) throw err;
    return won;
  }
}

export async function readOutcome(store: Store, uploadId: string): Promise<Outcome | null> {
  const doc = await store.c.claims.findOne({ _id: outcomeId(uploadId) });
  return doc ? (JSON.parse(doc.value) as Outcome) : null;
}

/** Records an outcome on the upload document (idempotent; the claim is what decided it). */
export async function closeUpload(
  store: Store,
  uploadId: string,
  set: Partial<Pick<UploadDoc, 'status' | 'scanId' | 'rejection' | 'received'>>,
): Promise<void> {
  await store.c.uploads.updateOne({ _id: uploadId }, { $set: set });
}

/** Deletes every part (the create body too) and the ledger of a rejected or expired upload. */
export async function deleteUploadData(store: Store, uploadId: string): Promise<void> {
  await Promise.all([store.c.uploadParts.deleteMany({ uploadId }), store.c.uploadLedger.deleteMany({ uploadId })]);
  await store.c.uploads.updateOne({ _id: uploadId }, { $set: { partsDeleted: true } });
}

/**
 * One cleanup pass: open uploads past their expiry (and the grace) are claimed expired and their parts deleted;
 * rejected or expired uploads whose parts are still there (a deletion that failed) are cleaned again. Returns how
 * many uploads it cleaned. Completed uploads keep their parts: they are their scan's snapshot.
 */
export async function cleanupUploads(
  store: Store,
  now = new Date(),
  graceMs = CLEANUP_GRACE_MS,
  limit = 100,
): Promise<number> {
  let cleaned = 0;
  const expired = await store.c.uploads
    .find({ status: 'open', expiresAt: { $lt: new Date(now.getTime() - graceMs) } })
    .limit(limit)
    .toArray();
  for (const u of expired) {
    const won = await claimOutcome(store, u._id, { kind: 'expired' });
    if (won.kind === 'scan') continue; // completed just in time: its completion records it
    const received = (await listParts(store, u._id)).map((p) => p.n);
    await closeUpload(store, u._id, won.kind === 'expired' ? { status: 'expired', received } : { status: 'rejected' });
    await deleteUploadData(store, u._id);
    cleaned++;
  }
  const leftovers = await store.c.uploads
    .find({ status: { $in: ['rejected', 'expired'] }, partsDeleted: false })
    .limit(limit)
    .toArray();
  for (const u of leftovers) {
    await deleteUploadData(store, u._id);
    cleaned++;
  }
  return cleaned;
}
