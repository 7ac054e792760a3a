// The whole pipeline against the real servers: HTTP upload → Temporal workflow → activities → MongoDB-wire store,
// on piscina's real package-lock.json and the real npm advisories of the third-party data (src/infra/shared-data.ts).
import fs from 'node:fs';
import path from 'node:path';
import type { Worker } from '@temporalio/worker';
import { importAdvisories } from '../../src/advisories/import';
import { snapshotFromGradleLock, snapshotFromNpmLock } from '../../src/domain/snapshot';
import { createLogger } from '../../src/logger';
import { getScan } from '../../src/storage/scans';
import { createScanWorker } from '../../workers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import {
  bearer,
  newOrg,
  requireEnv,
  scanSweep,
  testContext,
  type Org,
  type TestContext,
  workflowClosed,
} from '../helpers/context';
import { itWithSharedData, sharedDataDir } from '../helpers/shared-data';

const SHARED = sharedDataDir();
/** piscina's real package-lock.json, read in beforeAll (never at import: the file is skipped without the data). */
let LOCK: unknown;

let t: TestContext;
let org: Org;
let key: string;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  LOCK = JSON.parse(fs.readFileSync(path.join(SHARED, 'lockfiles/npm/piscinajs__piscina__package-lock.json'), 'utf8'));
  const report = await importAdvisories(t.store, [path.join(SHARED, 'advisories/npm')]);
  expect(report.rejected).toEqual([]);
  const w = await createScanWorker({
    store: t.store,
    logger: createLogger('worker', 'silent'),
    temporalAddress: requireEnv('TEMPORAL_ADDRESS'),
    namespace: 'default',
    taskQueue: t.taskQueue,
  });
  worker = w.worker;
  running = worker.run();
  org = await newOrg(t.store);
  key = await org.key(['sca:upload', 'scans:read', 'findings:read']);
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await t.close();
});

async function scanOf(snapshot: unknown): Promise<{ id: string; scan: Record<string, any> }> {
  const res = await t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(key))
    .send(snapshot as object);
  expect(res.status).toBe(201);
  const id = res.body.id as string;
  for (let i = 0; i < 600; i++) {
    const got = await t.api.get(`/v1/scans/${id}`).set(bearer(key));
    if (got.body.status === 'completed' || got.body.status === 'failed') return { id, scan: got.body };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`scan ${id} did not finish`);
}

const piscina = (extra: Record<string, unknown> = {}) => ({
  ...snapshotFromNpmLock(LOCK, { project: 'piscina', includeDev: true }),
  ...extra,
});

itWithSharedData('readyz is 200 once MongoDB and Temporal answer and a worker polls the task queue', async () => {
  let res = await t.api.get('/readyz');
  for (let i = 0; res.status !== 200 && i < 50; i++)
    res = await new Promise((r) => setTimeout(r, 100)).then(() => t.api.get('/readyz'));
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('ready');
});

itWithSharedData('piscina lockfile: the ws DoS advisory is found with its path, severity, fix and counts', async () => {
  const { id, scan } = await scanOf(piscina());
  expect(scan).toMatchObject({ status: 'completed', failureReason: null, suppressed: 0, modules: [] });
  expect(scan.finishedAt).toEqual(expect.any(String));
  expect(scan.advisoryGeneration).toMatch(/^adv_/);
  const res = await t.api.get(`/v1/scans/${id}/findings?limit=200`).set(bearer(key));
  expect(res.status).toBe(200);
  const ws = res.body.findings.find((f: { package: string }) => f.package === 'ws');
  expect(ws).toMatchObject({
    id: expect.stringMatching(/^fnd_/),
    scanId: id,
    severity: 'high',
    cve: 'CVE-2024-37890',
    package: 'ws',
    installedVersion: '7.5.9',
    fixedVersion: '7.5.10',
    publishedAt: '2024-06-17T19:09:10.000Z',
    summary: 'ws affected by a DoS when handling a request with many HTTP headers',
    suppressed: false,
    suppressionReason: null,
    attributions: [],
  });
  expect(ws.path[0]).toBe('package.json');
  expect(ws.path[ws.path.length - 1]).toBe('ws@7.5.9');
  const total = res.body.findings.length;
  const counts = scan.findings;
  expect(counts.critical + counts.high + counts.medium + counts.low).toBe(total);
  expect(res.body.counts).toEqual({ ...counts, suppressed: 0 });
  // Severity descending, then id.
  const order = ['critical', 'high', 'medium', 'low'];
  const keys = res.body.findings.map((f: { severity: string; id: string }) => [order.indexOf(f.severity), f.id]);
  expect(keys).toEqual([...keys].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1)));
});

