// The scan workflow's orchestration on a real Temporal dev server (@temporalio/testing, existing-path CLI), with
// activity implementations recorded per test: stage order, search attributes, failure classification, retries.
// The real activities against MongoDB are covered by test/integration.
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { WorkflowFailedError } from '@temporalio/client';
import type { createActivities } from '../../activities';
import { SA } from '../../src/temporal/scan-workflow-contract';
import { installRuntime } from '../../workers/temporal-runtime';

type Acts = ReturnType<typeof createActivities>;

let env: TestWorkflowEnvironment;

beforeAll(async () => {
  installRuntime('error');
  const path = process.env.TEMPORAL_CLI_PATH;
  if (!path) throw new Error('TEMPORAL_CLI_PATH is not set by the jest global setup');
  env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path }, searchAttributes: Object.values(SA) },
  });
}, 60_000);
afterAll(() => env?.teardown());

function activities(overrides: Partial<Acts>, calls: string[]): Acts {
  const base = {
    prepareScan: async () => (
      calls.push('prepare'),
      { ecosystem: 'javascript', nodeCount: 2, generation: 'adv_1', schemaVersion: 1 }
    ),
    matchAdvisories: async () => (calls.push('match'), { findings: 1, unmatchedVersions: 0 }),
    derivePaths: async () => (calls.push('paths'), { segments: 3, characters: 30 }),
    publishResults: async () => (calls.push('publish'), { findings: 1, suppressed: 0 }),
    scanSmall: async () => (
      calls.push('small'),
      {
        ecosystem: 'typescript',
        nodeCount: 12,
        generation: 'adv_1',
        schemaVersion: 1,
        findings: 2,
        suppressed: 1,
        segments: 6,
      }
    ),
    failScan: async (i: { reason: string }) => void calls.push(`fail:${i.reason}`),
    moveAlerts: async () => (calls.push('alerts'), { outcome: 'moved', seq: 2, opened: 1, fixed: 0, reopened: 0 }),
  };
  return { ...base, ...overrides } as unknown as Acts;
}

