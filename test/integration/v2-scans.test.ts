// Module-aware (v2) scans against the real servers: a small gradle monorepo end to end with real Maven advisories
// (modules, attributions, origins, the findings views), a large synthetic scan through the attribution thread pool
// (equal to the inline walk), and a worker killed with SIGKILL in the middle of attribution.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { importAdvisories } from '../../src/advisories/import';
import { syntheticSnapshot } from '../../src/domain/snapshot/synthetic';
import type { Snapshot } from '../../src/shared/types';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { bearer, newOrg, requireEnv, testContext, type Org, type TestContext } from '../helpers/context';
import { v2Snapshot } from '../helpers/v2';
import { describeWithSharedData, itWithSharedData, sharedDataDir } from '../helpers/shared-data';

const SHARED = sharedDataDir();
const ROOT = path.resolve(__dirname, '../..');

let t: TestContext;
let org: Org;
let key: string;

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  // Real Maven advisories, plus synthetic ones for the synthetic org.example:lib-* packages (every 10th package).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'v2-adv-'));
  for (let i = 0; i < 10_000; i += 10) {
    const name = `org.example:lib-${String(i).padStart(5, '0')}`;
    const id = `GHSA-test-${String(i).padStart(4, '0')}-v2v2`;
    const osv = {
      id,
      modified: '2024-01-01T00:00:00Z',
      published: '2024-01-01T00:00:00Z',
      summary: `synthetic ${i}`,
      affected: [
        {
          package: { ecosystem: 'Maven', name },
          ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '9.0.0' }] }],
        },
      ],
    };
    fs.writeFileSync(path.join(dir, `${id}.json`), JSON.stringify(osv));
  }
  const report = await importAdvisories(t.store, [path.join(SHARED, 'advisories/maven'), dir]);
  expect(report.rejected).toEqual([]);
  org = await newOrg(t.store);
  key = await org.key(['sca:upload', 'scans:read', 'findings:read']);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

async function upload(snapshot: unknown): Promise<string> {
  const res = await t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(key))
    .send(snapshot as object);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function finished(id: string, timeoutMs = 60_000): Promise<Record<string, any>> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const got = await t.api.get(`/v1/scans/${id}`).set(bearer(key));
    if (got.body.status === 'completed' || got.body.status === 'failed') return got.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`scan ${id} did not finish`);
}