itWithSharedData(
  'suppressions: matching by alias and glob, expired ones ignored, counted apart, readable with suppressed=all',
  async () => {
    const { id, scan } = await scanOf(
      piscina({
        suppressions: [
          { cve: 'GHSA-3h5v-q93c-6h6q', reason: 'dev server only', package: 'w?' },
          { cve: 'CVE-2024-37890', reason: 'second match, not used' },
          { cve: 'CVE-2024-37890', reason: 'expired', expires: '2020-01-01' },
        ],
      }),
    );
    expect(scan.status).toBe('completed');
    expect(scan.suppressed).toBeGreaterThanOrEqual(1);
    const hidden = await t.api.get(`/v1/scans/${id}/findings?limit=200`).set(bearer(key));
    expect(hidden.body.findings.find((f: { package: string }) => f.package === 'ws')).toBeUndefined();
    const only = await t.api.get(`/v1/scans/${id}/findings?suppressed=true`).set(bearer(key));
    const ws = only.body.findings.find((f: { package: string }) => f.package === 'ws');
    expect(ws).toMatchObject({ suppressed: true, suppressionReason: 'dev server only' });
    expect(only.body.counts.suppressed).toBe(scan.suppressed);
    const all = await t.api.get(`/v1/scans/${id}/findings?suppressed=all&limit=200`).set(bearer(key));
    expect(all.body.findings.length).toBe(hidden.body.findings.length + only.body.findings.length);
  },
);

itWithSharedData(
  'a hand-made snapshot: real advisories, ranges, last_affected, name case, filters and pagination',
  async () => {
    const node = (name: string, version: string, dependencies: string[] = [], relationship = 'transitive') => ({
      id: `${name}@${version}`,
      name,
      version,
      relationship,
      dependencies,
    });
    const nodes = [
      node('axios', '1.6.0', [], 'direct'),
      node('body-parser', '1.20.1', ['qs@6.11.0']),
      node('express', '4.18.2', ['body-parser@1.20.1'], 'direct'),
      node('ip', '1.1.8', [], 'direct'),
      node('qs', '6.11.0'),
      node('ws', '7.5.10', [], 'direct'),
    ];
    const roots = [
      {
        module: 'app',
        context: 'dependencies',
        dependencies: ['axios@1.6.0', 'express@4.18.2', 'ip@1.1.8', 'ws@7.5.10'],
      },
    ];
    const { id, scan } = await scanOf({
      schemaVersion: 1,
      project: 'hand',
      ecosystem: 'typescript',
      manifests: ['app/package.json'],
      roots,
      nodes,
    });
    expect(scan.status).toBe('completed');
    const res = await t.api.get(`/v1/scans/${id}/findings`).set(bearer(key));
    const found = res.body.findings
      .map((f: Record<string, unknown>) => `${f.package}@${f.installedVersion} ${f.cve} fix=${f.fixedVersion}`)
      .sort();
    expect(found).toEqual([
      'axios@1.6.0 CVE-2024-39338 fix=1.7.4', // advisory names the package "Axios"
      'body-parser@1.20.1 CVE-2024-45590 fix=1.20.3',
      'express@4.18.2 CVE-2024-29041 fix=4.19.2',
      'express@4.18.2 CVE-2024-43796 fix=4.20.0',
      'ip@1.1.8 CVE-2023-42282 fix=null', // last_affected: no fixed release
      'ip@1.1.8 CVE-2024-29415 fix=2.0.1',
    ]);
    const bp = res.body.findings.find((f: { package: string }) => f.package === 'body-parser');
    expect(bp.path).toEqual(['app/package.json', 'express@4.18.2', 'body-parser@1.20.1']);

    const n = res.body.findings.length;
    const page1 = await t.api.get(`/v1/scans/${id}/findings?limit=4`).set(bearer(key));
    expect(page1.body.findings.map((f: { id: string }) => f.id)).toEqual(
      res.body.findings.slice(0, 4).map((f: { id: string }) => f.id),
    );
    const page2 = await t.api.get(`/v1/scans/${id}/findings?limit=4&cursor=${page1.body.nextCursor}`).set(bearer(key));
    expect(page2.body.findings.map((f: { id: string }) => f.id)).toEqual(
      res.body.findings.slice(4).map((f: { id: string }) => f.id),
    );
    expect(page2.body.nextCursor).toBeNull();
    expect(n).toBe(6);
    const stale = await t.api
      .get(`/v1/scans/${id}/findings?limit=4&severity=low&cursor=${page1.body.nextCursor}`)
      .set(bearer(key));
    expect(stale.status).toBe(422);
    expect(stale.body.error.code).toBe('invalid_cursor');
    for (const sev of ['critical', 'high', 'medium', 'low']) {
      const exact = await t.api.get(`/v1/scans/${id}/findings?severity=${sev}&severityMode=exact`).set(bearer(key));
      expect(exact.body.findings.length).toBe(scan.findings[sev]);
      expect(exact.body.findings.every((f: { severity: string }) => f.severity === sev)).toBe(true);
    }
    const atLeastHigh = await t.api.get(`/v1/scans/${id}/findings?severity=high`).set(bearer(key));
    expect(atLeastHigh.body.findings.length).toBe(scan.findings.critical + scan.findings.high);
    const team = await t.api.get(`/v1/scans/${id}/findings?team=platform`).set(bearer(key));
    expect(team.body).toMatchObject({ findings: [], nextCursor: null });
  },
);

