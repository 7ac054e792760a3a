// Paged scans processed by two real worker processes (dist/workers/main.js, one activity at a time each): the shards
// of one scan are held at a test-only barrier (SCANNER_TEST_SHARD_BARRIER) until both workers hold one, and the
// workflow history shows both workers' identities on its shard activities. Then a worker killed with SIGKILL while it
// holds a shard: the scan completes on the other one (after the shard's heartbeat timeout), with results identical to
// the uninterrupted run of the same snapshot: findings, counts, modules, attributions, paths and origins.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { temporal } from '@temporalio/proto';
import { importAdvisories } from '../../src/advisories/import';
import { syntheticSnapshot } from '../../src/domain/snapshot/synthetic';
import {
  bearer,
  newOrg,
  requireEnv,
  testContext,
  type Org,
  type TestContext,
  workflowClosed,
} from '../helpers/context';
import { SA } from '../../src/temporal/scan-workflow-contract';
import { createPagedScan } from '../helpers/paged';

const ROOT = path.resolve(__dirname, '../..');

let t: TestContext;
let org: Org;
let key: string;
let barrier: string;
const workers: ChildProcess[] = [];

const snapshot = syntheticSnapshot({
  schemaVersion: 2,
  nodes: 3000,
  roots: 120,
  modules: 40,
  packagesPerRoot: 80,
  depsPerNode: 4,
  rootDeps: 3,
  project: 'paged-workers',
});
snapshot.suppressions = [{ cve: 'GHSA-pw00-0040-v2v2', reason: 'accepted' }];

function startWorker(): ChildProcess {
  const env = {
    ...process.env,
    MONGODB_URI: requireEnv('MONGODB_URI'),
    MONGODB_DB: t.store.db.databaseName,
    TEMPORAL_ADDRESS: requireEnv('TEMPORAL_ADDRESS'),
    TEMPORAL_TASK_QUEUE: t.taskQueue,
    ATTRIBUTION_THREADS: '1',
    WORKER_MAX_CONCURRENT_ACTIVITIES: '1',
    SCANNER_TEST_SHARD_BARRIER: barrier,
    WORKER_METRICS_PORT: 'off',
    LOG_LEVEL: 'warn',
    ADVISORY_SOURCES: '',
  };
  const w = spawn(process.execPath, [path.join(ROOT, 'dist/workers/main.js')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  workers.push(w);
  return w;
}

beforeAll(async () => {
  t = await testContext();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paged-adv-'));
  for (let i = 0; i < 3000; i += 10) {
    const name = `org.example:lib-${String(i).padStart(5, '0')}`;
    const id = `GHSA-pw00-${String(i).padStart(4, '0')}-v2v2`;
    const severity = i % 40 === 0 ? [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }] : [];
    const osv = {
      id,
      modified: '2024-01-01T00:00:00Z',
      published: '2024-01-01T00:00:00Z',
      summary: `synthetic ${i}`,
      severity,
      affected: [
        {
          package: { ecosystem: 'Maven', name },
          ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '9.0.0' }] }],
        },
      ],
    };
    fs.writeFileSync(path.join(dir, `${id}.json`), JSON.stringify(osv));
  }
  await importAdvisories(t.store, [dir]);
  org = await newOrg(t.store);
  key = await org.key(['scans:read', 'findings:read']);
  barrier = fs.mkdtempSync(path.join(os.tmpdir(), 'paged-barrier-'));
  startWorker();
  startWorker();
}, 120_000);

afterAll(async () => {
  for (const w of workers) w.kill('SIGKILL');
  await t?.close();
});

async function finished(id: string, timeoutMs: number): Promise<Record<string, any>> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const got = await t.api.get(`/v1/scans/${id}?wait=5`).set(bearer(key));
    if (got.body.status === 'completed' || got.body.status === 'failed') return got.body;
  }
  throw new Error(`scan ${id} did not finish`);
}

/** The scan's attributeShard starts as the history records them: the shard, the worker identity and the attempt. */
async function shardStarts(scanId: string): Promise<Array<{ identity: string; attempt: number }>> {
  const history = await t.temporal.client.workflow.getHandle(scanId).fetchHistory();
  const events = history.events ?? [];
  const scheduled = new Map<string, string>();
  for (const e of events)
    if (e.activityTaskScheduledEventAttributes)
      scheduled.set(String(e.eventId), e.activityTaskScheduledEventAttributes.activityType?.name ?? '');
  return events
    .map((e) => e.activityTaskStartedEventAttributes)
    .filter(
      (s): s is temporal.api.history.v1.IActivityTaskStartedEventAttributes =>
        !!s && scheduled.get(String(s.scheduledEventId)) === 'attributeShard',
    )
    .map((s) => ({ identity: s.identity ?? '', attempt: s.attempt ?? 0 }));
}

/** The barrier files of a scan: which process (pid) held which shard. */
function held(scanId: string): Array<{ pid: number; shard: number }> {
  return fs
    .readdirSync(barrier)
    .filter((f) => f.startsWith(`${scanId}.`))
    .map((f) => ({ pid: Number(f.split('.')[1]), shard: Number(f.split('.')[2]) }));
}

