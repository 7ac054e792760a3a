// GET /v1/metrics/alerts and GET /v1/metrics/portfolio over the real API, database, Temporal and an in-process worker:
// real tracked scans of two projects (a fix in a second scan), alerts stored as a move stores them for a third (with
// teams), an analysis made through the API, points of past days written as the worker writes them. Trends: today is
// live, a move writes the project's point of the day, the daily run writes the day that ended (through its Temporal
// schedule), days without a point carry the last one forward, the mean time to fix, teams, a restricted key counts
// its projects only, bad queries are 422 with the envelope. Portfolio: counts by severity, KEV apart, by project (out
// of date past 30 days) and team.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importAdvisories } from '../../src/advisories/import';
import type { MoveFinding } from '../../src/domain/alerts/move';
import { addDays, countsOf, dayOf, type DayPoint } from '../../src/domain/metrics/points';
import { createLogger } from '../../src/logger';
import { orgProjectCounts, orgTeamCounts, packDayPoints, writeDayPoints } from '../../src/storage/alert-metrics';
import { alertMetricsScheduleId, ensureAlertMetricsSchedule } from '../../src/temporal/alert-metrics';
import { installRuntime } from '../../workers/temporal-runtime';
import { recordDailyMetrics } from '../../activities/alert-metrics';
import { storeFirstMove, uploadCompleted } from '../helpers/alerts';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { startTestWorker, type TestWorker } from '../helpers/worker';

const logger = createLogger('test', 'silent');
const METRICS = '/v1/metrics/alerts';

let t: TestContext;
let org: Org;
let key: string;
let worker: TestWorker | undefined;
const ids: Record<string, string> = {};

const osv = (id: string, name: string, severity: string, fixed?: string) => ({
  id,
  modified: '2024-01-01T00:00:00Z',
  published: '2024-01-02T00:00:00Z',
  summary: `${name} is vulnerable`,
  aliases: [],
  database_specific: { severity },
  affected: [
    {
      package: { ecosystem: 'npm', name },
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, ...(fixed ? [{ fixed }] : [])] }],
    },
  ],
});

const node = (id: string) => {
  const at = id.lastIndexOf('@');
  return { id, name: id.slice(0, at), version: id.slice(at + 1), relationship: 'direct', dependencies: [] };
};
const snapshot = (project: string, deps: string[]) => ({
  schemaVersion: 1,
  project,
  ecosystem: 'javascript',
  manifests: ['package-lock.json'],
  roots: [{ module: 'app', manifest: 'app/package.json', context: 'dependencies', dependencies: deps }],
  nodes: deps.map(node),
  suppressions: [{ cve: 'GHSA-met1-0000-0003', reason: 'only in tests' }],
});

/** Uploads a tracked scan and waits until it completed and its alerts moved (the head names it). */
async function scanned(body: object): Promise<{ scanId: string; projectId: string }> {
  const { scanId, projectId } = await uploadCompleted(t.api, key, body);
  const until = Date.now() + 90_000;
  // the move, then the point of the day: both after completion
  for (;;) {
    const head = await t.store.c.alertSets.findOne({ _id: `${projectId}:javascript` });
    const doc = await t.store.c.alertMetricDays.findOne({ _id: `${projectId}:${dayOf(new Date())}` });
    if (head?.scanId === scanId && doc && doc.updatedAt >= head.updatedAt) break;
    if (Date.now() > until) throw new Error(`alerts of ${scanId} not moved`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { scanId, projectId };
}

const metrics = async (query = '', token = key) => {
  const res = await t.api.get(`${METRICS}${query ? `?${query}` : ''}`).set(bearer(token));
  expect([res.status, res.body.error]).toEqual([200, undefined]);
  return res.body;
};
/** A project's stored counts of today. */
const storedToday = async (projectId: string) =>
  (await orgProjectCounts(t.store, org.orgId)).get(projectId)!.find(([day]) => day === today())![1];
const last = (body: any) => body.points[body.points.length - 1];
const today = () => dayOf(new Date());

const teamFindings = (): MoveFinding[] =>
  (
    [
      ['critical', 'checkout'],
      ['high', 'checkout'],
      ['high', 'search'],
      ['low', null],
    ] as const
  ).map(([severity, module], i) => ({
    id: `fnd_team${i}`,
    package: `pkg-${i}`,
    installedVersion: '1.0.0',
    fixedVersion: null,
    severity,
    cve: `GHSA-team-0000-000${i}`,
    aliases: [`GHSA-team-0000-000${i}`],
    summary: 'team',
    publishedAt: null,
    suppressed: false,
    attributions: (module ? [{ module, context: 'runtime', relationship: 'direct' }] : []) as never,
    cvss: null,
  }));

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'metrics-adv-'));
  for (const a of [
    osv('GHSA-met1-0000-0001', 'left-pad', 'CRITICAL', '1.4.0'),
    osv('GHSA-met1-0000-0002', 'minimist', 'MODERATE', '1.2.6'),
    osv('GHSA-met1-0000-0003', 'ok', 'LOW'),
  ])
    fs.writeFileSync(path.join(dir, `${a.id}.json`), JSON.stringify(a));
  expect((await importAdvisories(t.store, [dir])).rejected).toEqual([]);
  org = await newOrg(t.store, 'Acme metrics');
  key = await org.key(['sca:upload', 'scans:read', 'findings:read', 'findings:triage']);
  worker = await startTestWorker(t, { logger });
  ids.shop = (await scanned(snapshot('met-shop', ['left-pad@1.2.0', 'minimist@1.2.5', 'ok@1.0.0']))).projectId;
  ids.api = (await scanned(snapshot('met-api', ['minimist@1.2.5']))).projectId;
  const teams = await scanned(snapshot('met-teams', ['safe@1.0.0']));
  ids.teams = teams.projectId;
  const teamOf = (m: string) => ({ checkout: 'payments', search: 'discovery' })[m] ?? null;
  await storeFirstMove(t.store, {
    orgId: org.orgId,
    projectId: ids.teams,
    scanId: teams.scanId,
    ecosystem: 'python',
    findings: teamFindings(),
    teamOf,
  });
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

