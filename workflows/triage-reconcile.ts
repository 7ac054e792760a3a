// Triage in the background (docs/triage.md). One workflow per organization (id triage-reconcile-<orgId>) brings its
// alerts' histories up to date with its rules and its analyses' expiries: started or signalled by the API after each
// rule change (signal-with-start), and by the hourly sweep; it passes again as long as it was signalled during a pass,
// so a change made while it runs is reconciled too. The sweep (started by the triage-sweep-<database> schedule) goes
// over every organization with analyses or rules, a few at a time. Deterministic code only; each pass is one
// idempotent activity (activities/triage-reconcile.ts).
import {
  continueAsNew,
  defineSignal,
  executeChild,
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  proxyActivities,
  setCurrentDetails,
  setHandler,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { createActivities } from '../activities';
import {
  TRIAGE_PASSES_PER_RUN,
  TRIAGE_RECONCILE_SIGNAL,
  TRIAGE_SWEEP_CONCURRENCY,
  triageReconcileId,
  type TriageReconcileInput,
  type TriageReconcileResult,
  type TriageSweepResult,
} from '../src/temporal/triage-reconcile-workflow-contract';

type Activities = ReturnType<typeof createActivities>;

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export const reconcileSignal = defineSignal(TRIAGE_RECONCILE_SIGNAL);

export async function triageReconcileWorkflow({ orgId }: TriageReconcileInput): Promise<TriageReconcileResult> {
  let asked = true; // the start itself asks for a pass
  setHandler(reconcileSignal, () => {
    asked = true;
  });
  const out: TriageReconcileResult = { orgId, passes: 0, ruleEvents: 0, quiet: 0, expired: 0, announced: 0, failed: 0 };
  while (asked) {
    asked = false;
    setCurrentDetails(`Reconciling the alerts' histories of ${orgId} with its triage rules and analyses' expiries`);
    try {
      const r = await acts.reconcileTriage({ orgId });
      out.ruleEvents += r.ruleEvents;
      out.quiet += r.quiet;
      out.expired += r.expired;
      out.announced += r.announced;
    } catch (err) {
      // Retried for an hour already; the next change or the hourly sweep tries again.
      out.failed++;
      log.error('triage reconciliation failed', { orgId, message: err instanceof Error ? err.message : String(err) });
    }
    out.passes++;
    setCurrentDetails(
      `${out.passes} passes over ${orgId}: ${out.ruleEvents} rule events, ${out.expired} expiries told, ${out.announced} analysis.expired events${out.failed ? `, ${out.failed} failed` : ''}`,
    );
    // A long series of changes: a new run with a short history (it passes once more, as asked).
    if (asked && out.passes >= TRIAGE_PASSES_PER_RUN) await continueAsNew<typeof triageReconcileWorkflow>({ orgId });
  }
  return out;
}

/** The hourly sweep: every organization with analyses or rules reconciled, in its own workflow (or signalled). */
export async function triageSweepWorkflow(): Promise<TriageSweepResult> {
  const orgs = await acts.triageOrgs();
  const out: TriageSweepResult = { orgs: orgs.length, started: 0, signalled: 0, failed: 0 };
  let next = 0;
  let done = 0;
  const progress = () =>
    setCurrentDetails(
      `Triage reconciliation of ${orgs.length} organizations: ${done} done, ${out.signalled} already running (signalled)${out.failed ? `, ${out.failed} failed` : ''}`,
    );
  progress();
  const one = async (orgId: string) => {
    const workflowId = triageReconcileId(orgId);
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        await executeChild(triageReconcileWorkflow, {
          workflowId,
          args: [{ orgId }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
        });
        out.started++;
        return;
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
      // Running already (a rule change started it): one more pass of that run covers this hour.
      try {
        await getExternalWorkflowHandle(workflowId).signal(reconcileSignal);
        out.signalled++;
        return;
      } catch {
        // it ended between the two: start it again
      }
    }
    throw new Error(`the reconciliation of ${orgId} could be neither started nor signalled`);
  };
  const lane = async () => {
    while (next < orgs.length) {
      const orgId = orgs[next++];
      try {
        await one(orgId);
      } catch (err) {
        out.failed++;
        log.error('triage reconciliation of an organization failed', {
          orgId,
          message: err instanceof Error ? err.message : String(err),
        });
      }
      done++;
      progress();
    }
  };
  await Promise.all(Array.from({ length: Math.min(TRIAGE_SWEEP_CONCURRENCY, orgs.length) }, lane));
  return out;
}
