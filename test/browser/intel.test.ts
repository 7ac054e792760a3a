// Threat intelligence in the web app, in a real browser against the real service and a real scan worker: the REAL CISA
// KEV catalog of the shared test data and a tiny EPSS file whose scores are MADE UP (written here), then two tracked
// projects. intel-shop's :app (team payments) declares org.demo:kappa@1.0.0, whose advisory is an alias of
// CVE-2021-44228 (in the catalog, known ransomware use), and alpha (critical); its :lib (team platform) declares beta
// (medium). intel-api's :api (team identity) has kappa@1.0.1 through org.demo:wrapper. Checked: the KEV badge and EPSS
// figure on the finding row, the finding page, the alert row and the alert page, with their words; the risk order
// puts the KEV alert first, the sort control and the KEV and EPSS filters change the URL and the rows; the advisory
// page (details as text, references, ranges, the projects and their teams); the where-used search (by name: two
// projects; with a version: one); the links from a finding's row and page reach both pages. The new pages with axe at
// 390 and 1280 pixels.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { importAdvisories } from '../../src/advisories/import';
import { importIntel } from '../../src/intel/import';
import { bearer, newOrg, workflowClosed, type Org } from '../helpers/context';
import { describeWithSharedData, sharedDataPath } from '../helpers/shared-data';
import { v2Snapshot } from '../helpers/v2';
import { ADV, demoAdvisories, mavenAdvisory, XSS } from './fixtures';
import {
  advisoryDir,
  atBothWidths,
  checkView,
  findingsRows,
  noScriptRan,
  sessionPage,
  startWebApp,
  unexpected,
  uploadAndWait,
  type WebApp,
  tableRows,
} from './helpers';

/** In the real KEV catalog: added 2021-12-10, due 2021-12-24, known ransomware campaign use. */
const KEV_CVE = 'CVE-2021-44228';
const KAPPA_GHSA = 'GHSA-demo-0010-kkkk';
const LOW_MEDIUM = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:L/I:N/A:N'; // 4.3, below beta's 5.4
const SHOP = 'intel-shop';
const API = 'intel-api';

/** The KEV advisory: medium, so that only the risk order puts it first. Its details and a reference carry payloads. */
const kappa = {
  ...mavenAdvisory({
    id: KAPPA_GHSA,
    name: 'org.demo:kappa',
    cvss: LOW_MEDIUM,
    aliases: [KEV_CVE],
    summary: 'Kappa lookup injection',
    details: `Kappa **evaluates** lookups.\n\nSecond paragraph ${XSS.script}`,
  }),
  references: [
    { type: 'ADVISORY', url: 'https://example.test/kappa-advisory' },
    { type: 'WEB', url: 'javascript:window.__xss=4' },
  ],
};

/** MADE-UP EPSS scores (not FIRST's): kappa's CVE high, beta's middling, alpha's low. */
const EPSS_CSV = [
  '#model_version:v2025.03.14,score_date:2025-08-25T00:00:00+0000',
  'cve,epss,percentile',
  `${KEV_CVE},0.943,0.99982`,
  `${ADV.beta.cve},0.5,0.97`,
  `${ADV.alpha.cve},0.02,0.6`,
  '',
].join('\n');

function shopSnapshot() {
  return v2Snapshot(
    [
      {
        module: ':app',
        context: 'runtimeClasspath',
        vertices: [
          ['a', ':app', 'k', 'al'],
          ['k', 'org.demo:kappa@1.0.0'],
          ['al', 'org.demo:alpha@1.0.0'],
        ],
      },
      {
        module: ':lib',
        context: 'runtimeClasspath',
        vertices: [
          ['l', ':lib', 'b'],
          ['b', 'org.demo:beta@2.0.0'],
        ],
      },
    ],
    [
      { path: ':app', dependencies: [], teamName: 'payments' },
      { path: ':lib', dependencies: [], teamName: 'platform' },
    ],
    { project: SHOP, manifests: ['build.gradle'] },
  );
}

function apiSnapshot() {
  return v2Snapshot(
    [
      {
        module: ':api',
        context: 'runtimeClasspath',
        vertices: [
          ['a', ':api', 'w'],
          ['w', 'org.demo:wrapper@3.0.0', 'k'],
          ['k', 'org.demo:kappa@1.0.1'],
        ],
      },
    ],
    [{ path: ':api', dependencies: [], teamName: 'identity' }],
    { project: API, manifests: ['build.gradle'] },
  );
}

