// The advisory-refresh schedule's workflow: one sync of every configured source into a new advisory generation.
import { proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { createActivities } from '../activities';

const { syncAdvisorySources } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '30 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

export async function advisoryRefreshWorkflow(): Promise<{
  generation: string | null;
  applied: number;
  failed: number;
}> {
  setCurrentDetails('Syncing advisory sources');
  const r = await syncAdvisorySources();
  setCurrentDetails(`Generation ${r.generation}: ${r.applied} source(s) applied, ${r.failed} failed`);
  return r;
}
