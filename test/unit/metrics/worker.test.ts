// The worker's metrics as the activity adapters record them: stage durations (attempts that throw included),
// scans by outcome with a bounded reason, activities not named as stages left untouched.
import {
  recordScanCompleted,
  recordScanFailed,
  scanStageDuration,
  scansTotal,
  timedStages,
  workerRegistry,
} from '../../../src/metrics/worker';

beforeEach(() => workerRegistry.resetMetrics());

async function stageCounts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const v of (await scanStageDuration.get()).values) {
    if (v.metricName === 'scan_stage_duration_seconds_count') out[String(v.labels.stage)] = v.value;
  }
  return out;
}

test('named activities are timed under their stage; their results and errors pass through', async () => {
  const acts = timedStages(
    {
      prepareScan: async ({ scanId }: { scanId: string }) => ({ scanId, ok: true }),
      derivePaths: async () => {
        throw new Error('shard failed');
      },
      failScan: async () => 'untimed',
    },
    { prepareScan: 'prepare', derivePaths: 'attribute' },
  );
  await expect(acts.prepareScan({ scanId: 'scn_1' })).resolves.toEqual({ scanId: 'scn_1', ok: true });
  await expect(acts.prepareScan({ scanId: 'scn_2' })).resolves.toBeTruthy();
  await expect(acts.derivePaths()).rejects.toThrow('shard failed');
  await expect(acts.failScan()).resolves.toBe('untimed');
  expect(await stageCounts()).toEqual({ prepare: 2, attribute: 1 });
});

test('the stages of the real activities are the documented ones', async () => {
  // createActivities wraps them; calling one outside an activity context fails, after the timer started.
  const { createActivities } = await import('../../../activities');
  const acts = createActivities({
    store: {} as never,
    logger: { info() {}, warn() {} } as never,
    shards: { threads: 1, run: async () => [], close: async () => undefined } as never,
  });
  for (const name of ['prepareScan', 'matchAdvisories', 'derivePaths', 'publishResults', 'scanSmall'] as const) {
    await (acts[name] as (a: unknown) => Promise<unknown>)({ scanId: 'scn_x', generation: null }).catch(
      () => undefined,
    );
  }
  expect(Object.keys(await stageCounts()).sort()).toEqual(['attribute', 'match', 'prepare', 'publish', 'small_scan']);
});

test('scans by outcome: completed, failed by reason; an unexpected reason is folded into "other"', async () => {
  recordScanCompleted();
  recordScanCompleted();
  recordScanFailed('attribution_limit_exceeded');
  recordScanFailed('Some Error: with text that could be anything');
  const text = await workerRegistry.metrics();
  expect(text).toContain('scans_total{outcome="completed",reason=""} 2');
  expect(text).toContain('scans_total{outcome="failed",reason="attribution_limit_exceeded"} 1');
  expect(text).toContain('scans_total{outcome="failed",reason="other"} 1');
  expect((await scansTotal.get()).values).toHaveLength(3);
});