async function allFindings(
  id: string,
  query = '',
): Promise<{ findings: Record<string, any>[]; counts: Record<string, number> }> {
  const out: Record<string, any>[] = [];
  let cursor: string | null = null;
  let counts: Record<string, number> = {};
  do {
    const res: any = await t.api
      .get(
        `/v1/scans/${id}/findings?limit=200&suppressed=all${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      )
      .set(bearer(key));
    expect(res.status).toBe(200);
    out.push(...res.body.findings);
    counts = res.body.counts;
    cursor = res.body.nextCursor;
  } while (cursor);
  return { findings: out, counts };
}

const JACKSON = 'com.fasterxml.jackson.core:jackson-databind@2.13.3';
const SNAKEYAML = 'org.yaml:snakeyaml@1.30';

/** :app depends on :lib; :lib declares jackson-databind; :app declares snakeyaml directly and gets jackson via :lib. */
function monorepo(): Snapshot {
  return v2Snapshot(
    [
      {
        module: ':app',
        context: 'runtimeClasspath',
        vertices: [
          ['r', ':app', 'lib', 'y'],
          ['lib', ':lib', 'j'],
          ['j', JACKSON, 'a'],
          ['a', 'com.fasterxml.jackson.core:jackson-annotations@2.13.3'],
          ['y', SNAKEYAML],
        ],
      },
      {
        module: ':lib',
        context: 'runtimeClasspath',
        vertices: [
          ['r', ':lib', 'j'],
          ['j', JACKSON, 'a'],
          ['a', 'com.fasterxml.jackson.core:jackson-annotations@2.13.3'],
        ],
      },
      {
        module: ':lib',
        context: 'testRuntimeClasspath',
        vertices: [
          ['r', ':lib', 'j'],
          ['j', JACKSON],
        ],
      },
    ],
    [
      { path: ':app', dependencies: [':lib'], teamName: 'web' },
      { path: ':lib', dependencies: [], teamName: 'platform', attributes: { tier: 'backend' } },
    ],
    { project: 'monorepo' },
  );
}

describeWithSharedData('with an in-process worker', () => {
  let worker: TestWorker | undefined;
  beforeAll(async () => {
    worker = await startTestWorker(t);
  });
  afterAll(async () => {
    await worker?.stop();
  });

  test('a gradle monorepo: modules in dependency order, attributions with origins, the affected and introduced views', async () => {
    const id = await upload(monorepo());
    const scan = await finished(id);
    expect(scan.status).toBe('completed');
    expect(scan.modules).toEqual([
      { path: ':lib', dependencies: [], teamName: 'platform', attributes: { tier: 'backend' } },
      { path: ':app', dependencies: [':lib'], teamName: 'web' },
    ]);
    const { findings, counts } = await allFindings(id);
    const jackson = findings.filter((f) => `${f.package}@${f.installedVersion}` === JACKSON);
    expect(jackson.length).toBeGreaterThan(0);
    for (const f of jackson) {
      expect(f.attributions).toEqual([
        {
          module: ':lib',
          context: 'runtimeClasspath',
          relationship: 'direct',
          path: [':lib', JACKSON],
          origins: [{ module: ':lib', dependency: JACKSON, path: [':lib', JACKSON] }],
        },
        {
          module: ':lib',
          context: 'testRuntimeClasspath',
          relationship: 'direct',
          path: [':lib', JACKSON],
          origins: [{ module: ':lib', dependency: JACKSON, path: [':lib', JACKSON] }],
        },
        {
          module: ':app',
          context: 'runtimeClasspath',
          relationship: 'transitive',
          path: [':app', ':lib', JACKSON],
          origins: [{ module: ':lib', dependency: JACKSON, path: [':lib', JACKSON] }],
        },
      ]);
      expect(f.path).toEqual([':lib', JACKSON]);
    }
    const yaml = findings.filter((f) => `${f.package}@${f.installedVersion}` === SNAKEYAML);
    expect(yaml.length).toBeGreaterThan(0);
    for (const f of yaml)
      expect(f.attributions.map((a: any) => [a.module, a.relationship, a.origins.map((o: any) => o.module)])).toEqual([
        [':app', 'direct', [':app']],
      ]);

    // affected view: :app is affected by both packages, :lib only by jackson; introduced: :app introduces only snakeyaml.
    const ids = (fs: Record<string, any>[]) => fs.map((f) => f.id).sort();
    expect(ids((await allFindings(id, '&module=:app')).findings)).toEqual(ids(findings));
    expect(ids((await allFindings(id, '&module=:lib')).findings)).toEqual(ids(jackson));
    expect(ids((await allFindings(id, '&module=:app&attribution=introduced')).findings)).toEqual(ids(yaml));
    expect(ids((await allFindings(id, '&team=platform&attribution=introduced')).findings)).toEqual(ids(jackson));
    expect((await allFindings(id, '&module=:app&team=platform')).findings).toEqual([]);
    expect((await allFindings(id, '&module=:nope')).findings).toEqual([]);
    // counts: every finding once, though jackson affects two modules
    expect(counts.critical + counts.high + counts.medium + counts.low + counts.suppressed).toBe(findings.length);
    const total = Object.values(scan.findings as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(total + scan.suppressed).toBe(findings.length);
  }, 60_000);

  test('a large v2 scan runs the sharded pool pipeline and equals the inline walk', async () => {
    const snapshot = syntheticSnapshot({
      schemaVersion: 2,
      nodes: 3000,
      roots: 200,
      packagesPerRoot: 60,
      depsPerNode: 4,
      rootDeps: 3,
      project: 'large-v2',
    });
    const id = await upload(snapshot);
    const scan = await finished(id);
    expect(scan.status).toBe('completed');
    expect(scan.modules).toHaveLength(200);
    const { findings } = await allFindings(id);
    expect(findings.length).toBe(3000 / 10);
    // The same snapshot walked inline, in this thread, gives the same attributions and paths.
    const { buildAttributionGraph } = await import('../../src/domain/attribution/v2-graph');
    const { attributeInline } = await import('../../src/domain/attribution/v2-assemble');
    const { orderModules, moduleRank } = await import('../../src/domain/attribution/module-order');
    const inline = attributeInline(
      snapshot,
      buildAttributionGraph(snapshot),
      findings.map((f) => `${f.package}@${f.installedVersion}`),
      moduleRank(orderModules(snapshot.modules!)),
    );
    for (const f of findings) {
      const pid = `${f.package}@${f.installedVersion}`;
      expect(f.attributions).toEqual(inline.attributions.get(pid));
      expect(f.path).toEqual(inline.paths.get(pid));
    }
  }, 120_000);
});

itWithSharedData(
  'SIGKILL of the worker in the middle of attribution: a new worker resumes from its heartbeat and the stored shards: same findings, no duplicates',
  async () => {
    const env = {
      ...process.env,
      MONGODB_URI: requireEnv('MONGODB_URI'),
      MONGODB_DB: t.store.db.databaseName,
      TEMPORAL_ADDRESS: requireEnv('TEMPORAL_ADDRESS'),
      TEMPORAL_TASK_QUEUE: t.taskQueue,
      ATTRIBUTION_THREADS: '1',
      LOG_LEVEL: 'warn',
      ADVISORY_SOURCES: '',
    };
    const startWorker = (): ChildProcess =>
      spawn(process.execPath, [path.join(ROOT, 'dist/workers/main.js')], {
        env,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    // Big enough that one thread takes a while: 1000 roots, ~64,000 vertices.
    const snapshot = syntheticSnapshot({
      schemaVersion: 2,
      nodes: 10_000,
      roots: 1000,
      packagesPerRoot: 64,
      depsPerNode: 6,
      rootDeps: 4,
      project: 'killed',
    });
    let worker = startWorker();
    try {
      const id = await upload(snapshot);
      // Wait until some, not all, shards are stored, then kill the worker outright.
      const shardDocs = () => t.store.c.scanWork.countDocuments({ scanId: id, kind: { $regex: '^attr:' } });
      let stored = 0;
      for (let i = 0; i < 3000 && stored === 0; i++) {
        stored = await shardDocs();
        if (!stored) await new Promise((r) => setTimeout(r, 10));
      }
      expect(stored).toBeGreaterThan(0);
      worker.kill('SIGKILL');
      await new Promise((r) => worker.once('exit', r));
      const atKill = await shardDocs();
      expect(atKill).toBeLessThan(32);
      worker = startWorker();
      const scan = await finished(id, 120_000);
      expect(scan.status).toBe('completed');
      // The retried attempt resumed: the derivePaths result in the workflow history says how many shards it kept.
      const history = await t.temporal.client.workflow.getHandle(id).fetchHistory();
      const completed = history
        .events!.filter((e) => e.activityTaskCompletedEventAttributes)
        .map((e) =>
          defaultPayloadConverter.fromPayload<any>(e.activityTaskCompletedEventAttributes!.result!.payloads![0]),
        );
      const derive = completed.find((r) => r && typeof r.resumed === 'number' && r.shards > 0);
      expect(derive.resumed).toBeGreaterThanOrEqual(atKill);
      expect(derive.shards).toBe(32);

      // An uninterrupted run of the same snapshot on the new worker gives identical findings.
      const again = await upload({ ...snapshot, project: 'uninterrupted' });
      expect((await finished(again, 120_000)).status).toBe('completed');
      // packageRef names the package's inventory item in its own project, and alertId the project's alert: the two
      // projects' differ by design (as firstSeenAt, each project's first sight).
      const strip = (fs: Record<string, any>[]) =>
        fs.map(({ id: _id, scanId: _scan, packageRef: _ref, alertId: _a, firstSeenAt: _f, ...rest }) => rest);
      const a = (await allFindings(id)).findings;
      const b = (await allFindings(again)).findings;
      expect(new Set(a.map((f) => f.id)).size).toBe(a.length);
      expect(a.length).toBe(10_000 / 10);
      const key = (f: Record<string, any>) => `${f.cve} ${f.package}@${f.installedVersion}`;
      expect(strip(a).sort((x, y) => key(x).localeCompare(key(y)))).toEqual(
        strip(b).sort((x, y) => key(x).localeCompare(key(y))),
      );
    } finally {
      worker.kill('SIGKILL');
    }
  },
  240_000,
);
