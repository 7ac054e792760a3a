// The triage views in a real browser against the real service: projects, a project's scans, a scan's findings with
// its filters and view toggle in the URL (surviving a reload), a finding with its SVG graph, keyboard-only use,
// script payloads in every user-controlled text never running, another organization seeing nothing, and axe-core
// on each view.
import type { BrowserContext, Page } from 'playwright-core';
import { importAdvisories } from '../../src/advisories/import';
import { markFailed } from '../../src/storage/scans';
import { pack, unpack } from '../../src/storage/scan-document';
import { bearer, newOrg, type Org } from '../helpers/context';
import { createPagedScan } from '../helpers/paged';
import {
  ADV,
  ALPHA,
  demoAdvisories,
  demoSnapshot,
  MOD_APP,
  MOD_LIB,
  MOD_WEB,
  TEAM_PAY,
  TEAM_PLATFORM,
  XSS,
} from './fixtures';
import {
  advisoryDir,
  checkView,
  step,
  sessionContext,
  startWebApp,
  uploadAndWait,
  watchErrors,
  type WebApp,
  noScriptRan,
  findingsRows,
} from './helpers';

const PROJECT = `shop${XSS.img}`;
let app: WebApp;
let org: Org;
let key: string;
let scanId: string;
let projectId: string;
let ctx: BrowserContext;
let page: Page;
let errors: string[];

beforeAll(async () => {
  step('start');
  app = await startWebApp();
  step('started');
  const report = await importAdvisories(app.t.store, [advisoryDir(demoAdvisories())]);
  expect(report.rejected).toEqual([]);
  org = await newOrg(app.t.store, `acme ${XSS.script}`);
  key = await org.key(['sca:upload', 'scans:read', 'findings:read', 'deps:read']);
  step('advisories imported');
  scanId = await uploadAndWait(app, key, demoSnapshot(PROJECT));
  step('scan completed');
  projectId = (await app.t.api.get(`/v1/scans/${scanId}`).set(bearer(key))).body.project;
  ctx = await sessionContext(app, org.ownerToken);
  page = await ctx.newPage();
  errors = watchErrors(page);
}, 120_000);

afterAll(async () => {
  await ctx?.close();
  await app?.close();
});

const rows = (p: Page = page) => findingsRows(p);

