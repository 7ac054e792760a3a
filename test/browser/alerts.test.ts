// Project alerts in a real browser against the real service and a real scan worker: two tracked scans of one project
// move its alerts (alpha's installed version changes, beta is fixed, two advisories of epsilon turn out to be one
// vulnerability and their alerts merge, delta stays suppressed). The project page says what each scan opened and
// counts the alerts; the Alerts view keeps its filters in the URL (reload and Back restore them) and says a refusal
// in words; an alert page shows its fields and its history as a timeline linking to the scans; a merged id says it
// was merged; findings link to their alert. Each view at 390 and 1280 pixels, with axe-core.
import type { BrowserContext, Page } from 'playwright-core';
import { importAdvisories } from '../../src/advisories/import';
import { bearer, workflowClosed, type Org } from '../helpers/context';
import { v2Snapshot } from '../helpers/v2';
import { ADV, ALPHA, BETA, DELTA, GAMMA, MOD_APP, MOD_LIB, MOD_WEB, TEAM_PAY, TEAM_PLATFORM, XSS } from './fixtures';
import {
  advisoryDir,
  checkView,
  demoOrg,
  noScriptRan,
  sessionContext,
  startWebApp,
  unexpected,
  uploadAndWait,
  watchErrors,
  type WebApp,
  atBothWidths,
} from './helpers';

const PROJECT = 'shop';
const ALPHA_NEXT = 'org.demo:alpha@1.0.1';
const EPSILON = 'org.demo:epsilon@1.0.0';
const EPS = { a: 'GHSA-demo-0004-dddd', b: 'GHSA-demo-0005-eeee', aCve: 'CVE-2099-0004', bCve: 'CVE-2099-0005' };
const CRITICAL_VECTOR = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';

/** An OSV advisory of org.demo:epsilon (fixed in 2.0.0). */
function epsilon(id: string, aliases: string[], modified: string) {
  return {
    id,
    aliases,
    modified,
    published: '2024-01-01T00:00:00Z',
    summary: `Epsilon flaw ${id}`,
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N' }],
    affected: [
      {
        package: { ecosystem: 'Maven', name: 'org.demo:epsilon' },
        ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
      },
    ],
  };
}

/**
 * The demo monorepo (fixtures.ts) with epsilon declared by :lib. The second tracked scan has alpha 1.0.1 instead of
 * 1.0.0 and no longer has gamma (so no beta).
 */
function shopSnapshot(second: boolean) {
  const alpha = second ? ALPHA_NEXT : ALPHA;
  const lib: [string, string, ...string[]][] = [
    ['l', MOD_LIB, 'al', 'ep'],
    ['al', alpha],
    ['ep', EPSILON],
  ];
  return v2Snapshot(
    [
      {
        module: MOD_APP,
        context: 'runtimeClasspath',
        vertices: second
          ? [['a', MOD_APP, 'l'], ...lib]
          : [['a', MOD_APP, 'l', 'g'], ...lib, ['g', GAMMA, 'b'], ['b', BETA]],
      },
      { module: MOD_LIB, context: 'runtimeClasspath', vertices: lib },
      {
        module: MOD_WEB,
        context: 'runtimeClasspath',
        vertices: [
          ['w', MOD_WEB, 'd'],
          ['d', DELTA],
        ],
      },
    ],
    [
      { path: MOD_APP, dependencies: [MOD_LIB], teamName: TEAM_PAY },
      { path: MOD_LIB, dependencies: [], teamName: TEAM_PLATFORM },
      { path: MOD_WEB, dependencies: [] },
    ],
    {
      project: PROJECT,
      manifests: ['build.gradle'],
      suppressions: [{ cve: ADV.delta.cve, reason: `accepted risk ${XSS.script}` }],
    },
  );
}

let app: WebApp;
let org: Org;
let key: string;
let s1: string;
let s2: string;
let projectId: string;
/** Alert ids by name: alpha, beta, delta, epsilon (the survivor) and merged (the epsilon alert merged into it). */
const ids: Record<string, string> = {};
/** The surviving epsilon alert's advisory: either one's CVE (the older alert survives, then the smaller id). */
let epsilonAdvisory: string;
let ctx: BrowserContext;
let page: Page;
let errors: string[];

