// One workflow per uploaded MCP scan (workflow id = the mcs_ id): mark it running, process it
// (identities, inventory servers, tool pins, issues, placements: one idempotent activity), complete it with its
// counts. Temporal carries the id and small summaries, never the configuration. Retries as the scan workflow's: a
// database outage is waited out for STEP_PATIENCE, any other failure gets FAULT_ATTEMPTS attempts (activities/
// outage.ts), then the scan fails with the reason.
import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  log,
  proxyActivities,
  setCurrentDetails,
} from '@temporalio/workflow';
import type { RetryPolicy } from '@temporalio/common';
import type { createMcpActivities } from '../activities/mcp';
import { RETRY_MAX_INTERVAL, STEP_PATIENCE } from '../src/temporal/scan-workflow-contract';
import type { McpScanWorkflowInput, McpScanWorkflowResult } from '../src/temporal/mcp-scan-workflow-contract';

type Activities = ReturnType<typeof createMcpActivities>;

const retry: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: RETRY_MAX_INTERVAL };
const acts = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  scheduleToCloseTimeout: STEP_PATIENCE,
  retry,
});

function reasonOf(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const type = cause instanceof ApplicationFailure && cause.type ? cause.type : 'internal_error';
  const last = cause instanceof TimeoutFailure && cause.cause ? `: ${cause.cause.message}` : '';
  return `${type}: ${cause instanceof Error ? cause.message + last : String(cause)}`;
}

const counts = (issues: Record<string, number>) => {
  const parts = Object.entries(issues).map(([code, n]) => `${n} ${code}`);
  return parts.length ? parts.join(', ') : 'no issues';
};

export async function mcpScanWorkflow({ scanId }: McpScanWorkflowInput): Promise<McpScanWorkflowResult> {
  try {
    setCurrentDetails(`Marking MCP scan ${scanId} running`);
    const start = await acts.mcpScanStart({ scanId });
    setCurrentDetails(
      `Processing ${start.servers} servers (${start.tools} tools) of ${start.clients} client configurations: inventory, tool pins, issues, placements`,
    );
    const r = await acts.mcpScanProcess({ scanId });
    if (r.status === 'failed') {
      setCurrentDetails(`Failed earlier (stored outcome kept)`);
      return { scanId, status: 'failed' };
    }
    await acts.mcpScanComplete({ scanId, servers: r.servers, issues: r.issues });
    setCurrentDetails(
      `Completed: ${r.servers} servers, ${counts(r.issues)}; ${r.groups.written} config paths placed${r.groups.skipped ? `, ${r.groups.skipped} left to a newer scan` : ''}`,
    );
    return { scanId, status: 'completed', servers: r.servers, issues: r.issues };
  } catch (err) {
    const reason = reasonOf(err);
    log.warn('MCP scan failed', { scanId, reason });
    await acts.mcpScanFail({ scanId, reason });
    setCurrentDetails(`Failed: ${reason}`);
    throw ApplicationFailure.nonRetryable(`MCP scan ${scanId} failed: ${reason}`, 'mcp_scan_failed');
  }
}
