// Starting the re-match of alerts after an advisory import (workflows/alert-rematch.ts): one workflow per generation,
// started by whatever made the generation (the advisory-refresh workflow, `scanner advisories import|sync`). A second
// start for the same generation is a no-op; one that failed may be started again.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';

export const ALERT_REMATCH_WORKFLOW = 'alertRematchWorkflow';
export const alertRematchId = (generation: string) => `alert-rematch-${generation}`;

/** Starts the re-match of `generation`; false when it was started before. */
export async function startAlertRematch(client: Client, taskQueue: string, generation: string): Promise<boolean> {
  try {
    await client.workflow.start(ALERT_REMATCH_WORKFLOW, {
      taskQueue,
      workflowId: alertRematchId(generation),
      args: [{ generation }],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      staticSummary: `Re-match of every project's latest tracked snapshot against advisory generation ${generation}`,
    });
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}

export const ALERT_UPGRADE_WORKFLOW = 'alertUpgradeWorkflow';
/** One upgrade per database (several deployments may share a Temporal namespace). */
export const alertUpgradeId = (database: string) => `alert-upgrade-${database}`;

/** Starts the upgrade to alerts unless it ran (or runs) already; false when it was started before. */
export async function startAlertUpgrade(client: Client, taskQueue: string, database: string): Promise<boolean> {
  try {
    await client.workflow.start(ALERT_UPGRADE_WORKFLOW, {
      taskQueue,
      workflowId: alertUpgradeId(database),
      args: [],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      staticSummary: "Upgrade: every project's alerts from its latest completed tracked scan per ecosystem",
    });
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}