test('projects → project → findings: the introduced view by default, grouped by declaring module; axe on each view', async () => {
  await page.goto(`${app.baseUrl}/app/projects`);
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
  await page.getByRole('link', { name: PROJECT }).waitFor();
  await checkView(page, 'projects');
  await page.getByRole('link', { name: PROJECT }).click();
  await page.getByRole('heading', { name: `Project ${PROJECT}` }).waitFor();
  await page.getByRole('cell', { name: /completed/ }).waitFor();
  await checkView(page, 'project-scans');
  await page.getByRole('link', { name: scanId }).click();
  await page.waitForURL(`**/app/scans/${scanId}`);
  expect(new URL(page.url()).search).toBe('');
  expect(await page.getByRole('radio', { name: 'Introduced' }).isChecked()).toBe(true);
  const r = await rows();
  // introduced view: alpha under :lib (which declares it), beta under :app (which declares gamma); delta suppressed
  expect(r[0]).toMatch(/^# :lib · team platform · 1 finding$/);
  expect(r[1]).toContain(ADV.alpha.cve);
  expect(r[2]).toContain(`# ${MOD_APP} · team ${TEAM_PAY} · 1 finding`);
  expect(r[3]).toContain(ADV.beta.cve);
  expect(r.join('\n')).not.toContain(ADV.delta.cve);
  expect(await page.locator('.list-counts').textContent()).toMatch(/critical 1.*medium 1.*suppressed 1.*· 2 findings$/);
  await checkView(page, 'findings-introduced');
  await noScriptRan(page, '#root svg:not(.graph)');
});

test('filters and the view toggle live in the URL and survive a reload', async () => {
  await page.goto(`${app.baseUrl}/app/scans/${scanId}`);
  await rows();
  await page.getByRole('radio', { name: 'Affected' }).check();
  await page.waitForURL(/attribution=affected/);
  // affected view: alpha affects :app (through :lib) and :lib
  let r = await rows();
  expect(r.filter((x) => x.includes(ADV.alpha.cve))).toHaveLength(2);
  await page.getByLabel('Team').selectOption(TEAM_PLATFORM);
  await page.waitForURL(/team=platform/);
  r = await rows();
  expect(r).toEqual([
    expect.stringMatching(/^# :lib · team platform · 1 finding$/),
    expect.stringContaining(ADV.alpha.cve),
  ]);
  await page.getByLabel('Team').selectOption('');
  await page.getByLabel('Severity', { exact: true }).selectOption('medium');
  await page.getByLabel('Severity match').selectOption('exact');
  await page.getByLabel('Suppressed').selectOption('all');
  await page.getByLabel('Group by').selectOption('dependency');
  await page.waitForURL(/group=dependency/);
  const url = new URL(page.url());
  expect(Object.fromEntries(url.searchParams)).toEqual({
    attribution: 'affected',
    severity: 'medium',
    severityMode: 'exact',
    suppressed: 'all',
    group: 'dependency',
  });
  const before = await rows();
  expect(before.join('\n')).toContain(ADV.beta.cve);
  expect(before.join('\n')).toContain(ADV.delta.cve); // suppressed, shown with "all"
  expect(before.join('\n')).not.toContain(ADV.alpha.cve); // critical, not exactly medium
  expect(before.some((x) => x.startsWith('# introduced through org.demo:gamma@1.0.0'))).toBe(true);
  await checkView(page, 'findings-affected-filtered');

  await page.reload();
  expect(await rows()).toEqual(before);
  expect(await page.getByRole('radio', { name: 'Affected' }).isChecked()).toBe(true);
  expect(await page.getByLabel('Severity', { exact: true }).inputValue()).toBe('medium');
  expect(await page.getByLabel('Severity match').inputValue()).toBe('exact');
  expect(await page.getByLabel('Suppressed').inputValue()).toBe('all');
  expect(await page.getByLabel('Group by').inputValue()).toBe('dependency');
  // a shared link in a fresh page shows the same view
  const other = await ctx.newPage();
  await other.goto(page.url());
  expect(await rows(other)).toEqual(before);
  await other.close();
  await noScriptRan(page, '#root svg:not(.graph)');
});

test('a finding: advisory id and aliases, summary, fixed version, path, attributions and origins, and the SVG graph', async () => {
  await page.goto(`${app.baseUrl}/app/scans/${scanId}`);
  await rows();
  await page.getByRole('link', { name: ADV.alpha.cve }).first().click();
  await page.getByRole('heading', { name: `${ADV.alpha.cve} in org.demo:alpha` }).waitFor();
  const facts = await page.locator('dl.facts').textContent();
  expect(facts).toContain(ADV.alpha.cve);
  expect(facts).toContain(ADV.alpha.id); // the alias
  expect(facts).toContain(`Alpha deserialization ${XSS.img}`); // the summary, as text
  expect(facts).toContain('9.0.0');
  expect(await page.getByRole('list', { name: 'Representative path' }).textContent()).toContain('org.demo:alpha@1.0.0');
  await page.getByRole('row', { name: /:lib/ }).first().waitFor();
  const graph = page.locator('svg.graph');
  await graph.waitFor();
  expect(await graph.getAttribute('role')).toBe('img');
  const nodes = await graph.locator('g[data-node]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node')));
  expect(nodes).toEqual(expect.arrayContaining([MOD_LIB, 'org.demo:alpha@1.0.0']));
  expect(await graph.locator('g.node-vulnerable').getAttribute('data-node')).toBe('org.demo:alpha@1.0.0');
  expect(await graph.locator('path.edge').count()).toBeGreaterThan(0);
  await checkView(page, 'finding-detail');
  await noScriptRan(page, '#root svg:not(.graph)');
  // back keeps the view
  await page.getByRole('link', { name: 'Back to the findings' }).click();
  await page.waitForURL((u) => u.pathname === `/app/scans/${scanId}` && u.hash.startsWith('#finding-'));
});