describe('trends', () => {
  test('today counts the alerts as they stand: open by severity, suppressed apart, opened today', async () => {
    const body = await metrics();
    expect(body.points).toHaveLength(90);
    expect([body.from, body.to, body.project, body.team]).toEqual([addDays(today(), -89), today(), null, null]);
    expect(body.points.map((p: any) => p.date)).toEqual(Array.from({ length: 90 }, (_, i) => addDays(body.from, i)));
    // shop: left-pad (critical), minimist (medium), ok (suppressed by the snapshot); api: minimist; teams: 4 (python)
    expect(last(body)).toEqual({
      date: today(),
      open: { critical: 2, high: 2, medium: 2, low: 1 },
      suppressed: 1,
      opened: 7,
      fixed: 0,
    });
    // nothing before the projects' first points
    expect(body.points[0]).toEqual({
      date: body.from,
      open: { critical: 0, high: 0, medium: 0, low: 0 },
      suppressed: 0,
      opened: 0,
      fixed: 0,
    });
    expect(body.meanTimeToFixDays).toEqual({ critical: null, high: null, medium: null, low: null });
  });

  test('a move writes the project point of the day; a fix counts and gives the mean time to fix', async () => {
    const stored = await storedToday(ids.shop);
    expect(Array.from(stored.subarray(0, 5))).toEqual([1, 0, 1, 0, 1]); // open by severity, suppressed
    // a second scan of shop: left-pad bumped to its fixed version
    await scanned(snapshot('met-shop', ['left-pad@1.4.0', 'minimist@1.2.5', 'ok@1.0.0']));
    const shop = await metrics('project=met-shop');
    expect(shop.project).toBe(ids.shop);
    expect(last(shop)).toMatchObject({ open: { critical: 0, high: 0, medium: 1, low: 0 }, opened: 2, fixed: 1 });
    expect(shop.meanTimeToFixDays.critical).toBeGreaterThanOrEqual(0);
    expect(shop.meanTimeToFixDays.critical).toBeLessThan(0.1);
    expect(shop.meanTimeToFixDays.medium).toBeNull();
    expect((await storedToday(ids.shop))[6]).toBe(1); // fixed
    // by id as by slug
    expect(await metrics(`project=${ids.shop}`)).toEqual(shop);
  });

  test('an analysis made through the API counts at once: the alert moves from open to suppressed', async () => {
    const before = last(await metrics('project=met-api'));
    const list = await t.api.get('/v1/alerts?project=met-api').set(bearer(key));
    const put = await t.api
      .put(`/v1/alerts/${list.body.alerts[0].id}/analysis`)
      .set(bearer(key))
      .send({ state: 'not_affected', justification: 'code_not_reachable', detail: 'never called' });
    expect(put.status).toBe(200);
    const after = last(await metrics('project=met-api'));
    expect([before.open.medium, before.suppressed]).toEqual([1, 0]);
    expect([after.open.medium, after.suppressed]).toEqual([0, 1]);
    expect(after.opened).toBe(0); // a suppressed alert's opening is not counted
  });

  test('days without a point carry the last one forward; stored past days are read as written', async () => {
    const point = (open: number, fixed = 0): DayPoint => {
      const c = () =>
        countsOf([0, open], 0, 0, fixed, [
          [0, 0],
          [fixed, fixed * 3],
        ]);
      return { p: c(), t: [['legacy', c()]] };
    };
    const past = await scanned(snapshot('met-past', ['safe@2.0.0']));
    await writeDayPoints(t.store, org.orgId, past.projectId, [
      [addDays(today(), -20), point(5)],
      [addDays(today(), -10), point(2, 3)],
    ]);
    const body = await metrics(`project=met-past&from=${addDays(today(), -21)}&to=${addDays(today(), -1)}`);
    expect(body.points.map((p: any) => p.open.high)).toEqual([0, ...Array(10).fill(5), ...Array(10).fill(2)]);
    expect(body.points.map((p: any) => p.fixed).reduce((a: number, b: number) => a + b)).toBe(3);
    expect(body.meanTimeToFixDays.high).toBe(3);
    // today is live: met-past has no alert now
    expect(last(await metrics('project=met-past')).open.high).toBe(0);
    // a team's points
    const team = await metrics(`project=met-past&team=legacy&from=${addDays(today(), -11)}&to=${addDays(today(), -9)}`);
    expect(team.points.map((p: any) => p.open.high)).toEqual([5, 2, 2]);
  });

  test("writers of one project side by side lose none of each other's days; days older than the 400 kept go", async () => {
    const { projectId } = await scanned(snapshot('met-writers', ['safe@3.0.0']));
    const days = Array.from({ length: 12 }, (_, i) => addDays(today(), -(i + 2)));
    await Promise.all(
      days.map((day, i) => writeDayPoints(t.store, org.orgId, projectId, [[day, { p: countsOf([i + 1]), t: [] }]])),
    );
    const held = new Map((await orgProjectCounts(t.store, org.orgId)).get(projectId));
    expect(days.map((day) => held.get(day)?.[0])).toEqual(days.map((_, i) => i + 1));
    // packed by the daily run (the days before today): the same days read back, one packed document; a point older
    // than the days kept is dropped on the way
    const before = await metrics(`project=met-writers&from=${addDays(today(), -14)}`);
    await writeDayPoints(t.store, org.orgId, projectId, [[addDays(today(), -400), { p: countsOf([9]), t: [] }]]);
    expect(await packDayPoints(t.store, org.orgId, today())).toBeGreaterThanOrEqual(13);
    expect(await t.store.c.alertMetricDays.countDocuments({ projectId, day: { $lt: today() } })).toBe(0);
    expect(await t.store.c.alertMetrics.countDocuments({ _id: projectId })).toBe(1);
    expect(await metrics(`project=met-writers&from=${addDays(today(), -14)}`)).toEqual(before);
    const kept = (await orgProjectCounts(t.store, org.orgId)).get(projectId)!.map(([day]) => day);
    expect(kept).toEqual(
      [...days]
        .reverse()
        .concat(today())
        .filter((d) => kept.includes(d)),
    );
    expect(kept).toHaveLength(13);
    expect(kept).not.toContain(addDays(today(), -400));
  });

  test('teams: each alert counts for its team, alerts without one as "unassigned"', async () => {
    const of = async (team: string) => last(await metrics(`team=${team}`)).open;
    expect(await of('payments')).toEqual({ critical: 1, high: 1, medium: 0, low: 0 });
    expect(await of('discovery')).toEqual({ critical: 0, high: 1, medium: 0, low: 0 });
    // unassigned: the v1 scans' alerts (shop's minimist) and the python alert without a module
    expect(await of('unassigned')).toEqual({ critical: 0, high: 0, medium: 1, low: 1 });
    expect(await of('nobody')).toEqual({ critical: 0, high: 0, medium: 0, low: 0 });
  });

  test('a restricted key counts its projects only, and names no other project', async () => {
    const restricted = await org.key(['findings:read'], [ids.teams]);
    expect(last(await metrics('', restricted)).open).toEqual({ critical: 1, high: 2, medium: 0, low: 1 });
    const res = await t.api.get(`${METRICS}?project=met-shop`).set(bearer(restricted));
    expect([res.status, res.body.error.code]).toEqual([422, 'unknown_project']);
  });

  test('the daily run writes the day that ended for every project with alerts, through its Temporal schedule', async () => {
    // as if run tomorrow: today's point written whole, as today closes
    const r = await recordDailyMetrics(t.store, new Date(Date.now() + 86_400_000));
    expect(r.day).toBe(today());
    expect(r.projects).toBeGreaterThanOrEqual(3);
    const teams = (await orgTeamCounts(t.store, org.orgId)).get(ids.teams)!.find(([day]) => day === today())![1];
    expect(teams.map(([team]) => team)).toEqual(['discovery', 'payments', 'unassigned']);
    // the schedule: created, then updated; triggered, its workflow runs the same activity on the worker
    const client = t.temporal.client;
    const db = t.store.db.databaseName;
    expect(await ensureAlertMetricsSchedule(client, t.taskQueue, db)).toBe('created');
    expect(await ensureAlertMetricsSchedule(client, t.taskQueue, db)).toBe('updated');
    const handle = client.schedule.getHandle(alertMetricsScheduleId(db));
    try {
      const d = await handle.describe();
      expect(d.spec.calendars?.[0]).toMatchObject({
        hour: [{ start: 0, end: 0, step: 1 }],
        minute: [{ start: 5, end: 5, step: 1 }],
      });
      await handle.trigger();
      let run: { workflowId: string; firstExecutionRunId: string } | undefined;
      const until = Date.now() + 60_000;
      while (!run && Date.now() < until) {
        run = (await handle.describe()).info.recentActions[0]?.action.workflow;
        if (!run) await new Promise((res) => setTimeout(res, 200));
      }
      const result = await client.workflow.getHandle(run!.workflowId, run!.firstExecutionRunId).result();
      expect(result).toMatchObject({ day: addDays(today(), -1) });
      expect(result.projects).toBeGreaterThanOrEqual(3);
    } finally {
      await handle.delete();
    }
  });

  test.each([
    ['from=2026-02-30', 'from=2026-02-30', 'from'],
    ['to=yesterday', 'to=yesterday', 'to'],
    [`to=${addDays(dayOf(new Date()), 1)}`, `to=${addDays(dayOf(new Date()), 1)}`, 'to'],
    [`from=${addDays(dayOf(new Date()), -400)}`, `from=${addDays(dayOf(new Date()), -400)}`, 'from'],
    [
      `from=${dayOf(new Date())}&to=${addDays(dayOf(new Date()), -1)}`,
      `from=${dayOf(new Date())}&to=${addDays(dayOf(new Date()), -1)}`,
      'from',
    ],
    ['team=', 'team=', 'team'],
    ['team over 512 characters', 'team=' + 'x'.repeat(513), 'team'],
    ['from=2026-01-01&from=2026-01-02', 'from=2026-01-01&from=2026-01-02', 'from'],
  ])('%s: 422 invalid_parameter', async (_title, query, name) => {
    const res = await t.api.get(`${METRICS}?${query}`).set(bearer(key));
    expect([res.status, res.body.error.code]).toEqual([422, 'invalid_parameter']);
    expect(res.body.error.message).toContain(name);
  });

  test('the oldest day kept is accepted; an unknown project is 422; no credential 401', async () => {
    const body = await metrics(`from=${addDays(today(), -399)}`);
    expect(body.points).toHaveLength(400);
    const unknown = await t.api.get(`${METRICS}?project=no-such-project`).set(bearer(key));
    expect([unknown.status, unknown.body.error.code]).toEqual([422, 'unknown_project']);
    const anon = await t.api.get(METRICS);
    expect(anon.status).toBe(401);
  });
});