describeWithSharedData('threat intelligence in the web app', () => {
  let app: WebApp;
  let org: Org;
  let key: string;
  let shopScan: string;
  let shopId: string;
  let apiId: string;
  /** The shop's alert ids and advisories by package (alpha, beta, kappa). */
  const ids: Record<string, string> = {};
  const advisories: Record<string, string> = {};
  const contexts: BrowserContext[] = [];
  let page: Page;
  let errors: string[];
  let tmp: string;

  beforeAll(async () => {
    app = await startWebApp();
    const report = await importAdvisories(app.t.store, [advisoryDir([...demoAdvisories(), kappa])]);
    expect(report.rejected).toEqual([]);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'web-intel-'));
    const epssFile = path.join(tmp, 'epss.csv');
    fs.writeFileSync(epssFile, EPSS_CSV);
    const kev = await importIntel(app.t.store, 'kev', sharedDataPath('intel', 'known_exploited_vulnerabilities.json'));
    const epss = await importIntel(app.t.store, 'epss', epssFile);
    expect([kev.status, epss.status, epss.count]).toEqual(['applied', 'applied', 3]);
    org = await newOrg(app.t.store, 'acme');
    key = await org.key(['sca:upload', 'scans:read', 'findings:read', 'deps:read']);
    shopScan = await uploadAndWait(app, key, shopSnapshot());
    const apiScan = await uploadAndWait(app, key, apiSnapshot());
    await workflowClosed(app.t, shopScan);
    await workflowClosed(app.t, apiScan);
    shopId = (await app.t.api.get(`/v1/scans/${shopScan}`).set(bearer(key))).body.project;
    apiId = (await app.t.api.get(`/v1/scans/${apiScan}`).set(bearer(key))).body.project;
    const all = await app.t.api.get(`/v1/alerts?project=${shopId}`).set(bearer(key));
    for (const a of all.body.alerts as { id: string; package: string; advisory: string }[]) {
      ids[a.package.replace('org.demo:', '')] = a.id;
      advisories[a.package.replace('org.demo:', '')] = a.advisory;
    }
    expect(Object.keys(ids).sort()).toEqual(['alpha', 'beta', 'kappa']);
    expect(advisories.kappa).toBe(KEV_CVE);
    ({ page, errors } = await sessionPage(app, org.ownerToken, contexts));
  }, 180_000);

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await app?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** The text of an element as seen (visually hidden text left out). */
  const seen = (l: Locator) =>
    l.evaluate((e) => {
      const copy = e.cloneNode(true) as HTMLElement;
      copy.querySelectorAll('.visually-hidden').forEach((h) => h.remove());
      return (copy.textContent ?? '').trim();
    });

  const KEV_WORDS =
    "Known exploited: in CISA's KEV catalog since 2021-12-10, action due 2021-12-24, known ransomware campaign use";

  /** The alerts list's rows (their advisory), once the list of the URL is shown. */
  async function alertRows(p: Page = page): Promise<string[]> {
    await p.waitForFunction(
      () =>
        document.querySelector('.list-counts[data-ready-url]')?.getAttribute('data-ready-url') ===
        location.pathname + location.search,
    );
    return p.$$eval('table.grid tbody th[scope=row]', (els) => els.map((e) => (e.textContent ?? '').trim()));
  }

  test('the finding row and page show KEV and EPSS in words, the CVSS vector, and link to the advisory and where-used pages', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.baseUrl}/app/scans/${shopScan}`);
    await findingsRows(page);
    const link = page.getByRole('link', { name: KEV_CVE, exact: true });
    const row = page.locator('[role=listitem]', { has: link });
    const badge = row.locator('.badge-kev');
    expect(await seen(badge)).toBe('KEV');
    expect(await badge.textContent()).toBe(`KEV (${KEV_WORDS})`);
    expect(await badge.getAttribute('title')).toBe(KEV_WORDS);
    const epss = row.locator('.badge-epss');
    expect(await seen(epss)).toBe('EPSS 94.3%');
    expect(await epss.getAttribute('title')).toBe(
      'EPSS 94.3%: a 94.3% probability of exploitation in the next 30 days, higher than 99.9% of scored CVEs (scores of 2025-08-25)',
    );
    // alpha: an EPSS score, no KEV entry
    const alphaRow = page.locator('[role=listitem]', {
      has: page.getByRole('link', { name: ADV.alpha.cve, exact: true }),
    });
    expect(await alphaRow.locator('.badge-kev').count()).toBe(0);
    expect(await seen(alphaRow.locator('.badge-epss'))).toBe('EPSS 2.0%');
    await atBothWidths(page, 'intel-findings', () => findingsRows(page));
    await page.setViewportSize({ width: 1280, height: 900 });

    // the row's links: to the advisory page, and to where kappa@1.0.0 is used
    const toAdvisory = row.getByRole('link', { name: `Advisory ${KEV_CVE} in every project` });
    expect(await toAdvisory.getAttribute('href')).toBe(`/app/advisories/${KEV_CVE}`);
    const toUsages = row.getByRole('link', { name: 'Where used: org.demo:kappa@1.0.0' });
    expect(await toUsages.getAttribute('href')).toBe(
      '/app/where-used?name=org.demo%3Akappa&version=1.0.0&ecosystem=gradle',
    );
    await toAdvisory.click();
    await page.getByRole('heading', { name: `Advisory ${KAPPA_GHSA}` }).waitFor();
    await page.goBack();
    await findingsRows(page);
    await row.getByRole('link', { name: 'Where used: org.demo:kappa@1.0.0' }).click();
    await page.getByRole('heading', { name: 'Where org.demo:kappa@1.0.0 (gradle) is used' }).waitFor();
    await page.goBack();

    // the finding page: KEV and EPSS in words, the CVSS vector, and the same two links
    await findingsRows(page);
    await link.click();
    await page.getByRole('heading', { name: `${KEV_CVE} in org.demo:kappa` }).waitFor();
    const facts = page.locator('dl.facts');
    await facts.getByText(KEV_WORDS).waitFor();
    const text = (await facts.textContent())!;
    expect(text).toContain(
      'EPSS 94.3%: the probability of exploitation in the next 30 days; higher than 99.9% of scored CVEs (scores of 2025-08-25)',
    );
    expect(text).toContain(`4.3 (CVSS 3.1) ${LOW_MEDIUM}`);
    await atBothWidths(page, 'intel-finding', () => facts.getByText(KEV_WORDS).waitFor());
    await facts.getByRole('link', { name: `The advisory ${KEV_CVE} and every project it affects` }).click();
    await page.getByRole('heading', { name: `Advisory ${KAPPA_GHSA}` }).waitFor();
    await page.goBack();
    await facts.getByRole('link', { name: 'Where org.demo:kappa@1.0.0 is used' }).click();
    await page.getByRole('heading', { name: 'Where org.demo:kappa@1.0.0 (gradle) is used' }).waitFor();
    expect(await tableRows(page, 'Projects that install org.demo:kappa@1.0.0 (gradle)')).toEqual([
      [SHOP, 'gradle', 'org.demo:kappa', '1.0.0', 'direct', ':app → org.demo:kappa@1.0.0'],
    ]);
    expect(unexpected(errors)).toEqual([]);
  });

  test('alerts: risk order puts the KEV alert first; the sort control and the KEV and EPSS filters live in the URL', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const base = `/app/projects/${shopId}/alerts`;
    await page.goto(`${app.baseUrl}${base}`);
    // risk (the default): KEV first, then severity (alpha critical, beta medium)
    expect(await alertRows()).toEqual([KEV_CVE, ADV.alpha.cve, ADV.beta.cve]);
    expect(await page.getByLabel('Order').inputValue()).toBe('risk');
    const row = page.locator('table.grid tbody tr', {
      has: page.getByRole('link', { name: KEV_CVE, exact: true }),
    });
    const badge = row.locator('.badge-kev');
    expect(await seen(badge)).toBe('KEV');
    expect(await badge.textContent()).toBe(`KEV (${KEV_WORDS})`);
    expect(await seen(row.locator('.badge-epss'))).toBe('EPSS 94.3%');
    await atBothWidths(page, 'intel-alerts', () => alertRows());
    await page.setViewportSize({ width: 1280, height: 900 });

    // most severe first: alpha (critical), then beta (5.4) before kappa (4.3)
    await page.getByLabel('Order').selectOption('severity');
    await page.waitForURL(/sort=severity/);
    expect(await alertRows()).toEqual([ADV.alpha.cve, ADV.beta.cve, KEV_CVE]);
    await page.getByLabel('Order').selectOption('risk');
    await page.waitForURL((u) => !u.search.includes('sort='));
    expect(await alertRows()).toEqual([KEV_CVE, ADV.alpha.cve, ADV.beta.cve]);

    // KEV only, then not in KEV; a lowest EPSS score
    await page.getByLabel('Known exploited').selectOption('true');
    await page.waitForURL(/kev=true/);
    expect(await alertRows()).toEqual([KEV_CVE]);
    await page.getByLabel('Known exploited').selectOption('false');
    await page.waitForURL(/kev=false/);
    expect(await alertRows()).toEqual([ADV.alpha.cve, ADV.beta.cve]);
    await page.getByLabel('Known exploited').selectOption('');
    await page.getByLabel('EPSS score').selectOption('0.5');
    await page.waitForURL(/epssMin=0.5/);
    expect(await alertRows()).toEqual([KEV_CVE, ADV.beta.cve]);
    expect(new URL(page.url()).search).toBe('?epssMin=0.5');
    // a reload keeps it; a threshold the select does not offer is shown as written
    await page.reload();
    expect(await alertRows()).toEqual([KEV_CVE, ADV.beta.cve]);
    await page.goto(`${app.baseUrl}${base}?epssMin=0.95&sort=lastSeen`);
    await page.getByText('No alert matches these filters.').waitFor();
    expect(await page.getByLabel('EPSS score').inputValue()).toBe('0.95');
    expect(await page.getByLabel('Order').inputValue()).toBe('lastSeen');

    // the alert page: KEV and EPSS in words, the CVSS vector, and the links across projects
    await page.goto(`${app.baseUrl}/app/alerts/${ids.kappa}`);
    const facts = page.locator('dl.facts');
    await facts.getByText(KEV_WORDS).waitFor();
    expect(await facts.textContent()).toContain(`4.3 (CVSS 3.1) ${LOW_MEDIUM}`);
    expect(await facts.textContent()).toContain('higher than 99.9% of scored CVEs (scores of 2025-08-25)');
    expect(
      await facts
        .getByRole('link', { name: `The advisory ${KEV_CVE} and every project it affects` })
        .getAttribute('href'),
    ).toBe(`/app/advisories/${KEV_CVE}`);
    expect(await facts.getByRole('link', { name: 'Where org.demo:kappa@1.0.0 is used' }).getAttribute('href')).toBe(
      '/app/where-used?name=org.demo%3Akappa&version=1.0.0&ecosystem=gradle',
    );
    await atBothWidths(page, 'intel-alert', () => facts.getByText(KEV_WORDS).waitFor());
    expect(unexpected(errors)).toEqual([]);
  });

  test('the advisory page: details as text, ranges, references (web addresses only), every project and team', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.baseUrl}/app/advisories/${KEV_CVE.toLowerCase()}`);
    await page.getByRole('heading', { name: `Advisory ${KAPPA_GHSA}` }).waitFor();
    const ready = () =>
      page.waitForFunction(
        () =>
          document.querySelector('.list-counts[data-ready-url]')?.getAttribute('data-ready-url') ===
          location.pathname + location.search,
      );
    await ready();
    // asked by its CVE alias (any case): the page says whose it is
    expect(await page.getByRole('note').first().textContent()).toBe(
      `${KEV_CVE.toLowerCase()} is another id of this advisory: it is shown by its own id, ${KAPPA_GHSA}.`,
    );
    const facts = page.locator('dl.facts');
    const text = (await facts.textContent())!;
    expect(text).toContain('Kappa lookup injection');
    expect(text).toContain(KEV_CVE);
    expect(text).toContain(KEV_WORDS);
    expect(text).toContain(`4.3 (CVSS 3.1) ${LOW_MEDIUM}`);
    expect(text).toContain('2024-01-01 00:00 UTC');
    // details as text: the Markdown as written, the payload as text
    expect(await page.locator('.advisory-details').textContent()).toBe(kappa.details);
    expect(await page.locator('.advisory-details strong').count()).toBe(0);
    expect(await tableRows(page, `Packages ${KAPPA_GHSA} affects`)).toEqual([
      ['org.demo:kappaWhere used', 'Maven', 'ECOSYSTEM: introduced 0, fixed 9.0.0', 'none listed'],
    ]);
    const ref = page.getByRole('link', { name: 'https://example.test/kappa-advisory (opens a new tab)' });
    expect(await ref.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await ref.getAttribute('target')).toBe('_blank');
    expect(await page.locator('ul.references').textContent()).toContain(
      'javascript:window.__xss=4 (not a web address: not linked)',
    );
    expect(await page.locator('ul.references a').count()).toBe(1);
    // the open alerts, by project (slug order), with their teams
    expect(await page.locator('.list-counts').textContent()).toBe('2 projects with 2 open alerts');
    expect(await tableRows(page, `Open alerts of ${KAPPA_GHSA}, by project`)).toEqual([
      [`${API}1 open alert`, 'org.demo:kappa (gradle)', '1.0.1', 'medium', 'identity', 'Alert'],
      [`${SHOP}1 open alert`, 'org.demo:kappa (gradle)', '1.0.0', 'medium', 'payments', 'Alert'],
    ]);
    expect(await page.getByRole('link', { name: API, exact: true }).getAttribute('href')).toBe(
      `/app/projects/${apiId}`,
    );
    expect(await page.getByRole('link', { name: `Alert of org.demo:kappa in ${SHOP}` }).getAttribute('href')).toBe(
      `/app/alerts/${ids.kappa}`,
    );
    expect(
      await page
        .getByRole('table', { name: `Packages ${KAPPA_GHSA} affects` })
        .getByRole('link', { name: 'Where used: org.demo:kappa' })
        .getAttribute('href'),
    ).toBe('/app/where-used?name=org.demo%3Akappa');
    await atBothWidths(page, 'intel-advisory', ready);
    await noScriptRan(page);

    // an id nothing has is the not-found view
    await page.goto(`${app.baseUrl}/app/advisories/CVE-2099-999999`);
    await page.getByRole('heading', { name: 'Advisory not found' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('No advisory CVE-2099-999999');
    expect(unexpected(errors)).toEqual([]);
  });

  test('where used: the search lives in the URL; by name two projects, with a version one; empty results in words', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.baseUrl}/app/projects`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Where used' }).click();
    await page.getByRole('heading', { name: 'Where used' }).waitFor();
    expect(await page.getByText('Search a package by its name').count()).toBe(1);
    await atBothWidths(page, 'intel-where-used-empty', () => page.getByLabel('Package name').waitFor());
    await page.setViewportSize({ width: 1280, height: 900 });
    const ready = () =>
      page.waitForFunction(
        () =>
          document.querySelector('.list-counts[data-ready-url]')?.getAttribute('data-ready-url') ===
          location.pathname + location.search,
      );

    await page.getByLabel('Package name').fill('org.demo:kappa');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/name=org.demo%3Akappa/);
    await ready();
    expect(await page.locator('.list-counts').textContent()).toBe('2 usages in 2 projects');
    expect(await tableRows(page, 'Projects that install org.demo:kappa')).toEqual([
      [API, 'gradle', 'org.demo:kappa', '1.0.1', 'transitive', ':api → org.demo:wrapper@3.0.0 → org.demo:kappa@1.0.1'],
      [SHOP, 'gradle', 'org.demo:kappa', '1.0.0', 'direct', ':app → org.demo:kappa@1.0.0'],
    ]);
    expect(await page.getByRole('link', { name: SHOP, exact: true }).getAttribute('href')).toBe(
      `/app/projects/${shopId}`,
    );
    await atBothWidths(page, 'intel-where-used', ready);
    await page.setViewportSize({ width: 1280, height: 900 });

    // a version narrows to one; a reload keeps the search, and the form shows it
    await page.getByLabel('Version (optional)').fill('1.0.1');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/version=1.0.1/);
    await ready();
    expect(await page.locator('.list-counts').textContent()).toBe('1 usage in 1 project');
    await page.reload();
    await ready();
    expect(await page.getByLabel('Package name').inputValue()).toBe('org.demo:kappa');
    expect(await page.getByLabel('Version (optional)').inputValue()).toBe('1.0.1');
    expect((await tableRows(page, 'Projects that install org.demo:kappa@1.0.1')).map((r) => r[0])).toEqual([API]);

    // nothing found: said in words, with the search without its version
    await page.goto(`${app.baseUrl}/app/where-used?name=org.demo%3Akappa&version=7.7.7`);
    await ready();
    await page.getByText("No project's latest scan installs org.demo:kappa@7.7.7").waitFor();
    await page.getByRole('link', { name: 'search org.demo:kappa in every version and ecosystem' }).click();
    await page.waitForURL((u) => u.search === '?name=org.demo%3Akappa');
    await ready();
    expect(await page.locator('.list-counts').textContent()).toBe('2 usages in 2 projects');
    await page.goBack();
    await ready();
    expect(await page.getByLabel('Version (optional)').inputValue()).toBe('7.7.7');
    await checkView(page, 'intel-where-used-none');
    expect(unexpected(errors)).toEqual([]);
  });
});
