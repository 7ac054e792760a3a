// The daily run of the alert trends, started by the alert-metrics-daily-<database> schedule (src/temporal/
// alert-metrics.ts): one idempotent activity (activities/alert-metrics.ts), retried for an hour.
import { proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { createActivities } from '../activities';

const { recordDailyAlertMetrics } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

export async function alertMetricsDailyWorkflow(): Promise<{
  day: string;
  orgs: number;
  projects: number;
  packed: number;
  deletedMonths: number;
}> {
  setCurrentDetails("Writing each project's alert trend point of the day that just ended");
  const r = await recordDailyAlertMetrics();
  setCurrentDetails(
    `${r.day}: ${r.projects} projects of ${r.orgs} organizations; ${r.deletedMonths} old months dropped`,
  );
  return r;
}