async function run(acts: Acts, scanId: string, nodeCount?: number) {
  const taskQueue = `wf-${scanId}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: require.resolve('../../workflows'),
    activities: acts,
  });
  return worker.runUntil(async () => {
    const handle = await env.client.workflow.start('scanWorkflow', {
      taskQueue,
      workflowId: scanId,
      args: [{ scanId, nodeCount }],
      typedSearchAttributes: [{ key: SA.stage, value: 'queued' }],
    });
    const outcome = await handle.result().then(
      (r) => ({ ok: true as const, r }),
      (e) => ({ ok: false as const, e }),
    );
    const desc = await handle.describe();
    // The details the Temporal UI shows (the worker still runs: a closed workflow is queried by replay).
    const meta = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata').catch(() => null);
    return { outcome, desc, details: meta?.currentDetails };
  });
}

test('stages run in order and the run ends with Stage=completed and typed attributes', async () => {
  const calls: string[] = [];
  const { outcome, desc } = await run(activities({}, calls), 'scn_wf_ok');
  expect(outcome.ok).toBe(true);
  expect(calls).toEqual(['prepare', 'match', 'paths', 'publish', 'alerts']);
  expect(desc.typedSearchAttributes.get(SA.stage)).toBe('completed');
  expect(desc.typedSearchAttributes.get(SA.ecosystem)).toBe('javascript');
  expect(desc.typedSearchAttributes.get(SA.nodeCount)).toBe(2);
});

test('unsupported_ecosystem is not retried, marks the scan failed and fails the run with that type', async () => {
  const calls: string[] = [];
  let attempts = 0;
  const acts = activities(
    {
      prepareScan: async () => {
        attempts++;
        throw ApplicationFailure.nonRetryable('python is not supported yet', 'unsupported_ecosystem');
      },
    },
    calls,
  );
  const { outcome, desc } = await run(acts, 'scn_wf_unsupported');
  expect(attempts).toBe(1);
  expect(calls).toEqual(['fail:unsupported_ecosystem']);
  expect(outcome.ok).toBe(false);
  const err = (outcome as { e: unknown }).e as WorkflowFailedError;
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect((err.cause as ApplicationFailure).type).toBe('unsupported_ecosystem');
  expect(desc.typedSearchAttributes.get(SA.stage)).toBe('failed');
});

test('attribution_limit_exceeded fails the scan with that reason', async () => {
  const calls: string[] = [];
  const acts = activities(
    {
      derivePaths: async () => {
        throw ApplicationFailure.nonRetryable('too many path segments', 'attribution_limit_exceeded');
      },
    },
    calls,
  );
  await run(acts, 'scn_wf_limit');
  expect(calls).toEqual(['prepare', 'match', 'fail:attribution_limit_exceeded']);
});

test('a transient activity error is retried and the scan still completes', async () => {
  const calls: string[] = [];
  let n = 0;
  const acts = activities(
    {
      matchAdvisories: async () => {
        if (n++ === 0) throw new Error('database hiccup');
        calls.push('match');
        return { findings: 0, unmatchedVersions: 0 };
      },
    },
    calls,
  );
  const { outcome } = await run(acts, 'scn_wf_retry');
  expect(outcome.ok).toBe(true);
  expect(calls).toEqual(['prepare', 'match', 'paths', 'publish', 'alerts']);
});

test('any other failure is internal_error', async () => {
  const calls: string[] = [];
  const acts = activities(
    {
      publishResults: async () => {
        throw ApplicationFailure.nonRetryable('disk full', 'SomethingElse');
      },
    },
    calls,
  );
  await run(acts, 'scn_wf_internal');
  expect(calls).toEqual(['prepare', 'match', 'paths', 'fail:internal_error']);
});

test('a small snapshot takes the fast path: one local activity, same outcome and attributes', async () => {
  const calls: string[] = [];
  const { outcome, desc } = await run(activities({}, calls), 'scn_wf_small', 12);
  expect(outcome.ok).toBe(true);
  expect(calls).toEqual(['small', 'alerts']);
  expect(desc.typedSearchAttributes.get(SA.stage)).toBe('completed');
  expect(desc.typedSearchAttributes.get(SA.ecosystem)).toBe('typescript');
});

test('a large snapshot takes the activity pipeline (heartbeats, claim checks)', async () => {
  const calls: string[] = [];
  await run(activities({}, calls), 'scn_wf_large', 50_000);
  expect(calls).toEqual(['prepare', 'match', 'paths', 'publish', 'alerts']);
});

test('the fast path fails like the pipeline: unsupported_ecosystem, not retried', async () => {
  const calls: string[] = [];
  let attempts = 0;
  const acts = activities(
    {
      scanSmall: async () => {
        attempts++;
        throw ApplicationFailure.nonRetryable('gradle is not supported yet', 'unsupported_ecosystem');
      },
    },
    calls,
  );
  const { outcome } = await run(acts, 'scn_wf_small_unsupported', 3);
  expect(outcome.ok).toBe(false);
  expect(attempts).toBe(1);
  expect(calls).toEqual(['fail:unsupported_ecosystem']);
});

test('the alerts move after publishing; a move that fails for good is logged and shown, and the scan still completes', async () => {
  const calls: string[] = [];
  let attempts = 0;
  const acts = activities(
    {
      moveAlerts: async () => {
        attempts++;
        calls.push('alerts');
        // A transient failure is retried; then one that no retry can mend.
        if (attempts === 1) throw new Error('connection reset');
        throw ApplicationFailure.nonRetryable('alert state unreadable', 'alert_state_broken');
      },
    },
    calls,
  );
  const { outcome, desc, details } = await run(acts, 'scn_wf_alerts_fail');
  expect(attempts).toBe(2);
  expect(outcome.ok).toBe(true);
  expect((outcome as { r: { status: string } }).r.status).toBe('completed');
  expect(calls).toEqual(['prepare', 'match', 'paths', 'publish', 'alerts', 'alerts']);
  expect(desc.typedSearchAttributes.get(SA.stage)).toBe('completed');
  // The Temporal UI's details say that the alerts were not moved, and why.
  expect(details).toMatch(/the alerts were NOT moved: .*alert state unreadable/);
});
