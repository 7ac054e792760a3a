// Bulk triage from a scan's findings list, in a real browser against the real service and a real scan worker
// (views/findings.tsx, docs/web-app.md): a tracked scan of a project gives it alerts (alpha installed in two versions,
// by two modules: two findings of one alert; beta, epsilon, zeta, eta; delta suppressed by the snapshot), a branch
// scan adds theta, a finding of no alert. An owner selects findings (a Shift+click range over rows of two groups, a
// checkbox reached by the keyboard and toggled with Space, Shift+Space, every finding shown), decides on their
// alerts at once (each alert once, however many of its findings are selected), sees the outcome, and the list read
// again says the decision; other filters clear the selection. Rows without an alert have no checkbox, said once. An
// auditor sees no selection. Each view with axe-core, the selection at 390 and 1280 pixels.
import type { BrowserContext, Page } from 'playwright-core';
import { importAdvisories } from '../../src/advisories/import';
import { bearer, workflowClosed, type Org } from '../helpers/context';
import { v2Snapshot, type V } from '../helpers/v2';
import { ADV, mavenAdvisory, ALPHA, BETA, DELTA, MOD_APP, MOD_LIB, MOD_WEB, TEAM_PAY, TEAM_PLATFORM } from './fixtures';
import {
  advisoryDir,
  atBothWidths,
  checkView,
  demoOrg,
  findingsRows,
  sessionPage,
  startWebApp,
  unexpected,
  uploadAndWait,
  type WebApp,
} from './helpers';

