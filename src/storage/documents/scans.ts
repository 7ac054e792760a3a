// Stored documents of projects and scans: the scan itself, its snapshot, results, attributions, work between
// activities, its list filing, and the claims and idempotency records that make its writes safe to repeat.
import type { Binary } from 'mongodb';
import type { ScanModule } from '../../domain/attribution/module-order';
import type { Ecosystem, FailureReason, ScanStatus, SeverityCounts, SnapshotMetadata } from '../../shared/types';

export interface ProjectDoc {
  _id: string;
  orgId: string;
  slug: string;
  createdAt: Date;
  /** The branch whose scans are tracked (move the project's alerts); absent: `main`. */
  defaultBranch?: string;
}

export interface ScanDoc {
  _id: string;
  orgId: string;
  projectId: string;
  target: string;
  ecosystem: Ecosystem;
  schemaVersion: 1 | 2;
  status: ScanStatus;
  startedAt: Date;
  finishedAt: Date | null;
  failureReason: FailureReason | null;
  failureMessage?: string | null;
  findings: SeverityCounts | null;
  suppressed: number | null;
  nodeCount: number;
  /** v2: vertices + edges of all resolutions (0 for v1); decides the fast path. */
  graphSize?: number;
  bodyBytes: number;
  /** The snapshot's metadata; absent on scans stored before it existed. */
  metadata?: SnapshotMetadata | null;
  /** List buckets: the scan's group in its organization's and its project's time partition (storage/scan-regions.ts). */
  orgBucket: number;
  projectBucket: number;
  /** Set on completion: the advisory generation the scan was matched against. */
  advisoryGeneration?: string | null;
  unmatchedVersions?: number | null;
  /** Set on completion: how many result chunks and findings were written. */
  resultChunks?: number;
  findingCount?: number;
  /** Set on completion of a v2 scan: how many modules its metadata document holds (storage/results.ts). */
  moduleCount?: number;
  /** Multipart scans: 'paged', and the upload whose parts hold the snapshot. Absent on inline scans. */
  attributionMode?: 'paged';
  uploadId?: string;
  /** Not stored on the scan: loaded beside it for the Scan resource when moduleCount > 0. */
  modules?: ScanModule[];
}

/**
 * A scan as stored. What an operator or a query asks about is a plain top-level field: the scan's project, target,
 * ecosystem, status, times, failure reason and severity counts (`db.scans.find({ status: 'failed' })` answers which
 * scans failed and why). The rest is packed into two Binary JSON values (src/storage/codec.ts packPlainJson):
 * `details` (fixed at upload) and `outcome` (what processing sets besides the top-level fields, replaced whole by each
 * status move, which is one conditional update on `status`). FerretDB decodes every field of every document a list
 * touches, slowly, while a Binary value moves at memory speed: a page of 50 scans costs about half as much as with
 * every field at the top level. `scanner db show scan ID` prints one decoded.
 */
export interface StoredScanDoc {
  _id: string;
  orgId: string;
  projectId: string;
  target: string;
  ecosystem: Ecosystem;
  status: ScanStatus;
  startedAt: Date;
  finishedAt: Date | null;
  failureReason: FailureReason | null;
  /** Unsuppressed severity counts of a completed scan (null before), and its suppressed count. */
  findings: SeverityCounts | null;
  suppressed: number | null;
  orgBucket: number;
  projectBucket: number;
  details: Binary;
  outcome: Binary;
}

/**
 * A scan as versions before the top-level fields stored it: everything but the list fields packed in `v` (fixed) and
 * `r` (outcome). Rewritten at start by src/storage/migrations/scan-top-level-fields.ts.
 */
export interface LegacyStoredScanDoc {
  _id: string;
  orgId: string;
  projectId: string;
  status: ScanStatus;
  orgBucket: number;
  projectBucket: number;
  startedAt: Date;
  v: Binary;
  r: Binary;
}

export interface SnapshotDoc {
  _id: string;
  orgId: string;
  encoding: 'gzip';
  bytes: number;
  data: Binary;
  /**
   * SHA-256 (hex) of the body as it was validated at upload: the worker checks the stored bytes against it instead
   * of validating them again. Absent on snapshots stored by earlier versions (validated again instead).
   */
  sha256?: string;
}

/** Findings of a completed scan, in list order, gzip-compressed JSON, split in chunks. _id = `${scanId}:${n}`. */
export interface ScanResultChunkDoc {
  _id: string;
  scanId: string;
  n: number;
  count: number;
  data: Binary;
}

/** Intermediate results between a scan's activities (claim check). _id = `${scanId}:${kind}`; replaced on retry. */
export interface ScanWorkDoc {
  _id: string;
  scanId: string;
  kind: string;
  data: Binary;
  meta?: Record<string, number | boolean>;
}

/** _id = `${orgId}:${idempotencyKey}`. No TTL index (FerretDB has none): expiry is checked on read. */
export interface IdempotencyDoc {
  _id: string;
  bodyHash: string;
  scanId: string;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * One region of a scope's scan-list time partition (domain/scan-list/regions.ts), immutable once inserted:
 * _id = `${scope}|${n}`, scope `o:${orgId}` or `p:${projectId}`; start/end/since in ms since the epoch.
 */
export interface ScanRegionDoc {
  _id: string;
  scope: string;
  n: number;
  start: number;
  end: number;
  group: number;
  since: number;
}

/**
 * Changes of one list group (storage/scan-list-cache.ts): `token` is set to a fresh random value after every write to
 * a scan of the group. _id = `${scope}|${group}`; batch = floor(group / 8), so that a page reads the tokens of its
 * groups at once.
 */
export interface ScanListTokenDoc {
  _id: string;
  scope: string;
  batch: number;
  token: number;
}

/**
 * A list group's scans as they were when the group's token was `token`, packed into one Binary value
 * (storage/scan-list-cache.ts): valid while the token has not moved. _id = `${scope}|${group}`, as the token's.
 */
export interface ScanListPackDoc {
  _id: string;
  scope: string;
  /** group / 8, as the tokens' batch: packs are read by (scope, batch) equality. */
  batch: number;
  group: number;
  token: number | null;
  scans: Binary;
}

/** First-writer-wins decisions, made by the uniqueness of _id (see storage/scans.ts claim()). */
export interface ClaimDoc {
  _id: string;
  value: string;
  at: Date;
}

/**
 * A paged scan's attributions, scope index and module counts (storage/attributions.ts), written before the scan is
 * completed. _id = `${scanId}:list|path|scope|modcounts:...`. The first list chunk of a package also holds `chunks`,
 * `count` and `pathStarts`; a scope list holds `count` findings.
 */
export interface ScanAttributionDoc {
  _id: string;
  scanId: string;
  data: Binary;
  chunks?: number;
  count?: number;
  pathStarts?: number[];
}
