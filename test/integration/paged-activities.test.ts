// The paged activities against the real database: every step run twice (as Temporal does after a lost completion)
// duplicates nothing and changes nothing, a stored shard is never walked again, and a shard that keeps failing fails
// the scan with internal_error, the shards still running cancelled first, leaving no partial results (real workflow
// on the real Temporal server).
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { CancelledFailure, Context } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { outageAware } from '../../activities/outage';
import { importAdvisories } from '../../src/advisories/import';
import { syntheticSnapshot } from '../../src/domain/snapshot/synthetic';
import { createLogger } from '../../src/logger';
import { getScan } from '../../src/storage/scans';
import { readResults } from '../../src/storage/results';
import { installRuntime } from '../../workers/temporal-runtime';
import { bearer, newOrg, requireEnv, testContext, type Org, type TestContext } from '../helpers/context';
import { createPagedScan } from '../helpers/paged';

let t: TestContext;
let org: Org;
const snapshot = syntheticSnapshot({
  schemaVersion: 2,
  nodes: 400,
  roots: 40,
  modules: 12,
  packagesPerRoot: 40,
  depsPerNode: 3,
  rootDeps: 2,
  project: 'paged-activities',
});

beforeAll(async () => {
  installRuntime('error');
  t = await testContext(); // no worker polls this task queue unless a test starts one
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paged-acts-adv-'));
  for (let i = 0; i < 400; i += 10) {
    const name = `org.example:lib-${String(i).padStart(5, '0')}`;
    const id = `GHSA-pa00-${String(i).padStart(4, '0')}-v2v2`;
    fs.writeFileSync(
      path.join(dir, `${id}.json`),
      JSON.stringify({
        id,
        modified: '2024-01-01T00:00:00Z',
        published: '2024-01-01T00:00:00Z',
        summary: `s ${i}`,
        affected: [
          { package: { ecosystem: 'Maven', name }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }] }] },
        ],
      }),
    );
  }
  await importAdvisories(t.store, [dir]);
  org = await newOrg(t.store);
}, 60_000);
afterAll(() => t.close());

test('every paged step run twice: shards reused, not walked again; the same published results and documents as a single run', async () => {
  const acts = createActivities({ store: t.store, logger: createLogger('test', 'silent') });
  const env = new MockActivityEnvironment();
  const once = (await createPagedScan(t.store, org.orgId, snapshot))._id;
  const twice = (await createPagedScan(t.store, org.orgId, snapshot))._id;

  async function run(scanId: string, times: number) {
    let prep;
    for (let i = 0; i < times; i++) prep = await env.run(acts.prepareScan, { scanId });
    for (let i = 0; i < times; i++) await env.run(acts.matchAdvisories, { scanId, generation: prep!.generation });
    const plan = await env.run(acts.planAttribution, { scanId });
    expect(plan.shards).toBeGreaterThan(1);
    for (let k = 0; k < plan.shards; k++) {
      const first = await env.run(acts.attributeShard, { scanId, shard: k });
      expect(first.reused).toBe(false);
      if (times === 1) continue;
      // a stored shard is read back, not walked again: what is stored beside it comes back as it is
      await t.store.c.scanWork.updateOne({ _id: `${scanId}:paged:${k}` }, { $set: { 'meta.segments': 123456789 } });
      expect(await env.run(acts.attributeShard, { scanId, shard: k })).toEqual({
        shard: k,
        segments: 123456789,
        characters: first.characters,
        reused: true,
      });
    }
    for (let i = 0; i < times; i++) await env.run(acts.publishPaged, { scanId, generation: prep!.generation });
    return plan;
  }
  await run(once, 1);
  await run(twice, 2);
  // a retry after the scan was published reports it again and writes nothing
  const before = await t.store.c.scanAttributions.countDocuments({ scanId: twice });
  expect(await env.run(acts.publishPaged, { scanId: twice, generation: null })).toMatchObject({ findings: 40 });
  expect(await t.store.c.scanAttributions.countDocuments({ scanId: twice })).toBe(before);

  const [a, b] = await Promise.all([getScan(t.store, once), getScan(t.store, twice)]);
  expect(b).toMatchObject({
    status: 'completed',
    findings: a!.findings,
    suppressed: a!.suppressed,
    findingCount: 40,
    moduleCount: 12,
  });
  const strip = (fs_: Array<{ id: string; scanId: string }>) =>
    fs_
      .map(({ id: _i, scanId: _s, firstSeenAt: _f, ...rest }: any) => rest)
      .sort((x: any, y: any) => (x.package < y.package ? -1 : 1));
  const ra = await readResults(t.store, once, a!.resultChunks!);
  const rb = await readResults(t.store, twice, b!.resultChunks!);
  expect(strip(rb)).toEqual(strip(ra));
  expect(rb.every((f: any) => f.attributions.length === 0 && f.attributionCount > 0)).toBe(true);
  // the same attribution documents, one per _id, and no intermediate results left
  const docs = async (scanId: string) =>
    (await t.store.c.scanAttributions.find({ scanId }, { projection: { _id: 1 } }).toArray())
      .map((d) => d._id.slice(scanId.length))
      .sort();
  expect(await docs(twice)).toEqual(await docs(once));
  expect(await t.store.c.scanWork.countDocuments({ scanId: { $in: [once, twice] } })).toBe(0);
}, 120_000);