async function tracked(snapshot: object): Promise<string> {
  const id = await uploadAndWait(app, key, snapshot);
  await workflowClosed(app.t, id); // the alerts move after the scan completes, before its workflow closes
  return id;
}

const listAlerts = async (query: string) => {
  const res = await app.t.api.get(`/v1/alerts?project=${projectId}&${query}`).set(bearer(key));
  expect(res.status).toBe(200);
  return res.body.alerts as Array<{ id: string; package: string; advisory: string; status: string }>;
};

beforeAll(async () => {
  app = await startWebApp();
  ({ org, key } = await demoOrg(app, 'acme'));
  const eps = await importAdvisories(app.t.store, [
    advisoryDir([
      epsilon(EPS.a, [EPS.aCve], '2024-01-01T00:00:00Z'),
      epsilon(EPS.b, [EPS.bCve], '2024-01-01T00:00:00Z'),
    ]),
  ]);
  expect(eps.rejected).toEqual([]);
  s1 = await tracked(shopSnapshot(false));
  projectId = (await app.t.api.get(`/v1/scans/${s1}`).set(bearer(key))).body.project;
  const first = await listAlerts('status=all&suppressed=all');
  const epsilonIds = first.filter((a) => a.package === 'org.demo:epsilon').map((a) => a.id);
  expect(epsilonIds).toHaveLength(2);
  // epsilon's second advisory now names the first one's CVE: one vulnerability, so its two alerts merge
  const grown = await importAdvisories(app.t.store, [
    advisoryDir([epsilon(EPS.b, [EPS.bCve, EPS.aCve], '2024-06-01T00:00:00Z')]),
  ]);
  expect(grown.rejected).toEqual([]);
  s2 = await tracked(shopSnapshot(true));
  const after = await listAlerts('status=all&suppressed=all');
  const by = (pkg: string) => after.find((a) => a.package === pkg)!.id;
  ids.alpha = by('org.demo:alpha');
  ids.beta = by('org.demo:beta');
  ids.delta = by('org.demo:delta');
  ids.epsilon = by('org.demo:epsilon');
  epsilonAdvisory = after.find((a) => a.id === ids.epsilon)!.advisory;
  expect(after.filter((a) => a.package === 'org.demo:epsilon')).toHaveLength(1);
  ids.merged = epsilonIds.find((id) => id !== ids.epsilon)!;
  expect(after.map((a) => `${a.package} ${a.status}`).sort()).toEqual([
    'org.demo:alpha open',
    'org.demo:beta fixed',
    'org.demo:delta open',
    'org.demo:epsilon open',
  ]);
  ctx = await sessionContext(app, org.ownerToken);
  page = await ctx.newPage();
  errors = watchErrors(page);
}, 180_000);

afterAll(async () => {
  await ctx?.close();
  await app?.close();
});

/** The Alerts view's rows (their advisory ids), once the list of the URL has loaded. */
async function alertRows(p: Page = page): Promise<string[]> {
  await p.waitForFunction(
    () =>
      document.querySelector('.list-counts[data-ready-url]')?.getAttribute('data-ready-url') ===
      location.pathname + location.search,
  );
  return p.$$eval('table.grid tbody th[scope=row]', (els) => els.map((e) => (e.textContent ?? '').trim()));
}