test('script payloads in project, module, team, attributes, suppression reason and advisory text never run', async () => {
  const views = [
    '/app/projects',
    `/app/projects/${projectId}`,
    `/app/projects/${projectId}/inventory`,
    `/app/scans/${scanId}?suppressed=all`,
    `/app/scans/${scanId}?suppressed=all&group=dependency&attribution=affected`,
    `/app/scans/${scanId}?suppressed=all&group=none&module=${encodeURIComponent(MOD_WEB)}`,
  ];
  for (const v of views) {
    await page.goto(`${app.baseUrl}${v}`);
    await page.locator('h1').waitFor();
    await page.waitForLoadState('networkidle');
    await noScriptRan(page, '#root svg:not(.graph)');
  }
  // the suppressed finding of :web<img…>: its reason and module shown as text
  await page.goto(`${app.baseUrl}/app/scans/${scanId}?suppressed=all`);
  await rows();
  await page.getByRole('link', { name: ADV.delta.cve }).first().click();
  await page.getByText(`yes: accepted risk ${XSS.script} ${XSS.img}`).waitFor();
  await page.getByRole('rowheader', { name: MOD_WEB }).waitFor();
  await page.waitForLoadState('networkidle');
  await noScriptRan(page, '#root svg:not(.graph)');
  // the team name with a payload is an option of the team filter, as text
  await page.goto(`${app.baseUrl}/app/scans/${scanId}`);
  await page.getByLabel('Team').locator('option', { hasText: 'payments' }).waitFor({ state: 'attached' });
  expect(await page.getByLabel('Team').locator('option').allTextContents()).toContain(TEAM_PAY);
  await noScriptRan(page, '#root svg:not(.graph)');
  expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie])).toEqual([0, 0, '']);
  expect(errors.filter((e) => !e.includes('404'))).toEqual([]);
});

