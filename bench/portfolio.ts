// `npm run bench -- portfolio`: the dashboard's figures (docs/dashboard.md) on the local stack, beside their targets.
// An organization of 100 projects × 500 open alerts (50,000, as the alerts bench seeds them, each project's alerts
// owned by 10 teams) and 365 days of trend points per project (each with its 10 teams), stored as the worker stores
// them. Then:
// - a fresh API process: start → ready (it builds the alert index and trends of the most recently active
//   organizations first: src/http/warm.ts), its first reads; GET /v1/metrics/alerts, the organization over 365 days,
//   p50 / p99 of repeated reads; the default 90 days, one project, one team; GET /v1/metrics/portfolio;
// - the dashboard's first screen in Debian's Chromium: navigation → the app's `dashboard:first-screen` mark (the
//   severity counts, the trend chart, the top alerts and both tables shown), on a fresh API process once ready and a
//   new browser context (cold), then again (warm);
// - the CSV of the 50,000 alerts: to the first and the last byte, the API's memory while it streams.
// Every answer is checked (status, number of points, counts), so that a figure cannot come from a read that did nothing.
import type { Page } from 'playwright-core';
import { addDays, countsOf, dayOf, type Counts, type DayPoint } from '../src/domain/metrics/points';
import { projectCountsDoc, teamMonthDoc, touchOrgMetrics } from '../src/storage/alert-metrics';
import { createSession, findUserByEmail } from '../src/storage/accounts';
import { seedAlerts } from './alerts';
import { csvFigures } from './alerts-csv';
import type { Harness } from './harness';
import { fmt, median, percentile, row } from './stats';
import { launch } from './web';

const PROJECTS = 100;
const PER_PROJECT = 500;
const TEAMS = 10;
const DAYS = 365;

/** A project's synthetic point of a day: open counts drifting down over the year, a few opened and fixed each day. */
function pointOf(p: number, d: number): DayPoint {
  const counts = (scale: number): Counts => {
    const base = Math.round(((PER_PROJECT * (2 - d / DAYS)) / 2) * scale);
    const fixed = (p * 3 + d) % 5;
    return countsOf(
      [Math.round(base * 0.1), Math.round(base * 0.3), Math.round(base * 0.4), Math.round(base * 0.2)],
      Math.round(base * 0.05),
      (p + d) % 7,
      fixed,
      [0, 1, 2, 3].map((s): [number, number] => [fixed ? 1 : 0, fixed ? ((p + d + s) % 30) + 1 : 0]),
    );
  };
  return {
    p: counts(1),
    t: Array.from({ length: TEAMS }, (_, k): [string, Counts] => [`team-${k}`, counts(1 / TEAMS)]),
  };
}

/** 365 days of points for each project, stored whole as the worker's writes leave them. */
async function seedPoints(h: Harness, orgId: string): Promise<void> {
  const today = dayOf(new Date());
  for (let p = 0; p < PROJECTS; p++) {
    const projectId = `prj_bench${String(p).padStart(4, '0')}`;
    const points = Array.from({ length: DAYS - 1 }, (_, d): [string, DayPoint] => [
      addDays(today, -(DAYS - 1) + d),
      pointOf(p, d),
    ]);
    await h.store.c.alertMetrics.insertOne(
      projectCountsDoc(
        orgId,
        projectId,
        points.map(([day, point]) => [day, point.p]),
      ),
    );
    const months = new Map<string, Array<[string, DayPoint['t']]>>();
    for (const [day, point] of points)
      months.set(day.slice(0, 7), [...(months.get(day.slice(0, 7)) ?? []), [day, point.t]]);
    await h.store.c.alertTeamMetrics.insertMany(
      [...months].map(([month, list]) => teamMonthDoc(orgId, projectId, month, list)),
    );
  }
  await touchOrgMetrics(h.store, orgId);
}

