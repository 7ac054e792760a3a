// Scan events are emitted on every path that ends a scan, after its terminal write: the regular
// pipeline, the fast path, a paged scan, the retries of each after the scan was published, failScan (also when a
// completion won), and an emission error fails the activity without failing the completed scan; its retry emits.
// The activities run against the real database (MockActivityEnvironment); the emitter is a recorder here (the real
// one, with Temporal, is in webhooks-delivery.test.ts). No worker polls this task queue.
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { syntheticSnapshot } from '../../src/domain/snapshot/synthetic';
import { createLogger } from '../../src/logger';
import { getScan } from '../../src/storage/scans';
import type { WebhookEvent } from '../../src/storage/webhooks';
import type { ScanEvents } from '../../src/temporal/events';
import { installRuntime } from '../../workers/temporal-runtime';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { createPagedScan } from '../helpers/paged';
import { v1Snapshot } from '../helpers/snapshots';

let t: TestContext;
let org: Org;
let key: string;
const uploaded: string[] = [];

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  org = await newOrg(t.store);
  key = await org.key(['sca:upload', 'scans:read']);
});
afterAll(async () => {
  // Their workflows wait for a worker that never comes: end them.
  for (const id of uploaded)
    await t.temporal.client.workflow
      .getHandle(id)
      .terminate('test over')
      .catch(() => undefined);
  await t.close();
});

interface Emission {
  scanId: string;
  orgId: string;
  type: WebhookEvent;
  /** The scan's status when the emission happened: it must already be terminal. */
  status: string | undefined;
  /** The subscription answer handed in by the caller (asked ahead, overlapping the writes), if any. */
  subscribed: boolean | undefined;
}

/** A ScanEvents that records what is emitted, and fails the next `failures` emissions as an unreachable Temporal would. */
function recorder() {
  const calls: Emission[] = [];
  const done = new Set<string>();
  const r = {
    calls,
    failures: 0,
    events: {
      subscribed: async () => true,
      async emit(scanId, orgId, type, subscribed) {
        calls.push({
          scanId,
          orgId,
          type,
          status: (await getScan(t.store, scanId))?.status,
          subscribed: subscribed === undefined ? undefined : await subscribed,
        });
        if (r.failures > 0) {
          r.failures--;
          throw new Error('connect ECONNREFUSED (Temporal)');
        }
        done.add(`${scanId} ${type}`);
        return true;
      },
      emitted: (scanId, type) => done.has(`${scanId} ${type}`),
      emitAlerts: async () => false, // these scans' projects have no earlier tracked scan: nothing to announce
      close: async () => undefined,
    } satisfies ScanEvents,
  };
  return r;
}

async function upload(project: string, snapshot: object = v1Snapshot(project)): Promise<string> {
  const res = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(snapshot);
  expect(res.status).toBe(201);
  uploaded.push(res.body.id);
  return res.body.id;
}

const env = new MockActivityEnvironment({}, { logger: new DefaultLogger('ERROR') }); // the expected failures are not logged
const completed = (scanId: string, subscribed?: boolean) => ({
  scanId,
  orgId: org.orgId,
  type: 'scan.completed',
  status: 'completed',
  subscribed,
});

test('the regular pipeline emits scan.completed once published; its retry after the publish emits again', async () => {
  const rec = recorder();
  const acts = createActivities({ store: t.store, logger: createLogger('test', 'silent'), events: rec.events });
  const scanId = await upload('regular');
  const prep = await env.run(acts.prepareScan, { scanId });
  await env.run(acts.matchAdvisories, { scanId, generation: prep.generation });
  await env.run(acts.derivePaths, { scanId });
  expect(rec.calls).toEqual([]);
  await env.run(acts.publishResults, { scanId, generation: prep.generation });
  expect(rec.calls).toEqual([completed(scanId, true)]); // the subscription was asked ahead, during the writes
  await env.run(acts.publishResults, { scanId, generation: prep.generation }); // a retry after a lost completion
  expect(rec.calls).toEqual([completed(scanId, true), completed(scanId)]);
});

