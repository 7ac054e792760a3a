// The organization's Alerts view (/app/alerts) in a real browser against the real service and a real scan worker: two
// tracked projects, oa-shop (the demo monorepo: alpha critical, beta medium of team payments…, delta suppressed, of
// :web…) and oa-web (npm: leftpad-demo high with a fix, nofix-demo low without one), and a MADE-UP KEV catalog naming
// alpha's CVE. Checked: every project's alerts with a Project column; each of the API's filters set from the form
// lands in the URL and narrows the rows; a URL with every filter shows each in the form, sends each to the API, and
// survives a reload and Back; the CSV export of the same query is fetched with the app's header and saved as
// alerts.csv (a project's Alerts view exports the same way), a refusal said in words; the bulk decision across
// projects. At 390 and 1280 pixels, with axe-core. The pure pieces (web/src/alert-filters.ts) first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { importAdvisories } from '../../src/advisories/import';
import { importIntel } from '../../src/intel/import';
import {
  orgAlertApiQuery,
  orgAlertFiltersFromQuery,
  orgAlertFiltersToQuery,
  orgAlertsNarrowed,
} from '../../web/src/alert-filters';
import { bearer, workflowClosed, type Org } from '../helpers/context';
import { ADV, demoSnapshot, MOD_WEB, TEAM_PAY } from './fixtures';
import {
  advisoryDir,
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

const LEFTPAD = 'GHSA-demo-0011-llll';
const NOFIX = 'GHSA-demo-0012-nnnn';

/** An OSV advisory of one npm package (fixed in `fixed`, or never). */
const npmAdvisory = (id: string, name: string, cvss: string, fixed?: string) => ({
  id,
  aliases: [],
  modified: '2024-01-01T00:00:00Z',
  published: '2024-01-01T00:00:00Z',
  summary: `${name} flaw`,
  severity: [{ type: 'CVSS_V3', score: cvss }],
  affected: [
    {
      package: { ecosystem: 'npm', name },
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, ...(fixed ? [{ fixed }] : [])] }],
    },
  ],
});

/** A v1 npm snapshot whose one module declares `deps` (name@version). */
const npmSnapshot = (project: string, deps: string[]) => ({
  schemaVersion: 1,
  project,
  ecosystem: 'javascript',
  manifests: ['package-lock.json'],
  roots: [{ module: 'app', manifest: 'app/package.json', context: 'dependencies', dependencies: deps }],
  nodes: deps.map((id) => {
    const at = id.lastIndexOf('@');
    return { id, name: id.slice(0, at), version: id.slice(at + 1), relationship: 'direct', dependencies: [] };
  }),
});

/** A MADE-UP KEV catalog (CISA's format, not its content): alpha's CVE only. */
function madeUpKev(dir: string): string {
  const file = path.join(dir, 'kev.json');
  const entry = {
    cveID: ADV.alpha.cve,
    vendorProject: 'Demo',
    product: 'Alpha',
    vulnerabilityName: 'Alpha deserialization (made up)',
    dateAdded: '2024-01-02',
    shortDescription: 'Made up for the tests.',
    requiredAction: 'Upgrade.',
    dueDate: '2024-01-23',
  };
  const catalog = { catalogVersion: '2024.01.02', dateReleased: '2024-01-02T00:00:00.000Z', count: 1 };
  fs.writeFileSync(file, JSON.stringify({ ...catalog, vulnerabilities: [entry] }));
  return file;
}

