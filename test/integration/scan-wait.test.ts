// GET /v1/scans/{scanId}?wait=S: held until the scan is terminal or S seconds pass, answered with the scan as it is
// then. The wait is a long poll on the scan's workflow raced by a bounded watch of the scan document (a read every few
// milliseconds for the first moments of the wait only): past the watch window the database is not read again until
// the answer. Shutdown answers pending waits at once; anything but a whole number from 0 to 60 is 422
// invalid_parameter.
import type { Worker } from '@temporalio/worker';
import { createLogger } from '../../src/logger';
import { connectStore } from '../../src/storage/mongo';
import { revokeApiKey } from '../../src/storage/api-keys';
import { sha256Hex } from '../../src/domain/ids';
import { createScanWorker } from '../../workers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { bearer, newOrg, requireEnv, testContext, type Org, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

const WINDOW_MS = 400;
/** The most reads of the scan a wait makes: once before, the watch's reads (one per 10 ms at most), once after. */
const MAX_READS = 2 + WINDOW_MS / 10;
let t: TestContext;
let org: Org;
let key: string;
beforeAll(async () => {
  installRuntime('error');
  // No worker polls this task queue until a test starts one. A watch window short enough to see its end in a test.
  t = await testContext({ watch: { intervalMs: 10, windowMs: WINDOW_MS, maxWatched: 2 } });
  org = await newOrg(t.store);
  key = await org.key(['sca:upload', 'scans:read']);
});
afterAll(() => t.close());

const upload = async (project: string) => {
  const res = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(v1Snapshot(project));
  expect(res.status).toBe(201);
  return res.body.id as string;
};

/** Resolves once the app has started waiting (its waiter's until() was called). */
function waitStarted(): Promise<void> {
  const original = t.waiter.until;
  return new Promise((resolve) => {
    const spy = jest.spyOn(t.waiter, 'until').mockImplementation((...args) => {
      spy.mockRestore();
      resolve();
      return original.apply(t.waiter, args);
    });
  });
}

