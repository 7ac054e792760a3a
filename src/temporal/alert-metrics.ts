// The daily run of the alert trends (workflows/alert-metrics.ts): a Temporal Schedule per database that starts it at
// 00:05 UTC (each project's point of the day that just ended, months older than 400 days dropped). Visible, pausable
// and triggerable in the Temporal UI under Schedules; every worker creates or updates it at start.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleSpec } from '@temporalio/client';

export const ALERT_METRICS_WORKFLOW = 'alertMetricsDailyWorkflow';
export const alertMetricsScheduleId = (database: string) => `alert-metrics-daily-${database}`;

const SPEC: ScheduleSpec = { calendars: [{ hour: 0, minute: 5, comment: 'daily at 00:05 UTC' }] };

/** Creates the schedule of this database, or updates it to this task queue when it exists. Idempotent. */
export async function ensureAlertMetricsSchedule(
  client: Client,
  taskQueue: string,
  database: string,
): Promise<'created' | 'updated'> {
  const scheduleId = alertMetricsScheduleId(database);
  const action = {
    type: 'startWorkflow' as const,
    workflowType: ALERT_METRICS_WORKFLOW,
    taskQueue,
    workflowId: scheduleId,
  };
  try {
    await client.schedule.create({
      scheduleId,
      spec: SPEC,
      action,
      // A day missed while the cluster was down is caught up within a day; a run never overlaps another.
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
      state: { note: "Writes each project's alert trend point of the day that just ended (GET /v1/metrics/alerts)" },
    });
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(scheduleId).update((prev) => ({ ...prev, spec: SPEC, action }));
    return 'updated';
  }
}