test('an emission error fails the publishing attempt, never the scan; the retry emits', async () => {
  const rec = recorder();
  const acts = createActivities({ store: t.store, logger: createLogger('test', 'silent'), events: rec.events });
  const scanId = await upload('emission-error');
  const prep = await env.run(acts.prepareScan, { scanId });
  await env.run(acts.matchAdvisories, { scanId, generation: prep.generation });
  await env.run(acts.derivePaths, { scanId });
  rec.failures = 1;
  await expect(env.run(acts.publishResults, { scanId, generation: prep.generation })).rejects.toThrow('ECONNREFUSED');
  expect((await getScan(t.store, scanId))!.status).toBe('completed');
  await env.run(acts.publishResults, { scanId, generation: prep.generation });
  expect(rec.calls).toEqual([completed(scanId, true), completed(scanId)]);
  expect(rec.events.emitted(scanId, 'scan.completed')).toBe(true);
});

test('the fast path emits; its retry after the publish landed emits without publishing again', async () => {
  const rec = recorder();
  const acts = createActivities({ store: t.store, logger: createLogger('test', 'silent'), events: rec.events });
  const scanId = await upload('small');
  rec.failures = 1;
  await expect(env.run(acts.scanSmall, { scanId })).rejects.toThrow('ECONNREFUSED');
  const published = await getScan(t.store, scanId);
  expect(published!.status).toBe('completed');
  const chunks = await t.store.c.scanResults.find({ scanId }).toArray();
  const again = await env.run(acts.scanSmall, { scanId });
  expect(again).toMatchObject({ findings: published!.findingCount, suppressed: published!.suppressed });
  expect(rec.calls).toEqual([completed(scanId, true), completed(scanId)]);
  expect(await t.store.c.scanResults.find({ scanId }).toArray()).toEqual(chunks); // nothing written again
  expect(await getScan(t.store, scanId)).toEqual(published);
});

test('a paged scan emits once published, and once more on a retry in a process that had not emitted it', async () => {
  const rec = recorder();
  const acts = createActivities({ store: t.store, logger: createLogger('test', 'silent'), events: rec.events });
  const snapshot = syntheticSnapshot({
    schemaVersion: 2,
    nodes: 60,
    roots: 6,
    modules: 3,
    packagesPerRoot: 10,
    depsPerNode: 2,
    rootDeps: 2,
    project: 'paged-events',
  });
  const scanId = (await createPagedScan(t.store, org.orgId, snapshot))._id;
  const prep = await env.run(acts.prepareScan, { scanId });
  await env.run(acts.matchAdvisories, { scanId, generation: prep.generation });
  const plan = await env.run(acts.planAttribution, { scanId });
  for (let k = 0; k < plan.shards; k++) await env.run(acts.attributeShard, { scanId, shard: k });
  await env.run(acts.publishPaged, { scanId, generation: prep.generation });
  expect(rec.calls).toEqual([completed(scanId, true)]);
  await env.run(acts.publishPaged, { scanId, generation: prep.generation }); // this process emitted: nothing more
  expect(rec.calls).toHaveLength(1);
  const other = recorder(); // the retry lands on another worker
  const elsewhere = createActivities({ store: t.store, logger: createLogger('test', 'silent'), events: other.events });
  await env.run(elsewhere.publishPaged, { scanId, generation: prep.generation });
  expect(other.calls).toEqual([completed(scanId)]);
}, 60_000);

test('failScan emits scan.failed after the failure is written; on a scan a completion won, scan.completed', async () => {
  const rec = recorder();
  const acts = createActivities({ store: t.store, logger: createLogger('test', 'silent'), events: rec.events });
  const failing = await upload('failing');
  await env.run(acts.failScan, { scanId: failing, reason: 'internal_error', message: 'boom' });
  expect(rec.calls).toEqual([
    { scanId: failing, orgId: org.orgId, type: 'scan.failed', status: 'failed', subscribed: undefined },
  ]);

  const won = await upload('completion-won');
  await env.run(acts.scanSmall, { scanId: won });
  await env.run(acts.failScan, {
    scanId: won,
    reason: 'internal_error',
    message: 'an activity after the publish failed for good',
  });
  expect((await getScan(t.store, won))!.status).toBe('completed');
  expect(rec.calls.slice(1)).toEqual([completed(won, true), completed(won)]);
});

test('without an emitter nothing is emitted and scans end as before', async () => {
  const acts = createActivities({ store: t.store, logger: createLogger('test', 'silent') });
  const scanId = await upload('no-emitter');
  await env.run(acts.scanSmall, { scanId });
  expect((await getScan(t.store, scanId))!.status).toBe('completed');
});
