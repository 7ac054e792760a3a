// One workflow per uploaded snapshot (workflow id = scan id). Deterministic code only: the work is in activities,
// which read and write MongoDB; Temporal carries ids and small summaries, never the snapshot (claim check).
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  TimeoutFailure,
  log,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { RetryPolicy } from '@temporalio/common';
import type { createActivities } from '../activities';
import {
  FAST_PATH_MAX_GRAPH,
  FAST_PATH_MAX_NODES,
  NON_RETRYABLE,
  RETRY_MAX_INTERVAL,
  SA,
  STEP_PATIENCE,
  type ScanWorkflowInput,
  type ScanWorkflowResult,
  type Stage,
} from '../src/temporal/scan-workflow-contract';

type Activities = ReturnType<typeof createActivities>;

// A database outage is waited out: an activity that met one is retried every few seconds (at most
// RETRY_MAX_INTERVAL apart, so a scan moves on within seconds of the database's return) for STEP_PATIENCE; any other
// failure is given FAULT_ATTEMPTS attempts by the activity itself (activities/outage.ts), then fails the scan.
// maximumAttempts is left unset: unlimited, within scheduleToCloseTimeout.
const retry: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: RETRY_MAX_INTERVAL,
  nonRetryableErrorTypes: [...NON_RETRYABLE],
};

// One proxy per timeout profile: quick bookkeeping vs. graph work that heartbeats (every 2 s while it runs, so a
// worker that dies mid-attribution is noticed within the heartbeat timeout and the retry resumes on another one).
const quick = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  scheduleToCloseTimeout: STEP_PATIENCE,
  retry,
});
const heavy = proxyActivities<Activities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '15 seconds',
  scheduleToCloseTimeout: STEP_PATIENCE,
  retry,
});
// The shards of a paged scan: as heavy, and a cancelled shard (another one failed for good) is waited for until its
// worker confirms, so that nothing writes after the scan is failed. (Unset, the SDK only tries to cancel.)
const shards = proxyActivities<Activities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '15 seconds',
  scheduleToCloseTimeout: STEP_PATIENCE,
  retry,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});
// Moving the project's alerts after a scan is published: retried (a database outage, a race lost to another move)
// for up to an hour; a move that still fails is logged and shown in the workflow, and the scan stays completed.
const alerts = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  // The move heartbeats while it runs: a worker that dies in the middle is noticed within seconds, and the retry
  // finishes what the dead attempt stored (activities/alert-steps.ts).
  heartbeatTimeout: '10 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { ...retry, nonRetryableErrorTypes: [] },
});
const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: STEP_PATIENCE,
  retry,
});

function stage(s: Stage, details: string): void {
  upsertSearchAttributes([{ key: SA.stage, value: s }]);
  setCurrentDetails(details);
}

function failureReason(err: unknown): { reason: string; message: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure && cause.type && (NON_RETRYABLE as readonly string[]).includes(cause.type)) {
    const reason = cause.type === 'invalid_snapshot' ? 'internal_error' : cause.type;
    return { reason, message: cause.message };
  }
  // A step whose patience ran out (TimeoutFailure) carries the last attempt's failure as its cause.
  const last = cause instanceof TimeoutFailure && cause.cause ? `: ${cause.cause.message}` : '';
  return { reason: 'internal_error', message: cause instanceof Error ? cause.message + last : String(cause) };
}

/**
 * Runs every shard activity at once (the workers' slots bound how many run); on the first failure the others are
 * cancelled and waited for, so that no shard writes after the scan is failed and its intermediate results cleared.
 */
async function fanOut(count: number, run: (k: number) => Promise<unknown>): Promise<void> {
  const scope = new CancellationScope();
  let failure: unknown;
  await scope.run(() =>
    Promise.all(
      Array.from({ length: count }, (_, k) =>
        run(k).catch((err) => {
          if (failure !== undefined) return;
          failure = err;
          scope.cancel();
        }),
      ),
    ),
  );
  if (failure !== undefined) throw failure;
}

/**
 * A paged (multipart) scan: never the small fast path; attribution fans out over the shards of roots
 * of a fixed plan as separate activities, so that several worker processes share one scan. Each shard activity is
 * idempotent (stored keyed by scan and shard, never recomputed) and resumes after a crash on any worker; the
 * completion then assembles and stores the attributions apart from the findings.
 */