describe('the pure pieces of the organization’s Alerts view', () => {
  test('every filter of the API from the URL and back (defaults left out), and to the API', () => {
    const d = orgAlertFiltersFromQuery({});
    expect(Object.values(orgAlertFiltersToQuery(d)).filter(Boolean)).toEqual([]);
    expect(orgAlertsNarrowed(d)).toBe(false);
    // every project: no project in the API query; open and unsuppressed said explicitly
    expect(Object.fromEntries(Object.entries(orgAlertApiQuery(d)).filter(([, v]) => v))).toEqual({
      status: 'open',
      suppressed: 'false',
      sort: 'risk',
    });
    const every = {
      project: 'shop',
      ecosystem: 'javascript',
      status: 'all',
      severity: 'high',
      severityMode: 'exact',
      analysis: 'none',
      suppressed: 'all',
      team: 'payments',
      module: ':app',
      package: 'left-pad',
      advisory: 'cve-2021-44228',
      fixable: 'false',
      kev: 'true',
      epssMin: '0.1',
      q: 'lo',
      sort: 'lastSeen',
    };
    const f = orgAlertFiltersFromQuery(every);
    expect(orgAlertsNarrowed(f)).toBe(true);
    const defined = (o: Record<string, string | undefined>) =>
      Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
    expect(defined(orgAlertFiltersToQuery(f))).toEqual(every);
    expect(defined(orgAlertApiQuery(f))).toEqual(every);
    // each filter of its own narrows the list (but the order, and a severity's mode without a severity)
    for (const [k, v] of Object.entries(every))
      expect([k, orgAlertsNarrowed(orgAlertFiltersFromQuery({ [k]: v }))]).toEqual([
        k,
        k !== 'sort' && k !== 'severityMode',
      ]);
    // junk falls back: an unknown ecosystem or fixable is no filter, blanks are none
    expect(orgAlertFiltersFromQuery({ ecosystem: 'cobol', fixable: 'maybe', package: '  ', project: '' })).toEqual(d);
  });
});

