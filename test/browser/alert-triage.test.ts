// Triage in a real browser against the real service and a real scan worker (docs/triage.md): one tracked scan of a
// project gives it alerts (alpha installed in two versions, beta, epsilon, zeta, eta; delta suppressed by the
// snapshot). On an alert's page the triage form refuses at the field what the server would refuse, before anything is
// sent, then a valid decision shows as a badge and suppresses the alert; a refusal of the server lands on the field it
// names; the form is used with the keyboard alone, versions and removal included; the finding page triages its alert
// with the same form; the Alerts view selects rows (a Shift+click range, Shift+Space, every row shown) and decides on
// them at once, and filters by analysis in the URL; an auditor sees every analysis and no triage control. Each view
// with axe-core, some at 390 and 1280 pixels.
import type { BrowserContext, Page } from 'playwright-core';
import { importAdvisories } from '../../src/advisories/import';
import { bearer, workflowClosed, type Org } from '../helpers/context';
import { v2Snapshot } from '../helpers/v2';
import { ADV, mavenAdvisory, ALPHA, BETA, DELTA, MOD_APP, MOD_LIB, MOD_WEB, TEAM_PAY, TEAM_PLATFORM } from './fixtures';
import {
  advisoryDir,
  atBothWidths,
  checkView,
  demoOrg,
  noScriptRan,
  sessionContext,
  sessionPage,
  startWebApp,
  unexpected,
  uploadAndWait,
  watchErrors,
  type WebApp,
} from './helpers';

