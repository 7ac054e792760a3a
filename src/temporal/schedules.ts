// The feed-refresh Temporal Schedules: visible (and pausable, triggerable) in the Temporal UI under Schedules.
// advisory-refresh pulls ADVISORY_SOURCES into a new advisory generation; intel-refresh imports the intelligence
// feeds named by INTEL_KEV_SOURCE and INTEL_EPSS_SOURCE (docs/intelligence.md).
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';

export const ADVISORY_REFRESH_SCHEDULE = 'advisory-refresh';
export const INTEL_REFRESH_SCHEDULE = 'intel-refresh';

/** Creates an interval schedule starting `workflowType`, or updates its interval and action when it exists. */
async function ensureIntervalSchedule(
  client: Client,
  taskQueue: string,
  interval: string,
  scheduleId: string,
  workflowType: string,
  note: string,
): Promise<'created' | 'updated'> {
  const every = interval as Duration; // "6h", "30m", "1 day": ms-style strings, checked by the server
  const action = { type: 'startWorkflow' as const, workflowType, taskQueue, workflowId: scheduleId };
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every }] },
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
      state: { note },
    });
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule
      .getHandle(scheduleId)
      .update((prev) => ({ ...prev, spec: { intervals: [{ every }] }, action }));
    return 'updated';
  }
}

/** Creates the schedule, or updates its interval when it exists. Interval: a Temporal duration such as "6h". */
export function ensureAdvisoryRefreshSchedule(
  client: Client,
  taskQueue: string,
  interval: string,
): Promise<'created' | 'updated'> {
  return ensureIntervalSchedule(
    client,
    taskQueue,
    interval,
    ADVISORY_REFRESH_SCHEDULE,
    'advisoryRefreshWorkflow',
    'Pulls ADVISORY_SOURCES into a new advisory generation',
  );
}

/** The intel-refresh schedule (default interval 24h: both feeds are published once a day). */
export function ensureIntelRefreshSchedule(
  client: Client,
  taskQueue: string,
  interval: string,
): Promise<'created' | 'updated'> {
  return ensureIntervalSchedule(
    client,
    taskQueue,
    interval,
    INTEL_REFRESH_SCHEDULE,
    'intelRefreshWorkflow',
    'Imports INTEL_KEV_SOURCE and INTEL_EPSS_SOURCE into new KEV and EPSS generations',
  );
}