/** Every read of the scans collection while `fn` runs (the route reads a scan with findOne). */
async function scanReads<T>(fn: () => Promise<T>): Promise<{ result: T; reads: number }> {
  const spy = jest.spyOn(t.store.c.scans, 'findOne');
  try {
    const result = await fn();
    return { result, reads: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

test.each(['61', '-1', '1.5', 'abc', '', ' 5', '1e1', '0x10', '100'])(
  'wait=%p is 422 invalid_parameter',
  async (wait) => {
    const id = await upload('wait-bad');
    const res = await t.api.get(`/v1/scans/${id}`).query({ wait }).set(bearer(key));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: { code: 'invalid_parameter', message: expect.stringContaining('wait') } });
  },
);

test('wait given twice is 422 invalid_parameter', async () => {
  const id = await upload('wait-twice');
  const res = await t.api.get(`/v1/scans/${id}?wait=1&wait=2`).set(bearer(key));
  expect([res.status, res.body.error?.code]).toEqual([422, 'invalid_parameter']);
});

test('a scan that turns terminal within the watch window is answered from the watch, without its workflow', async () => {
  const id = await upload('wait-watched'); // no worker: its workflow never runs, so only the watch can end the wait
  const started = waitStarted();
  const t0 = Date.now();
  const answer = t.api
    .get(`/v1/scans/${id}?wait=30`)
    .set(bearer(key))
    .then((r) => r);
  await started;
  await t.store.c.scans.updateOne({ _id: id }, { $set: { status: 'failed', finishedAt: new Date() } });
  const res = await answer;
  expect([res.status, res.body.id, res.body.status]).toEqual([200, id, 'failed']);
  expect(Date.now() - t0).toBeLessThan(5_000); // not the 30 s of the wait
});

test('a wait is answered when the scan completes after the watch window, through its workflow; reads stay bounded', async () => {
  const id = await upload('wait-done');
  // The scan stays queued until a worker polls: the request is in flight, and its watch window over, before the
  // worker starts.
  const { result: res, reads } = await scanReads(async () => {
    const started = waitStarted();
    const answer = t.api
      .get(`/v1/scans/${id}?wait=60`)
      .set(bearer(key))
      .then((r) => r);
    await started;
    await new Promise((r) => setTimeout(r, WINDOW_MS + 200));
    const counted = t.store.c.scans.findOne as unknown as jest.Mock; // scanReads' spy
    const inWindow = counted.mock.calls.length;
    // The worker reads and writes through a client of its own, as in production: only the API's reads are counted.
    const workerStore = await connectStore(requireEnv('MONGODB_URI'), t.store.db.databaseName);
    const w = await createScanWorker({
      store: workerStore,
      logger: createLogger('worker', 'silent'),
      temporalAddress: requireEnv('TEMPORAL_ADDRESS'),
      namespace: 'default',
      taskQueue: t.taskQueue,
    });
    const worker: Worker = w.worker;
    try {
      const r = await worker.runUntil(answer);
      expect(counted.mock.calls.length - inWindow).toBe(1); // past the window: the answer's own reload only
      return r;
    } finally {
      await w.shards.close();
      await workerStore.close();
    }
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ id, status: 'completed' });
  expect(reads).toBeGreaterThan(2); // the watch did read while its window lasted
  expect(reads).toBeLessThanOrEqual(MAX_READS);
});

test('a scan already terminal, wait=0 and no wait answer at once; a wait that times out answers the scan as it is', async () => {
  const id = await upload('wait-timeout'); // no worker: stays queued
  for (const q of ['', '?wait=0']) {
    const { result: res, reads } = await scanReads(() =>
      t.api
        .get(`/v1/scans/${id}${q}`)
        .set(bearer(key))
        .then((r) => r),
    );
    expect([res.status, res.body.status, reads]).toEqual([200, 'queued', 1]);
  }
  const { result: res, reads } = await scanReads(() =>
    t.api
      .get(`/v1/scans/${id}?wait=1`)
      .set(bearer(key))
      .then((r) => r),
  );
  expect([res.status, res.body.status]).toEqual([200, 'queued']);
  expect(reads).toBeGreaterThan(2);
  expect(reads).toBeLessThanOrEqual(MAX_READS);
});

test('at most maxWatched waits are watched at once: the others end with the workflow or their time', async () => {
  const ids = await Promise.all(['wait-a', 'wait-b', 'wait-c'].map(upload)); // no worker: all stay queued
  const waits = ids.map((id) =>
    t.api
      .get(`/v1/scans/${id}?wait=2`)
      .set(bearer(key))
      .then((r) => r),
  );
  await new Promise((r) => setTimeout(r, 100));
  // Two are watched (maxWatched: 2); the third one's completion is seen by neither the watch nor a workflow.
  await t.store.c.scans.updateMany({ _id: { $in: ids } }, { $set: { status: 'failed', finishedAt: new Date() } });
  const t0 = Date.now();
  const answered = await Promise.all(waits.map((w) => w.then((r) => ({ status: r.body.status, ms: Date.now() - t0 }))));
  expect(answered.map((a) => a.status)).toEqual(['failed', 'failed', 'failed']);
  const fast = answered.filter((a) => a.ms < 1_000).length;
  expect(fast).toBe(2);
});

test('shutdown answers pending waits at once, with the scan as it is', async () => {
  const id = await upload('wait-shutdown');
  const started = waitStarted();
  const answer = t.api
    .get(`/v1/scans/${id}?wait=60`)
    .set(bearer(key))
    .then((r) => r);
  await started;
  t.waiter.close(); // what the API process does on SIGTERM
  const res = await answer;
  expect([res.status, res.body.id, res.body.status]).toEqual([200, id, 'queued']);
});

test('a key revoked while its wait is held gets 401 at the answer, also when the watch saw the scan terminal', async () => {
  const own = await org.key(['sca:upload', 'scans:read']);
  const res0 = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(own)).send(v1Snapshot('wait-revoked'));
  const id = res0.body.id as string;
  const started = waitStarted();
  const answer = t.api
    .get(`/v1/scans/${id}?wait=30`)
    .set(bearer(own))
    .then((r) => r);
  await started;
  const stored = await t.store.c.apiKeys.findOne({ _id: sha256Hex(own) });
  expect(await revokeApiKey(t.store, org.orgId, stored!.id)).not.toBeNull();
  await t.store.c.scans.updateOne({ _id: id }, { $set: { status: 'failed', finishedAt: new Date() } });
  const res = await answer;
  expect([res.status, res.body.error?.code]).toEqual([401, 'invalid_token']);
});