async function timedGet(h: Harness, url: string): Promise<[number, any]> {
  const t0 = performance.now();
  const r = await h.get(url);
  if (r.status !== 200) throw new Error(`${url} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return [performance.now() - t0, r.body];
}

/** p50 / p99 of `n` reads of `url`, each answer checked by `check`. */
async function repeated(h: Harness, url: string, n: number, check: (body: any) => void): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const [ms, body] = await timedGet(h, url);
    check(body);
    out.push(ms);
  }
  return out;
}

const pct = (xs: number[]) => `${fmt(median(xs))} / ${fmt(percentile(xs, 99))}`;

function checkSeries(days: number, openToday: number) {
  return (body: any) => {
    if (body.points.length !== days) throw new Error(`${body.points.length} points, expected ${days}`);
    const last = body.points[days - 1].open;
    const total = last.critical + last.high + last.medium + last.low;
    if (total !== openToday) throw new Error(`today: ${total} open, expected ${openToday}`);
  };
}

/** Waits for the dashboard's first-screen mark: ms from navigation start. */
async function firstScreen(page: Page): Promise<number> {
  await page.waitForFunction(() => performance.getEntriesByName('dashboard:first-screen').length > 0, undefined, {
    timeout: 30_000,
  });
  return page.evaluate(() => performance.getEntriesByName('dashboard:first-screen')[0].startTime);
}

async function dashboardFigures(h: Harness): Promise<void> {
  const user = await findUserByEmail(h.store, 'bench@example.test');
  if (!user) throw new Error('the bench harness has no owner bench@example.test');
  const { token } = await createSession(h.store, user._id, new Date(), 'app');
  const port = new URL(h.baseUrl).port;
  const browser = await launch();
  try {
    const open = async () => {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await ctx.addCookies([
        {
          name: '__Host-svc_session',
          value: token,
          domain: 'localhost',
          path: '/',
          secure: true,
          httpOnly: true,
          sameSite: 'Lax',
        },
      ]);
      return ctx.newPage();
    };
    const url = `http://localhost:${port}/app/`;
    const cold: number[] = [];
    for (let i = 0; i < 3; i++) {
      await h.restartApi();
      const page = await open();
      await page.goto(url);
      cold.push(await firstScreen(page));
      await page.context().close();
    }
    const page = await open();
    const warm: number[] = [];
    for (let i = 0; i < 6; i++) {
      await page.goto(url);
      const at = await firstScreen(page);
      if (i) warm.push(at);
    }
    const projects = await page.locator('table', { hasText: 'bench-0' }).locator('tbody tr').count();
    if (projects < 50) throw new Error(`the projects table shows ${projects} rows`); // its first 50, then a button
    console.log('\nThe dashboard (/app/) in Chromium: navigation → first screen (counts, trend, top alerts, tables)');
    row(
      'cold: a fresh API process, a new browser context (median, max of 3)',
      `${fmt(median(cold))}, ${fmt(Math.max(...cold))}`,
      '≤ 1000 ms',
    );
    row('warm (median of 5)', fmt(median(warm)), '≤ 1000 ms');
  } finally {
    await browser.close();
  }
}

export async function portfolioBench(h: Harness): Promise<void> {
  const orgId = (await h.store.c.orgs.findOne({}))!._id;
  const t0 = performance.now();
  await seedAlerts(h, PROJECTS, PER_PROJECT, 0, TEAMS);
  await seedPoints(h, orgId);
  console.log(
    `seeded ${PROJECTS} projects × ${PER_PROJECT} open alerts (${TEAMS} teams each) and ${DAYS} days of points in ${fmt(performance.now() - t0)}`,
  );
  const today = dayOf(new Date());
  const year = `/v1/metrics/alerts?from=${addDays(today, -(DAYS - 1))}`;
  const all = PROJECTS * PER_PROJECT;

  const started = performance.now();
  await h.restartApi();
  const startMs = performance.now() - started;
  const [indexMs] = await timedGet(h, '/v1/alerts?limit=1');
  const [coldMs] = await timedGet(h, year);
  console.log(
    `\nGET /v1/metrics/alerts and /v1/metrics/portfolio over ${PROJECTS} projects, ${all.toLocaleString('en')} alerts, ${DAYS} days (p50 / p99 ms, 200 reads each)`,
  );
  row("a fresh API process: start → ready (the organization's alert index and trends built: WARM_ORGS)", fmt(startMs));
  row('then its first alerts read', fmt(indexMs));
  row('then its first trends read, organization, 365 days', fmt(coldMs));
  row('organization, 365 days', pct(await repeated(h, year, 200, checkSeries(DAYS, all))), 'p99 ≤ 50 ms');
  row('organization, 90 days (the default)', pct(await repeated(h, '/v1/metrics/alerts', 200, checkSeries(90, all))));
  row('one project, 365 days', pct(await repeated(h, `${year}&project=bench-7`, 200, checkSeries(DAYS, PER_PROJECT))));
  row('one team, 365 days', pct(await repeated(h, `${year}&team=team-3`, 200, checkSeries(DAYS, all / TEAMS))));
  row(
    'GET /v1/metrics/portfolio',
    pct(
      await repeated(h, '/v1/metrics/portfolio', 200, (body) => {
        if (body.projects.length !== PROJECTS || body.teams.length !== TEAMS) throw new Error('portfolio incomplete');
      }),
    ),
  );
  await dashboardFigures(h);
  console.log('\nGET /v1/alerts/export.csv of every alert (median of 3: to the first byte / to the last)');
  await csvFigures(h, 'every alert (default query, sort=risk)', '', all, 3);
}
