// The advisory-refresh Temporal Schedule: visible (and pausable, triggerable) in the Temporal UI under Schedules.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';

export const ADVISORY_REFRESH_SCHEDULE = 'advisory-refresh';

/** Creates the schedule, or updates its interval when it exists. Interval: a Temporal duration such as "6h". */
export async function ensureAdvisoryRefreshSchedule(
  client: Client,
  taskQueue: string,
  interval: string,
): Promise<'created' | 'updated'> {
  const every = interval as Duration; // "6h", "30m", "1 day": ms-style strings, checked by the server
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'advisoryRefreshWorkflow',
    taskQueue,
    workflowId: ADVISORY_REFRESH_SCHEDULE,
  };
  try {
    await client.schedule.create({
      scheduleId: ADVISORY_REFRESH_SCHEDULE,
      spec: { intervals: [{ every }] },
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
      state: { note: 'Pulls ADVISORY_SOURCES into a new advisory generation' },
    });
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule
      .getHandle(ADVISORY_REFRESH_SCHEDULE)
      .update((prev) => ({ ...prev, spec: { intervals: [{ every }] }, action }));
    return 'updated';
  }
}
