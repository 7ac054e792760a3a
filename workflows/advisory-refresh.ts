// The advisory-refresh schedule's workflow: one sync of every configured source into a new advisory generation.
import { ParentClosePolicy, proxyActivities, setCurrentDetails, startChild } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { createActivities } from '../activities';

const { syncAdvisorySources } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '30 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

export async function advisoryRefreshWorkflow(): Promise<{
  generation: string | null;
  changed: boolean;
  applied: number;
  failed: number;
}> {
  setCurrentDetails('Syncing advisory sources');
  const r = await syncAdvisorySources();
  setCurrentDetails(`Generation ${r.generation}: ${r.applied} source(s) applied, ${r.failed} failed`);
  if (r.changed && r.generation) {
    // A new generation: every project's alerts are re-matched against it, in a workflow of its own that outlives this.
    try {
      await startChild('alertRematchWorkflow', {
        workflowId: `alert-rematch-${r.generation}`,
        args: [{ generation: r.generation }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }
  return r;
}
