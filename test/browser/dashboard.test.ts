// The dashboard (the app's home) in a real browser against the real service and a real scan worker. The organization:
// dash-shop (the demo monorepo: alpha critical, beta medium, delta suppressed), dash-api (beta, team identity),
// dash-old (alpha, no team; its last tracked scan made 45 days old in the database, as time cannot be moved through
// the API) and dash-branch (scanned on a feature branch only: no tracked scan). A MADE-UP KEV catalog names alpha's
// CVE; dash-shop's points of two past days are written as the daily run writes them. Checked: the first screen's three
// reads start together and are all it asks; the counts by severity and KEV, zeros muted; the trend chart (an image
// named by its summary, lines told apart by dashes and markers, a legend in words, the numbers in a table); the
// riskiest alerts linking to their pages; the tables by team and by project sorted by mouse and keyboard, out-of-date
// projects said in words; the search box's three destinations; an empty organization. Each at 390 and 1280 pixels,
// with axe-core. The pure pieces (web/src/metrics.ts) first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { importIntel } from '../../src/intel/import';
import { addDays, countsOf, dayOf, type DayPoint } from '../../src/domain/metrics/points';
import { writeDayPoints } from '../../src/storage/alert-metrics';
import {
  dateTicks,
  daysText,
  freshnessText,
  searchTarget,
  spreadLabels,
  trendSummary,
  valueTicks,
} from '../../web/src/metrics';
import { bearer, newOrg, workflowClosed, type Org } from '../helpers/context';
import { v2Snapshot } from '../helpers/v2';
import { ADV, demoSnapshot, TEAM_PAY } from './fixtures';
import {
  atBothWidths,
  checkView,
  demoOrg,
  noScriptRan,
  sessionPage,
  startWebApp,
  tableRows,
  unexpected,
  uploadAndWait,
  type WebApp,
} from './helpers';

const DAY_MS = 86_400_000;
/** The chart's own drawings: any other SVG under #root would be an injected one. */
const OWN_SVG = '#root svg:not(.trend-chart):not(.trend-sample)';

/** A MADE-UP KEV catalog (CISA's format, not its content): alpha's CVE only. */
function madeUpKev(dir: string): string {
  const file = path.join(dir, 'kev.json');
  fs.writeFileSync(
    file,
    JSON.stringify({
      title: 'CISA Catalog of Known Exploited Vulnerabilities (made up for the tests)',
      catalogVersion: '2024.01.02',
      dateReleased: '2024-01-02T00:00:00.000Z',
      count: 1,
      vulnerabilities: [
        {
          cveID: ADV.alpha.cve,
          vendorProject: 'Demo',
          product: 'Alpha',
          vulnerabilityName: 'Alpha deserialization (made up)',
          dateAdded: '2024-01-02',
          shortDescription: 'Made up for the tests.',
          requiredAction: 'Upgrade.',
          dueDate: '2024-01-23',
          knownRansomwareCampaignUse: 'Unknown',
          notes: '',
        },
      ],
    }),
  );
  return file;
}

/** One module (no team unless given) declaring `packages`. */
const oneModule = (project: string, module: string, packages: string[], team?: string, ref?: string) =>
  v2Snapshot(
    [
      {
        module,
        context: 'runtimeClasspath',
        vertices: [
          [module.slice(1), module, ...packages.map((_, i) => `p${i}`)],
          ...packages.map((p, i) => [`p${i}`, p] as [string, string]),
        ],
      },
    ],
    [{ path: module, dependencies: [], ...(team ? { teamName: team } : {}) }],
    { project, manifests: ['build.gradle'], ...(ref ? { metadata: { ref } } : {}) },
  );

/** A past day's point of a project as the daily run writes it: open by severity, opened, criticals fixed after `days`. */
const pastPoint = (open: number[], opened = 0, days: number[] = []): DayPoint => ({
  p: countsOf(open, 0, opened, days.length, [[days.length, days.reduce((a, b) => a + b, 0)]]),
  t: [],
});

