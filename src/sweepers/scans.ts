// The sweeper of scans: what moves a scan whose workflow start was lost, or whose workflow ended without storing an
// outcome. Application logic over two seams (the workflow runs and the event emitter), run by the API process.
import type { Logger } from '../logger';
import type { ScanEventEmitter, WorkflowRuns } from '../ports';
import type { ScanDoc } from '../storage/documents/scans';
import type { Store } from '../storage/mongo';
import { getScan, markFailed, queuedScans } from '../storage/scans';
import { cleanupUploads } from '../storage/uploads';
import { everyInterval } from './every-interval';

export const ORPHANED_MESSAGE = 'the scan workflow ended without recording an outcome';

export interface ScanSweep {
  store: Store;
  runs: WorkflowRuns<ScanDoc>;
  events: ScanEventEmitter;
  logger: Logger;
  /** A queued scan older than this has lost its start (default 5 s). */
  graceMs?: number;
  /** A running scan older than this is checked for a closed workflow (default 30 s). */
  staleMs?: number;
}

/**
 * One sweeper pass. (1) Starts the workflow of any scan still queued after `graceMs` (its start was lost).
 * (2) Fails with internal_error any scan still queued or running whose workflow is closed: that workflow ended without
 * storing an outcome (its last write, failScan, could not reach the database during an outage), and nothing else would
 * ever move the scan. Running scans are checked once they are `staleMs` old. (3) Deletes the parts of expired and
 * rejected multipart uploads (storage/uploads.ts cleanupUploads). markFailed claims the final outcome
 * first-writer-wins and never overrides a completion, so a workflow finishing meanwhile keeps its own outcome.
 * A scan failed here emits scan.failed.
 */
export async function sweepOnce(s: ScanSweep): Promise<{ started: number; failed: number }> {
  const { store, runs, events, logger, graceMs = 5000, staleMs = 30_000 } = s;
  let started = 0;
  let failed = 0;
  const orphan = async (scanId: string, was: string) => {
    if ((await runs.state(scanId)) === 'running') return;
    // The list was read before: the workflow may have stored its outcome and closed since. Only a scan still not
    // terminal now that its workflow is closed is an orphan (no writer is left to race with).
    const now = await getScan(store, scanId);
    if (!now || (now.status !== 'queued' && now.status !== 'running')) return;
    if (!(await markFailed(store, scanId, 'internal_error', ORPHANED_MESSAGE, new Date(), true))) return;
    logger.warn({ scanId, was }, 'scan failed by the sweeper: its workflow ended without an outcome');
    failed++;
    // After the terminal write. Nothing retries a sweeper's pass for this scan (the next one sees it failed), so an
    // emission error is logged and the pass goes on with the other orphans.
    await events
      .emit(scanId, now.orgId, 'scan.failed')
      .catch((err) => logger.warn({ err, scanId }, 'scan.failed event could not be emitted'));
  };
  for (const scan of await queuedScans(store, new Date(Date.now() - graceMs))) {
    if (await runs.startOnce(scan)) started++;
    else await orphan(scan._id, 'queued');
  }
  const stale = await store.c.scans
    .find({ status: 'running', startedAt: { $lt: new Date(Date.now() - staleMs) } }, { projection: { _id: 1 } })
    .limit(100)
    .toArray();
  for (const { _id } of stale) await orphan(_id, 'running');
  // (3) Multipart uploads past their expiry lose their parts, as do rejected ones whose deletion failed.
  await cleanupUploads(store).catch((err) => logger.warn({ err }, 'multipart upload cleanup failed'));
  return { started, failed };
}

/** Runs sweepOnce every `intervalMs` (one pass at a time); returns the stop function. */
export function startSweeper(s: ScanSweep, intervalMs: number): () => void {
  return everyInterval(intervalMs, s.logger, 'sweeper pass', () => sweepOnce(s));
}
