// Project alerts through the whole pipeline (real Temporal, the MongoDB-wire store, the real npm advisories): tracked
// scans open, fix, reopen and change the versions of alerts; branch scans move nothing but their findings carry the
// alerts they share; the reads (list filters, one alert, history), access of restricted keys, and the moves' order
// and idempotency (two tracked scans moved in either order leave the newer one's state; a move repeated or raced
// stores one state).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from '@temporalio/worker';
import { ALERT_UPGRADE_SETTING, moveScanAlerts } from '../../activities/alert-steps';
import { importAdvisories } from '../../src/advisories/import';
import { createLogger } from '../../src/logger';
import { currentGeneration } from '../../src/storage/advisories';
import { pairIdOf } from '../../src/storage/alerts';
import { alertRematchId, alertUpgradeId, startAlertRematch, startAlertUpgrade } from '../../src/temporal/alert-rematch';
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
const NPM = path.join(sharedDataDir(), 'advisories/npm');
/** decode-uri-component's advisory, left out of the first import. */
const LATER = 'GHSA-w573-4hg7-7wgq.json';

type Pkg = [name: string, version: string];

async function scan(project: string, pkgs: Pkg[], ref?: string): Promise<{ id: string; projectId: string }> {
  const res = await t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(key))
    .send(directSnapshot(project, pkgs, ref));
  expect(res.status).toBe(201);
  let got = await t.api.get(`/v1/scans/${res.body.id}?wait=30`).set(bearer(key));
  for (let i = 0; i < 100 && got.body.status !== 'completed'; i++)
    got = await t.api.get(`/v1/scans/${res.body.id}?wait=30`).set(bearer(key));
  expect(got.body.status).toBe('completed');
  await workflowClosed(t, res.body.id); // the alerts move after the scan completes, before its workflow closes
  return { id: res.body.id, projectId: got.body.project };
}

const get = async (url: string, token = key) => {
  const res = await t.api.get(url).set(bearer(token));
  return res;
};
const alertsOf = async (query: string) => {
  const res = await get(`/v1/alerts?${query}`);
  expect(res.status).toBe(200);
  return res.body.alerts as Array<Record<string, any>>;
};
const byPackage = (alerts: Array<Record<string, any>>) =>
  Object.fromEntries(alerts.map((a) => [`${a.package} ${a.advisory}`, a]));

