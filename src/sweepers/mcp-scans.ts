// The sweeper of MCP scans, as the scans' (./scans.ts): MCP scans whose start was lost or whose workflow ended
// without an outcome.
import type { Logger } from '../logger';
import type { WorkflowRuns } from '../ports';
import type { McpScanDoc } from '../storage/documents/mcp';
import { failMcpScan, getMcpScan, queuedMcpScans, staleRunningMcpScans } from '../storage/mcp-processing';
import type { Store } from '../storage/mongo';
import { everyInterval } from './every-interval';

export const MCP_ORPHANED_REASON = 'internal_error: the MCP scan workflow ended without recording an outcome';

export interface McpScanSweep {
  store: Store;
  runs: WorkflowRuns<McpScanDoc>;
  logger: Logger;
  graceMs?: number;
  staleMs?: number;
}

/**
 * One sweep of MCP scans: (1) starts the workflow of any MCP scan still queued `graceMs` after its reception (its
 * start was lost); one whose workflow exists already and is closed is an orphan. (2) Running scans received more than
 * `staleMs` ago whose workflow is closed are orphans too. Orphans are failed (a completed scan keeps its outcome).
 */
export async function sweepMcpScansOnce(s: McpScanSweep): Promise<{ started: number; failed: number }> {
  const { store, runs, logger, graceMs = 5000, staleMs = 30_000 } = s;
  let started = 0;
  let failed = 0;
  const orphan = async (scanId: string, was: string) => {
    if ((await runs.state(scanId)) === 'running') return;
    const now = await getMcpScan(store, scanId);
    if (!now || (now.status !== 'queued' && now.status !== 'running')) return;
    if (!(await failMcpScan(store, scanId, MCP_ORPHANED_REASON))) return;
    logger.warn({ scanId, was }, 'MCP scan failed by the sweeper: its workflow ended without an outcome');
    failed++;
  };
  for (const scan of await queuedMcpScans(store, new Date(Date.now() - graceMs))) {
    if (await runs.startOnce(scan)) started++;
    else await orphan(scan._id, 'queued');
  }
  for (const { _id } of await staleRunningMcpScans(store, new Date(Date.now() - staleMs))) await orphan(_id, 'running');
  return { started, failed };
}

/** Runs sweepMcpScansOnce every `intervalMs` (one pass at a time); returns the stop function. */
export function startMcpSweeper(s: McpScanSweep, intervalMs: number): () => void {
  return everyInterval(intervalMs, s.logger, 'MCP scan sweep', async () => {
    const r = await sweepMcpScansOnce(s);
    if (r.started || r.failed) s.logger.info(r, 'MCP scan sweep');
  });
}