async function all(url: string, items: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const res: any = await t.api
      .get(`${url}${url.includes('?') ? '&' : '?'}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      .set(bearer(key));
    expect(res.status).toBe(200);
    out.push(...res.body[items]);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

/** Everything a client reads of a completed paged scan, scan and finding ids aside. */
async function results(scanId: string) {
  const scan = (await t.api.get(`/v1/scans/${scanId}`).set(bearer(key))).body;
  const findings = await all(`/v1/scans/${scanId}/findings?suppressed=all`, 'findings');
  const key_ = (f: any) => `${f.cve} ${f.package}@${f.installedVersion}`;
  findings.sort((a, b) => (key_(a) < key_(b) ? -1 : 1));
  const attributions: Record<string, unknown> = {};
  let n = 0;
  for (const f of findings) {
    const list = await all(`/v1/scans/${scanId}/findings/${f.id}/attributions`, 'attributions');
    const paths = [];
    for (const a of list) {
      if (n++ % 4 !== 0) continue; // a quarter of the paths: plenty, and quick
      paths.push(
        (await t.api.get(`/v1/scans/${scanId}/findings/${f.id}/attributions/${a.id}/path`).set(bearer(key))).body,
      );
    }
    attributions[key_(f)] = { list, paths };
  }
  const counts = (await t.api.get(`/v1/scans/${scanId}/findings?suppressed=all&limit=1`).set(bearer(key))).body.counts;
  return {
    scan: {
      status: scan.status,
      findings: scan.findings,
      suppressed: scan.suppressed,
      attributionMode: scan.attributionMode,
      moduleCount: scan.moduleCount,
    },
    findings: findings.map(({ id: _i, scanId: _s, ...rest }) => rest),
    counts,
    modules: await all(`/v1/scans/${scanId}/modules`, 'modules'),
    attributions,
  };
}

let uninterrupted: string;

test('two worker processes run shards of one paged scan: both identities on its shard activities in the history', async () => {
  const scan = await createPagedScan(t.store, org.orgId, snapshot, t.temporal);
  uninterrupted = scan._id;
  const done = await finished(scan._id, 150_000);
  expect(done).toMatchObject({ status: 'completed', attributionMode: 'paged' });
  const pids = workers.map((w) => w.pid!);
  const starts = await shardStarts(scan._id);
  expect(starts.length).toBeGreaterThan(1);
  const identities = new Set(starts.map((s) => s.identity));
  expect([...identities].sort()).toEqual(pids.map((pid) => `${pid}@${os.hostname()}`).sort());
  // the barrier saw both processes hold a shard of this scan
  expect(new Set(held(scan._id).map((h) => h.pid))).toEqual(new Set(pids));
}, 180_000);

test('SIGKILL of a worker while it holds a shard: the scan completes on the other, identical to the uninterrupted run', async () => {
  expect(uninterrupted).toBeDefined();
  fs.writeFileSync(path.join(barrier, 'hold'), ''); // shards wait at the barrier until the test lets them go
  const scan = await createPagedScan(t.store, org.orgId, snapshot, t.temporal);
  const [victim, survivor] = workers;
  // both workers hold a shard of this scan
  for (let i = 0; i < 600 && new Set(held(scan._id).map((h) => h.pid)).size < 2; i++)
    await new Promise((r) => setTimeout(r, 100));
  const holding = held(scan._id);
  expect(new Set(holding.map((h) => h.pid))).toEqual(new Set([victim.pid, survivor.pid]));
  const killedShard = holding.find((h) => h.pid === victim.pid)!.shard;
  // what an operator sees meanwhile in the Temporal UI: Stage attributing, and the shards' progress as its details
  const handle = t.temporal.client.workflow.getHandle(scan._id);
  expect((await handle.describe()).typedSearchAttributes.get(SA.stage)).toBe('attributing');
  const meta = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
  expect(meta.currentDetails).toMatch(/^attributing: shard 0 of \d+ done/);
  victim.kill('SIGKILL');
  await new Promise((r) =>
    victim.exitCode !== null || victim.signalCode !== null ? r(undefined) : victim.once('exit', r),
  );
  fs.unlinkSync(path.join(barrier, 'hold'));

  const done = await finished(scan._id, 150_000);
  expect(done.status).toBe('completed');
  // every shard completed on the survivor; the killed one's on a later attempt (after its heartbeat timed out)
  const starts = await shardStarts(scan._id);
  expect(new Set(starts.map((s) => s.identity))).toEqual(new Set([`${survivor.pid}@${os.hostname()}`]));
  expect(starts.some((s) => s.attempt > 1)).toBe(true);
  expect(
    held(scan._id)
      .filter((h) => h.shard === killedShard)
      .map((h) => h.pid)
      .sort(),
  ).toEqual([victim.pid, survivor.pid].sort());
  await workflowClosed(t, scan._id);
  expect(await t.store.c.scanWork.countDocuments({ scanId: scan._id })).toBe(0);

  const [a, b] = await Promise.all([results(uninterrupted), results(scan._id)]);
  expect(a.findings.length).toBe(3000 / 10);
  expect(Object.values(a.attributions).every((x: any) => x.list.length > 0)).toBe(true);
  expect(b).toEqual(a);
}, 240_000);
