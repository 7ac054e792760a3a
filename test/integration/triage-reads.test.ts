// An old scan keeps its counts and shows today's analysis on its findings (docs/triage.md), through
// the whole pipeline (real Temporal worker, the MongoDB-wire store, the real npm advisories): a scan completed before
// a decision keeps its counts and each finding's `suppressed` as processed, while its findings read the alert's
// current analysis (`analysis`, with `expired`) at once after every change, and null once it is deleted.
import path from 'node:path';
import type { Worker } from '@temporalio/worker';
import { importAdvisories } from '../../src/advisories/import';
import { createLogger } from '../../src/logger';
import { touchOrgTriage } from '../../src/storage/alerts';
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
import { expectDocumented } from '../http/uploads-helpers';

let t: TestContext;
let org: Org;
let key: string;
let worker: Worker;
let running: Promise<void>;
const logger = createLogger('test', 'silent');

type Pkg = [name: string, version: string];

async function scan(project: string, pkgs: Pkg[]) {
  const res = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(directSnapshot(project, pkgs));
  expect(res.status).toBe(201);
  let got = await t.api.get(`/v1/scans/${res.body.id}?wait=30`).set(bearer(key));
  for (let i = 0; i < 100 && got.body.status !== 'completed'; i++)
    got = await t.api.get(`/v1/scans/${res.body.id}?wait=30`).set(bearer(key));
  expect(got.body.status).toBe('completed');
  await workflowClosed(t, res.body.id);
  return got.body as Record<string, any>;
}

/** The scan's findings by package@version, and the list's counts; every answer checked against the OpenAPI document. */
async function read(scanId: string, query = 'suppressed=all') {
  const res = await t.api.get(`/v1/scans/${scanId}/findings?${query}`).set(bearer(key));
  expect(res.status).toBe(200);
  expectDocumented('/v1/scans/{scanId}/findings', 'get', res);
  const byPkg = Object.fromEntries((res.body.findings as any[]).map((f) => [`${f.package}@${f.installedVersion}`, f]));
  return { byPkg, counts: res.body.counts };
}

describeWithSharedData('findings of an old scan show the current analysis', () => {
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
    org = await newOrg(t.store, 'Reading triage');
    key = await org.key(['sca:upload', 'scans:read', 'findings:read', 'findings:triage']);
  }, 120_000);

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await t.close();
  });

  test('a scan completed before a decision keeps its counts and suppressed, and shows the decision made after', async () => {
    const pkgs: Pkg[] = [
      ['lodash', '4.17.20'],
      ['moment', '2.29.1'],
    ];
    const s1 = await scan('old-scan', pkgs);
    const before = await read(s1.id);
    const lodash = before.byPkg['lodash@4.17.20'];
    expect(lodash).toMatchObject({ suppressed: false, alertId: expect.stringMatching(/^alr_/), analysis: null });
    expect(before.byPkg['moment@2.29.1']).toMatchObject({ suppressed: false, analysis: null });

    // a suppressing decision made after the scan
    const decided = await t.api.put(`/v1/alerts/${lodash.alertId}/analysis`).set(bearer(key)).send({
      state: 'not_affected',
      justification: 'code_not_reachable',
      detail: 'template() is never called',
      ticketUrl: 'https://jira.example.com/browse/SEC-1',
    });
    expect(decided.status).toBe(200);
    const after = await read(s1.id);
    // the scan is a record: the finding stays unsuppressed, the list's counts and the scan's stay as processed
    expect(after.byPkg['lodash@4.17.20']).toMatchObject({
      suppressed: false,
      suppressionSource: null,
      suppressionReason: null,
      analysis: {
        state: 'not_affected',
        justification: 'code_not_reachable',
        response: [],
        detail: 'template() is never called',
        expiresAt: null,
        versions: null,
        ticketUrl: 'https://jira.example.com/browse/SEC-1',
        updatedAt: expect.any(String),
        updatedBy: { kind: 'api_key', id: expect.any(String) },
        expired: false,
      },
    });
    // the same analysis as the alert read shows
    expect(after.byPkg['lodash@4.17.20'].analysis).toEqual(decided.body.analysis);
    expect(after.byPkg['moment@2.29.1'].analysis).toBeNull();
    expect(after.counts).toEqual(before.counts);
    const again = await t.api.get(`/v1/scans/${s1.id}`).set(bearer(key));
    expect([again.body.findings, again.body.suppressed]).toEqual([s1.findings, s1.suppressed]);
    // the default list (suppressed=false) still lists it; the light shape carries the analysis too
    expect((await read(s1.id, 'suppressed=false')).byPkg['lodash@4.17.20'].analysis.state).toBe('not_affected');
    expect((await read(s1.id, 'details=summary')).byPkg['lodash@4.17.20'].analysis.state).toBe('not_affected');

    // a later change shows at once (each write moves the organization's alerts version: the kept analyses go)
    const changed = await t.api
      .put(`/v1/alerts/${lodash.alertId}/analysis`)
      .set(bearer(key))
      .send({ state: 'exploitable', detail: 'reachable after all' });
    expect(changed.status).toBe(200);
    expect((await read(s1.id)).byPkg['lodash@4.17.20'].analysis).toMatchObject({
      state: 'exploitable',
      detail: 'reachable after all',
      justification: null,
    });

    // expiry is effective at read: an analysis whose expiresAt has passed reads expired
    const expiring = await t.api
      .put(`/v1/alerts/${lodash.alertId}/analysis`)
      .set(bearer(key))
      .send({ state: 'resolved', detail: 'patched', expiresAt: new Date(Date.now() + 3600_000).toISOString() });
    expect(expiring.status).toBe(200);
    expect((await read(s1.id)).byPkg['lodash@4.17.20'].analysis).toMatchObject({ state: 'resolved', expired: false });
    const past = new Date(Date.now() - 1000).toISOString();
    await t.store.c.alertAnalyses.updateMany({ alertId: lodash.alertId }, { $set: { 'analysis.expiresAt': past } });
    await touchOrgTriage(t.store, org.orgId, `test:${Date.now()}`);
    expect((await read(s1.id)).byPkg['lodash@4.17.20'].analysis).toMatchObject({
      state: 'resolved',
      expiresAt: past,
      expired: true,
    });

    // deleted: null again; the counts never moved
    expect((await t.api.delete(`/v1/alerts/${lodash.alertId}/analysis`).set(bearer(key))).status).toBe(204);
    const deleted = await read(s1.id);
    expect(deleted.byPkg['lodash@4.17.20']).toMatchObject({ suppressed: false, analysis: null });
    expect(deleted.counts).toEqual(before.counts);
  }, 300_000);
});