test('a shard that keeps failing fails the scan with internal_error after its attempts; nothing partial is left or shown', async () => {
  const acts = createActivities({ store: t.store, logger: createLogger('test', 'silent') });
  const broken = outageAware(async (_: { scanId: string; shard: number }): Promise<never> => {
    throw new Error('shard 1 keeps failing');
  });
  // Shard 2 is still running when shard 1 gives up: it must be cancelled, and waited for, before the scan fails.
  let cancelled = false;
  const slow = async (): Promise<never> => {
    try {
      for (;;) {
        Context.current().heartbeat();
        await Context.current().sleep(100);
      }
    } catch (err) {
      cancelled = err instanceof CancelledFailure;
      throw err;
    }
  };
  const connection = await NativeConnection.connect({ address: requireEnv('TEMPORAL_ADDRESS') });
  const worker = await Worker.create({
    connection,
    taskQueue: t.taskQueue,
    workflowsPath: require.resolve('../../workflows'),
    maxHeartbeatThrottleInterval: '250 ms', // as the service's worker: a cancellation reaches the activity soon
    activities: {
      ...acts,
      attributeShard: (input: { scanId: string; shard: number }) =>
        input.shard === 1 ? broken(input) : input.shard === 2 ? slow() : acts.attributeShard(input),
    },
  });
  const scan = await worker.runUntil(async () => {
    const s = await createPagedScan(t.store, org.orgId, snapshot, t.temporal);
    await t.temporal.client.workflow
      .getHandle(s._id)
      .result()
      .catch(() => undefined);
    return s;
  });
  await connection.close();

  expect(await getScan(t.store, scan._id)).toMatchObject({ status: 'failed', failureReason: 'internal_error' });
  const history = await t.temporal.client.workflow.getHandle(scan._id).fetchHistory();
  const failed = history
    .events!.filter((e) => e.activityTaskFailedEventAttributes)
    .map((e) => e.activityTaskFailedEventAttributes!.failure!);
  expect(failed.map((f) => f.cause?.message ?? f.message)).toContain('shard 1 keeps failing');
  const attempts = history
    .events!.filter((e) => e.activityTaskStartedEventAttributes)
    .map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 0);
  expect(Math.max(...attempts)).toBe(5); // FAULT_ATTEMPTS, then non-retryable internal_error
  // the running shard was cancelled and its cancellation completed before the scan was failed
  expect(cancelled).toBe(true);
  const at = (pred: (e: (typeof history.events)[number]) => boolean) => history.events!.findIndex(pred);
  const canceledAt = at((e) => !!e.activityTaskCanceledEventAttributes);
  const failScanAt = at((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'failScan');
  expect(canceledAt).toBeGreaterThan(0);
  expect(failScanAt).toBeGreaterThan(canceledAt);
  await new Promise((r) => setTimeout(r, 500)); // a cancelled shard that was still running would have written by now
  expect(await t.store.c.scanAttributions.countDocuments({ scanId: scan._id })).toBe(0);
  expect(await t.store.c.scanWork.countDocuments({ scanId: scan._id })).toBe(0);
  expect(await t.store.c.scanResults.countDocuments({ scanId: scan._id })).toBe(0);
  const key = await org.key(['scans:read', 'findings:read']);
  expect((await t.api.get(`/v1/scans/${scan._id}/findings`).set(bearer(key))).body).toEqual({
    findings: [],
    nextCursor: null,
    counts: null,
  });
  expect((await t.api.get(`/v1/scans/${scan._id}/modules`).set(bearer(key))).body).toEqual({
    modules: [],
    nextCursor: null,
  });
  expect((await t.api.get(`/v1/scans/${scan._id}/findings/fnd_x/attributions`).set(bearer(key))).body).toEqual({
    attributions: [],
    nextCursor: null,
  });
}, 120_000);
