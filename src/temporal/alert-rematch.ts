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