const PROJECT = 'bulk-findings';
const ALPHA_TOO = 'org.demo:alpha@1.0.1';
/** Four more advisories of four more packages (each fixed in 9.0.0), and how severe each is. */
const MORE = {
  epsilon: { id: 'GHSA-ftr-0001-aaaa', cvss: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' }, // 7.5 high
  zeta: { id: 'GHSA-ftr-0002-bbbb', cvss: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:L/I:L/A:N' }, // 5.4 medium
  eta: { id: 'GHSA-ftr-0003-cccc', cvss: 'CVSS:3.1/AV:N/AC:H/PR:L/UI:R/S:U/C:L/I:N/A:N' }, // 2.6 low
  theta: { id: 'GHSA-ftr-0004-dddd', cvss: 'CVSS:3.1/AV:N/AC:H/PR:L/UI:R/S:U/C:L/I:N/A:N' }, // 2.6 low
};

const osv = (pkg: keyof typeof MORE) =>
  mavenAdvisory({ id: MORE[pkg].id, name: `org.demo:${pkg}`, cvss: MORE[pkg].cvss, summary: `${pkg} flaw` });

/**
 * :app declares beta, epsilon, zeta and eta and depends on :lib; :lib declares alpha 1.0.0, :web alpha 1.0.1 and
 * delta (suppressed). The branch `feature/x` adds theta to :app.
 */
function snapshot(branch: boolean) {
  const lib: V[] = [
    ['l', MOD_LIB, 'al'],
    ['al', ALPHA],
  ];
  return v2Snapshot(
    [
      {
        module: MOD_APP,
        context: 'runtimeClasspath',
        vertices: [
          ['a', MOD_APP, 'l', 'b', 'e', 'z', 'h', ...(branch ? ['t'] : [])],
          ...lib,
          ['b', BETA],
          ['e', 'org.demo:epsilon@1.0.0'],
          ['z', 'org.demo:zeta@1.0.0'],
          ['h', 'org.demo:eta@1.0.0'],
          ...(branch ? ([['t', 'org.demo:theta@1.0.0']] as V[]) : []),
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
    {
      project: PROJECT,
      manifests: ['build.gradle'],
      suppressions: [{ cve: ADV.delta.cve, reason: 'accepted risk' }],
      metadata: { commit: branch ? 'b'.repeat(40) : 'a'.repeat(40), ref: branch ? 'feature/x' : 'main' },
    },
  );
}

let app: WebApp;
let org: Org;
let key: string;
let scanId: string;
let branchScanId: string;
/** Alert ids by package: alpha, beta, delta, epsilon, zeta, eta. */
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
  const more = await importAdvisories(app.t.store, [
    advisoryDir([osv('epsilon'), osv('zeta'), osv('eta'), osv('theta')]),
  ]);
  expect(more.rejected).toEqual([]);
  scanId = await uploadAndWait(app, key, snapshot(false));
  await workflowClosed(app.t, scanId); // the alerts move after the scan completes, before its workflow closes
  branchScanId = await uploadAndWait(app, key, snapshot(true));
  await workflowClosed(app.t, branchScanId);
  const projectId = (await app.t.api.get(`/v1/scans/${scanId}`).set(bearer(key))).body.project;
  const all = await app.t.api.get(`/v1/alerts?project=${projectId}&suppressed=all`).set(bearer(key));
  for (const a of all.body.alerts as { id: string; package: string; advisory: string }[]) {
    ids[a.package.replace('org.demo:', '')] = a.id;
    advisories[a.package.replace('org.demo:', '')] = a.advisory;
  }
  // theta is on the branch only: no alert
  expect(Object.keys(ids).sort()).toEqual(['alpha', 'beta', 'delta', 'epsilon', 'eta', 'zeta']);
  ({ page, errors } = await pageOf(org.ownerToken));
}, 180_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await app?.close();
});

/** The list's finding rows in display order: their advisory and package (group headers start with "# "). */
async function rowsOf(p: Page): Promise<string[]> {
  await findingsRows(p);
  return p.$$eval('[role=list][aria-label=Findings] [role=listitem]', (els) =>
    els
      .sort((a, b) => Number(a.getAttribute('aria-posinset')) - Number(b.getAttribute('aria-posinset')))
      .map((e) =>
        e.classList.contains('group')
          ? `# ${e.textContent}`
          : `${e.querySelector('a')?.textContent} ${e.querySelector('.cell-pkg')?.textContent?.split(' ')[0]}`,
      ),
  );
}

/** The accessible name of the checkbox of a finding row ("<advisory> <package>@<version>", as rowsOf says it). */
const labelOf = (row: string) => `Select ${row.replace(' ', ' in ')}`;
const box = (p: Page, row: string) => p.getByRole('checkbox', { name: labelOf(row), exact: true });

/** Which finding rows are selected, in display order (their advisory and package), and which have no checkbox. */
const selection = async (p: Page) =>
  (await findingsRows(p)) &&
  p.$$eval('[role=list][aria-label=Findings] [role=listitem]:not(.group)', (els) =>
    els
      .sort((a, b) => Number(a.getAttribute('aria-posinset')) - Number(b.getAttribute('aria-posinset')))
      .map((e) => {
        const input = e.querySelector<HTMLInputElement>('input[type=checkbox]');
        const name = `${e.querySelector('a')?.textContent} ${e.querySelector('.cell-pkg')?.textContent?.split(' ')[0]}`;
        return `${input ? (input.checked ? '[x]' : '[ ]') : '(none)'} ${name}`;
      }),
  );

/** The focused element: its accessible label, its id, or its tag and text. */
const focused = (p: Page) =>
  p.evaluate(() => {
    const e = document.activeElement as HTMLElement | null;
    return e?.getAttribute('aria-label') || e?.id || `${e?.tagName.toLowerCase()} ${(e?.textContent ?? '').trim()}`;
  });

/** Requests that would write an analysis, from a page. */
function writes(p: Page): string[] {
  const seen: string[] = [];
  p.on('request', (r) => {
    if (r.method() !== 'GET' && r.url().includes('/analysis')) seen.push(`${r.method()} ${new URL(r.url()).pathname}`);
  });
  return seen;
}

const A = ADV.alpha.cve;

test('the selection: group headers and rows have their place, Space and Shift+Space, every finding shown; other filters clear it', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${app.baseUrl}/app/scans/${scanId}`);
  // the introduced view, grouped by the declaring module, most severe first: alpha 1.0.0 under :lib and alpha 1.0.1
  // under :web (both critical: either group first), then :app's four (beta and zeta both medium: either first);
  // delta (suppressed) is out
  const rows = await rowsOf(page);
  expect([rows[0], rows[1], rows[2], rows[3]].sort()).toEqual([
    expect.stringMatching(/^# :lib · team platform · 1 finding$/),
    expect.stringMatching(/^# :web.* · team unassigned · 1 finding$/),
    `${A} org.demo:alpha@1.0.0`,
    `${A} org.demo:alpha@1.0.1`,
  ]);
  expect([rows[0], rows[2]].every((r) => r.startsWith('# '))).toBe(true);
  expect(rows.slice(4, 6)).toEqual([
    expect.stringMatching(/^# :app · .* · 4 findings$/),
    `${advisories.epsilon} org.demo:epsilon@1.0.0`,
  ]);
  expect(rows.slice(6, 8).sort()).toEqual([
    `${ADV.beta.cve} org.demo:beta@2.0.0`,
    `${advisories.zeta} org.demo:zeta@1.0.0`,
  ]);
  expect(rows.slice(8)).toEqual([`${advisories.eta} org.demo:eta@1.0.0`]);
  // every finding row has a checkbox (each of an alert), no group header has one
  expect(await page.locator('[role=listitem].group input').count()).toBe(0);
  expect(await page.locator('[role=listitem]:not(.group) input[type=checkbox]').count()).toBe(6);
  // a tracked scan: no finding without an alert, nothing to say about them
  expect(await page.locator('.bulk-note').count()).toBe(0);
  const bar = page.getByRole('group', { name: 'Selection' });
  const count = bar.locator('.bulk-count');
  const toggle = bar.getByRole('button', { name: /^Triage the/ });
  expect(await count.textContent()).toBe('none selected');
  expect(await toggle.isDisabled()).toBe(true);
  expect(await toggle.textContent()).toBe('Triage the selected findings…');

  // the keyboard: Tab from the selection's first checkbox enters the list (one Tab stop: its first row, a header);
  // the arrows go down to epsilon's row, its own link first, then right to its alert's link and to its checkbox
  const every = bar.getByRole('checkbox', { name: 'Select every finding shown (6)' });
  await every.focus();
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-posinset'))).toBe('1');
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowDown');
  expect(await focused(page)).toBe(`a ${advisories.epsilon}`);
  await page.keyboard.press('ArrowRight');
  expect(await focused(page)).toBe(`a Alert of ${advisories.epsilon} in the project`);
  await page.keyboard.press('ArrowRight');
  expect(await focused(page)).toBe(`Select ${advisories.epsilon} in org.demo:epsilon@1.0.0`);
  await page.keyboard.press('Space');
  // Shift+Space two rows down: epsilon to there (beta and zeta, one of them between)
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  expect(await focused(page)).toBe(labelOf(rows[7]));
  await page.keyboard.press('Shift+Space');
  expect(await selection(page)).toEqual([
    `[ ] ${rows[1]}`,
    `[ ] ${rows[3]}`,
    `[x] ${advisories.epsilon} org.demo:epsilon@1.0.0`,
    `[x] ${rows[6]}`,
    `[x] ${rows[7]}`,
    `[ ] ${advisories.eta} org.demo:eta@1.0.0`,
  ]);
  expect(await count.textContent()).toBe('3 selected (3 alerts)');
  expect(await toggle.textContent()).toBe('Triage the 3 selected…');

  // every finding shown, and none again
  expect(await every.evaluate((e) => (e as HTMLInputElement).indeterminate)).toBe(true);
  await every.click();
  expect((await selection(page)).every((r) => r.startsWith('[x]'))).toBe(true);
  // six findings, five alerts: alpha's two findings are one alert
  expect(await count.textContent()).toBe('6 selected (5 alerts)');
  await every.click();
  expect(await count.textContent()).toBe('none selected');

  // other filters start with no selection: suppressed ones too (delta's, of its alert, selectable)
  await box(page, `${ADV.beta.cve} org.demo:beta@2.0.0`).click();
  expect(await count.textContent()).toBe('1 selected (1 alert)');
  await page.getByLabel('Suppressed').selectOption('all');
  await page.waitForURL(/suppressed=all/);
  const all = await selection(page);
  expect(all).toHaveLength(7);
  expect(all.every((r) => r.startsWith('[ ]'))).toBe(true);
  expect(await count.textContent()).toBe('none selected');
  await bar.getByRole('checkbox', { name: 'Select every finding shown (7)' }).waitFor();
  // and Clear the selection takes it back, the focus on the checkbox of every finding
  await box(page, `${ADV.delta.cve} org.demo:delta@1.0.0`).click();
  expect(await count.textContent()).toBe('1 selected (1 alert)');
  await bar.getByRole('button', { name: 'Clear the selection' }).click();
  expect(await count.textContent()).toBe('none selected');
  expect(
    await bar
      .getByRole('checkbox', { name: /^Select every finding shown/ })
      .evaluate((e) => e === document.activeElement),
  ).toBe(true);
  expect(unexpected(errors)).toEqual([]);
});

test('bulk: a Shift+click range and a checkbox reached by keyboard; the decision goes to each of their alerts once', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const sent = writes(page);
  await page.goto(`${app.baseUrl}/app/scans/${scanId}`);
  // the two groups of one finding of alpha each (either first), then :app's, epsilon first (as the test above says)
  const rows = await rowsOf(page);
  const bar = page.getByRole('group', { name: 'Selection' });
  const count = bar.locator('.bulk-count');

  // the mouse: a click on the first alpha, a Shift+click on the second (the group header between has no checkbox)
  const urlBefore = page.url();
  await box(page, rows[1]).click();
  await box(page, rows[3]).click({ modifiers: ['Shift'] });
  expect(page.url()).toBe(urlBefore); // a checkbox opens no finding
  expect(await count.textContent()).toBe('2 selected (1 alert)');
  // the keyboard: from the checkbox clicked, down to epsilon's row (past the :app header), right to its checkbox
  expect(await focused(page)).toBe(labelOf(rows[3]));
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  expect(await focused(page)).toBe(`a ${advisories.epsilon}`);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  expect(await focused(page)).toBe(`Select ${advisories.epsilon} in org.demo:epsilon@1.0.0`);
  await page.keyboard.press('Space');
  expect(await selection(page)).toEqual([
    `[x] ${rows[1]}`,
    `[x] ${rows[3]}`,
    `[x] ${advisories.epsilon} org.demo:epsilon@1.0.0`,
    `[ ] ${rows[6]}`,
    `[ ] ${rows[7]}`,
    `[ ] ${advisories.eta} org.demo:eta@1.0.0`,
  ]);
  expect(await count.textContent()).toBe('3 selected (2 alerts)');
  await atBothWidths(page, 'findings-triage-selection', () => count.getByText('3 selected (2 alerts)').waitFor());

  const toggle = bar.getByRole('button', { name: 'Triage the 3 selected…' });
  await toggle.click();
  expect(await toggle.getAttribute('aria-expanded')).toBe('true');
  const form = page.getByRole('form', { name: 'Triage the 3 selected findings' });
  // the form takes the focus; a bulk decision has no versions
  await page.locator('#bulk-state-in_triage:focus').waitFor(); // the form's effect moves the focus, after its render
  expect(await focused(page)).toBe('bulk-state-in_triage');
  expect(await form.getByRole('group', { name: 'Versions covered' }).count()).toBe(0);
  await form.getByRole('radio', { name: /^Not affected/ }).check();
  await form.getByLabel('Justification', { exact: true }).selectOption('code_not_reachable');
  // the detail is required: refused at the field, nothing sent
  await form.getByRole('button', { name: 'Apply to 2 alerts' }).click();
  await form.getByText('The detail is required when the state is “not affected”.').waitFor();
  expect(sent).toEqual([]);
  await atBothWidths(page, 'findings-triage-form', () => form.waitFor());
  await form.getByLabel('Detail (required)').fill('Neither module loads the vulnerable classes.');
  await form.getByRole('button', { name: 'Apply to 2 alerts' }).click();

  const result = page.locator('.bulk-result');
  await result
    .getByText(/^2 alerts marked “not affected”: suppressed, they leave a list that hides suppressed alerts\./)
    .waitFor();
  expect(sent).toEqual(['POST /v1/alerts/analysis']);
  expect(await result.getAttribute('role')).toBe('status');
  await page.locator('.bulk-result:focus').waitFor(); // focused once the outcome is shown
  expect(await focused(page)).toBe(`p ${await result.textContent()}`);
  expect(await form.count()).toBe(0);
  const bulkId = /bulk decision (blk_\w+)/.exec((await result.textContent())!)![1];

  // the service: the analysis on exactly those two alerts
  for (const name of ['alpha', 'epsilon']) {
    const a = await readAlert(ids[name]);
    expect([name, a.suppressed, a.suppressionSource, a.analysis?.state, a.analysis?.bulkId]).toEqual([
      name,
      true,
      'analysis',
      'not_affected',
      bulkId,
    ]);
    expect(a.analysis).toMatchObject({
      justification: 'code_not_reachable',
      detail: 'Neither module loads the vulnerable classes.',
      versions: null,
    });
  }
  for (const name of ['beta', 'zeta', 'eta', 'delta'])
    expect([name, (await readAlert(ids[name])).analysis]).toEqual([name, null]);

  // the list read again from its first page: the scan keeps its findings as it found them (not suppressed), and
  // their rows say their alert's decision; the selection is empty
  const again = await rowsOf(page);
  expect(again.filter((r) => !r.startsWith('# '))).toHaveLength(6);
  expect(await count.textContent()).toBe('none selected');
  expect((await selection(page)).every((r) => r.startsWith('[ ]'))).toBe(true);
  const decisions = await page.$$eval('[role=list][aria-label=Findings] [role=listitem]:not(.group)', (els) =>
    els
      .sort((a, b) => Number(a.getAttribute('aria-posinset')) - Number(b.getAttribute('aria-posinset')))
      .map((e) => (e.querySelector('.analysis-state')?.textContent ?? '').trim()),
  );
  expect(decisions).toEqual(['· Not affected', '· Not affected', '· Not affected', '', '', '']);
  const findings = (await app.t.api.get(`/v1/scans/${scanId}/findings?limit=100`).set(bearer(key))).body.findings as {
    alertId: string;
    suppressed: boolean;
    analysis: { state: string } | null;
  }[];
  expect(
    findings
      .filter((f) => f.alertId === ids.alpha || f.alertId === ids.epsilon)
      .map((f) => [f.suppressed, f.analysis?.state]),
  ).toEqual([
    [false, 'not_affected'],
    [false, 'not_affected'],
    [false, 'not_affected'],
  ]);
  await checkView(page, 'findings-triage-decided');
  expect(unexpected(errors)).toEqual([]);
});

test('a branch scan: findings of no alert have no checkbox, said once; those of an alert are selected as usual', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${app.baseUrl}/app/scans/${branchScanId}?group=none`);
  const sel = await selection(page);
  expect(sel).toContain(`(none) ${MORE.theta.id} org.demo:theta@1.0.0`);
  expect(sel.filter((r) => r.startsWith('(none)'))).toHaveLength(1);
  expect(sel.filter((r) => r.startsWith('[ ]'))).toHaveLength(6);
  const note = page.locator('.bulk-note');
  expect(await note.count()).toBe(1);
  expect(await note.textContent()).toBe(
    'Findings that belong to no project alert (found on a branch only, for example) have no checkbox: they cannot be triaged from here.',
  );
  await page
    .getByRole('group', { name: 'Selection' })
    .getByRole('checkbox', { name: 'Select every finding shown (6)' })
    .click();
  expect(await page.locator('.bulk-count').textContent()).toBe('6 selected (5 alerts)');
  await atBothWidths(page, 'findings-triage-branch', () => note.waitFor());
  expect(unexpected(errors)).toEqual([]);
});

test('an auditor sees the findings and their decisions, and no selection', async () => {
  const auditor = await pageOf(await org.session('auditor'));
  const p = auditor.page;
  await p.goto(`${app.baseUrl}/app/scans/${branchScanId}`);
  expect((await rowsOf(p)).filter((r) => !r.startsWith('# '))).toHaveLength(7);
  expect(await p.locator('main input[type=checkbox]').count()).toBe(0);
  expect(await p.getByRole('group', { name: 'Selection' }).count()).toBe(0);
  expect(await p.getByRole('button', { name: /^Triage/ }).count()).toBe(0);
  expect(await p.locator('.bulk-note, .bulk-result').count()).toBe(0);
  expect(await p.locator('[role=listitem].selectable').count()).toBe(0);
  // the decision is there to read
  expect(await p.locator('[role=list][aria-label=Findings] .analysis-state').count()).toBe(3);
  await checkView(p, 'findings-triage-auditor');
  expect(unexpected(auditor.errors)).toEqual([]);
});