async function pagedScan(scanId: string): Promise<ScanWorkflowResult> {
  stage('preparing', `Loading and checking the snapshot of ${scanId} (paged scan)`);
  const prep = await quick.prepareScan({ scanId });
  upsertSearchAttributes([
    { key: SA.ecosystem, value: prep.ecosystem },
    { key: SA.nodeCount, value: prep.nodeCount },
  ]);
  stage('matching', `Matching ${prep.nodeCount} packages against advisory generation ${prep.generation ?? '(none)'}`);
  const matched = await heavy.matchAdvisories({ scanId, generation: prep.generation });
  stage('attributing', `Planning the attribution of ${matched.findings} findings over shards of roots`);
  const plan = await heavy.planAttribution({ scanId });
  let done = 0;
  const progress = () =>
    setCurrentDetails(
      `attributing: shard ${done} of ${plan.shards} done (${matched.findings} findings; ${plan.roots} roots, ${plan.vertices} vertices, ${plan.edges} edges; one activity per shard)`,
    );
  progress();
  await fanOut(plan.shards, async (shard) => {
    await shards.attributeShard({ scanId, shard });
    done++;
    progress();
  });
  stage(
    'publishing',
    `Publishing ${matched.findings} findings; assembling and storing their attributions from ${plan.shards} shards`,
  );
  const result = await heavy.publishPaged({ scanId, generation: prep.generation });
  stage(
    'completed',
    `Completed: ${result.findings} findings, ${result.suppressed} suppressed, ${result.attributions} attributions (paged)`,
  );
  return { scanId, status: 'completed', findings: result.findings };
}

export async function scanWorkflow(input: ScanWorkflowInput): Promise<ScanWorkflowResult> {
  const result = await scanSteps(input);
  await moveAlertsOf(result);
  return result;
}

/**
 * The alerts step after publishing: never fails the scan, whose findings are complete. A move failing for good is
 * logged by the workflow and its details say so; the next tracked scan of the project moves the alerts again.
 */
async function moveAlertsOf(result: ScanWorkflowResult): Promise<void> {
  if (result.status !== 'completed') return;
  try {
    const r = await alerts.moveAlerts({ scanId: result.scanId });
    if (r.outcome === 'moved')
      setCurrentDetails(
        `Completed: ${result.findings} findings; alerts moved: ${r.opened} opened, ${r.fixed} fixed, ${r.reopened} reopened`,
      );
  } catch (err) {
    const message = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
    log.error('alerts not moved', { scanId: result.scanId, message });
    setCurrentDetails(`Completed: ${result.findings} findings; the alerts were NOT moved: ${message}`);
  }
}

async function scanSteps({ scanId, nodeCount, graphSize, paged }: ScanWorkflowInput): Promise<ScanWorkflowResult> {
  try {
    if (paged) return await pagedScan(scanId);
    if (nodeCount !== undefined && nodeCount <= FAST_PATH_MAX_NODES && (graphSize ?? 0) <= FAST_PATH_MAX_GRAPH) {
      stage('preparing', `Scanning ${nodeCount} packages in one local activity (small snapshot)`);
      const r = await local.scanSmall({ scanId });
      upsertSearchAttributes([
        { key: SA.ecosystem, value: r.ecosystem },
        { key: SA.nodeCount, value: r.nodeCount },
      ]);
      stage(
        'completed',
        `Completed: ${r.findings} findings, ${r.suppressed} suppressed (advisory generation ${r.generation ?? '(none)'})`,
      );
      return { scanId, status: 'completed', findings: r.findings };
    }
    stage('preparing', `Loading and checking the snapshot of ${scanId}`);
    const prep = await quick.prepareScan({ scanId });
    upsertSearchAttributes([
      { key: SA.ecosystem, value: prep.ecosystem },
      { key: SA.nodeCount, value: prep.nodeCount },
    ]);

    stage('matching', `Matching ${prep.nodeCount} packages against advisory generation ${prep.generation ?? '(none)'}`);
    const matched = await heavy.matchAdvisories({ scanId, generation: prep.generation });

    stage('attributing', `Deriving paths and attributions for ${matched.findings} findings`);
    const paths = await heavy.derivePaths({ scanId });

    stage(
      'publishing',
      `Publishing ${matched.findings} findings (${paths.segments} path segments${paths.shards ? `, ${paths.shards} shards, ${paths.resumed} resumed` : ''})`,
    );
    const result = await quick.publishResults({ scanId, generation: prep.generation });

    stage('completed', `Completed: ${result.findings} findings, ${result.suppressed} suppressed`);
    return { scanId, status: 'completed', findings: result.findings };
  } catch (err) {
    const { reason, message } = failureReason(err);
    log.warn('scan failed', { scanId, reason, message });
    await quick.failScan({ scanId, reason, message });
    stage('failed', `Failed: ${reason}: ${message}`);
    // Fail the run itself so the Temporal UI shows it as failed, with the reason as the failure type.
    throw ApplicationFailure.nonRetryable(`scan ${scanId} failed: ${reason}: ${message}`, reason);
  }
}