describe('portfolio', () => {
  test('the open alerts that are not suppressed, by severity, by project (out of date past 30 days) and by team', async () => {
    // met-api's last tracked scan made 40 days old
    await t.store.c.alertSets.updateOne(
      { _id: `${ids.api}:javascript` },
      { $set: { startedAt: new Date(Date.now() - 40 * 86_400_000) } },
    );
    const res = await t.api.get('/v1/metrics/portfolio').set(bearer(key));
    expect(res.status).toBe(200);
    const list = await t.api.get('/v1/alerts?limit=200').set(bearer(key));
    const bySeverity = { critical: 0, high: 0, medium: 0, low: 0 } as Record<string, number>;
    for (const a of list.body.alerts) bySeverity[a.severity]++;
    expect(res.body.open).toEqual(bySeverity); // as the alerts list counts
    expect(res.body.kev).toBe(0);
    expect(res.body.projects.map((p: any) => [p.slug, p.outOfDate])).toEqual([
      ['met-api', true],
      ['met-past', false],
      ['met-shop', false],
      ['met-teams', false],
      ['met-writers', false],
    ]);
    expect(res.body.projects.find((p: any) => p.slug === 'met-api').open).toEqual({
      critical: 0,
      high: 0,
      medium: 0,
      low: 0,
    });
    expect(res.body.teams).toEqual([
      { team: 'discovery', open: { critical: 0, high: 1, medium: 0, low: 0 }, kev: 0, projects: 1 },
      { team: 'payments', open: { critical: 1, high: 1, medium: 0, low: 0 }, kev: 0, projects: 1 },
      { team: 'unassigned', open: { critical: 0, high: 0, medium: 1, low: 1 }, kev: 0, projects: 2 },
    ]);
    const restricted = await org.key(['findings:read'], [ids.shop]);
    const mine = await t.api.get('/v1/metrics/portfolio').set(bearer(restricted));
    expect(mine.body.projects.map((p: any) => p.slug)).toEqual(['met-shop']);
    expect(mine.body.open).toEqual({ critical: 0, high: 0, medium: 1, low: 0 });
  });
});