const PROJECT = 'triaged';
const ALPHA_TOO = 'org.demo:alpha@1.0.1';
/** Three more advisories of three more packages (each fixed in 9.0.0), and how severe each is. */
const MORE = {
  epsilon: { id: 'GHSA-tri-0001-aaaa', cvss: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' }, // 7.5 high
  zeta: { id: 'GHSA-tri-0002-bbbb', cvss: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:L/I:L/A:N' }, // 5.4 medium
  eta: { id: 'GHSA-tri-0003-cccc', cvss: 'CVSS:3.1/AV:N/AC:H/PR:L/UI:R/S:U/C:L/I:N/A:N' }, // 2.6 low
};
const DAY = 24 * 3600 * 1000;

const osv = (pkg: keyof typeof MORE) =>
  mavenAdvisory({ id: MORE[pkg].id, name: `org.demo:${pkg}`, cvss: MORE[pkg].cvss, summary: `${pkg} flaw` });

/** :app declares beta, epsilon, zeta and eta and depends on :lib; :lib declares alpha 1.0.0, :web alpha 1.0.1 and delta. */
function snapshot() {
  const lib: [string, string, ...string[]][] = [
    ['l', MOD_LIB, 'al'],
    ['al', ALPHA],
  ];
  return v2Snapshot(
    [
      {
        module: MOD_APP,
        context: 'runtimeClasspath',
        vertices: [
          ['a', MOD_APP, 'l', 'b', 'e', 'z', 'h'],
          ...lib,
          ['b', BETA],
          ['e', 'org.demo:epsilon@1.0.0'],
          ['z', 'org.demo:zeta@1.0.0'],
          ['h', 'org.demo:eta@1.0.0'],
        ],
      },
      { module: MOD_LIB, context: 'runtimeClasspath', vertices: lib },
      {
        module: MOD_WEB,
        context: 'runtimeClasspath',
        vertices: [
          ['w', MOD_WEB, 'd', 'a2'],
          ['d', DELTA],
          ['a2', ALPHA_TOO],
        ],
      },
    ],
    [
      { path: MOD_APP, dependencies: [MOD_LIB], teamName: TEAM_PAY },
      { path: MOD_LIB, dependencies: [], teamName: TEAM_PLATFORM },
      { path: MOD_WEB, dependencies: [] },
    ],
    { project: PROJECT, manifests: ['build.gradle'], suppressions: [{ cve: ADV.delta.cve, reason: 'accepted risk' }] },
  );
}

let app: WebApp;
let org: Org;
let key: string;
let scanId: string;
let projectId: string;
let ownerEmail: string;
/** Alert ids and their advisories (as the list shows them) by package: alpha, beta, delta, epsilon, zeta, eta. */
const ids: Record<string, string> = {};
const advisories: Record<string, string> = {};
const contexts: BrowserContext[] = [];
let page: Page;
let errors: string[];

const pageOf = (token: string) => sessionPage(app, token, contexts);

const readAlert = async (id: string) => {
  const res = await app.t.api.get(`/v1/alerts/${id}`).set(bearer(key));
  expect(res.status).toBe(200);
  return res.body;
};

beforeAll(async () => {
  app = await startWebApp();
  ({ org, key } = await demoOrg(app, 'acme'));
  const more = await importAdvisories(app.t.store, [advisoryDir([osv('epsilon'), osv('zeta'), osv('eta')])]);
  expect(more.rejected).toEqual([]);
  scanId = await uploadAndWait(app, key, snapshot());
  await workflowClosed(app.t, scanId); // the alerts move after the scan completes, before its workflow closes
  projectId = (await app.t.api.get(`/v1/scans/${scanId}`).set(bearer(key))).body.project;
  const all = await app.t.api.get(`/v1/alerts?project=${projectId}&suppressed=all`).set(bearer(key));
  for (const a of all.body.alerts as { id: string; package: string; advisory: string }[]) {
    ids[a.package.replace('org.demo:', '')] = a.id;
    advisories[a.package.replace('org.demo:', '')] = a.advisory;
  }
  expect(Object.keys(ids).sort()).toEqual(['alpha', 'beta', 'delta', 'epsilon', 'eta', 'zeta']);
  expect((await readAlert(ids.alpha)).installedVersions).toEqual(['1.0.0', '1.0.1']);
  ownerEmail = (await app.t.api.get('/v1/me').set(bearer(org.ownerToken))).body.user.email;
  ({ page, errors } = await pageOf(org.ownerToken));
}, 180_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
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

/** Requests that would write an analysis, from a page. */
function writes(p: Page): string[] {
  const seen: string[] = [];
  p.on('request', (r) => {
    if (r.method() !== 'GET' && r.url().includes('/analysis')) seen.push(`${r.method()} ${new URL(r.url()).pathname}`);
  });
  return seen;
}

/** The focused element: its id, or its tag and accessible text. */
const focused = (p: Page) =>
  p.evaluate(() => {
    const e = document.activeElement as HTMLElement | null;
    return e?.id || `${e?.tagName.toLowerCase()} ${(e?.textContent ?? '').trim()}`;
  });

/** Tab (only) until the focus is on `id`, at most `max` presses. */
async function tabTo(p: Page, id: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    if ((await focused(p)) === id) return;
    await p.keyboard.press('Tab');
  }
  expect(await focused(p)).toBe(id);
}

/** An input's error: whether it is invalid, and the text of what describes it. */
const described = (p: Page, selector: string) =>
  p.locator(selector).evaluate((el) => ({
    invalid: el.getAttribute('aria-invalid'),
    description: (el.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent ?? `(no #${id})`),
  }));

test('the alert page: a missing detail is refused at the field before anything is sent; a valid decision shows as a badge and suppresses the alert', async () => {
  const sent = writes(page);
  await page.goto(`${app.baseUrl}/app/alerts/${ids.beta}`);
  await page.getByRole('heading', { name: `${ADV.beta.cve} in org.demo:beta` }).waitFor();
  const section = page.getByRole('region', { name: 'Analysis' });
  await section.getByText('No analysis: nobody has decided on this alert yet.').waitFor();
  const form = page.getByRole('form', { name: 'Triage this alert' });
  // one installed version: no versions to choose
  expect(await form.getByRole('group', { name: 'Versions covered' }).count()).toBe(0);
  await form.getByRole('radio', { name: /^Not affected/ }).check();
  await form.getByLabel('Justification', { exact: true }).selectOption('code_not_reachable');
  // a field says what is wrong as soon as it is changed, before any submit
  await form.getByLabel('Ticket URL (optional)').fill('http://jira.example.com/browse/SEC-1');
  expect(await described(page, '#triage-ticketUrl')).toEqual({
    invalid: 'true',
    description: ['The ticket URL must be an https address (https://…) of at most 2,048 characters.'],
  });
  expect(await described(page, '#triage-detail')).toEqual({ invalid: null, description: ['0 of 2,000 characters'] });
  await form.getByRole('button', { name: 'Save the analysis' }).click();
  // the detail is required for not_affected: said at the field, which takes the focus; nothing was sent
  expect(await described(page, '#triage-detail')).toEqual({
    invalid: 'true',
    description: ['0 of 2,000 characters', 'The detail is required when the state is “not affected”.'],
  });
  expect(await focused(page)).toBe('triage-detail');
  expect(await form.getByRole('status').textContent()).toBe('2 fields need a change.');
  expect(sent).toEqual([]);
  await checkView(page, 'alert-triage-refused');

  await form.getByLabel('Detail (required)').fill('We never call the vulnerable parser.');
  expect((await described(page, '#triage-detail')).invalid).toBeNull();
  await form.getByLabel('Ticket URL (optional)').fill('https://jira.example.com/browse/SEC-1');
  await form.getByRole('checkbox', { name: 'Will not fix' }).check();
  await form.getByRole('button', { name: 'Save the analysis' }).click();
  await section.getByText('Saved: the alert is “not affected” and suppressed.').waitFor();
  expect(sent).toEqual([`PUT /v1/alerts/${ids.beta}/analysis`]);
  // the badge and who decided, when, until when
  const line = section.locator('.analysis-line');
  expect(await line.locator('.analysis-badge').allTextContents()).toEqual(['Not affected']);
  expect(await line.textContent()).toMatch(
    new RegExp(
      `^Not affected by ${ownerEmail.replace(/\./g, '\\.')} on \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC, no expiry$`,
    ),
  );
  const facts = await section.locator('dl.facts').textContent();
  expect(facts).toContain('The vulnerable code is not reachable');
  expect(facts).toContain('Will not fix');
  expect(facts).toContain('We never call the vulnerable parser.');
  expect(await section.getByRole('link', { name: /jira\.example\.com/ }).getAttribute('href')).toBe(
    'https://jira.example.com/browse/SEC-1',
  );
  await section.getByText(/^It suppresses the alert/).waitFor();
  expect(await page.locator('dl.facts').first().textContent()).toContain('suppressed by its analysis (below)');
  // the history reads the change
  const history = page.getByRole('list', { name: 'History' });
  await history.getByText(`none → not affected by ${ownerEmail}`).waitFor();
  // the service agrees
  const beta = await readAlert(ids.beta);
  expect([beta.suppressed, beta.suppressionSource]).toEqual([true, 'analysis']);
  expect(beta.analysis).toMatchObject({
    state: 'not_affected',
    justification: 'code_not_reachable',
    response: ['will_not_fix'],
    detail: 'We never call the vulnerable parser.',
    versions: null,
    ticketUrl: 'https://jira.example.com/browse/SEC-1',
    expiresAt: null,
    updatedBy: { kind: 'user', name: ownerEmail },
  });
  // the form holds the decision: an expiry added keeps the rest
  const day = new Date(Date.now() + 30 * DAY).toISOString().slice(0, 10);
  await form.getByLabel('Expires on (optional)').fill(day);
  await form.getByRole('button', { name: 'Save the analysis' }).click();
  await line.getByText(`until ${day} 23:59 UTC`).waitFor();
  expect((await readAlert(ids.beta)).analysis).toMatchObject({
    expiresAt: `${day}T23:59:59.000Z`,
    detail: 'We never call the vulnerable parser.',
  });
  await atBothWidths(page, 'alert-triage-alert', () => line.waitFor());
  await noScriptRan(page);
});

test('a refusal of the server lands on the field it names (a browser whose clock runs three days late)', async () => {
  const ctx = await sessionContext(app, org.ownerToken);
  contexts.push(ctx);
  await ctx.clock.setFixedTime(new Date(Date.now() - 3 * DAY));
  const p = await ctx.newPage();
  const lateErrors = watchErrors(p);
  await p.goto(`${app.baseUrl}/app/alerts/${ids.epsilon}`);
  const form = p.getByRole('form', { name: 'Triage this alert' });
  await form.getByRole('radio', { name: /^In triage/ }).check();
  // the browser's today, in the past for the service
  const today = await p.evaluate(() => new Date().toISOString().slice(0, 10));
  await form.getByLabel('Expires on (optional)').fill(today);
  await form.getByRole('button', { name: 'Save the analysis' }).click();
  await form.getByText('The expiry date must be in the future.').waitFor();
  expect(await described(p, '#triage-expiresAt')).toEqual({
    invalid: 'true',
    description: ['holds through that day (UTC), at most a year ahead', 'The expiry date must be in the future.'],
  });
  expect(await focused(p)).toBe('triage-expiresAt');
  expect((await readAlert(ids.epsilon)).analysis).toBeNull();
  // changing the field takes its refusal away
  await form.getByLabel('Expires on (optional)').fill('');
  expect((await described(p, '#triage-expiresAt')).invalid).toBeNull();
  expect(unexpected(lateErrors)).toEqual([]);
});

test('keyboard only: a false positive of one of two installed versions (which does not suppress), then removed', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${app.baseUrl}/app/alerts/${ids.alpha}`);
  await page.getByRole('heading', { name: `${ADV.alpha.cve} in org.demo:alpha` }).waitFor();
  await page.locator('#triage').waitFor();
  // from the page's heading, Tab to the state group: its first choice; arrows choose
  await tabTo(page, 'triage-state-in_triage');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  expect(await focused(page)).toBe('triage-state-false_positive');
  expect(await page.locator('#triage-state-false_positive').isChecked()).toBe(true);
  await page.keyboard.press('Tab'); // the responses: the first one, Space checks it
  expect(await focused(page)).toBe('triage-response-can_not_fix');
  await page.keyboard.press('Space');
  await tabTo(page, 'triage-detail', 6);
  await page.keyboard.type('The advisory is about the server mode, which :web never starts.');
  // two installed versions: the form offers them; the second is left out
  await tabTo(page, 'triage-versions-every', 6);
  await page.keyboard.press('ArrowDown');
  expect(await focused(page)).toBe('triage-versions-only');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.parentElement?.textContent)).toBe('Version 1.0.1');
  await page.keyboard.press('Space');
  await page.keyboard.press('Tab');
  expect(await focused(page)).toBe('triage-ticketUrl');
  await page.keyboard.type('https://jira.example.com/browse/SEC-2');
  await page.keyboard.press('Tab');
  expect(await focused(page)).toBe('button Save the analysis');
  await page.keyboard.press('Enter');
  const section = page.getByRole('region', { name: 'Analysis' });
  await section.getByText('Saved: the alert is “false positive”.').waitFor();
  await section.getByText('It does not suppress the alert: it does not cover every installed version.').waitFor();
  expect(await section.locator('dl.facts').textContent()).toContain('1.0.0 only');
  expect(await focused(page)).toBe('button Save the analysis');
  const alpha = await readAlert(ids.alpha);
  expect([alpha.suppressed, alpha.analysis.state, alpha.analysis.versions, alpha.analysis.response]).toEqual([
    false,
    'false_positive',
    ['1.0.0'],
    ['can_not_fix'],
  ]);
  await checkView(page, 'alert-triage-keyboard');

  // removal: Tab to it, Enter asks, Enter confirms; the focus goes to the section's heading
  await page.keyboard.press('Tab');
  expect(await focused(page)).toBe('button Remove the analysis');
  await page.keyboard.press('Enter');
  // the confirmation takes the focus once it has rendered
  await page.waitForFunction(() => document.activeElement?.textContent?.trim() === 'Remove');
  expect(await focused(page)).toBe('button Remove');
  await page.keyboard.press('Enter');
  await section.getByText('No analysis: nobody has decided on this alert yet.').waitFor();
  await section.getByText('The analysis was removed (the history keeps it).').waitFor();
  expect(await focused(page)).toBe('triage-title');
  expect((await readAlert(ids.alpha)).analysis).toBeNull();
  // the form is empty again
  expect(await page.locator('#triage-state input:checked').count()).toBe(0);
  await page.getByRole('list', { name: 'History' }).getByText('false positive → none').waitFor();
});

test('the finding page shows its alert’s analysis and triages it with the same form', async () => {
  await page.goto(`${app.baseUrl}/app/scans/${scanId}`);
  await page.getByRole('link', { name: advisories.eta, exact: true }).first().click();
  await page.getByRole('heading', { name: `${advisories.eta} in org.demo:eta` }).waitFor();
  const section = page.getByRole('region', { name: 'Analysis' });
  await section.getByText('No analysis: nobody has decided on this alert yet.').waitFor();
  const form = section.getByRole('form', { name: 'Triage this alert' });
  await form.getByRole('radio', { name: /^Exploitable/ }).check();
  await form.getByRole('checkbox', { name: 'Update' }).check();
  await form.getByRole('button', { name: 'Save the analysis' }).click();
  await section.getByText('Saved: the alert is “exploitable”.').waitFor();
  expect(await section.locator('.analysis-badge').allTextContents()).toEqual(['Exploitable']);
  await section.getByText('Exploitable does not suppress the alert.').waitFor();
  expect((await readAlert(ids.eta)).analysis).toMatchObject({ state: 'exploitable', response: ['update'] });
  await atBothWidths(page, 'alert-triage-finding', () => section.locator('.analysis-badge').waitFor());
  // back to clean for the bulk decision
  expect((await app.t.api.delete(`/v1/alerts/${ids.eta}/analysis`).set(bearer(org.ownerToken))).status).toBe(204);
});

test('bulk: a Shift+click range, Shift+Space, every row shown; the decision applied to the selection at once', async () => {
  const token = await org.session('member');
  const memberEmail = (await app.t.api.get('/v1/me').set(bearer(token))).body.user.email as string;
  const member = await pageOf(token);
  const p = member.page;
  const sent = writes(p);
  await p.goto(`${app.baseUrl}/app/projects/${projectId}/alerts`);
  // open and not suppressed: beta (not affected) is out; most severe first
  const rows = await alertRows(p);
  expect(rows).toEqual([ADV.alpha.cve, advisories.epsilon, advisories.zeta, advisories.eta]);
  const box = (i: number) => p.getByRole('checkbox', { name: `Select ${rows[i]} in `, exact: false });
  const checked = () =>
    p.$$eval('table.grid tbody input[type=checkbox]', (els) => els.map((e) => (e as HTMLInputElement).checked));
  const count = p.locator('.bulk-count');
  const toggle = p.getByRole('button', { name: /^Triage the/ });
  expect(await count.textContent()).toBe('none selected');
  expect(await toggle.isDisabled()).toBe(true);

  // the mouse: a click, then a Shift+click selects the range between
  await box(0).click();
  await box(2).click({ modifiers: ['Shift'] });
  expect(await checked()).toEqual([true, true, true, false]);
  expect(await count.textContent()).toBe('3 selected');
  // every row shown, and none again
  const all = p.getByRole('checkbox', { name: 'Select every alert shown (4)' });
  expect(await all.evaluate((e) => (e as HTMLInputElement).indeterminate)).toBe(true);
  await all.click();
  expect(await checked()).toEqual([true, true, true, true]);
  await all.click();
  expect(await checked()).toEqual([false, false, false, false]);
  expect(await count.textContent()).toBe('none selected');

  // the keyboard: Space on one row, Shift+Space on another selects the range
  await box(1).focus();
  await p.keyboard.press('Space');
  await box(3).focus();
  await p.keyboard.press('Shift+Space');
  expect(await checked()).toEqual([false, true, true, true]);
  await atBothWidths(p, 'alert-triage-selection', () => count.getByText('3 selected').waitFor());

  await toggle.click();
  expect(await toggle.getAttribute('aria-expanded')).toBe('true');
  const form = p.getByRole('form', { name: 'Triage the 3 selected alerts' });
  // the form takes the focus; a bulk decision has no versions
  expect(await focused(p)).toBe('bulk-state-in_triage');
  expect(await form.getByRole('group', { name: 'Versions covered' }).count()).toBe(0);
  await form.getByRole('radio', { name: /^Resolved/ }).check();
  await form.getByRole('button', { name: 'Apply to 3 alerts' }).click();
  expect(await described(p, '#bulk-detail')).toMatchObject({
    invalid: 'true',
    description: ['0 of 2,000 characters', 'The detail is required when the state is “resolved”.'],
  });
  expect(sent).toEqual([]);
  await checkView(p, 'alert-triage-bulk-form');
  await form.getByLabel('Detail (required)').fill('Upgraded in the release train of June.');
  await form.getByRole('button', { name: 'Apply to 3 alerts' }).click();
  const result = p.locator('.bulk-result');
  await result
    .getByText(/^3 alerts marked “resolved”: suppressed, they leave a list that hides suppressed alerts\./)
    .waitFor();
  expect(sent).toEqual(['POST /v1/alerts/analysis']);
  expect(await focused(p)).toBe(`p ${await result.textContent()}`);
  // the list is read again: the three are suppressed now
  await p.waitForFunction(() => document.querySelectorAll('table.grid tbody tr').length === 1);
  expect(await alertRows(p)).toEqual([ADV.alpha.cve]);
  expect(await count.textContent()).toBe('none selected');
  const bulkId = /bulk decision (blk_\w+)/.exec((await result.textContent())!)![1];
  for (const name of ['epsilon', 'zeta', 'eta']) {
    const a = await readAlert(ids[name]);
    expect([name, a.suppressed, a.suppressionSource, a.analysis.state, a.analysis.bulkId]).toEqual([
      name,
      true,
      'analysis',
      'resolved',
      bulkId,
    ]);
    expect(a.analysis.updatedBy).toMatchObject({ kind: 'user', name: memberEmail });
    expect(a.analysis.detail).toBe('Upgraded in the release train of June.');
  }
  expect(unexpected(member.errors)).toEqual([]);
});

test('the analysis filter lives in the URL: a state (suppressed ones shown), no analysis; reload and Back keep it', async () => {
  const base = `/app/projects/${projectId}/alerts`;
  await page.goto(`${app.baseUrl}${base}`);
  await alertRows();
  await page.getByLabel('Analysis').selectOption('resolved');
  // a state that suppresses: the list shows suppressed alerts too, else it would be empty
  await page.waitForURL((u) => u.search === '?suppressed=all&analysis=resolved');
  expect((await alertRows()).sort()).toEqual([advisories.epsilon, advisories.zeta, advisories.eta].sort());
  expect(await page.getByLabel('Suppressed').inputValue()).toBe('all');
  const row = page.getByRole('row', { name: new RegExp(advisories.zeta) });
  expect(await row.textContent()).toContain('Resolved');
  expect(await row.textContent()).toContain('suppressed by its analysis');
  await checkView(page, 'alert-triage-filter');
  await page.reload();
  expect((await alertRows()).sort()).toEqual([advisories.epsilon, advisories.zeta, advisories.eta].sort());
  expect(await page.getByLabel('Analysis').inputValue()).toBe('resolved');

  await page.getByLabel('Analysis').selectOption('not_affected');
  await page.waitForURL(/analysis=not_affected/);
  expect(await alertRows()).toEqual([ADV.beta.cve]);
  await page.getByLabel('Analysis').selectOption('none');
  await page.waitForURL(/analysis=none/);
  // alpha (its analysis removed) and delta (suppressed by the snapshot)
  expect((await alertRows()).sort()).toEqual([ADV.alpha.cve, ADV.delta.cve].sort());
  await page.goBack();
  await page.waitForURL(/analysis=not_affected/);
  expect(await alertRows()).toEqual([ADV.beta.cve]);
  expect(await page.getByLabel('Analysis').inputValue()).toBe('not_affected');
  await page.getByLabel('Analysis').selectOption('');
  await page.waitForURL((u) => u.search === '?suppressed=all');
  expect(unexpected(errors)).toEqual([]);
});

test('an auditor sees every analysis and no triage control: no form, no removal, no selection', async () => {
  const auditor = await pageOf(await org.session('auditor'));
  const p = auditor.page;
  await p.goto(`${app.baseUrl}/app/alerts/${ids.beta}`);
  const section = p.getByRole('region', { name: 'Analysis' });
  await section.locator('.analysis-badge').getByText('Not affected').waitFor();
  await section.getByText('Owners, admins and members decide on alerts; your role reads their analyses.').waitFor();
  expect(await p.locator('main form').count()).toBe(0);
  expect(await p.getByRole('button', { name: /analysis/i }).count()).toBe(0);
  await checkView(p, 'alert-triage-auditor-alert');

  await p.goto(`${app.baseUrl}/app/projects/${projectId}/alerts?suppressed=all`);
  expect((await alertRows(p)).length).toBe(6);
  expect(await p.locator('main input[type=checkbox]').count()).toBe(0);
  expect(await p.getByRole('button', { name: /^Triage/ }).count()).toBe(0);
  expect(await p.getByRole('columnheader', { name: 'Select' }).count()).toBe(0);
  // reading: the analysis filter is there
  await p.getByLabel('Analysis').selectOption('resolved');
  await p.waitForURL(/analysis=resolved/);
  expect((await alertRows(p)).length).toBe(3);

  await p.goto(`${app.baseUrl}/app/scans/${scanId}`);
  await p.getByRole('link', { name: ADV.beta.cve, exact: true }).first().click();
  await p.getByRole('heading', { name: `${ADV.beta.cve} in org.demo:beta` }).waitFor();
  await p.getByRole('region', { name: 'Analysis' }).locator('.analysis-badge').getByText('Not affected').waitFor();
  expect(await p.locator('main form').count()).toBe(0);
  // and the service refuses an auditor's decision anyway
  const put = await app.t.api
    .put(`/v1/alerts/${ids.beta}/analysis`)
    .set(bearer(await org.session('auditor')))
    .send({ state: 'exploitable' });
  expect(put.status).toBe(403);
  expect(unexpected(auditor.errors)).toEqual([]);
});

test('an expired analysis is shown as expired, on the alert and in the list, and no longer suppresses', async () => {
  // a decision of the API that holds for three seconds
  const expiresAt = new Date(Date.now() + 3000).toISOString();
  const put = await app.t.api
    .put(`/v1/alerts/${ids.alpha}/analysis`)
    .set(bearer(org.ownerToken))
    .send({ state: 'not_affected', justification: 'code_not_present', detail: 'for a moment', expiresAt });
  expect([put.status, put.body.suppressed]).toEqual([200, true]);
  await new Promise((r) => setTimeout(r, Date.parse(expiresAt) - Date.now() + 500));
  await page.goto(`${app.baseUrl}/app/alerts/${ids.alpha}`);
  const section = page.getByRole('region', { name: 'Analysis' });
  const line = section.locator('.analysis-line');
  await line.locator('.analysis-badge').nth(1).waitFor();
  expect(await line.locator('.analysis-badge').allTextContents()).toEqual(['Not affected', 'expired']);
  expect(await line.textContent()).toMatch(/, expired \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
  await section.getByText('It has expired: it no longer suppresses the alert.').waitFor();
  expect(await page.locator('dl.facts').first().textContent()).not.toContain('suppressed');
  // the form offers the decision again, its past expiry refused at the field once saved
  await section.getByRole('button', { name: 'Save the analysis' }).click();
  expect((await described(page, '#triage-expiresAt')).description).toContain('The expiry date must be in the future.');
  await checkView(page, 'alert-triage-expired');
  await page.goto(`${app.baseUrl}/app/projects/${projectId}/alerts`);
  await alertRows();
  expect(await page.getByRole('row', { name: new RegExp(ADV.alpha.cve) }).textContent()).toContain(
    'Not affected (expired)',
  );
  expect(unexpected(errors)).toEqual([]);
});
