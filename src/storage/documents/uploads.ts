// Stored documents of multipart uploads: the upload, its parts and its ledger.
import type { Binary } from 'mongodb';
import type { PartCounts } from '../../domain/snapshot/parts';
import type { Ecosystem } from '../../shared/types';

/**
 * A multipart upload (storage/uploads.ts). `expired` is written by the cleanup; an open upload read
 * past expiresAt is expired already. Who completes, rejects or expires it is decided by a claim (first writer wins);
 * this document follows the claim.
 */
export interface UploadDoc {
  _id: string;
  orgId: string;
  projectId: string;
  /** The project's slug (the scan's target). */
  target: string;
  ecosystem: Ecosystem;
  parts: number;
  status: 'open' | 'completed' | 'rejected' | 'expired';
  createdAt: Date;
  expiresAt: Date;
  /** The create body (stored as part 0): its SHA-256 hex and size. */
  headerSha256: string;
  headerBytes: number;
  scanId: string | null;
  /** The answer a completion got when it rejected the upload (413 or 422): repeated to later completions. */
  rejection: { status: number; code: string; message: string } | null;
  /** The parts received, recorded when the upload closed (while it is open they are read from its parts). */
  received: number[] | null;
  /** A rejected or expired upload's parts are deleted; true once they are. */
  partsDeleted: boolean;
}

/** A part (n ≥ 1) of an upload, or its create body (n = 0): the bytes as sent, gzip-compressed. _id = `${uploadId}:${n}`. */
export interface UploadPartDoc {
  _id: string;
  uploadId: string;
  n: number;
  sha256: string;
  bytes: number;
  counts: PartCounts;
  data: Binary;
  at: Date;
}

/** An entry of an upload's budget ledger (domain/snapshot/parts-ledger.ts). _id = `${uploadId}:${seq}`. */
export interface UploadLedgerDoc {
  _id: string;
  uploadId: string;
  seq: number;
  n: number;
  sha256: string;
  counts: PartCounts;
  at: Date;
}