test('keyboard only: through the filters into the list, row to row, open a finding', async () => {
  const p = await ctx.newPage();
  await p.goto(`${app.baseUrl}/app/scans/${scanId}?attribution=affected&group=none&suppressed=all`);
  await rows(p);
  // Tab to the view radios, then move the view with the arrow keys
  for (
    let i = 0;
    i < 30 && !(await p.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name === 'attribution'));
    i++
  )
    await p.keyboard.press('Tab');
  expect(await p.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe('affected');
  const outline = await p.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  expect(outline).not.toBe('none'); // visible focus
  await p.keyboard.press('ArrowLeft');
  await p.waitForURL((u) => !u.search.includes('attribution='));
  // on to the first finding link
  for (let i = 0; i < 30 && !(await p.evaluate(() => !!document.activeElement?.closest('[role=listitem]'))); i++)
    await p.keyboard.press('Tab');
  const first = await p.evaluate(() =>
    Number(document.activeElement!.closest('[role=listitem]')!.getAttribute('aria-posinset')),
  );
  expect(first).toBe(1);
  await p.keyboard.press('ArrowDown');
  expect(
    await p.evaluate(() => Number(document.activeElement!.closest('[role=listitem]')!.getAttribute('aria-posinset'))),
  ).toBe(2);
  await p.keyboard.press('Home');
  expect(
    await p.evaluate(() => Number(document.activeElement!.closest('[role=listitem]')!.getAttribute('aria-posinset'))),
  ).toBe(1);
  const text = await p.evaluate(() => document.activeElement!.textContent);
  await p.keyboard.press('Enter');
  await p.waitForURL(/\/findings\/fnd_/);
  await p.getByRole('heading', { name: new RegExp(`^${text} in `) }).waitFor();
  expect(await p.evaluate(() => document.activeElement?.tagName)).toBe('H1'); // focus moved to the new view
  // on the finding: Tab to the last attribution's graph button, Enter shows its path and graph
  await p.getByRole('button', { name: /Show/ }).first().waitFor(); // the attributions are read after the finding
  const shows = await p.getByRole('button', { name: /Show/ }).count();
  expect(shows).toBeGreaterThan(0);
  let seen = 0;
  for (let i = 0; i < 40 && seen < shows; i++) {
    await p.keyboard.press('Tab');
    if (
      await p.evaluate(
        () => document.activeElement?.tagName === 'BUTTON' && /Show/.test(document.activeElement.textContent ?? ''),
      )
    )
      seen += 1;
  }
  expect(seen).toBe(shows);
  expect(await p.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe('none');
  await p.keyboard.press('Enter');
  await p.locator('svg.graph').waitFor();
  // and back to the list by its link, with the keyboard
  await p.getByRole('link', { name: 'Back to the findings' }).focus();
  await p.keyboard.press('Enter');
  await p.waitForURL((u) => /\/scans\/scn_[^/]+$/.test(u.pathname));
  await rows(p);
  await p.close();
});

test('a session of another organization sees none of this one', async () => {
  const other = await newOrg(app.t.store, 'other-org');
  const otherKey = await other.key(['sca:upload', 'scans:read', 'findings:read']);
  await uploadAndWait(app, otherKey, { ...demoSnapshot('other-project'), suppressions: [] });
  const octx = await sessionContext(app, other.ownerToken);
  const p = await octx.newPage();
  await p.goto(`${app.baseUrl}/app/projects`);
  await p.getByRole('link', { name: 'other-project' }).waitFor();
  expect(await p.getByRole('link', { name: PROJECT }).count()).toBe(0);
  await p.goto(`${app.baseUrl}/app/scans/${scanId}`);
  await p.getByRole('alert').waitFor();
  expect(await p.getByRole('alert').textContent()).toContain('not found');
  expect(await p.locator('[role=list][aria-label=Findings]').count()).toBe(0);
  await p.goto(`${app.baseUrl}/app/projects/${projectId}`);
  await p.getByRole('alert').waitFor();
  expect(await p.locator('table').count()).toBe(0);
  // and straight at the API with the same cookie
  const status = await p.evaluate(
    async (id) => (await fetch(`/v1/scans/${id}/findings`, { headers: { 'X-Svc-App': '1' } })).status,
    scanId,
  );
  expect(status).toBe(404);
  await octx.close();
});

test('a project page follows a queued scan live (?wait) until it completes, without a reload', async () => {
  await app.pauseWorker();
  const res = await app.t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(key))
    .send({ ...demoSnapshot(PROJECT), manifests: ['live.gradle'] });
  expect(res.status).toBe(201);
  const live = res.body.id as string;
  const waits: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes(`/v1/scans/${live}?wait=`)) waits.push(r.url());
  });
  await page.goto(`${app.baseUrl}/app/projects/${projectId}`);
  const row = page.getByRole('row', { name: new RegExp(live) });
  await row.getByText('queued').waitFor();
  await page.evaluate(() => ((window as unknown as { __samePage: boolean }).__samePage = true));
  await checkView(page, 'project-scan-queued');
  await app.resumeWorker();
  await row.getByText('completed').waitFor({ timeout: 30_000 });
  expect(await row.textContent()).toMatch(/critical 1/);
  expect(waits.length).toBeGreaterThan(0); // held requests, not a polling loop
  expect(await page.evaluate(() => (window as unknown as { __samePage?: boolean }).__samePage)).toBe(true); // no reload
});

test("a failed scan shows its failure reason in words, on the project and on the scan's page", async () => {
  await app.pauseWorker();
  const res = await app.t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(key))
    .send({ ...demoSnapshot(PROJECT), manifests: ['failed.gradle'] });
  expect(res.status).toBe(201);
  const failed = res.body.id as string;
  // the state processing leaves when the derived paths are over the limit (the worker is paused: nothing else writes)
  expect(await markFailed(app.t.store, failed, 'attribution_limit_exceeded', 'test')).toBe(true);
  await page.goto(`${app.baseUrl}/app/projects/${projectId}`);
  const row = page.getByRole('row', { name: new RegExp(failed) });
  await row.getByText(/failed: the derived paths exceed the per-scan limit/).waitFor();
  await page.goto(`${app.baseUrl}/app/scans/${failed}`);
  await page.getByText(/failed: the derived paths exceed the per-scan limit/).waitFor();
  expect(await page.locator('[role=list][aria-label=Findings]').count()).toBe(0);
  await checkView(page, 'scan-failed');
  await app.resumeWorker();
});

