// The API's side of MCP scans in Temporal (platform.md §6): start an uploaded scan's workflow (id = the mcs_ id, run
// once), and the sweep of MCP scans whose start was lost or whose workflow ended without an outcome.
import type { McpScanStarter } from '../http/deps';
import type { Logger } from '../logger';
import type { McpScanDoc } from '../storage/documents';
import { failMcpScan, getMcpScan, queuedMcpScans, staleRunningMcpScans } from '../storage/mcp-processing';
import type { Store } from '../storage/mongo';
import { everyInterval, retryingStarter, startScanOnce, workflowState, type TemporalHandle } from './client';
import { MCP_SCAN_WORKFLOW, type McpScanWorkflowInput } from './mcp-keys';

const hostOf = (scan: McpScanDoc) => scan.hostId ?? (scan.reportedHostname !== null ? `hostname ${scan.reportedHostname}` : 'no host');

/** Starts the MCP scan's workflow; false when it had been started already (it may be running or closed). */
export function startMcpScanWorkflow(t: TemporalHandle, scan: McpScanDoc): Promise<boolean> {
  // Counted defensively: a summary never stops a start (a malformed document fails in its workflow, with a reason).
  const list = <T>(v: T[] | null | undefined): T[] => (Array.isArray(v) ? v : []);
  const servers = list(scan.clients).reduce((n, c) => n + list(c.servers).length, 0);
  const tools = list(scan.clients).reduce((n, c) => n + list(c.servers).reduce((m, s) => m + list(s.tools).length, 0), 0);
  const clients = [...new Set(list(scan.clients).map((c) => c.client))].sort();
  const args: [McpScanWorkflowInput] = [{ scanId: scan._id }];
  return startScanOnce(t, MCP_SCAN_WORKFLOW, scan, {
    args,
    staticSummary: `MCP scan ${scan._id} of ${hostOf(scan)}: ${servers} servers, ${tools} tools in ${list(scan.clients).length} configurations (${clients.join(', ') || 'none'})`,
    staticDetails: `org ${scan.orgId} · received ${scan.receivedAt.toISOString()}${scan.scannedAt ? ` · scanned ${scan.scannedAt.toISOString()}` : ''}`,
  });
}

/** The McpScanStarter of the HTTP deps: a few tries within ~1.5 s; false leaves the scan queued for the sweep. */
export function mcpScanStarter(t: TemporalHandle, logger: Logger): McpScanStarter {
  return retryingStarter<McpScanDoc>((scan) => startMcpScanWorkflow(t, scan), logger, 'MCP scan workflow');
}


export const MCP_ORPHANED_REASON = 'internal_error: the MCP scan workflow ended without recording an outcome';

/**
 * One sweep of MCP scans, as the scans sweeper (src/temporal/client.ts): (1) starts the workflow of any MCP scan still
 * queued `graceMs` after its reception (its start was lost); one whose workflow exists already and is closed is an
 * orphan. (2) Running scans received more than `staleMs` ago whose workflow is closed are orphans too. Orphans are
 * failed (a completed scan keeps its outcome).
 */
export async function sweepMcpScansOnce(store: Store, t: TemporalHandle, logger: Logger, graceMs = 5000, staleMs = 30_000): Promise<{ started: number; failed: number }> {
  let started = 0;
  let failed = 0;
  const orphan = async (scanId: string, was: string) => {
    if ((await workflowState(t, scanId)) === 'running') return;
    const now = await getMcpScan(store, scanId);
    if (!now || (now.status !== 'queued' && now.status !== 'running')) return;
    if (!(await failMcpScan(store, scanId, MCP_ORPHANED_REASON))) return;
    logger.warn({ scanId, was }, 'MCP scan failed by the sweeper: its workflow ended without an outcome');
    failed++;
  };
  for (const scan of await queuedMcpScans(store, new Date(Date.now() - graceMs))) {
    if (await startMcpScanWorkflow(t, scan)) started++;
    else await orphan(scan._id, 'queued');
  }
  for (const { _id } of await staleRunningMcpScans(store, new Date(Date.now() - staleMs))) await orphan(_id, 'running');
  return { started, failed };
}

/** Runs sweepMcpScansOnce every `intervalMs` (one pass at a time); returns the stop function. */
export function startMcpSweeper(store: Store, t: TemporalHandle, logger: Logger, intervalMs: number, graceMs = 5000, staleMs = 30_000): () => void {
  return everyInterval(intervalMs, logger, 'MCP scan sweep', async () => {
    const r = await sweepMcpScansOnce(store, t, logger, graceMs, staleMs);
    if (r.started || r.failed) logger.info(r, 'MCP scan sweep');
  });
}