describe('the pure pieces of the dashboard', () => {
  test('the value axis: whole, round steps from 0 to at or above the most, never a flat axis', () => {
    expect(valueTicks(0)).toEqual([0, 1]);
    expect(valueTicks(3)).toEqual([0, 1, 2, 3]);
    expect(valueTicks(6)).toEqual([0, 2, 4, 6]);
    expect(valueTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(valueTicks(1234)).toEqual([0, 500, 1000, 1500]);
    for (const max of [1, 9, 17, 99, 101, 4999]) {
      const t = valueTicks(max);
      expect(t.length).toBeLessThanOrEqual(5);
      expect(t[t.length - 1]).toBeGreaterThanOrEqual(max);
    }
  });

  test('date ticks: the first and the last day, evenly spaced, as many as fit', () => {
    expect(dateTicks(90, 2)).toEqual([0, 89]);
    expect(dateTicks(90, 4)).toEqual([0, 30, 59, 89]);
    expect(dateTicks(3, 10)).toEqual([0, 1, 2]);
    expect(dateTicks(1, 5)).toEqual([0]);
    expect(dateTicks(0, 5)).toEqual([]);
  });

  test('end labels keep their lines’ order, at least a gap apart, within the plot', () => {
    // four lines ending at the same place (all zero): stacked upwards from the bottom
    expect(spreadLabels([200, 200, 200, 200], 15, 10, 200)).toEqual([155, 170, 185, 200]);
    // apart already: unmoved
    expect(spreadLabels([20, 100, 180, 60], 15, 10, 200)).toEqual([20, 100, 180, 60]);
    const ys = spreadLabels([50, 55, 52, 190], 15, 10, 200);
    const sorted = [...ys].sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i] - sorted[i - 1]).toBeGreaterThanOrEqual(15);
    expect(ys[0]).toBeLessThan(ys[2]); // 50 above 52 above 55, as their lines
    expect(ys[2]).toBeLessThan(ys[1]);
  });

  test('the summary, freshness and time to fix in words', () => {
    const point = (date: string, critical: number, opened = 0, fixed = 0) => ({
      date,
      open: { critical, high: 1, medium: 0, low: 0 },
      suppressed: 0,
      opened,
      fixed,
    });
    expect(
      trendSummary({
        from: '2025-01-01',
        to: '2025-01-03',
        points: [point('2025-01-01', 1, 2), point('2025-01-02', 4, 3), point('2025-01-03', 2, 0, 2)],
      }),
    ).toBe(
      'Open alerts by severity, per day from 2025-01-01 to 2025-01-03. On 2025-01-03: 2 critical, 1 high, 0 medium, 0 low. ' +
        'Most open on one day: 5, on 2025-01-02. Over the 3 days: 5 opened, 2 fixed.',
    );
    expect(trendSummary({ from: '2025-01-01', to: '2025-01-01', points: [] })).toContain('no data');
    const now = Date.parse('2025-03-01T12:00:00Z');
    expect(freshnessText({ lastTrackedScanAt: null, outOfDate: true }, now)).toBe('out of date: no tracked scan yet');
    expect(freshnessText({ lastTrackedScanAt: '2025-02-27T00:00:00Z', outOfDate: false }, now)).toBe('up to date');
    expect(freshnessText({ lastTrackedScanAt: '2025-01-15T00:00:00Z', outOfDate: true }, now)).toBe(
      'out of date: last tracked scan 45 days ago',
    );
    expect([daysText(null), daysText(0.4), daysText(1), daysText(3.46)]).toEqual([
      'none fixed',
      'less than a day',
      '1 day',
      '3.5 days',
    ]);
  });

  test('the search: an advisory id to its page, a project by its slug, anything else to where used', () => {
    const projects = [
      { project: 'prj_1', slug: 'shop' },
      { project: 'prj_2', slug: 'API' },
      { project: 'prj_3', slug: 'api' },
    ];
    const to = (v: string) => searchTarget(v, projects);
    expect(to('CVE-2021-44228')).toEqual({ kind: 'advisory', href: '/app/advisories/CVE-2021-44228' });
    expect(to(' ghsa-jfh8-c2jp-5v3q ')).toEqual({ kind: 'advisory', href: '/app/advisories/ghsa-jfh8-c2jp-5v3q' });
    expect(to('PYSEC-2021-19')?.kind).toBe('advisory');
    expect(['MAL-2024-1234', 'GO-2022-0969', 'RUSTSEC-2021-0078'].map((id) => to(id)?.kind)).toEqual(
      Array(3).fill('advisory'),
    );
    expect(to('shop')).toEqual({ kind: 'project', href: '/app/projects/prj_1' });
    expect(to('SHOP')).toEqual({ kind: 'project', href: '/app/projects/prj_1' }); // one project in any case
    expect(to('api')).toEqual({ kind: 'project', href: '/app/projects/prj_3' }); // exactly, when two differ in case
    expect(to('Api')?.kind).toBe('package'); // two in another case: neither is meant
    expect(to('org.apache.logging.log4j:log4j-core')).toEqual({
      kind: 'package',
      href: '/app/where-used?name=org.apache.logging.log4j%3Alog4j-core',
    });
    expect(to('CVE-2021')?.kind).toBe('package'); // not an id
    expect(to('   ')).toBeNull();
  });
});