itWithSharedData(
  'gradle: the JabRef lockfile yields the Maven advisories of jackson-databind, guava and snakeyaml',
  async () => {
    await importAdvisories(t.store, [path.join(SHARED, 'advisories/maven')]);
    const lock = fs.readFileSync(path.join(SHARED, 'lockfiles/maven/JabRef__jabref__gradle.lockfile'), 'utf8');
    const { id, scan } = await scanOf(snapshotFromGradleLock(lock, { project: 'jabref' }));
    expect(scan.status).toBe('completed');
    const res = await t.api.get(`/v1/scans/${id}/findings?limit=200`).set(bearer(key));
    const found = res.body.findings.map(
      (f: Record<string, unknown>) => `${f.package}@${f.installedVersion} ${f.cve} fix=${f.fixedVersion}`,
    );
    expect(found).toEqual(
      expect.arrayContaining([
        'com.fasterxml.jackson.core:jackson-databind@2.13.3 CVE-2022-42004 fix=2.13.4',
        'com.google.guava:guava@31.1-jre CVE-2023-2976 fix=32.0.0',
        'org.yaml:snakeyaml@1.30 CVE-2022-25857 fix=1.31',
        'org.yaml:snakeyaml@1.30 CVE-2022-38752 fix=1.32',
        'org.yaml:snakeyaml@1.30 CVE-2022-1471 fix=2.0',
      ]),
    );
    const yaml = res.body.findings.find((f: { cve: string }) => f.cve === 'CVE-2022-1471');
    expect(yaml.path[0]).toBe('gradle.lockfile');
  },
  60_000,
);

itWithSharedData(
  'python: PyPI advisories match with PEP 503 names and PEP 440 versions',
  async () => {
    await importAdvisories(t.store, [path.join(SHARED, 'advisories/pypi-all.zip')]);
    const { id, scan } = await scanOf({
      schemaVersion: 1,
      project: 'py',
      ecosystem: 'python',
      roots: [{ module: 'svc', context: 'main', dependencies: ['Requests@2.0.0'] }],
      nodes: [{ id: 'Requests@2.0.0', name: 'Requests', version: '2.0.0', relationship: 'direct', dependencies: [] }],
    });
    expect(scan.status).toBe('completed');
    const res = await t.api.get(`/v1/scans/${id}/findings`).set(bearer(key));
    expect(res.body.findings.length).toBeGreaterThan(0);
    expect(
      res.body.findings.every((f: { package: string; fixedVersion: string | null }) => f.package === 'Requests'),
    ).toBe(true);
    expect(
      res.body.findings.map((f: { aliases: string[] }) => f.aliases.some((a) => a.startsWith('PYSEC-'))).every(Boolean),
    ).toBe(true);
  },
  60_000,
);

