// Triage through the whole pipeline (real Temporal, the MongoDB-wire store, the real npm advisories): an analysis
// decided on an alert suppresses the findings of every scan processed after it, tracked and branch scans alike
// (suppressionSource "analysis", the analysis's detail as reason, out of the scan's counts), covers only the versions
// it names, leaves an earlier scan's counts as they were, and an alert suppressed by triage leaves the alert events.
import path from 'node:path';
import type { Worker } from '@temporalio/worker';
import { importAdvisories } from '../../src/advisories/import';
import { createLogger } from '../../src/logger';
import { createScanWorker } from '../../workers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import {
  bearer,
  newOrg,
  requireEnv,
  testContext,
  workflowClosed,
  type Org,
  type TestContext,
} from '../helpers/context';
import { directSnapshot } from '../helpers/snapshots';
import { describeWithSharedData, sharedDataDir } from '../helpers/shared-data';

let t: TestContext;
let org: Org;
let key: string;
let worker: Worker;
let running: Promise<void>;
const logger = createLogger('test', 'silent');

type Pkg = [name: string, version: string];

async function scan(project: string, pkgs: Pkg[], ref?: string) {
  const res = await t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(key))
    .send(directSnapshot(project, pkgs, ref));
  expect(res.status).toBe(201);
  let got = await t.api.get(`/v1/scans/${res.body.id}?wait=30`).set(bearer(key));
  for (let i = 0; i < 100 && got.body.status !== 'completed'; i++)
    got = await t.api.get(`/v1/scans/${res.body.id}?wait=30`).set(bearer(key));
  expect(got.body.status).toBe('completed');
  await workflowClosed(t, res.body.id);
  return got.body as Record<string, any>;
}

const findingsOf = async (scanId: string) => {
  const res = await t.api.get(`/v1/scans/${scanId}/findings?suppressed=all`).set(bearer(key));
  expect(res.status).toBe(200);
  return Object.fromEntries((res.body.findings as any[]).map((f) => [`${f.package}@${f.installedVersion}`, f]));
};