test('the project page counts its alerts and says what each scan opened; its links lead to the Alerts view', async () => {
  await page.goto(`${app.baseUrl}/app/projects/${projectId}`);
  await page.getByRole('heading', { name: `Project ${PROJECT}` }).waitFor();
  const line = page.locator('.alert-summary');
  await line.waitFor();
  expect(await line.textContent()).toBe('Alerts of the default branch: 2 open · 1 fixed · 1 suppressed');
  // the first scan opened alpha, beta, delta and epsilon (the epsilon alert merged since is not counted); the second
  // opened nothing
  const row = (scan: string) => page.getByRole('row', { name: new RegExp(scan) });
  await row(s1).getByText('opened 4 alerts').waitFor();
  await row(s2).getByText('opened no alert').waitFor();
  await atBothWidths(page, 'alerts-project', () => row(s1).getByText('opened 4 alerts').waitFor());
  await page.getByRole('link', { name: '1 fixed' }).click();
  await page.waitForURL((u) => u.pathname === `/app/projects/${projectId}/alerts` && u.search === '?status=fixed');
  expect(await alertRows()).toEqual([ADV.beta.cve]);
  await page.goto(`${app.baseUrl}/app/projects/${projectId}`);
  // the project's link (the navigation's Alerts is the organization's)
  await page.getByRole('main').getByRole('link', { name: 'Alerts', exact: true }).click();
  await page.waitForURL((u) => u.pathname === `/app/projects/${projectId}/alerts` && u.search === '');
  expect((await alertRows()).sort()).toEqual([ADV.alpha.cve, epsilonAdvisory].sort());
});

test('the Alerts view: filters live in the URL, survive a reload and come back with browser Back', async () => {
  const base = `/app/projects/${projectId}/alerts`;
  await page.goto(`${app.baseUrl}${base}`);
  // open and not suppressed by default, most severe first: alpha (critical), then epsilon
  expect(await alertRows()).toEqual([ADV.alpha.cve, epsilonAdvisory]);
  expect(await page.locator('.list-counts').textContent()).toBe('2 open alerts');
  expect(await page.getByLabel('Status').inputValue()).toBe('open');
  await atBothWidths(page, 'alerts-list', () => alertRows());

  await page.getByLabel('Status').selectOption('fixed');
  await page.waitForURL((u) => u.search === '?status=fixed');
  expect(await alertRows()).toEqual([ADV.beta.cve]);
  expect(await page.getByRole('row', { name: new RegExp(ADV.beta.cve) }).textContent()).toContain('fixed');

  await page.getByLabel('Status').selectOption('all');
  await page.getByLabel('Suppressed').selectOption('all');
  await page.waitForURL(/suppressed=all/);
  expect((await alertRows()).sort()).toEqual([ADV.alpha.cve, ADV.beta.cve, ADV.delta.cve, epsilonAdvisory].sort());
  // the teams and modules of the alerts are the filters' choices, as text
  expect(await page.getByLabel('Team').locator('option').allTextContents()).toEqual([
    'All teams',
    TEAM_PAY,
    TEAM_PLATFORM,
  ]);
  await page.getByLabel('Team').selectOption(TEAM_PLATFORM);
  await page.waitForURL(/team=platform/);
  // :lib (team platform) declares alpha and epsilon
  expect((await alertRows()).sort()).toEqual([ADV.alpha.cve, epsilonAdvisory].sort());
  await page.getByLabel('Module').selectOption(MOD_WEB);
  await page.waitForURL(/module=/);
  await page.getByText('No alert matches these filters.').waitFor();
  await page.getByLabel('Team').selectOption('');
  await page.getByLabel('Severity', { exact: true }).selectOption('medium');
  await page.getByLabel('Severity match').selectOption('exact');
  await page.waitForURL(/severityMode=exact/);
  expect(await alertRows()).toEqual([ADV.delta.cve]); // :web<img…>'s, suppressed
  await page.getByLabel('Module').selectOption('');
  await page.waitForURL((u) => !u.search.includes('module='));
  // every medium alert, whatever its status or suppression: beta (fixed), delta (suppressed), epsilon
  expect((await alertRows()).sort()).toEqual([ADV.beta.cve, ADV.delta.cve, epsilonAdvisory].sort());
  await page.getByLabel('Package or advisory (starts with)').fill('org.demo:be');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.waitForURL(/q=org.demo/);
  expect(await alertRows()).toEqual([ADV.beta.cve]);
  const url = new URL(page.url());
  expect(Object.fromEntries(url.searchParams)).toEqual({
    status: 'all',
    severity: 'medium',
    severityMode: 'exact',
    q: 'org.demo:be',
    suppressed: 'all',
  });
  await checkView(page, 'alerts-list-filtered');

  await page.reload();
  expect(await alertRows()).toEqual([ADV.beta.cve]);
  expect(await page.getByLabel('Status').inputValue()).toBe('all');
  expect(await page.getByLabel('Severity', { exact: true }).inputValue()).toBe('medium');
  expect(await page.getByLabel('Severity match').inputValue()).toBe('exact');
  expect(await page.getByLabel('Suppressed').inputValue()).toBe('all');
  expect(await page.getByLabel('Package or advisory (starts with)').inputValue()).toBe('org.demo:be');

  // Back: the list before the search, then the one before the module was cleared, their filters shown again
  await page.goBack();
  await page.waitForURL((u) => !u.search.includes('q='));
  expect((await alertRows()).sort()).toEqual([ADV.beta.cve, ADV.delta.cve, epsilonAdvisory].sort());
  expect(await page.getByLabel('Package or advisory (starts with)').inputValue()).toBe('');
  await page.goBack();
  await page.waitForURL(/module=/);
  expect(await alertRows()).toEqual([ADV.delta.cve]);
  expect(await page.getByLabel('Module').inputValue()).toBe(MOD_WEB);

  // a column header sorts the rows shown
  await page.goto(`${app.baseUrl}${base}?status=all&suppressed=all`);
  await alertRows();
  await page.getByRole('button', { name: /^Package/ }).click();
  expect(await alertRows()).toEqual([ADV.alpha.cve, ADV.beta.cve, ADV.delta.cve, epsilonAdvisory]);
  await noScriptRan(page);
});

