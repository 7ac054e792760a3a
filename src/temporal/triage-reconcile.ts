// Triage in the background, from outside the worker (workflows/triage-reconcile.ts): the API asks for an
// organization's reconciliation after each rule change (signal-with-start of its one workflow: started when none runs,
// signalled to pass again when one does), and the worker creates the hourly schedule that sweeps every organization.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { Logger } from '../logger';
import type { TriageReconciler } from '../ports';
import type { TemporalHandle } from './client';
import {
  TRIAGE_RECONCILE_SIGNAL,
  TRIAGE_RECONCILE_WORKFLOW,
  TRIAGE_SWEEP_INTERVAL,
  TRIAGE_SWEEP_WORKFLOW,
  triageReconcileId,
  triageScheduleId,
  type TriageReconcileInput,
} from './triage-reconcile-workflow-contract';

/** Starts the organization's reconciliation, or signals the running one to pass again. */
export async function signalTriageReconcile(client: Client, taskQueue: string, orgId: string): Promise<void> {
  const args: [TriageReconcileInput] = [{ orgId }];
  await client.workflow.signalWithStart(TRIAGE_RECONCILE_WORKFLOW, {
    taskQueue,
    workflowId: triageReconcileId(orgId),
    args,
    signal: TRIAGE_RECONCILE_SIGNAL,
    signalArgs: [],
    staticSummary: `Triage in the background: the alerts' histories of ${orgId} reconciled with its rules and analyses' expiries`,
  });
}

/** The API's TriageReconciler: a few tries within ~1.5 s; false leaves the change to the hourly reconciliation. */
export function triageReconciler(t: TemporalHandle, logger: Logger): TriageReconciler {
  const inFlight = new Set<Promise<boolean>>();
  async function attempt(orgId: string): Promise<boolean> {
    for (let n = 0; n < 3; n++) {
      try {
        await signalTriageReconcile(t.client, t.taskQueue, orgId);
        return true;
      } catch (err) {
        logger.warn({ err, orgId, attempt: n }, 'triage reconciliation could not be started');
        await new Promise((r) => setTimeout(r, 250 * (n + 1)));
      }
    }
    return false;
  }
  return {
    reconcile(orgId) {
      const p = attempt(orgId);
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
      return p;
    },
    async drain() {
      await Promise.allSettled([...inFlight]);
    },
  };
}

/**
 * Creates the hourly triage schedule of this database (`triage-sweep-<database>`: several deployments may share a
 * namespace), or updates it to this task queue and interval when it exists. Idempotent; every worker does it at start.
 */
export async function ensureTriageSchedule(
  client: Client,
  taskQueue: string,
  database: string,
  interval: string = TRIAGE_SWEEP_INTERVAL,
): Promise<'created' | 'updated'> {
  const scheduleId = triageScheduleId(database);
  const every = interval as Duration;
  const action = {
    type: 'startWorkflow' as const,
    workflowType: TRIAGE_SWEEP_WORKFLOW,
    taskQueue,
    workflowId: scheduleId,
  };
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every }] },
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
      state: {
        note: "Reconciles the alerts' histories with triage rules and tells analyses' expiries (analysis.expired)",
      },
    });
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule
      .getHandle(scheduleId)
      .update((prev) => ({ ...prev, spec: { intervals: [{ every }] }, action }));
    return 'updated';
  }
}