describeWithSharedData('triage', () => {
  beforeAll(async () => {
    installRuntime('error');
    t = await testContext();
    const report = await importAdvisories(t.store, [path.join(sharedDataDir(), 'advisories/npm')]);
    expect(report.rejected).toEqual([]);
    const w = await createScanWorker({
      store: t.store,
      logger,
      temporalAddress: requireEnv('TEMPORAL_ADDRESS'),
      namespace: 'default',
      taskQueue: t.taskQueue,
    });
    worker = w.worker;
    running = worker.run();
    org = await newOrg(t.store, 'Triaging');
    key = await org.key(['sca:upload', 'scans:read', 'findings:read', 'findings:triage']);
  }, 120_000);

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await t.close();
  });

  test('an analysis suppresses the findings of every later scan, tracked or branch, in the versions it covers', async () => {
    const pkgs: Pkg[] = [
      ['lodash', '4.17.20'],
      ['moment', '2.29.1'],
    ];
    const s1 = await scan('triaged', pkgs);
    const before = await findingsOf(s1.id);
    const lodash = before['lodash@4.17.20'];
    const moment = before['moment@2.29.1'];
    expect(lodash).toMatchObject({
      suppressed: false,
      suppressionSource: null,
      alertId: expect.stringMatching(/^alr_/),
    });

    const decided = await t.api
      .put(`/v1/alerts/${lodash.alertId}/analysis`)
      .set(bearer(key))
      .send({ state: 'not_affected', justification: 'code_not_reachable', detail: 'template() is never called' });
    expect(decided.status).toBe(200);
    // in_triage and exploitable stay counted
    const triaged = await t.api
      .put(`/v1/alerts/${moment.alertId}/analysis`)
      .set(bearer(key))
      .send({ state: 'exploitable', detail: 'we parse user dates' });
    expect(triaged.status).toBe(200);

    // a tracked scan and a branch scan processed after the decision: lodash suppressed by the analysis
    const s2 = await scan('triaged', pkgs);
    const branch = await scan('triaged', pkgs, 'feature/x');
    for (const s of [s2, branch]) {
      const f = await findingsOf(s.id);
      expect(f['lodash@4.17.20']).toMatchObject({
        suppressed: true,
        suppressionSource: 'analysis',
        suppressionReason: 'template() is never called',
        ruleId: null,
      });
      expect(f['moment@2.29.1']).toMatchObject({ suppressed: false, suppressionSource: null });
      // out of the scan's counts: one suppressed, one fewer counted than the first scan
      expect(s.suppressed).toBe(1);
      const total = (c: Record<string, number>) => c.critical + c.high + c.medium + c.low;
      expect(total(s.findings)).toBe(total(s1.findings) - 1);
    }
    // the scan before the decision keeps its counts
    const again = await t.api.get(`/v1/scans/${s1.id}`).set(bearer(key));
    expect([again.body.findings, again.body.suppressed]).toEqual([s1.findings, 0]);
    // the alert after the tracked scan: suppressed by its analysis
    const alert = await t.api.get(`/v1/alerts/${lodash.alertId}`).set(bearer(key));
    expect(alert.body).toMatchObject({ suppressed: true, suppressionSource: 'analysis' });

    // an analysis of another version: a scan with lodash 4.17.19 is not covered by one naming 4.17.20 only
    const narrowed = await t.api
      .put(`/v1/alerts/${lodash.alertId}/analysis`)
      .set(bearer(key))
      .send({ state: 'false_positive', detail: 'only 4.17.20 is vendored', versions: ['4.17.20'] });
    expect(narrowed.status).toBe(200);
    const other = await scan('triaged', [['lodash', '4.17.19'], pkgs[1]], 'feature/older');
    expect((await findingsOf(other.id))['lodash@4.17.19']).toMatchObject({ suppressed: false });

    // deleted: the next scan counts lodash again; the alert reads unsuppressed at once
    expect((await t.api.delete(`/v1/alerts/${lodash.alertId}/analysis`).set(bearer(key))).status).toBe(204);
    expect((await t.api.get(`/v1/alerts/${lodash.alertId}`).set(bearer(key))).body.suppressed).toBe(false);
    const s3 = await scan('triaged', pkgs);
    expect((await findingsOf(s3.id))['lodash@4.17.20']).toMatchObject({ suppressed: false, suppressionSource: null });
    expect(s3.findings).toEqual(s1.findings);
  }, 300_000);

  test('a resolved analysis is cleared when its alert reopens; the history says why', async () => {
    const s1 = await scan('reopening', [['lodash', '4.17.20']]);
    const alertId = (await findingsOf(s1.id))['lodash@4.17.20'].alertId;
    const resolved = await t.api
      .put(`/v1/alerts/${alertId}/analysis`)
      .set(bearer(key))
      .send({ state: 'resolved', detail: 'upgraded', ticketUrl: 'https://jira.example.test/browse/SEC-9' });
    expect(resolved.body).toMatchObject({ suppressed: true, analysis: { state: 'resolved' } });
    // fixed by a scan without lodash, then back
    await scan('reopening', [['moment', '2.29.4']]);
    expect((await t.api.get(`/v1/alerts/${alertId}`).set(bearer(key))).body).toMatchObject({
      status: 'fixed',
      analysis: { state: 'resolved' },
    });
    const back = await scan('reopening', [['lodash', '4.17.20']]);
    const alert = (await t.api.get(`/v1/alerts/${alertId}`).set(bearer(key))).body;
    expect(alert).toMatchObject({ status: 'open', analysis: null, suppressed: false });
    const history = (await t.api.get(`/v1/alerts/${alertId}/history`).set(bearer(key))).body.events;
    expect(history[0]).toMatchObject({
      type: 'analysis_changed',
      details: { before: { state: 'resolved' }, after: null, reason: 'reopened', scanId: back.id },
    });
    expect(history.map((e: any) => e.type)).toEqual([
      'analysis_changed',
      'reopened',
      'fixed',
      'analysis_changed',
      'opened',
    ]);
    // the scan that brought it back counts it: a resolved analysis of a fixed alert no longer holds
    expect(back.suppressed).toBe(0);
    expect((await findingsOf(back.id))['lodash@4.17.20']).toMatchObject({ suppressed: false, suppressionSource: null });
  }, 300_000);
});