itWithSharedData(
  'a version the ecosystem cannot parse is counted as unmatched and the scan still completes',
  async () => {
    const { id, scan } = await scanOf({
      schemaVersion: 1,
      project: 'unparseable',
      ecosystem: 'javascript',
      roots: [{ module: 'app', context: 'main', dependencies: ['ws@7.4.5', 'lodash@not a version!'] }],
      nodes: [
        { id: 'ws@7.4.5', name: 'ws', version: '7.4.5', relationship: 'direct', dependencies: [] },
        {
          id: 'lodash@not a version!',
          name: 'lodash',
          version: 'not a version!',
          relationship: 'direct',
          dependencies: [],
        },
      ],
    });
    expect(scan.status).toBe('completed');
    expect(scan.unmatchedVersions).toBe(1);
    const res = await t.api.get(`/v1/scans/${id}/findings?limit=200`).set(bearer(key));
    expect(
      res.body.findings.map((f: { package: string; fixedVersion: string }) => [f.package, f.fixedVersion]),
    ).toContainEqual(['ws', '7.5.10']);
    expect(res.body.findings.every((f: { package: string }) => f.package === 'ws')).toBe(true);
  },
  60_000,
);

itWithSharedData(
  'a replayed workflow task or retried activity never duplicates findings: results are keyed by scan',
  async () => {
    const { id } = await scanOf(piscina());
    const chunks = await t.store.c.scanResults.countDocuments({ scanId: id });
    const scan = await getScan(t.store, id);
    expect(chunks).toBe(scan!.resultChunks);
    const all = await t.api.get(`/v1/scans/${id}/findings?suppressed=all&limit=200`).set(bearer(key));
    const ids = all.body.findings.map((f: { id: string }) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
  },
);

itWithSharedData(
  'a snapshot above the fast-path size runs the activity pipeline and finds exactly what the fast path finds',
  async () => {
    const base = piscina();
    const filler = Array.from({ length: 2500 }, (_, i) => ({
      id: `filler-${String(i).padStart(4, '0')}@1.0.0`,
      name: `filler-${String(i).padStart(4, '0')}`,
      version: '1.0.0',
      relationship: 'direct',
      dependencies: [],
    }));
    const big = {
      ...base,
      project: 'piscina-big',
      roots: [...base.roots, { module: 'filler', context: 'dependencies', dependencies: filler.map((f) => f.id) }],
      nodes: [...base.nodes, ...filler].sort((a, b) => (a.id < b.id ? -1 : 1)),
    };
    const [small, large] = await Promise.all([scanOf(base), scanOf(big)]);
    expect(large.scan.status).toBe('completed');
    await workflowClosed(t, large.id); // the alerts move after the scan is completed
    const history = await t.temporal.client.workflow.getHandle(large.id).fetchHistory();
    const scheduled = (history.events ?? [])
      .filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
    expect(scheduled).toEqual(['prepareScan', 'matchAdvisories', 'derivePaths', 'publishResults', 'moveAlerts']);
    const view = async (id: string) =>
      (await t.api.get(`/v1/scans/${id}/findings?suppressed=all&limit=200`).set(bearer(key))).body.findings
        .map((f: Record<string, unknown>) =>
          [f.cve, f.package, f.installedVersion, f.fixedVersion, f.severity, (f.path as string[]).join(' > ')].join(
            ' | ',
          ),
        )
        .sort();
    expect(await view(large.id)).toEqual(await view(small.id));
    expect(large.scan.findings).toEqual(small.scan.findings);
    await workflowClosed(t, large.id);
    expect(await t.store.c.scanWork.countDocuments({ scanId: large.id })).toBe(0);
  },
);

itWithSharedData(
  'an upload answered 201 while Temporal is unreachable is not lost: the sweeper starts its workflow',
  async () => {
    const { createApp } = await import('../../src/http/app');
    const { cursorCodec, loadCursorSecret } = await import('../../src/storage/cursors');
    const { uploadPreparer } = await import('../../src/pool/upload-pool');
    const { startSweeper } = await import('../../src/sweepers/scans');
    const request = (await import('supertest')).default;
    const uploads = uploadPreparer(1);
    // The Temporal seam as it behaves while the frontend is down: every start attempt fails.
    const down = { start: async () => false, drain: async () => undefined };
    const app = createApp({
      store: t.store,
      cursors: cursorCodec(await loadCursorSecret(t.store)),
      starter: down,
      readiness: { temporal: async () => ({ ok: false, detail: 'down' }) },
      logger: createLogger('test', 'silent'),
      maxBodyBytes: 10 * 1024 * 1024,
      uploads,
    });
    const res = await request(app.callback())
      .post('/v1/scans/dependency-snapshots')
      .set(bearer(key))
      .send(piscina({ project: 'temporal-down' }));
    expect(res.status).toBe(201);
    await new Promise((r) => setTimeout(r, 300));
    expect((await getScan(t.store, res.body.id))!.status).toBe('queued');
    const stop = startSweeper(scanSweep(t, { graceMs: 0 }), 100);
    try {
      for (let i = 0; i < 200; i++) {
        const scan = await getScan(t.store, res.body.id);
        if (scan!.status === 'completed') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await getScan(t.store, res.body.id))!.status).toBe('completed');
    } finally {
      stop();
      await uploads.close();
    }
  },
);