describe('the organization’s Alerts view', () => {
  let app: WebApp;
  let org: Org;
  let key: string;
  let tmp: string;
  const projects: Record<string, string> = {};
  const contexts: BrowserContext[] = [];
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    app = await startWebApp();
    ({ org, key } = await demoOrg(app, 'acme'));
    const npm = await importAdvisories(app.t.store, [
      advisoryDir([
        npmAdvisory(LEFTPAD, 'leftpad-demo', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', '2.0.0'), // 7.5 high
        npmAdvisory(NOFIX, 'nofix-demo', 'CVSS:3.1/AV:N/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N'), // 2.0 low
      ]),
    ]);
    expect(npm.rejected).toEqual([]);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'web-org-alerts-'));
    expect((await importIntel(app.t.store, 'kev', madeUpKev(tmp))).status).toBe('applied');
    for (const [name, snapshot] of [
      ['oa-shop', demoSnapshot('oa-shop')],
      ['oa-web', npmSnapshot('oa-web', ['leftpad-demo@1.0.0', 'nofix-demo@1.0.0'])],
    ] as const) {
      const scan = await uploadAndWait(app, key, snapshot);
      await workflowClosed(app.t, scan); // the alerts move after the scan completes, before its workflow closes
      projects[name] = (await app.t.api.get(`/v1/scans/${scan}`).set(bearer(key))).body.project;
    }
    ({ page, errors } = await sessionPage(app, org.ownerToken, contexts));
  }, 180_000);

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await app?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** The list's rows as [advisory, project], once the list of the URL has loaded. */
  async function rows(p: Page = page): Promise<string[][]> {
    await p.waitForFunction(
      () =>
        document.querySelector('.list-counts[data-ready-url]')?.getAttribute('data-ready-url') ===
        location.pathname + location.search,
    );
    if (await p.getByText('No alert matches these filters.').count()) return [];
    // the owner's rows start with their checkbox
    return (await tableRows(p, 'Alerts of every project')).map((r) => [r[1], r[2]]);
  }
  const search = () => Object.fromEntries(new URL(page.url()).searchParams);
  /** Whether a URL's query is exactly `expected` (in any order). */
  const holds = (u: URL, expected: Record<string, string>) =>
    JSON.stringify([...u.searchParams].sort()) === JSON.stringify(Object.entries(expected).sort());
  /** Chooses an option of a labelled select, then waits for the URL to hold `expected` (the whole query). */
  async function choose(label: string, value: string, expected: Record<string, string>) {
    await page.getByLabel(label, { exact: true }).selectOption(value);
    await page.waitForURL((u) => holds(u, expected));
  }
  /** Types into the text filters and searches; waits for the URL to hold `expected`. */
  async function type(fields: Record<string, string>, expected: Record<string, string>) {
    for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(value);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((u) => holds(u, expected));
  }

  test('every project’s alerts with their project; each filter of the API set in the form lands in the URL', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.baseUrl}/app/alerts`);
    await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
    // risk order: the known exploited alpha first, then by severity
    expect(await rows()).toEqual([
      [ADV.alpha.cve, 'oa-shop'],
      [LEFTPAD, 'oa-web'],
      [ADV.beta.cve, 'oa-shop'],
      [NOFIX, 'oa-web'],
    ]);
    expect(await page.locator('.list-counts').textContent()).toBe('4 open alerts');
    const table = page.getByRole('table', { name: 'Alerts of every project' });
    expect(await table.getByRole('link', { name: 'oa-web' }).first().getAttribute('href')).toBe(
      `/app/projects/${projects['oa-web']}`,
    );
    expect(
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Alerts' })
        .getAttribute('aria-current'),
    ).toBe('page');

    // project, ecosystem, whether a fix is known
    await choose('Project', 'oa-web', { project: 'oa-web' });
    expect(await rows()).toEqual([
      [LEFTPAD, 'oa-web'],
      [NOFIX, 'oa-web'],
    ]);
    await choose('Ecosystem', 'javascript', { project: 'oa-web', ecosystem: 'javascript' });
    await choose('Fix', 'false', { project: 'oa-web', ecosystem: 'javascript', fixable: 'false' });
    expect(await rows()).toEqual([[NOFIX, 'oa-web']]);
    await choose('Project', '', { ecosystem: 'javascript', fixable: 'false' });
    await choose('Ecosystem', 'gradle', { ecosystem: 'gradle', fixable: 'false' });
    await page.getByText('No alert matches these filters.').waitFor();

    // severity exactly, status, suppression, analysis, team
    await page.goto(`${app.baseUrl}/app/alerts`);
    await rows();
    await choose('Severity', 'medium', { severity: 'medium' });
    await choose('Severity match', 'exact', { severity: 'medium', severityMode: 'exact' });
    expect(await rows()).toEqual([[ADV.beta.cve, 'oa-shop']]);
    await choose('Status', 'all', { status: 'all', severity: 'medium', severityMode: 'exact' });
    await choose('Suppressed', 'all', { status: 'all', severity: 'medium', severityMode: 'exact', suppressed: 'all' });
    expect((await rows()).map((r) => r[0]).sort()).toEqual([ADV.beta.cve, ADV.delta.cve].sort());
    const wide = { status: 'all', severity: 'medium', severityMode: 'exact', suppressed: 'all' };
    await choose('Analysis', 'none', { ...wide, analysis: 'none' });
    expect(await rows()).toHaveLength(2);
    await choose('Team', TEAM_PAY, { ...wide, team: TEAM_PAY, analysis: 'none' });
    expect(await rows()).toEqual([[ADV.beta.cve, 'oa-shop']]);
    await choose('Team', '', { ...wide, analysis: 'none' });
    // the module, a package (exactly) and an advisory (any alias, any case) as text
    await type({ 'Module (path)': MOD_WEB }, { ...wide, module: MOD_WEB, analysis: 'none' });
    expect(await rows()).toEqual([[ADV.delta.cve, 'oa-shop']]);
    await page.goto(`${app.baseUrl}/app/alerts`);
    await rows();
    await type({ 'Package (exact name)': 'org.demo:beta' }, { package: 'org.demo:beta' });
    expect(await rows()).toEqual([[ADV.beta.cve, 'oa-shop']]);
    await type(
      { 'Package (exact name)': '', 'Advisory (any id)': ADV.alpha.id.toLowerCase() },
      { advisory: ADV.alpha.id.toLowerCase() },
    );
    expect(await rows()).toEqual([[ADV.alpha.cve, 'oa-shop']]);
    // known exploited, a lowest EPSS score (none imported: nothing has one), the order, a prefix search
    await page.goto(`${app.baseUrl}/app/alerts`);
    await rows();
    await choose('Known exploited', 'true', { kev: 'true' });
    expect(await rows()).toEqual([[ADV.alpha.cve, 'oa-shop']]);
    await choose('EPSS score', '0.5', { kev: 'true', epssMin: '0.5' });
    expect(await rows()).toEqual([]);
    await page.goto(`${app.baseUrl}/app/alerts`);
    await rows();
    await choose('Order', 'severity', { sort: 'severity' });
    expect((await rows()).map((r) => r[0])).toEqual([ADV.alpha.cve, LEFTPAD, ADV.beta.cve, NOFIX]);
    await type({ 'Package or advisory (starts with)': 'leftpad' }, { q: 'leftpad', sort: 'severity' });
    expect(await rows()).toEqual([[LEFTPAD, 'oa-web']]);
    await noScriptRan(page);
    expect(unexpected(errors)).toEqual([]);
  });

  test('a URL with every filter: each shown in the form and sent to the API; a reload keeps them, Back restores the list before', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const every = {
      project: 'oa-shop',
      ecosystem: 'gradle',
      status: 'all',
      severity: 'medium',
      severityMode: 'exact',
      analysis: 'none',
      suppressed: 'all',
      team: TEAM_PAY,
      module: ':app',
      package: 'org.demo:beta',
      advisory: ADV.beta.cve.toLowerCase(),
      fixable: 'true',
      kev: 'false',
      epssMin: '0.01',
      q: 'org.demo:b',
      sort: 'lastSeen',
    };
    const sent: Record<string, string>[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname === '/v1/alerts') sent.push(Object.fromEntries(u.searchParams));
    });
    await page.goto(`${app.baseUrl}/app/alerts?q=org.demo%3Ab`);
    expect(await rows()).toEqual([[ADV.beta.cve, 'oa-shop']]);
    await page.goto(`${app.baseUrl}/app/alerts?${new URLSearchParams(every)}`);
    // nothing has an EPSS score: no row, whatever the rest
    await page.getByText('No alert matches these filters.').waitFor();
    const { limit, ...query } = sent[sent.length - 1];
    expect([limit, query]).toEqual(['100', every]);
    const shows = async () => ({
      project: await page.getByLabel('Project', { exact: true }).inputValue(),
      ecosystem: await page.getByLabel('Ecosystem').inputValue(),
      status: await page.getByLabel('Status').inputValue(),
      severity: await page.getByLabel('Severity', { exact: true }).inputValue(),
      severityMode: await page.getByLabel('Severity match').inputValue(),
      analysis: await page.getByLabel('Analysis').inputValue(),
      suppressed: await page.getByLabel('Suppressed').inputValue(),
      team: await page.getByLabel('Team').inputValue(),
      module: await page.getByLabel('Module (path)').inputValue(),
      package: await page.getByLabel('Package (exact name)').inputValue(),
      advisory: await page.getByLabel('Advisory (any id)').inputValue(),
      fixable: await page.getByLabel('Fix', { exact: true }).inputValue(),
      kev: await page.getByLabel('Known exploited').inputValue(),
      epssMin: await page.getByLabel('EPSS score').inputValue(),
      q: await page.getByLabel('Package or advisory (starts with)').inputValue(),
      sort: await page.getByLabel('Order').inputValue(),
    });
    expect(await shows()).toEqual(every);
    await page.reload();
    await page.getByText('No alert matches these filters.').waitFor();
    expect(await shows()).toEqual(every);
    expect(search()).toEqual(every);
    // without the EPSS threshold, the rest still finds beta (medium, :app of team payments…, fixed in 9.0.0)
    await choose('EPSS score', '', (({ epssMin, ...rest }) => rest)(every));
    expect(await rows()).toEqual([[ADV.beta.cve, 'oa-shop']]);
    await page.goBack();
    await page.getByText('No alert matches these filters.').waitFor();
    await page.goBack();
    await page.waitForURL((u) => holds(u, { q: 'org.demo:b' }));
    expect(await rows()).toEqual([[ADV.beta.cve, 'oa-shop']]);
    expect(await page.getByLabel('Advisory (any id)').inputValue()).toBe('');
    expect(await page.getByLabel('Project', { exact: true }).inputValue()).toBe('');
  });

  test('the CSV export: the same query, fetched with the app’s header and saved as alerts.csv; a refusal in words', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const headers: Record<string, string>[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/v1/alerts/export.csv') headers.push(r.headers());
    });
    await page.goto(`${app.baseUrl}/app/alerts?project=oa-web&sort=severity`);
    await rows();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('alerts.csv');
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    const [head, ...records] = csv.split('\r\n').filter(Boolean);
    expect(head.split(',').slice(0, 5)).toEqual(['id', 'project', 'projectSlug', 'ecosystem', 'package']);
    // every alert of the list's query, in its order
    const listed = (await app.t.api.get(`/v1/alerts?project=oa-web&sort=severity`).set(bearer(key))).body.alerts.map(
      (a: { id: string }) => a.id,
    );
    expect(listed).toHaveLength(2);
    expect(records.map((r) => r.split(',')[0])).toEqual(listed);
    expect(records.map((r) => r.split(',')[2])).toEqual(['oa-web', 'oa-web']);
    expect(headers.map((h) => h['x-svc-app'])).toEqual(['1']);
    await page.getByRole('status').filter({ hasText: 'alerts.csv holds every alert of these filters.' }).waitFor();
    // a project's own Alerts view exports its list the same way
    await page.goto(`${app.baseUrl}/app/projects/${projects['oa-web']}/alerts?sort=severity`);
    await page.locator('.list-counts[data-ready-url]').waitFor();
    const [again] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(fs.readFileSync((await again.path())!, 'utf8')).toBe(csv);

    // refused (the search is too long): said in words, nothing saved
    let downloads = 0;
    page.on('download', () => downloads++);
    await page.goto(`${app.baseUrl}/app/alerts?q=${'x'.repeat(513)}`);
    await page.getByRole('alert').filter({ hasText: 'The search must be at most 512 characters.' }).first().waitFor();
    await page.getByRole('button', { name: 'Export CSV' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Could not download the CSV: The search must be at most 512 characters.' })
      .waitFor();
    expect(downloads).toBe(0);
    // an unknown project: the list says so
    await page.goto(`${app.baseUrl}/app/alerts?project=no-such-project`);
    await page
      .getByRole('alert')
      .filter({ hasText: 'The project: "no-such-project" does not exist or is out of reach.' })
      .waitFor();
    await checkView(page, 'org-alerts-refused');
    expect(unexpected(errors)).toEqual([]);
  });

  test('at a phone’s and a wide screen’s width: axe, no sideways scroll', async () => {
    await page.goto(`${app.baseUrl}/app/alerts?status=all&suppressed=all`);
    await atBothWidths(page, 'org-alerts', () => rows());
    await noScriptRan(page);
  });

  test('the bulk decision across projects: two selected alerts of two projects decided at once', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.baseUrl}/app/alerts`);
    const before = await rows();
    expect(before).toHaveLength(4);
    await page.getByRole('checkbox', { name: `Select ${ADV.alpha.cve} in org.demo:alpha of oa-shop` }).click();
    await page.getByRole('checkbox', { name: `Select ${LEFTPAD} in leftpad-demo of oa-web` }).click();
    await page.locator('.bulk-count').getByText('2 selected', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Triage the 2 selected…' }).click();
    const form = page.getByRole('form', { name: 'Triage the 2 selected alerts' });
    await form.getByRole('radio', { name: /^False positive/ }).check();
    await form.getByLabel('Detail (required)').fill('Both are shaded copies that are never loaded.');
    await atBothWidths(page, 'org-alerts-bulk', () => form.waitFor());
    await page.setViewportSize({ width: 1280, height: 900 });
    await form.getByRole('button', { name: 'Apply to 2 alerts' }).click();
    await page
      .locator('.bulk-result')
      .getByText(/^2 alerts marked “false positive”: suppressed, they leave a list that hides suppressed alerts\./)
      .waitFor();
    // read again: the two left the list of unsuppressed alerts
    await page.waitForFunction(() => document.querySelectorAll('table.grid tbody tr').length === 2);
    expect(await rows()).toEqual([
      [ADV.beta.cve, 'oa-shop'],
      [NOFIX, 'oa-web'],
    ]);
    const decided = (await app.t.api.get('/v1/alerts?analysis=false_positive&suppressed=all').set(bearer(key))).body
      .alerts as { advisory: string; project: string; analysis: { state: string; bulkId: string } }[];
    expect(decided.map((a) => [a.advisory, a.project]).sort()).toEqual(
      [
        [ADV.alpha.cve, projects['oa-shop']],
        [LEFTPAD, projects['oa-web']],
      ].sort(),
    );
    expect(new Set(decided.map((a) => a.analysis.bulkId)).size).toBe(1);
    expect(unexpected(errors)).toEqual([]);
  });
});
