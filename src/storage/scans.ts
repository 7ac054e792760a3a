// Scan documents stay small (no module metadata or results inside): lists decode only what they show.
import type { Filter } from 'mongodb';
import type { FailureReason, SeverityCounts } from '../domain/types';
import type { ScanDoc } from './documents';
import type { Store } from './mongo';

export const getScan = (store: Store, scanId: string) => store.c.scans.findOne({ _id: scanId });

export async function insertScan(store: Store, scan: ScanDoc): Promise<void> {
  await store.c.scans.insertOne(scan);
}

export interface ScanListQuery {
  orgId: string;
  projectIds?: string[]; // undefined = every project of the org
  status?: string;
  /** Keyset: only scans whose id sorts before this one (ids sort by creation time). */
  beforeId?: string;
  limit: number;
}

export async function listScans(store: Store, q: ScanListQuery): Promise<ScanDoc[]> {
  const filter: Filter<ScanDoc> = { orgId: q.orgId };
  if (q.projectIds) filter.projectId = q.projectIds.length === 1 ? q.projectIds[0] : { $in: q.projectIds };
  if (q.status) filter.status = q.status as ScanDoc['status'];
  if (q.beforeId) filter._id = { $lt: q.beforeId };
  return store.c.scans.find(filter).sort({ _id: -1 }).limit(q.limit).toArray();
}

/**
 * queued → running, pinning the advisory generation the scan will use. A no-op when the scan already moved on (a
 * retried activity or a replayed workflow keeps the generation of the first attempt).
 */
export async function markRunning(store: Store, scanId: string, advisoryGeneration: string | null): Promise<void> {
  await store.c.scans.updateOne({ _id: scanId, status: 'queued' }, { $set: { status: 'running', advisoryGeneration } });
}

export interface Completion {
  findings: SeverityCounts;
  suppressed: number;
  advisoryGeneration: string | null;
  unmatchedVersions: number;
  resultChunks: number;
  findingCount: number;
}

/** The single-document update that publishes a scan's results: readers see all of them or none. */
export async function markCompleted(store: Store, scanId: string, c: Completion, now = new Date()): Promise<void> {
  await store.c.scans.updateOne(
    { _id: scanId, status: { $in: ['queued', 'running'] } },
    { $set: { status: 'completed', finishedAt: now, failureReason: null, ...c } },
  );
}

export async function markFailed(store: Store, scanId: string, reason: FailureReason, message: string, now = new Date()): Promise<void> {
  await store.c.scans.updateOne(
    { _id: scanId, status: { $in: ['queued', 'running'] } },
    { $set: { status: 'failed', finishedAt: now, failureReason: reason, failureMessage: message.slice(0, 500), findings: null, suppressed: null } },
  );
}

/** Scans accepted but possibly never handed to Temporal (the sweeper's work list). */
export async function queuedScans(store: Store, olderThan: Date, limit = 100): Promise<ScanDoc[]> {
  const docs = await store.c.scans.find({ status: 'queued' }).limit(limit * 4).toArray();
  return docs.filter((d) => d.startedAt < olderThan).slice(0, limit);
}
