// The API's view of Temporal: start a scan's workflow (id = scan id), wait for it, the sweepers' view of the runs
// (src/sweepers), and readiness.
import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { Logger } from '../logger';
import type { Readiness, ScanStarter, ScanWaiter, WorkflowRuns } from '../ports';
import type { ScanDoc } from '../storage/documents/scans';
import { SA, SCAN_WORKFLOW, type ScanWorkflowInput } from './scan-workflow-contract';

export interface TemporalHandle {
  connection: Connection;
  client: Client;
  namespace: string;
  taskQueue: string;
}

export async function connectTemporal(address: string, namespace: string, taskQueue: string): Promise<TemporalHandle> {
  const connection = await Connection.connect({ address, connectTimeout: '5s' });
  return { connection, client: new Client({ connection, namespace }), namespace, taskQueue };
}

/**
 * Starts the workflow of a scan (scan or MCP scan) under the scan's id, once: the sweepers may try again, but never
 * restart a finished one. False when it had been started already (it may be running or closed).
 */
export async function startScanOnce(
  t: TemporalHandle,
  workflowType: string,
  scan: { _id: string; orgId: string },
  opts: { args: unknown[]; searchAttributes?: SearchAttributePair[]; staticSummary: string; staticDetails: string },
): Promise<boolean> {
  try {
    await t.client.workflow.start(workflowType, {
      taskQueue: t.taskQueue,
      workflowId: scan._id,
      args: opts.args,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: SA.scanId, value: scan._id },
        { key: SA.orgId, value: scan.orgId },
        ...(opts.searchAttributes ?? []),
      ],
      staticSummary: opts.staticSummary,
      staticDetails: opts.staticDetails,
    });
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}

/** Starts the scan's workflow; false when it had been started already (it may be running or closed). */
export function startScanWorkflow(t: TemporalHandle, scan: ScanDoc): Promise<boolean> {
  const args: [ScanWorkflowInput] = [
    {
      scanId: scan._id,
      nodeCount: scan.nodeCount,
      graphSize: scan.graphSize,
      ...(scan.attributionMode === 'paged' ? { paged: true } : {}),
    },
  ];
  return startScanOnce(t, SCAN_WORKFLOW, scan, {
    args,
    searchAttributes: [
      { key: SA.projectId, value: scan.projectId },
      // The project's slug as uploaded (scan.target is project.slug, fixed at upload; slugs are never renamed).
      { key: SA.projectSlug, value: scan.target },
      { key: SA.ecosystem, value: scan.ecosystem },
      { key: SA.nodeCount, value: scan.nodeCount },
      { key: SA.stage, value: 'queued' },
    ],
    staticSummary: `Scan ${scan._id} of ${scan.target} (${scan.ecosystem}, ${scan.nodeCount} packages, snapshot v${scan.schemaVersion})`,
    staticDetails: `project ${scan.projectId} · org ${scan.orgId} · ${scan.bodyBytes} bytes uploaded at ${scan.startedAt.toISOString()}`,
  });
}

/**
 * Tries a workflow start a few times within ~1.5 s; false means the sweeper will take over. `drain` waits for every
 * start in flight (graceful shutdown). Shared by the scan and MCP scan starters.
 */
export function retryingStarter<T extends { _id: string }>(
  startOnce: (doc: T) => Promise<unknown>,
  logger: Logger,
  what: string,
) {
  const inFlight = new Set<Promise<boolean>>();
  async function attempt(doc: T): Promise<boolean> {
    for (let n = 0; n < 3; n++) {
      try {
        await startOnce(doc);
        return true;
      } catch (err) {
        logger.warn({ err, scanId: doc._id, attempt: n }, `${what} start failed`);
        await new Promise((r) => setTimeout(r, 250 * (n + 1)));
      }
    }
    return false;
  }
  return {
    start(doc: T): Promise<boolean> {
      const p = attempt(doc);
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
      return p;
    },
    async drain(): Promise<void> {
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** Tries to start the scan's workflow a few times within ~1.5 s; false means the sweeper will take over. */
export function scanStarter(t: TemporalHandle, logger: Logger): ScanStarter {
  return retryingStarter<ScanDoc>((scan) => startScanWorkflow(t, scan), logger, 'workflow');
}

/**
 * `?wait=` through Temporal: a wait is a long poll on the scan workflow's result (Temporal holds the call until the
 * workflow closes), cancelled by its deadline, its signal or close(). The database is read once before and once after, never
 * in a loop. A workflow not started yet (its start deferred to the sweeper) is looked for again every 500 ms.
 */
export function scanWaiter(t: TemporalHandle): ScanWaiter {
  const pending = new Set<AbortController>();
  return {
    async until(scanId, ms, signal) {
      const ac = new AbortController();
      pending.add(ac);
      const timer = setTimeout(() => ac.abort(), ms);
      const abort = () => ac.abort();
      signal?.addEventListener('abort', abort, { once: true });
      if (signal?.aborted) ac.abort();
      try {
        while (!ac.signal.aborted) {
          try {
            await t.client.withAbortSignal(ac.signal, () => t.client.workflow.getHandle(scanId).result());
            return undefined;
          } catch (err) {
            if (!(err instanceof WorkflowNotFoundError)) return undefined; // closed with a failure, or the wait ended
            await new Promise<void>((r) => {
              const retry = setTimeout(r, 500);
              ac.signal.addEventListener('abort', () => (clearTimeout(retry), r()), { once: true });
            });
          }
        }
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        pending.delete(ac);
      }
    },
    close() {
      for (const ac of pending) ac.abort();
    },
  };
}

/** What the workflow of a scan not yet terminal is doing: running, closed (with no outcome stored), or gone. */
export async function workflowState(t: TemporalHandle, scanId: string): Promise<'running' | 'closed'> {
  try {
    const d = await t.client.workflow.getHandle(scanId).describe();
    return d.status.name === 'RUNNING' ? 'running' : 'closed';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'closed'; // never started, or past the namespace's retention
    throw err;
  }
}

/** The scans' workflow runs, as the sweeper (src/sweepers/scans.ts) drives them. */
export function scanRuns(t: TemporalHandle): WorkflowRuns<ScanDoc> {
  return { startOnce: (scan) => startScanWorkflow(t, scan), state: (scanId) => workflowState(t, scanId) };
}

export function temporalReadiness(t: TemporalHandle): Readiness {
  return {
    async temporal() {
      const res = await t.connection.workflowService.describeTaskQueue({
        namespace: t.namespace,
        taskQueue: { name: t.taskQueue },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
      const pollers = res.pollers?.length ?? 0;
      return {
        ok: pollers > 0,
        detail: pollers > 0 ? `${pollers} worker(s) polling ${t.taskQueue}` : `no worker polling ${t.taskQueue}`,
      };
    },
  };
}
