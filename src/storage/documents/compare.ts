// Stored documents the comparison of scans reads (src/storage/tracked-scans.ts): which completed scans of a
// (project, ecosystem) are tracked, found by base commit or by month, and each scan's snapshot suppressions.
import type { Binary } from 'mongodb';

/**
 * A tracked scan of a (project, ecosystem), written when it is published (before it is marked completed, so a reader
 * checks the scan's status). _id = the scan id. Found by top-level equality: `{pairId, commit}` (a pull request's
 * base commit) or `{pairId, month}` (the newest tracked scan before another).
 */
export interface TrackedScanDoc {
  _id: string;
  pairId: string;
  /** The UTC month of startedAt, `YYYY-MM`. */
  month: string;
  commit: string | null;
  startedAt: Date;
}

/** The months of a (project, ecosystem) holding tracked scans (_id = the pair id): where a search back stops. */
export interface TrackedMonthsDoc {
  _id: string;
  months: string[];
}

/**
 * What a comparison reads of a scan besides its findings, written when it is published (_id = the scan id): its
 * snapshot suppressions as sent (JSON), and its packages as three aligned lists (name as sent, version, name as the
 * ecosystem compares it, null when every one is the name as sent), gzip-compressed JSON: a few milliseconds to read
 * for 10,000 packages, where the dependency inventory carries every package's path too.
 */
export interface ScanCompareInputsDoc {
  _id: string;
  suppressions: Binary;
  packages: Binary;
}