test('a scan that ran before any advisory was imported says so, and names the way to import them; a normal scan does not', async () => {
  const res = await app.t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(key))
    .send({ ...demoSnapshot(PROJECT), manifests: ['no-advisories.gradle'] });
  expect(res.status).toBe(201);
  const bare = res.body.id as string;
  await app.t.api.get(`/v1/scans/${bare}?wait=30`).set(bearer(key));
  // the state a scan has when the service had no advisory generation at its start (the stack here has one)
  const stored = unpack((await app.t.store.c.scans.findOne({ _id: bare }))!);
  await app.t.store.c.scans.replaceOne({ _id: bare }, pack({ ...stored, advisoryGeneration: null }));
  expect((await app.t.api.get(`/v1/scans/${bare}`).set(bearer(key))).body.advisoryGeneration).toBeNull();
  await page.goto(`${app.baseUrl}/app/scans/${bare}`);
  const notice = page.locator('#no-advisories');
  await notice.waitFor();
  expect(await notice.textContent()).toContain('No advisories were imported on the service when this scan ran');
  expect(await notice.textContent()).toContain('npx scanner advisories import');
  await checkView(page, 'findings-no-advisories');
  await page.goto(`${app.baseUrl}/app/scans/${scanId}`);
  await page.locator('[data-ready-url]').waitFor();
  expect(await page.locator('#no-advisories').count()).toBe(0);
});

test('the inventory: packages of the latest scan, filters in the URL surviving a reload', async () => {
  await page.goto(`${app.baseUrl}/app/projects/${projectId}/inventory`);
  await page.getByRole('rowheader', { name: 'org.demo:alpha' }).waitFor();
  expect(await page.getByRole('row').count()).toBe(1 + 4); // header + alpha, beta, delta, gamma
  await checkView(page, 'inventory');
  await page.getByLabel('Relationship').selectOption('false');
  await page.waitForURL(/direct=false/);
  await page.getByRole('rowheader', { name: 'org.demo:beta' }).waitFor();
  await page.reload();
  await page.getByRole('rowheader', { name: 'org.demo:beta' }).waitFor();
  expect(await page.getByLabel('Relationship').inputValue()).toBe('false');
  const names = await page.getByRole('rowheader').allTextContents();
  expect(names).toEqual(['org.demo:beta']); // the only transitive package
});

test('a paged scan: its findings list, and a finding whose attributions, paths and graph are read apart', async () => {
  const paged = await createPagedScan(app.t.store, org.orgId, demoSnapshot('paged-shop'), app.t.temporal);
  const done = await app.t.api.get(`/v1/scans/${paged._id}?wait=60`).set(bearer(key));
  expect(done.body.status).toBe('completed');
  await page.goto(`${app.baseUrl}/app/scans/${paged._id}?module=${encodeURIComponent(MOD_LIB)}`);
  const r = await rows();
  expect(r).toEqual([
    expect.stringMatching(/^# :lib · team platform · 1 finding$/),
    expect.stringContaining(ADV.alpha.cve),
  ]);
  await page.getByRole('link', { name: ADV.alpha.cve, exact: true }).click();
  await page.getByRole('heading', { name: `${ADV.alpha.cve} in org.demo:alpha` }).waitFor();
  await page.getByRole('rowheader', { name: MOD_LIB }).waitFor();
  await page.locator('svg.graph g.node-vulnerable').waitFor();
  expect(await page.getByRole('list', { name: 'Origins' }).textContent()).toContain(`${MOD_LIB} declares ${ALPHA}`);
  await noScriptRan(page, '#root svg:not(.graph)');
});
