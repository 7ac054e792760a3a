// The API's side of MCP scans in Temporal: start an uploaded scan's workflow (id = the mcs_ id, run
// once), and their runs as the MCP scan sweeper sees them.
import type { Logger } from '../logger';
import type { McpScanStarter, WorkflowRuns } from '../ports';
import type { McpScanDoc } from '../storage/documents/mcp';
import { retryingStarter, startScanOnce, workflowState, type TemporalHandle } from './client';
import { MCP_SCAN_WORKFLOW, type McpScanWorkflowInput } from './mcp-scan-workflow-contract';

const hostOf = (scan: McpScanDoc) =>
  scan.hostId ?? (scan.reportedHostname !== null ? `hostname ${scan.reportedHostname}` : 'no host');

/** Starts the MCP scan's workflow; false when it had been started already (it may be running or closed). */
export function startMcpScanWorkflow(t: TemporalHandle, scan: McpScanDoc): Promise<boolean> {
  // Counted defensively: a summary never stops a start (a malformed document fails in its workflow, with a reason).
  const list = <T>(v: T[] | null | undefined): T[] => (Array.isArray(v) ? v : []);
  const servers = list(scan.clients).reduce((n, c) => n + list(c.servers).length, 0);
  const tools = list(scan.clients).reduce(
    (n, c) => n + list(c.servers).reduce((m, s) => m + list(s.tools).length, 0),
    0,
  );
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

/** The MCP scans' workflow runs, as their sweeper (src/sweepers/mcp-scans.ts) drives them. */
export function mcpScanRuns(t: TemporalHandle): WorkflowRuns<McpScanDoc> {
  return { startOnce: (scan) => startMcpScanWorkflow(t, scan), state: (scanId) => workflowState(t, scanId) };
}