test('the Alerts view says a refusal in words, and an unknown project is not found', async () => {
  await page.goto(`${app.baseUrl}/app/projects/${projectId}/alerts?q=${'x'.repeat(513)}`);
  await page.getByRole('alert').filter({ hasText: 'The search must be at most 512 characters.' }).waitFor();
  await page.goto(`${app.baseUrl}/app/projects/no-such-project/alerts`);
  await page.getByRole('heading', { name: 'Project not found' }).waitFor();
  expect(await page.locator('table').count()).toBe(0);
});

test('an alert: its fields, and its history as a timeline from the newest event, each linking to its scan', async () => {
  await page.goto(`${app.baseUrl}/app/projects/${projectId}/alerts`);
  await alertRows();
  await page.getByRole('link', { name: ADV.alpha.cve }).click();
  await page.waitForURL(`**/app/alerts/${ids.alpha}`);
  await page.getByRole('heading', { name: `${ADV.alpha.cve} in org.demo:alpha` }).waitFor();
  const facts = page.locator('dl.facts');
  await facts.getByText(s2).waitFor();
  const text = (await facts.textContent())!;
  expect(text).toContain('open: the latest tracked scan has it');
  expect(text).toContain('1.0.1'); // installed now
  expect(text).toContain('9.0.0'); // the fixed version
  expect(text).toContain(CRITICAL_VECTOR);
  expect(text).toContain(ADV.alpha.id); // the alias
  expect(text).toContain(MOD_LIB);
  expect(text).toContain(TEAM_PLATFORM);
  expect(await facts.getByRole('link', { name: s1 }).getAttribute('href')).toBe(`/app/scans/${s1}`); // first seen
  expect(await facts.getByRole('link', { name: s2 }).getAttribute('href')).toBe(`/app/scans/${s2}`); // last seen
  const history = page.getByRole('list', { name: 'History' });
  await history.locator('li').nth(1).waitFor();
  const events = await history.locator('li').allTextContents();
  expect(events).toHaveLength(2);
  expect(events[0]).toMatch(/^Installed versions changed · \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  expect(events[0]).toContain('installed versions 1.0.0 → 1.0.1');
  expect(events[0]).toContain(`Scan ${s2}`);
  expect(events[1]).toMatch(/^Opened · /);
  expect(events[1]).toContain(`Scan ${s1}`);
  expect(events[1]).toMatch(/advisory generation \S+/); // the generation that opened it
  await atBothWidths(page, 'alerts-alert', () => history.locator('li').nth(1).waitFor());
  // the opening's scan link leads to that scan's findings
  await history.locator('li').nth(1).getByRole('link', { name: s1 }).click();
  await page.waitForURL(`**/app/scans/${s1}`);

  // the fixed one: fixed by the second scan, opened by the first
  await page.goto(`${app.baseUrl}/app/alerts/${ids.beta}`);
  await page.getByRole('heading', { name: `${ADV.beta.cve} in org.demo:beta` }).waitFor();
  await page.getByRole('list', { name: 'History' }).locator('li').nth(1).waitFor();
  const fixed = await page.getByRole('list', { name: 'History' }).locator('li').allTextContents();
  expect(fixed[0]).toMatch(/^Fixed · /);
  expect(fixed[0]).toContain('no longer found; it had 2.0.0');
  expect(fixed[0]).toContain(`Scan ${s2}`);
  expect(fixed[1]).toMatch(/^Opened · /);
  expect(await page.locator('dl.facts').textContent()).toContain('the latest tracked scan no longer has it');
  await noScriptRan(page);
});

test("a merged alert's id shows the alert it was merged into, saying so, with the merge in its history", async () => {
  await page.goto(`${app.baseUrl}/app/alerts/${ids.merged}`);
  const note = page.getByRole('note');
  await note.waitFor();
  expect(await note.textContent()).toContain(`Alert ${ids.merged} was merged into this one, ${ids.epsilon}`);
  await page.getByRole('heading', { name: new RegExp(` in org\\.demo:epsilon$`) }).waitFor();
  const history = page.getByRole('list', { name: 'History' });
  await history.locator('li').nth(1).waitFor();
  const events = await history.locator('li').allTextContents();
  expect(events.find((e) => e.startsWith('Merged'))).toContain(`alert ${ids.merged} merged into this one`);
  await checkView(page, 'alerts-merged');
  // the survivor's own page says nothing of the kind
  await page.goto(`${app.baseUrl}/app/alerts/${ids.epsilon}`);
  await page.locator('dl.facts').waitFor();
  expect(await page.getByRole('note').count()).toBe(0);
  await page.goto(`${app.baseUrl}/app/alerts/alr_doesnotexist`);
  await page.getByRole('heading', { name: 'Alert not found' }).waitFor();
});

test('findings link to their alert, in the list (reached with ArrowRight) and on the finding page', async () => {
  await page.goto(`${app.baseUrl}/app/scans/${s2}`);
  const link = page.getByRole('link', { name: `Alert of ${ADV.alpha.cve} in the project` });
  await link.waitFor();
  expect(await link.getAttribute('href')).toBe(`/app/alerts/${ids.alpha}`);
  const row = page.locator('[role=listitem]', { has: link });
  expect(await row.textContent()).toMatch(/first seen \d{4}-\d\d-\d\d/);
  // the list stays one Tab stop; ArrowRight goes from the finding's link to its alert's
  await row.getByRole('link', { name: ADV.alpha.cve, exact: true }).focus();
  await page.keyboard.press('ArrowRight');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('href'))).toBe(`/app/alerts/${ids.alpha}`);
  await page.keyboard.press('ArrowLeft');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(ADV.alpha.cve);
  await checkView(page, 'alerts-findings-link');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await page.waitForURL(`**/app/alerts/${ids.alpha}`);
  await page.getByRole('heading', { name: `${ADV.alpha.cve} in org.demo:alpha` }).waitFor();

  // the finding page: its alert, and when the project first saw it
  await page.goto(`${app.baseUrl}/app/scans/${s2}`);
  await page.getByRole('link', { name: ADV.alpha.cve, exact: true }).first().click();
  await page.getByRole('heading', { name: `${ADV.alpha.cve} in org.demo:alpha` }).waitFor();
  const alertLink = page.locator('dl.facts').getByRole('link', { name: /^Alert/ });
  await alertLink.waitFor();
  expect(await alertLink.getAttribute('href')).toBe(`/app/alerts/${ids.alpha}`);
  expect(await page.locator('dl.facts').textContent()).toMatch(/· first seen \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  await atBothWidths(page, 'alerts-finding', () => alertLink.waitFor());
  await alertLink.click();
  await page.waitForURL(`**/app/alerts/${ids.alpha}`);
  expect(unexpected(errors)).toEqual([]);
});
