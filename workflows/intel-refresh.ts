// The intel-refresh schedule's workflow: one import of each configured intelligence feed (KEV, EPSS) into a new
// generation. Reads join the feeds in memory (src/storage/intel.ts loadIntel): nothing is re-matched afterwards.
import { proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { createActivities } from '../activities';

const { syncIntelSources } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '30 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

export async function intelRefreshWorkflow(): Promise<{
  feeds: Array<{ kind: string; status: string; generation: string | null; reason: string | null }>;
  failed: number;
}> {
  setCurrentDetails('Importing the intelligence feeds');
  const r = await syncIntelSources();
  setCurrentDetails(r.feeds.map((f) => `${f.kind}: ${f.status}${f.generation ? ` (${f.generation})` : ''}`).join(', '));
  return r;
}