itWithSharedData(
  'derived paths over 1,000,000 segments fail the scan with attribution_limit_exceeded and keep nothing',
  async () => {
    const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'leaf-adv-'));
    fs.writeFileSync(
      path.join(dir, 'leaf.json'),
      JSON.stringify({
        id: 'GHSA-leaf-leaf-leaf',
        published: '2024-01-01T00:00:00Z',
        summary: 'every leaf',
        affected: [
          { package: { ecosystem: 'npm', name: 'leaf' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }] },
        ],
      }),
    );
    await importAdvisories(t.store, [dir]);
    // A chain of 250 packages with 4,100 vulnerable leaves at its end: 4,100 paths of about 252 segments.
    const chain = Array.from({ length: 250 }, (_, i) => `c${String(i).padStart(3, '0')}`);
    const leaves = Array.from({ length: 4100 }, (_, i) => `leaf@1.0.${i}`);
    const nodes = [
      ...chain.map((c, i) => ({
        id: `${c}@1.0.0`,
        name: c,
        version: '1.0.0',
        relationship: i === 0 ? 'direct' : 'transitive',
        dependencies: i + 1 < chain.length ? [`${chain[i + 1]}@1.0.0`] : leaves,
      })),
      ...leaves.map((id, i) => ({
        id,
        name: 'leaf',
        version: `1.0.${i}`,
        relationship: 'transitive',
        dependencies: [],
      })),
    ].sort((a, b) => (a.id < b.id ? -1 : 1));
    const { id, scan } = await scanOf({
      schemaVersion: 1,
      project: 'deep',
      ecosystem: 'javascript',
      roots: [{ module: 'app', context: 'dependencies', dependencies: ['c000@1.0.0'] }],
      nodes,
    });
    expect(scan).toMatchObject({
      status: 'failed',
      failureReason: 'attribution_limit_exceeded',
      findings: null,
      suppressed: null,
    });
    await workflowClosed(t, id);
    expect(await t.store.c.scanResults.countDocuments({ scanId: id })).toBe(0);
    expect(await t.store.c.scanWork.countDocuments({ scanId: id })).toBe(0);
    const findings = await t.api.get(`/v1/scans/${id}/findings`).set(bearer(key));
    expect(findings.body).toEqual({ findings: [], nextCursor: null, counts: null });
    const handle = t.temporal.client.workflow.getHandle(id);
    await handle.result().catch(() => undefined); // the run fails just after it marked the scan failed
    const history = await handle.fetchHistory();
    const failed = (history.events ?? []).find((e) => e.workflowExecutionFailedEventAttributes);
    expect(failed?.workflowExecutionFailedEventAttributes?.failure?.applicationFailureInfo?.type).toBe(
      'attribution_limit_exceeded',
    );
    const attempts = (history.events ?? [])
      .filter((e) => e.activityTaskStartedEventAttributes)
      .map((e) => e.activityTaskStartedEventAttributes!.attempt);
    expect(Math.max(...attempts)).toBe(1); // not retried
  },
  60_000,
);
