// GET /v1/scans/{scanId}?wait=S: held until the scan is terminal or S seconds pass, answered with
// the scan as it is then; the wait is a long poll on the scan's workflow, never a loop of database reads; shutdown
// answers pending waits at once; anything but a whole number from 0 to 60 is 422 invalid_parameter.
import type { Worker } from '@temporalio/worker';
import { createLogger } from '../../src/logger';
import { connectStore } from '../../src/storage/mongo';
import { createScanWorker } from '../../workers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { bearer, newOrg, requireEnv, testContext, type Org, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

let t: TestContext;
let org: Org;
let key: string;
beforeAll(async () => {
  installRuntime('error');
  t = await testContext(); // no worker polls this task queue until a test starts one
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

test('a wait is answered when the scan completes, with two reads of the scan whatever its length', async () => {
  const id = await upload('wait-done');
  // The scan stays queued until a worker polls: the request is in flight before the worker starts.
  const { result: res, reads } = await scanReads(async () => {
    const started = waitStarted();
    const answer = t.api
      .get(`/v1/scans/${id}?wait=60`)
      .set(bearer(key))
      .then((r) => r);
    await started;
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
      return await worker.runUntil(answer);
    } finally {
      await w.shards.close();
      await workerStore.close();
    }
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ id, status: 'completed' });
  expect(reads).toBe(2); // once before the wait, once after: no polling loop, however long the scan took
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
  expect([res.status, res.body.status, reads]).toEqual([200, 'queued', 2]);
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
