// The sweeper against the real servers: it starts the workflow of a scan still queued, and fails with internal_error a
// scan left queued or running by a workflow that ended without storing an outcome (its failScan could not reach the
// database), which nothing else would ever move. No worker polls this task queue: workflows stay as the test leaves them.
import { newId } from '../../src/domain/ids';
import type { ScanDoc } from '../../src/storage/documents/scans';
import { getScan, insertScan, markCompleted, markRunning } from '../../src/storage/scans';
import { ORPHANED_MESSAGE, sweepOnce } from '../../src/sweepers/scans';
import { startScanWorkflow } from '../../src/temporal/client';
import { scanSweep, testContext, type TestContext } from '../helpers/context';

let t: TestContext;
const started: string[] = [];
beforeAll(async () => (t = await testContext()));
afterAll(async () => {
  for (const id of started)
    await t.temporal.client.workflow
      .getHandle(id)
      .terminate('test over')
      .catch(() => undefined);
  await t.close();
});

const sweep = (graceMs: number, staleMs: number) => scanSweep(t, { graceMs, staleMs });

async function scan(
  status: 'queued' | 'running',
  workflow: 'none' | 'running' | 'closed',
  ageMs = 60_000,
): Promise<ScanDoc> {
  const s: ScanDoc = {
    _id: newId('scn'),
    orgId: 'org_x',
    projectId: 'prj_x',
    target: 'x',
    ecosystem: 'javascript',
    schemaVersion: 1,
    status: 'queued',
    startedAt: new Date(Date.now() - ageMs),
    finishedAt: null,
    failureReason: null,
    findings: null,
    suppressed: null,
    nodeCount: 1,
    bodyBytes: 10,
    orgBucket: 0,
    projectBucket: 0,
  };
  await insertScan(t.store, s);
  if (status === 'running') await markRunning(t.store, s._id, null);
  if (workflow !== 'none') {
    expect(await startScanWorkflow(t.temporal, s)).toBe(true);
    started.push(s._id);
    if (workflow === 'closed')
      await t.temporal.client.workflow.getHandle(s._id).terminate('its failScan never reached the database');
  }
  return s;
}

test('orphaned scans are failed with internal_error; live ones are left alone; lost starts are started', async () => {
  const queuedClosed = await scan('queued', 'closed');
  const runningClosed = await scan('running', 'closed');
  const runningLive = await scan('running', 'running');
  const runningClosedYoung = await scan('running', 'closed', 0); // not stale yet: looked at on a later pass
  const queuedLost = await scan('queued', 'none');
  const completedClosed = await scan('running', 'closed');
  await markCompleted(t.store, completedClosed._id, {
    findings: { critical: 0, high: 0, medium: 0, low: 0 },
    suppressed: 0,
    advisoryGeneration: null,
    unmatchedVersions: 0,
    resultChunks: 0,
    findingCount: 0,
  });

  const pass = await sweepOnce(sweep(5000, 30_000));
  started.push(queuedLost._id);
  expect(pass).toEqual({ started: 1, failed: 2 });
  for (const s of [queuedClosed, runningClosed]) {
    expect(await getScan(t.store, s._id)).toMatchObject({
      status: 'failed',
      failureReason: 'internal_error',
      failureMessage: ORPHANED_MESSAGE,
      finishedAt: expect.any(Date),
    });
  }
  expect((await getScan(t.store, runningLive._id))!.status).toBe('running');
  expect((await getScan(t.store, runningClosedYoung._id))!.status).toBe('running');
  expect((await getScan(t.store, queuedLost._id))!.status).toBe('queued'); // its workflow now exists and runs
  expect((await t.temporal.client.workflow.getHandle(queuedLost._id).describe()).status.name).toBe('RUNNING');
  expect((await getScan(t.store, completedClosed._id))!.status).toBe('completed');

  // A second pass changes nothing; once stale, the young orphan is failed too.
  expect(await sweepOnce(sweep(5000, 30_000))).toEqual({ started: 0, failed: 0 });
  expect(await sweepOnce(sweep(5000, 0))).toEqual({ started: 0, failed: 1 });
  expect((await getScan(t.store, runningClosedYoung._id))!.status).toBe('failed');
  expect((await getScan(t.store, runningLive._id))!.status).toBe('running');
});