describe('the dashboard', () => {
  let app: WebApp;
  let org: Org;
  let key: string;
  let tmp: string;
  const ids: Record<string, string> = {};
  const contexts: BrowserContext[] = [];
  let page: Page;
  let errors: string[];
  const today = dayOf(new Date());
  const d60 = addDays(today, -60);
  const d30 = addDays(today, -30);

  beforeAll(async () => {
    app = await startWebApp();
    ({ org, key } = await demoOrg(app, 'acme'));
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'web-dash-'));
    expect((await importIntel(app.t.store, 'kev', madeUpKev(tmp))).status).toBe('applied');
    const tracked = async (name: string, snapshot: object) => {
      const scan = await uploadAndWait(app, key, snapshot);
      await workflowClosed(app.t, scan); // the alerts move after the scan completes, before its workflow closes
      ids[name] = (await app.t.api.get(`/v1/scans/${scan}`).set(bearer(key))).body.project;
    };
    await tracked('shop', demoSnapshot('dash-shop'));
    await tracked('api', oneModule('dash-api', ':api', ['org.demo:beta@2.0.0'], 'identity'));
    await tracked('old', oneModule('dash-old', ':core', ['org.demo:alpha@1.0.0']));
    await tracked('branch', oneModule('dash-branch', ':x', ['org.demo:alpha@1.0.0'], undefined, 'feature/x'));
    await app.t.store.c.alertSets.updateMany(
      { orgId: org.orgId, projectId: ids.old },
      { $set: { startedAt: new Date(Date.now() - 45 * DAY_MS - 3_600_000) } },
    );
    // dash-shop 60 days ago: 5 critical and 1 high opened that day; 30 days ago: 3 criticals fixed after 4 days each
    await writeDayPoints(app.t.store, org.orgId, ids.shop, [
      [d60, pastPoint([5, 1, 0, 0], 6)],
      [d30, pastPoint([1, 0, 2, 1], 0, [4, 4, 4])],
    ]);
    ({ page, errors } = await sessionPage(app, org.ownerToken, contexts));
  }, 240_000);

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await app?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const portfolio = async () => (await app.t.api.get('/v1/metrics/portfolio').set(bearer(key))).body;
  /** The dashboard once its three reads have answered (the project table comes from the portfolio). */
  const shown = async (p: Page = page) => {
    await p.getByRole('table', { name: 'Open alerts by project' }).waitFor();
    await p.getByRole('img', { name: /^Open alerts by severity, per day/ }).waitFor();
    await p.getByRole('table', { name: /riskiest open alerts/ }).waitFor();
  };
  /** A colour of the stylesheet (a custom property) as the browser computes it. */
  const cssColour = (p: Page, variable: string) =>
    p.evaluate((v) => {
      const s = document.createElement('span');
      s.style.color = `var(${v})`;
      document.body.append(s);
      const c = getComputedStyle(s).color;
      s.remove();
      return c;
    }, variable);

  test('the home: its three reads start together and are all the first screen asks; counts by severity and KEV, zeros muted', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const FIRST = ['/v1/metrics/alerts', '/v1/metrics/portfolio', '/v1/alerts?sort=risk&limit=10'];
    const asked: string[] = [];
    let release!: () => void;
    const together = new Promise<void>((r) => (release = r));
    // Each of the three is held until all three have been asked: a view that waited for one answer before asking
    // the next would never show (and this test would time out below).
    await page.route('**/v1/**', async (route) => {
      const u = new URL(route.request().url());
      asked.push(`${route.request().method()} ${u.pathname}${u.search}`);
      if (FIRST.includes(u.pathname + u.search)) {
        if (FIRST.every((f) => asked.includes(`GET ${f}`))) release();
        await together;
      }
      await route.continue();
    });
    await page.goto(`${app.baseUrl}/app/`);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await shown();
    expect(asked.sort()).toEqual(['GET /v1/me', ...FIRST.map((f) => `GET ${f}`)].sort());
    await page.unroute('**/v1/**');

    // the navigation: Dashboard first, current at home; the organization's Alerts beside Projects
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect((await nav.getByRole('link').allTextContents()).slice(0, 5)).toEqual([
      'Dashboard',
      'Projects',
      'Alerts',
      'Rules',
      'Where used',
    ]);
    expect(await nav.getByRole('link', { name: 'Dashboard' }).getAttribute('aria-current')).toBe('page');
    expect(await nav.getByRole('link', { name: 'Projects' }).getAttribute('aria-current')).toBeNull();

    // 2 critical (alpha in dash-shop and dash-old, both known exploited), 2 medium (beta in dash-shop and dash-api);
    // delta is suppressed and dash-branch's alpha is on a branch: neither counts
    const tiles = await page.locator('ul.tiles li').evaluateAll((lis) =>
      lis.map((li) => ({
        text: (li.textContent ?? '').trim(),
        href: li.querySelector('a')?.getAttribute('href') ?? null,
        colour: getComputedStyle(li).color,
      })),
    );
    const body = await portfolio();
    expect([body.open, body.kev, body.suppressed]).toEqual([{ critical: 2, high: 0, medium: 2, low: 0 }, 2, 1]);
    const muted = await cssColour(page, '--muted');
    expect(tiles).toEqual([
      {
        text: '2 critical',
        href: '/app/alerts?severity=critical&severityMode=exact',
        colour: await cssColour(page, '--critical'),
      },
      { text: '0 high', href: null, colour: muted },
      {
        text: '2 medium',
        href: '/app/alerts?severity=medium&severityMode=exact',
        colour: await cssColour(page, '--medium'),
      },
      { text: '0 low', href: null, colour: muted },
      { text: '2 known exploited (KEV)', href: '/app/alerts?kev=true', colour: await cssColour(page, '--critical') },
    ]);
    // a zero is never coloured as its severity
    expect(muted).not.toBe(await cssColour(page, '--high'));
    expect(muted).not.toBe(await cssColour(page, '--low'));
    expect(await page.getByText('1 suppressed alert is not counted').count()).toBe(1);
    await atBothWidths(page, 'dashboard', () => shown());
    await noScriptRan(page, OWN_SVG);

    // a count leads to its alerts, across projects
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('link', { name: '2 critical' }).click();
    await page.waitForURL((u) => u.pathname === '/app/alerts' && u.search === '?severity=critical&severityMode=exact');
    await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
    const rows = await tableRows(page, 'Alerts of every project');
    expect(rows.map((r) => [r[1], r[2]]).sort()).toEqual([
      [ADV.alpha.cve, 'dash-old'],
      [ADV.alpha.cve, 'dash-shop'],
    ]);
    expect(unexpected(errors)).toEqual([]);
  });

  test('the trend: an image named by its summary, lines told apart without colour, a legend in words, the numbers in a table', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.baseUrl}/app/`);
    await shown();
    const trend = (await app.t.api.get('/v1/metrics/alerts').set(bearer(key))).body;
    expect(trend.points).toHaveLength(90);
    const from = addDays(today, -89);
    const chart = page.getByRole('img', { name: /^Open alerts by severity, per day/ });
    const summary = (await chart.getAttribute('aria-label'))!;
    expect(summary).toContain(`per day from ${from} to ${today}. On ${today}: 2 critical, 0 high, 2 medium, 0 low.`);
    expect(summary).toContain(`Most open on one day: 6, on ${d60}.`);
    expect(summary).toMatch(/Over the 90 days: \d+ opened, 3 fixed\.$/);
    expect(await page.getByRole('heading', { name: 'Open alerts over 90 days' }).count()).toBe(1);

    // four lines, each with its own dash pattern, and labelled at its end in words with today's count
    const lines = await chart
      .locator('polyline.trend-line')
      .evaluateAll((ls) =>
        ls.map((l) => ({ cls: l.getAttribute('class'), dash: getComputedStyle(l).strokeDasharray })),
      );
    expect(lines.map((l) => l.cls)).toEqual(['critical', 'high', 'medium', 'low'].map((s) => `trend-line trend-${s}`));
    expect(new Set(lines.map((l) => l.dash)).size).toBe(4);
    expect(await chart.locator('text.trend-label').allTextContents()).toEqual([
      'critical 2',
      'high 0',
      'medium 2',
      'low 0',
    ]);
    // the end markers: four shapes
    expect(await chart.locator('.trend-mark').evaluateAll((ms) => ms.map((m) => m.tagName))).toEqual([
      'circle',
      'rect',
      'polygon',
      'polygon',
    ]);
    expect(await page.getByRole('list', { name: 'Legend' }).locator('li').allTextContents()).toEqual([
      'Critical: solid line, circle',
      'High: long dashes, square',
      'Medium: short dashes, triangle',
      'Low: dotted line, diamond',
    ]);
    // 3 criticals fixed in 4 days each, within the 90 days
    expect(await page.getByText('Mean time to fix, over these days:').textContent()).toBe(
      'Mean time to fix, over these days: critical 4 days, high none fixed, medium none fixed, low none fixed.',
    );

    // the numbers, day by day: what the API answered, the past days carried forward
    await page.getByText("The chart's numbers, day by day").click();
    const rows = await tableRows(page, 'Open alerts by severity per day');
    expect(rows).toEqual(
      trend.points.map((p: any) => [
        p.date,
        ...['critical', 'high', 'medium', 'low'].map((s) => String(p.open[s])),
        String(p.suppressed),
        String(p.opened),
        String(p.fixed),
      ]),
    );
    const row = (day: string) => rows.find((r) => r[0] === day)!.slice(1, 6);
    expect(row(d60)).toEqual(['5', '1', '0', '0', '0']);
    expect(row(addDays(d60, 1))).toEqual(['5', '1', '0', '0', '0']);
    expect(row(d30)).toEqual(['1', '0', '2', '1', '0']);
    expect(row(today)).toEqual(['2', '0', '2', '0', '1']);
    expect(rows[0][0]).toBe(from);
    await atBothWidths(page, 'dashboard-trend', () => chart.waitFor());
    expect(unexpected(errors)).toEqual([]);
  });

  test('the riskiest alerts, known exploited first, each linking to its page', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.baseUrl}/app/`);
    await shown();
    const top = (await app.t.api.get('/v1/alerts?sort=risk&limit=10').set(bearer(key))).body.alerts as {
      id: string;
      advisory: string;
      project: string;
      severity: string;
    }[];
    const slugOf = Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, `dash-${k}`]));
    const table = page.getByRole('table', { name: /riskiest open alerts/ });
    const rows = await tableRows(page, 'The 4 riskiest open alerts');
    expect(rows.map((r) => r.slice(0, 3))).toEqual(top.map((a) => [a.advisory, slugOf[a.project], a.severity]));
    // the two known exploited alpha alerts first
    expect(rows.slice(0, 2).map((r) => [r[0], r[3]])).toEqual([
      [ADV.alpha.cve, 'KEV'],
      [ADV.alpha.cve, 'KEV'],
    ]);
    expect(await table.locator('tbody th a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual(
      top.map((a) => `/app/alerts/${a.id}`),
    );
    await table.getByRole('link', { name: ADV.beta.cve }).first().click();
    await page.waitForURL(`**/app/alerts/${top[2].id}`);
    await page.getByRole('heading', { name: `${ADV.beta.cve} in org.demo:beta` }).waitFor();
    // the Alerts entry of the navigation is the alert's
    expect(
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Alerts' })
        .getAttribute('aria-current'),
    ).toBe('page');
  });

  test('by team and by project: sorted by any column header, with the mouse or the keyboard; out of date said in words', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.baseUrl}/app/`);
    await shown();
    const body = await portfolio();
    const counts = (r: any) => [...['critical', 'high', 'medium', 'low'].map((s) => String(r.open[s])), String(r.kev)];
    // teams by label, as the portfolio counts them: dash-old's alpha has no team
    const teamRows = body.teams.map((t: any) => [
      t.team === 'unassigned' ? 'no team (unassigned)' : t.team,
      ...counts(t),
      String(t.projects),
    ]);
    expect(await tableRows(page, 'Open alerts by team')).toEqual(teamRows);
    expect(teamRows.map((r: string[]) => r[0])).toEqual(
      expect.arrayContaining(['identity', TEAM_PAY, 'no team (unassigned)']),
    );
    const teams = page.getByRole('table', { name: 'Open alerts by team' });
    expect(await teams.getByRole('link', { name: 'identity' }).getAttribute('href')).toBe('/app/alerts?team=identity');
    expect(await teams.getByRole('link').count()).toBe(body.teams.length - 1); // "unassigned" is no team to list

    const header = (table: string, column: string) =>
      page.getByRole('table', { name: table }).getByRole('columnheader', { name: column, exact: true });
    /** Waits until the column's header says the rows are sorted by it, in that direction. */
    const sortedBy = (table: string, column: string, dir: 'ascending' | 'descending') =>
      page
        .getByRole('table', { name: table })
        .locator(`th[aria-sort=${dir}]`)
        .filter({ has: page.getByRole('button', { name: column, exact: true }) })
        .waitFor();
    const sorted = <T>(rows: T[], key: (r: T) => string | number, dir: 1 | -1) =>
      rows
        .map((r, i) => ({ r, i }))
        .sort((a, b) => {
          const ka = key(a.r);
          const kb = key(b.r);
          const c = typeof ka === 'number' ? (ka as number) - (kb as number) : String(ka).localeCompare(String(kb));
          return c * dir || a.i - b.i;
        })
        .map((x) => x.r);
    // the mouse: Medium ascending, then descending
    await header('Open alerts by team', 'Medium').getByRole('button').click();
    await sortedBy('Open alerts by team', 'Medium', 'ascending');
    expect(await tableRows(page, 'Open alerts by team')).toEqual(sorted(teamRows, (r: string[]) => Number(r[3]), 1));
    await header('Open alerts by team', 'Medium').getByRole('button').click();
    await sortedBy('Open alerts by team', 'Medium', 'descending');
    expect(await tableRows(page, 'Open alerts by team')).toEqual(sorted(teamRows, (r: string[]) => Number(r[3]), -1));
    expect(await header('Open alerts by team', 'Team').getAttribute('aria-sort')).toBe('none');

    // the projects, by slug: each says whether it is out of date, in words
    const projects = page.getByRole('table', { name: 'Open alerts by project' });
    const projectRows = await tableRows(page, 'Open alerts by project');
    expect(projectRows.map((r) => [r[0], ...r.slice(1, 6), r[7]])).toEqual([
      ['dash-api', '0', '0', '1', '0', '0', 'up to date'],
      ['dash-branch', '0', '0', '0', '0', '0', 'out of date: no tracked scan yet'],
      ['dash-old', '1', '0', '0', '0', '1', 'out of date: last tracked scan 45 days ago'],
      ['dash-shop', '1', '0', '1', '0', '1', 'up to date'],
    ]);
    expect(projectRows.map((r) => r[6] === '—')).toEqual([false, true, false, false]);
    expect(body.projects.map((p: any) => [p.slug, p.outOfDate])).toEqual([
      ['dash-api', false],
      ['dash-branch', true],
      ['dash-old', true],
      ['dash-shop', false],
    ]);
    await page
      .getByText('2 of 4 projects are out of date: no tracked scan in the last 30 days, so their counts may be old.')
      .waitFor();
    expect(await projects.getByRole('link', { name: 'dash-old' }).getAttribute('href')).toBe(
      `/app/projects/${ids.old}`,
    );
    // a zero count is muted in the tables too
    const zero = projects.locator('tbody tr').first().locator('td').first().locator('span');
    expect(await zero.evaluate((e) => getComputedStyle(e).color)).toBe(await cssColour(page, '--muted'));

    // the keyboard: Tab to Freshness's header, Enter sorts ascending (up to date first, never tracked last), Space
    // descending
    await header('Open alerts by project', 'Last tracked scan').getByRole('button').focus();
    await page.keyboard.press('Tab');
    await page.waitForFunction(() => document.activeElement?.closest('th')?.textContent?.startsWith('Freshness'));
    await page.keyboard.press('Enter');
    await sortedBy('Open alerts by project', 'Freshness', 'ascending');
    expect((await tableRows(page, 'Open alerts by project')).map((r) => r[0])).toEqual([
      'dash-api',
      'dash-shop',
      'dash-old',
      'dash-branch',
    ]);
    await page.keyboard.press('Space');
    await sortedBy('Open alerts by project', 'Freshness', 'descending');
    expect((await tableRows(page, 'Open alerts by project')).map((r) => r[0])).toEqual([
      'dash-branch',
      'dash-old',
      'dash-api',
      'dash-shop',
    ]);
    await atBothWidths(page, 'dashboard-tables', () => projects.waitFor());
    await noScriptRan(page, OWN_SVG);
    expect(unexpected(errors)).toEqual([]);
  });

  test('the search box: an advisory id opens the advisory, a project name the project, anything else where used', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.baseUrl}/app/`);
    await shown();
    const box = page.getByLabel('Advisory, package or project');
    // its hint says how the value is read
    expect(
      await box.evaluate((e) => document.getElementById(e.getAttribute('aria-describedby')!)?.textContent ?? ''),
    ).toContain(
      "a project's name, exactly, opens the project; anything else lists where a package of that name is used",
    );

    await box.fill(ADV.alpha.cve);
    await box.press('Enter');
    await page.waitForURL(`**/app/advisories/${ADV.alpha.cve}`);
    await page.getByRole('heading', { name: `Advisory ${ADV.alpha.id}` }).waitFor();

    await page.goBack();
    await box.fill('dash-api');
    await page.getByRole('button', { name: 'Go' }).click();
    await page.waitForURL(`**/app/projects/${ids.api}`);
    await page.getByRole('heading', { name: 'Project dash-api' }).waitFor();

    await page.goBack();
    await box.fill('org.demo:beta');
    await box.press('Enter');
    await page.waitForURL((u) => u.pathname === '/app/where-used' && u.search === '?name=org.demo%3Abeta');
    await page.getByRole('heading', { name: 'Where org.demo:beta is used' }).waitFor();
    expect((await tableRows(page, 'Projects that install org.demo:beta')).map((r) => r[0])).toEqual([
      'dash-api',
      'dash-shop',
    ]);
    await page.goBack();
    await shown();
    await checkView(page, 'dashboard-search');
    expect(unexpected(errors)).toEqual([]);
  });

  test('an organization without projects: says so, every count a muted zero, no alert', async () => {
    const empty = await newOrg(app.t.store, 'empty');
    const { page: p, errors: errs } = await sessionPage(app, empty.ownerToken, contexts);
    await p.setViewportSize({ width: 1280, height: 900 });
    await p.goto(`${app.baseUrl}/app/`);
    await p.getByText('No project yet: upload a snapshot with the CI client to create one.').waitFor();
    await p.getByText('No open alert.', { exact: true }).waitFor();
    const chart = p.getByRole('img', { name: /^Open alerts by severity, per day/ });
    await chart.waitFor();
    expect(await chart.getAttribute('aria-label')).toContain(': 0 critical, 0 high, 0 medium, 0 low.');
    expect(await p.locator('ul.tiles li.tile-zero').count()).toBe(5);
    expect(await p.locator('ul.tiles a').count()).toBe(0);
    expect(await p.getByRole('table', { name: 'Open alerts by project' }).count()).toBe(0);
    await atBothWidths(p, 'dashboard-empty', () => chart.waitFor());
    expect(unexpected(errs)).toEqual([]);
  });
});