describeWithSharedData('alerts', () => {
  beforeAll(async () => {
    installRuntime('error');
    t = await testContext();
    // Every npm advisory but one: it is published later, after the scans (the continuous monitoring test).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alerts-advisories-'));
    for (const f of fs.readdirSync(NPM)) if (f !== LATER) fs.copyFileSync(path.join(NPM, f), path.join(dir, f));
    const report = await importAdvisories(t.store, [dir]);
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
    org = await newOrg(t.store, 'Alerting');
    key = await org.key(['sca:upload', 'scans:read', 'findings:read']);
  }, 120_000);

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await t.close();
  });

  test('tracked scans open, change, fix and reopen alerts; branch scans move nothing; findings carry their alert', async () => {
    const s1 = await scan('shop', [
      ['lodash', '4.17.20'],
      ['moment', '2.29.1'],
      ['express', '4.18.0'],
    ]);
    let alerts = byPackage(await alertsOf(`project=shop`));
    // express has two advisories: two alerts; one per other package.
    expect(Object.keys(alerts).sort()).toEqual([
      'express CVE-2024-29041',
      'express CVE-2024-43796',
      'lodash CVE-2021-23337',
      'moment CVE-2022-24785',
    ]);
    for (const a of Object.values(alerts))
      expect(a).toMatchObject({
        id: expect.stringMatching(/^alr_/),
        project: s1.projectId,
        ecosystem: 'javascript',
        status: 'open',
        firstSeenScanId: s1.id,
        lastSeenScanId: s1.id,
        fixedAt: null,
        analysis: null,
        kev: null,
      });
    expect(alerts['lodash CVE-2021-23337']).toMatchObject({
      installedVersions: ['4.17.20'],
      fixedVersion: '4.17.21',
      aliases: expect.arrayContaining(['GHSA-35jh-r3h4-6jhm', 'CVE-2021-23337']),
    });
    // Every finding of the scan carries its alert and when the project first saw it.
    const f1 = (await get(`/v1/scans/${s1.id}/findings`)).body.findings as Array<Record<string, any>>;
    expect(f1).toHaveLength(4);
    for (const f of f1) {
      const a = alerts[`${f.package} ${f.cve}`];
      expect(f.alertId).toBe(a.id);
      expect(f.firstSeenAt).toBe(a.firstSeenAt);
    }

    // A branch scan: its findings of known alerts carry them, a new one none; the alerts do not move.
    const b = await scan(
      'shop',
      [
        ['lodash', '4.17.20'],
        ['ip', '1.1.8'],
      ],
      'feature/upgrade',
    );
    const fb = (await get(`/v1/scans/${b.id}/findings`)).body.findings as Array<Record<string, any>>;
    expect(fb.find((f) => f.package === 'lodash')!.alertId).toBe(alerts['lodash CVE-2021-23337'].id);
    expect(fb.find((f) => f.package === 'ip')).toMatchObject({ alertId: null, firstSeenAt: null });
    expect((await alertsOf('project=shop')).map((a) => a.lastSeenScanId)).toEqual([s1.id, s1.id, s1.id, s1.id]);

    // Tracked again (refs/heads/main names the default branch): moment gone, lodash at two versions.
    const s2 = await scan(
      'shop',
      [
        ['lodash', '4.17.20'],
        ['lodash', '4.17.19'],
        ['express', '4.18.0'],
      ],
      'refs/heads/main',
    );
    const open2 = byPackage(await alertsOf('project=shop'));
    expect(Object.keys(open2).sort()).toEqual([
      'express CVE-2024-29041',
      'express CVE-2024-43796',
      'lodash CVE-2021-23337',
    ]);
    expect(open2['lodash CVE-2021-23337']).toMatchObject({
      id: alerts['lodash CVE-2021-23337'].id,
      installedVersions: ['4.17.19', '4.17.20'],
      firstSeenScanId: s1.id,
      lastSeenScanId: s2.id,
    });
    const moment = alerts['moment CVE-2022-24785'];
    const fixed = await alertsOf('project=shop&status=fixed');
    expect(fixed).toEqual([
      expect.objectContaining({ id: moment.id, status: 'fixed', fixedAt: expect.any(String), fixedScanId: s2.id }),
    ]);
    expect((await alertsOf('project=shop&status=all')).length).toBe(4);

    // moment back: the same alert reopens, keeping its first sight.
    const s3 = await scan('shop', [
      ['lodash', '4.17.21'],
      ['moment', '2.29.1'],
      ['express', '4.18.0'],
    ]);
    const m3 = (await get(`/v1/alerts/${moment.id}`)).body;
    expect(m3).toMatchObject({
      id: moment.id,
      status: 'open',
      fixedAt: null,
      fixedScanId: null,
      firstSeenScanId: s1.id,
      lastSeenScanId: s3.id,
    });
    const history = (await get(`/v1/alerts/${moment.id}/history`)).body;
    expect(history.events.map((e: { type: string; scanId: string }) => [e.type, e.scanId])).toEqual([
      ['reopened', s3.id],
      ['fixed', s2.id],
      ['opened', s1.id],
    ]);
    expect(history.events[2].generation).toMatch(/^adv_/);
    const lodashHistory = (await get(`/v1/alerts/${alerts['lodash CVE-2021-23337'].id}/history?limit=1`)).body;
    expect(lodashHistory.events).toEqual([expect.objectContaining({ type: 'fixed', scanId: s3.id })]);
    expect(lodashHistory.nextCursor).toEqual(expect.any(String));
    const page2 = (
      await get(`/v1/alerts/${alerts['lodash CVE-2021-23337'].id}/history?limit=1&cursor=${lodashHistory.nextCursor}`)
    ).body;
    expect(page2.events).toEqual([
      expect.objectContaining({ type: 'versions_changed', details: { from: ['4.17.20'], to: ['4.17.19', '4.17.20'] } }),
    ]);

    // Filters and pages.
    expect((await alertsOf('project=shop&package=Moment')).map((a) => a.id)).toEqual([moment.id]);
    expect((await alertsOf('project=shop&advisory=ghsa-35jh-r3h4-6jhm&status=all')).length).toBe(1);
    expect((await alertsOf('project=shop&q=expr')).length).toBe(2);
    const p1 = await get('/v1/alerts?project=shop&limit=2');
    expect(p1.body.alerts).toHaveLength(2);
    const p2 = await get(`/v1/alerts?project=shop&limit=2&cursor=${p1.body.nextCursor}`);
    expect(p2.body.nextCursor).toBeNull();
    expect([...p1.body.alerts, ...p2.body.alerts].map((a: { id: string }) => a.id)).toEqual(
      (await alertsOf('project=shop')).map((a) => a.id),
    );
    // A cursor is bound to its query.
    const other = await get(`/v1/alerts?project=shop&limit=2&sort=firstSeen&cursor=${p1.body.nextCursor}`);
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('invalid_cursor');
  }, 120_000);

  test('access: a key restricted to another project sees none of these alerts; malformed queries are 422', async () => {
    const { projectId } = await scan('elsewhere', [['lodash', '4.17.20']]);
    const elsewhere = await org.key(['findings:read'], [projectId]);
    const shop = (await alertsOf('status=all&project=shop')).find((a) => a.package === 'moment')!;
    const seen = (await get('/v1/alerts?status=all', elsewhere)).body.alerts as Array<{ project: string }>;
    expect(seen.length).toBe(1);
    expect(seen[0].project).toBe(projectId);
    expect((await get(`/v1/alerts/${shop.id}`, elsewhere)).status).toBe(404);
    expect((await get(`/v1/alerts/${shop.id}/history`, elsewhere)).status).toBe(404);
    expect((await get(`/v1/alerts?project=shop`, elsewhere)).body.error.code).toBe('unknown_project');
    for (const q of [
      'status=closed',
      'severity=huge',
      'sort=name',
      'epssMin=2',
      'fixable=yes',
      'q=',
      'status=open&status=all',
    ])
      expect([q, (await get(`/v1/alerts?${q}`)).status]).toEqual([q, 422]);
    expect((await get('/v1/alerts/alr_000000000000000000000000')).status).toBe(404);
    expect((await get('/v1/alerts/%00')).status).toBe(404);
    const reader = await org.key(['scans:read']);
    expect((await get('/v1/alerts', reader)).status).toBe(403);
  }, 60_000);

  test("moves are ordered by startedAt and idempotent: either order leaves the newer scan's state; a repeat stores nothing", async () => {
    // Scans made untracked (another default branch), then moved by hand in both orders.
    const owner = org.ownerToken;
    const older = await scan('ordered', [
      ['lodash', '4.17.20'],
      ['moment', '2.29.1'],
    ]);
    const projectId = older.projectId;
    await t.api.patch(`/v1/projects/${projectId}`).set(bearer(owner)).send({ defaultBranch: 'release' });
    const newer = await scan('ordered', [
      ['lodash', '4.17.20'],
      ['express', '4.18.0'],
    ]);
    await t.api.patch(`/v1/projects/${projectId}`).set(bearer(owner)).send({ defaultBranch: 'main' });
    const pair = pairIdOf(projectId, 'javascript');
    const reset = async () => {
      await t.store.c.alertSets.deleteMany({ _id: pair });
      await t.store.c.alertStates.deleteMany({ pairId: pair });
    };
    const openState = async () =>
      (await alertsOf('project=ordered')).map((a) => [a.package, a.advisory, a.installedVersions, a.lastSeenScanId]);
    const deps = { store: t.store, logger };

    await reset();
    expect((await moveScanAlerts(deps, older.id)).outcome).toBe('moved');
    expect((await moveScanAlerts(deps, newer.id)).outcome).toBe('moved');
    const inOrder = await openState();
    expect(inOrder.map((a) => a[0]).sort()).toEqual(['express', 'express', 'lodash']);
    expect(inOrder.every((a) => a[3] === newer.id)).toBe(true);

    await reset();
    expect((await moveScanAlerts(deps, newer.id)).outcome).toBe('moved');
    expect((await moveScanAlerts(deps, older.id)).outcome).toBe('superseded'); // late and older: never overrides
    expect(await openState()).toEqual(inOrder);

    // A repeated move (a retry) and two at once (a replay beside a retry): one state each, the same alerts.
    const before = await t.store.c.alertStates.countDocuments({ pairId: pair });
    const again = await Promise.all([moveScanAlerts(deps, newer.id), moveScanAlerts(deps, newer.id)]);
    expect(again.map((r) => r.outcome)).toEqual(['moved', 'moved']);
    expect(await t.store.c.alertStates.countDocuments({ pairId: pair })).toBe(before);
    expect(await openState()).toEqual(inOrder);
  }, 120_000);

  test('continuous monitoring: an advisory published after the scan opens an alert, a withdrawn one fixes it, without an upload', async () => {
    const { id: scanId, projectId } = await scan('monitored', [
      ['decode-uri-component', '0.2.0'],
      ['moment', '2.29.1'],
    ]);
    const before = await alertsOf('project=monitored');
    expect(before.map((a) => a.package)).toEqual(['moment']);
    const rematch = async () => {
      const gen = (await currentGeneration(t.store))!;
      expect(await startAlertRematch(t.temporal.client, t.taskQueue, gen)).toBe(true);
      const r = await t.temporal.client.workflow.getHandle(alertRematchId(gen)).result();
      expect(r).toMatchObject({ generation: gen, failed: 0 });
      // A second start for the same generation is a no-op.
      expect(await startAlertRematch(t.temporal.client, t.taskQueue, gen)).toBe(false);
      return gen;
    };

    // The real advisory left out of the first import is published: its alert opens, said to come from that generation.
    const published = await importAdvisories(t.store, [path.join(NPM, LATER)]);
    expect(published.new).toBe(1);
    const gen1 = await rematch();
    const opened = (await alertsOf('project=monitored')).find((a) => a.package === 'decode-uri-component')!;
    expect(opened).toMatchObject({
      status: 'open',
      advisory: 'CVE-2022-38900',
      lastSeenScanId: scanId,
      project: projectId,
    });
    const h1 = (await get(`/v1/alerts/${opened.id}/history`)).body.events;
    expect(h1).toEqual([expect.objectContaining({ type: 'opened', scanId, generation: gen1 })]);
    // Re-matching again with nothing new changes nothing.
    const heads = await t.store.c.alertSets.findOne({ _id: pairIdOf(projectId, 'javascript') });

    // moment's advisory is withdrawn: its alert is fixed by the re-match, with the generation that did it.
    const withdrawnDir = fs.mkdtempSync(path.join(os.tmpdir(), 'alerts-withdrawn-'));
    const momentFile = 'GHSA-8hfj-j24r-96c4.json';
    const doc = JSON.parse(fs.readFileSync(path.join(NPM, momentFile), 'utf8'));
    fs.writeFileSync(
      path.join(withdrawnDir, momentFile),
      JSON.stringify({ ...doc, withdrawn: '2026-11-01T00:00:00Z', modified: '2026-11-01T00:00:00Z' }),
    );
    const withdrawn = await importAdvisories(t.store, [withdrawnDir]);
    expect(withdrawn.withdrawn).toBe(1);
    const gen2 = await rematch();
    const moment = (await alertsOf('project=monitored&status=fixed')).find((a) => a.package === 'moment')!;
    expect(moment).toMatchObject({ status: 'fixed', fixedAt: expect.any(String) });
    const h2 = (await get(`/v1/alerts/${moment.id}/history`)).body.events;
    expect(h2[0]).toMatchObject({ type: 'fixed', scanId, generation: gen2 });
    expect((await alertsOf('project=monitored')).map((a) => a.package)).toEqual(['decode-uri-component']);
    expect((await t.store.c.alertSets.findOne({ _id: pairIdOf(projectId, 'javascript') }))!.seq).toBe(heads!.seq + 1);
  }, 120_000);

  test("the upgrade builds alerts from each project's latest completed tracked scan, once, in the background", async () => {
    const shopId = (await get('/v1/projects')).body.projects.find((p: { slug: string }) => p.slug === 'shop').id;
    const before = (await alertsOf(`project=shop&status=all`)).map((a) => [a.id, a.status, a.installedVersions]);
    const latest = (await alertsOf('project=shop'))[0].lastSeenScanId;
    // As a database from before alerts: none stored (the organizations' alerts versions with them).
    await Promise.all([
      t.store.c.alertSets.deleteMany({}),
      t.store.c.alertStates.deleteMany({}),
      t.store.c.alertEvents.deleteMany({}),
      t.store.c.settings.deleteMany({ _id: { $regex: '^alertsVersion:' } }),
    ]);
    expect(await alertsOf('status=all')).toEqual([]);
    expect(await startAlertUpgrade(t.temporal.client, t.taskQueue, t.store.db.databaseName)).toBe(true);
    const r = await t.temporal.client.workflow.getHandle(alertUpgradeId(t.store.db.databaseName)).result();
    expect(r.failed).toBe(0);
    expect(r.moved).toBeGreaterThanOrEqual(4); // shop, elsewhere, ordered, monitored
    // The same alerts (ids derive from what they are) open as the latest tracked scan has them; history starts there.
    const after = await alertsOf(`project=shop&status=all`);
    // What the latest tracked scan found (moment's advisory was withdrawn since: a re-match would fix it again).
    const found = (await get(`/v1/scans/${latest}/findings`)).body.findings as Array<{ alertId: string }>;
    expect(after.map((a) => a.id).sort()).toEqual([...new Set(found.map((f) => f.alertId))].sort());
    for (const a of after) expect(before.find((b) => b[0] === a.id)).toBeDefined();
    for (const a of after)
      expect(a).toMatchObject({ firstSeenScanId: latest, lastSeenScanId: latest, project: shopId });
    expect(await t.store.c.settings.findOne({ _id: ALERT_UPGRADE_SETTING })).not.toBeNull();
    // Once: a second start is refused.
    expect(await startAlertUpgrade(t.temporal.client, t.taskQueue, t.store.db.databaseName)).toBe(false);
  }, 120_000);
});
