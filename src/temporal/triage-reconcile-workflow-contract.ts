// Names, inputs and results of triage in the background (workflows/triage-reconcile.ts), shared by the API (which
// signals an organization's reconciliation after a rule change), the worker (which creates the hourly schedule) and
// the workflows. Imported by workflow code: types and constants only.

/** One organization's reconciliation: runs again as long as it is signalled while it runs. */
export const TRIAGE_RECONCILE_WORKFLOW = 'triageReconcileWorkflow';
/** The signal that asks a running reconciliation for one more pass (a rule changed meanwhile). */
export const TRIAGE_RECONCILE_SIGNAL = 'reconcile';
/** One reconciliation per organization at a time: the API's signal-with-start and the hourly sweep share the id. */
export const triageReconcileId = (orgId: string) => `triage-reconcile-${orgId}`;

/** The hourly sweep over every organization with analyses or rules (a Temporal Schedule starts it). */
export const TRIAGE_SWEEP_WORKFLOW = 'triageSweepWorkflow';
/** One schedule per database (several deployments may share a Temporal namespace). */
export const triageScheduleId = (database: string) => `triage-sweep-${database}`;
/** How often the schedule runs: analyses' and enforce rules' expiries are told within this. */
export const TRIAGE_SWEEP_INTERVAL = '1h';
/** Organizations reconciled at once by the sweep. */
export const TRIAGE_SWEEP_CONCURRENCY = 4;
/** Passes of one reconciliation run before it continues as new (its history stays small). */
export const TRIAGE_PASSES_PER_RUN = 50;

export interface TriageReconcileInput {
  orgId: string;
}

/** What one pass did. */
export interface TriagePass {
  /** Alerts whose history got a rule event. */
  ruleEvents: number;
  /** Alerts whose rule state changed with no event (their own analysis or a snapshot suppression decides them). */
  quiet: number;
  /** Alerts whose analysis expiry was told (history event). */
  expired: number;
  /** analysis.expired webhook events started. */
  announced: number;
}

export interface TriageReconcileResult extends TriagePass {
  orgId: string;
  passes: number;
  failed: number;
}

export interface TriageSweepResult {
  orgs: number;
  started: number;
  signalled: number;
  failed: number;
}
