// Continuous monitoring: one workflow per advisory generation (id alert-rematch-<generation>) re-matches the latest
// tracked snapshot of every (project, ecosystem) with alerts against the newest generation, a few pairs at a time.
// Deterministic code only; each pair is one idempotent activity (activities/alert-rematch.ts).
import { log, proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { createActivities } from '../activities';

type Activities = ReturnType<typeof createActivities>;

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** Pairs re-matched at once: bounded so that a large organization does not crowd the scans out of the workers. */
export const REMATCH_CONCURRENCY = 4;

export interface AlertRematchResult {
  generation: string;
  pairs: number;
  moved: number;
  opened: number;
  fixed: number;
  reopened: number;
  failed: number;
}

export async function alertRematchWorkflow({ generation }: { generation: string }): Promise<AlertRematchResult> {
  const pairs = await acts.listAlertPairs();
  const out: AlertRematchResult = {
    generation,
    pairs: pairs.length,
    moved: 0,
    opened: 0,
    fixed: 0,
    reopened: 0,
    failed: 0,
  };
  let next = 0;
  let done = 0;
  const progress = () =>
    setCurrentDetails(
      `Re-matching the latest tracked snapshots against ${generation}: ${done} of ${pairs.length} (project, ecosystem) pairs; ${out.opened} alerts opened, ${out.fixed} fixed, ${out.reopened} reopened${out.failed ? `, ${out.failed} pairs failed` : ''}`,
    );
  progress();
  const lane = async () => {
    while (next < pairs.length) {
      const pairId = pairs[next++];
      try {
        const r = await acts.rematchAlerts({ pairId });
        if (r.outcome === 'moved') {
          out.moved++;
          out.opened += r.opened;
          out.fixed += r.fixed;
          out.reopened += r.reopened;
        }
      } catch (err) {
        out.failed++;
        log.error('alert re-match failed', { pairId, message: err instanceof Error ? err.message : String(err) });
      }
      done++;
      progress();
    }
  };
  await Promise.all(Array.from({ length: Math.min(REMATCH_CONCURRENCY, pairs.length) }, lane));
  return out;
}

/**
 * The upgrade to alerts (once per database, id alert-upgrade-<database>): each (project, ecosystem) with completed scans gets its
 * alerts from its latest completed tracked scan, a few pairs at a time, in the background: readiness never waits.
 */
export async function alertUpgradeWorkflow(): Promise<{ pairs: number; moved: number; failed: number }> {
  const pairs = await acts.alertUpgradePairs();
  let next = 0;
  let moved = 0;
  let failed = 0;
  const lane = async () => {
    while (next < pairs.length) {
      const pair = pairs[next++];
      try {
        if ((await acts.upgradeAlertPair(pair)).outcome === 'moved') moved++;
      } catch (err) {
        failed++;
        log.error('alert upgrade of a pair failed', {
          ...pair,
          message: err instanceof Error ? err.message : String(err),
        });
      }
      setCurrentDetails(
        `Alerts from the latest tracked scans: ${next} of ${pairs.length} pairs started, ${moved} moved, ${failed} failed`,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(REMATCH_CONCURRENCY, pairs.length) }, lane));
  if (!failed) await acts.finishAlertUpgrade({ pairs: pairs.length });
  return { pairs: pairs.length, moved, failed };
}
