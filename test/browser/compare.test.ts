// A scan compared with its baseline, in a real browser against the real service and a real scan worker. Two tracked
// scans of one project (the first with beta 1.5.0, the second with beta 2.0.0), an advisory of eta imported after
// them, then a branch scan (ref feature/x) that bumps alpha to its fixed version, adds epsilon (two advisories, one
// suppressed by a suppression the change adds) and drops zeta. Its comparison, opened from the scan page's link: what
// the change brought (epsilon), what was disclosed since (eta), what it fixed (alpha), what was there already (beta),
// the suppression it added and its dependency changes; another baseline chosen changes the URL and the content; the
// first tracked scan has no baseline and says so; a queued scan, an unfinished or foreign baseline and a list cut by
// the API say so in words. Each view at 390 and 1280 pixels, with axe-core.
import type { BrowserContext, Page } from 'playwright-core';
import { importAdvisories } from '../../src/advisories/import';
import { bearer, workflowClosed, type Org } from '../helpers/context';
import { v2Snapshot, type V } from '../helpers/v2';
import { demoSnapshot, mavenAdvisory, MOD_APP, MOD_LIB, MOD_WEB, ADV, TEAM_PAY, TEAM_PLATFORM, XSS } from './fixtures';
import {
  baselineCandidates,
  compareQueryFromUrl,
  compareQueryToUrl,
  compareRefusal,
  moreText,
} from '../../web/src/compare';
import type { Scan } from '../../web/src/types';
import {
  advisoryDir,
  checkListView,
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
const EPS = { a: 'GHSA-demo-0004-dddd', b: 'GHSA-demo-0005-eeee', aCve: 'CVE-2099-0004', bCve: 'CVE-2099-0005' };
const ETA = { id: 'GHSA-demo-0006-ffff', cve: 'CVE-2099-0006' };
const SUPPRESSION = { cve: EPS.bCve, reason: `not reachable from our code ${XSS.img}`, expires: '2099-12-31' };
const COMMIT = { b1: '1'.repeat(40), b2: '2'.repeat(40), head: '3'.repeat(40) };

/** An OSV advisory of one org.demo package, affected below `fixed`. */
const osv = (id: string, cve: string, name: string, fixed: string, cvss: string) =>
  mavenAdvisory({ id, name, cvss, aliases: [cve], fixed });

/**
 * The demo monorepo (fixtures.ts) with eta (and, on the branch, epsilon) declared by :lib and zeta by :app. Delta's
 * suppression is in every snapshot; the branch adds one of epsilon's second advisory.
 */
function shopSnapshot(o: { beta: string; branch: boolean; ref?: string; commit: string }) {
  const alpha = o.branch ? 'org.demo:alpha@9.0.0' : 'org.demo:alpha@1.0.0';
  const lib: V[] = [
    ['l', MOD_LIB, 'al', 'et', ...(o.branch ? ['ep'] : [])],
    ['al', alpha],
    ['et', 'org.demo:eta@1.0.0'],
    ...(o.branch ? ([['ep', 'org.demo:epsilon@1.0.0']] as V[]) : []),
  ];
  return v2Snapshot(
    [
      {
        module: MOD_APP,
        context: 'runtimeClasspath',
        vertices: [
          ['a', MOD_APP, 'l', 'g', ...(o.branch ? [] : ['z'])],
          ...lib,
          ['g', 'org.demo:gamma@1.0.0', 'b'],
          ['b', `org.demo:beta@${o.beta}`],
          ...(o.branch ? [] : ([['z', 'org.demo:zeta@1.0.0']] as V[])),
        ],
      },
      { module: MOD_LIB, context: 'runtimeClasspath', vertices: lib },
      {
        module: MOD_WEB,
        context: 'runtimeClasspath',
        vertices: [
          ['w', MOD_WEB, 'd'],
          ['d', 'org.demo:delta@1.0.0'],
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
      suppressions: [{ cve: ADV.delta.cve, reason: 'accepted risk' }, ...(o.branch ? [SUPPRESSION] : [])],
      metadata: { commit: o.commit, ...(o.ref ? { ref: o.ref } : {}) },
    },
  );
}

let app: WebApp;
let org: Org;
let key: string;
/** The tracked scans (b1 without ref, b2 of main) and the branch scan. */
let b1: string;
let b2: string;
let head: string;
let projectId: string;
let ctx: BrowserContext;
let page: Page;
let errors: string[];

async function tracked(snapshot: object): Promise<string> {
  const id = await uploadAndWait(app, key, snapshot);
  await workflowClosed(app.t, id);
  return id;
}

beforeAll(async () => {
  app = await startWebApp();
  ({ org, key } = await demoOrg(app, 'acme'));
  const LOW = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N';
  const eps = await importAdvisories(app.t.store, [
    advisoryDir([
      osv(EPS.a, EPS.aCve, 'org.demo:epsilon', '2.0.0', LOW),
      osv(EPS.b, EPS.bCve, 'org.demo:epsilon', '2.0.0', LOW),
    ]),
  ]);
  expect(eps.rejected).toEqual([]);
  b1 = await tracked(shopSnapshot({ beta: '1.5.0', branch: false, commit: COMMIT.b1 }));
  b2 = await tracked(shopSnapshot({ beta: '2.0.0', branch: false, ref: 'main', commit: COMMIT.b2 }));
  // published after the baselines were scanned: on the branch scan, eta's finding is disclosed, not the change's
  const eta = await importAdvisories(app.t.store, [
    advisoryDir([osv(ETA.id, ETA.cve, 'org.demo:eta', '3.0.0', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N')]),
  ]);
  expect(eta.rejected).toEqual([]);
  head = await tracked(shopSnapshot({ beta: '2.0.0', branch: true, ref: 'feature/x', commit: COMMIT.head }));
  projectId = (await app.t.api.get(`/v1/scans/${head}`).set(bearer(key))).body.project;
  ctx = await sessionContext(app, org.ownerToken);
  page = await ctx.newPage();
  errors = watchErrors(page);
}, 180_000);

afterAll(async () => {
  await ctx?.close();
  await app?.close();
});

/** Waits for the comparison of the URL to be shown (not the previous one, kept while the next one loads). */
async function compared(p: Page = page): Promise<void> {
  await p.waitForFunction(
    () =>
      document.querySelector('.list-counts[data-ready-url]')?.getAttribute('data-ready-url') ===
      location.pathname + location.search,
  );
}

/** A section's rows: its row header's first link (or text), then each cell's text. */
async function rowsOf(section: string, p: Page = page): Promise<string[][]> {
  return p.$$eval(`section[aria-labelledby="${section}"] table.grid tbody tr`, (trs) =>
    trs.map((tr) => {
      const th = tr.querySelector('th');
      const head = (th?.querySelector('a') ?? th)?.textContent?.trim() ?? '';
      return [head, ...Array.from(tr.querySelectorAll('td')).map((td) => (td.textContent ?? '').trim())];
    }),
  );
}

/** A findings section as "advisory package@installed" lines. */
async function findingsOf(section: string): Promise<string[]> {
  return (await rowsOf(section)).map((r) => `${r[0]} ${r[2]}@${r[3]}`);
}

const emptyText = (section: string) =>
  page.locator(`section[aria-labelledby="${section}"] > .compare-empty`).textContent();

test("the scan page links to the comparison; it shows the change's findings, suppressions and dependency changes", async () => {
  await page.goto(`${app.baseUrl}/app/scans/${head}`);
  await page.getByRole('link', { name: 'Compare with baseline' }).click();
  await page.waitForURL((u) => u.pathname === `/app/scans/${head}/compare` && u.search === '');
  await compared();
  await page.getByRole('heading', { level: 1, name: `Compare ${PROJECT} with its baseline` }).waitFor();
  // the header: this scan, and the automatic baseline (the tracked scan before it) with its ref, commit and start
  const facts = (await page.locator('dl.compare-head').textContent())!;
  expect(facts).toContain(`${head} · feature/x @ 333333333333 · gradle · started`);
  expect(facts).toMatch(
    new RegExp(`${b2} · main @ 222222222222 · started \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC · chosen automatically`),
  );
  expect(await page.locator('#no-baseline').count()).toBe(0);
  expect(await page.locator('.list-counts').textContent()).toBe(
    `Compared with baseline ${b2}: 1 new, 1 disclosed, 1 fixed, 1 unchanged.`,
  );

  // one heading per section, in this order
  expect(await page.locator('main h2').allTextContents()).toEqual([
    'Summary',
    'New findings (1)',
    'Disclosed since the baseline (1)',
    'Fixed by this change (1)',
    'Unchanged (1)',
    'Suppressions added (1)',
    'Dependency changes',
  ]);
  expect(await page.locator('main h3').allTextContents()).toEqual([
    'Packages added (1)',
    'Packages removed (1)',
    'Versions changed (1)',
  ]);
  // the summary: unsuppressed findings of each class by severity, in words
  const summary = await rowsOf('compare-summary');
  expect(summary.map((r) => r[0])).toEqual([
    'New findings',
    'Disclosed since the baseline',
    'Fixed by this change',
    'Unchanged',
    'Suppressions added',
    'Dependency changes',
  ]);
  expect(summary[2][1]).toBe('1 critical 1high 0medium 0low 0'); // alpha, critical
  expect(summary[5][1]).toBe('1 added · 1 removed · 1 changed');

  // epsilon is new (its second advisory is suppressed by the change: hidden by default); eta's advisory came since
  expect(await findingsOf('compare-added')).toEqual([`${EPS.aCve} org.demo:epsilon@1.0.0`]);
  expect(await findingsOf('compare-disclosed')).toEqual([`${ETA.cve} org.demo:eta@1.0.0`]);
  expect(await findingsOf('compare-removed')).toEqual([`${ADV.alpha.cve} org.demo:alpha@1.0.0`]);
  expect(await findingsOf('compare-unchanged')).toEqual([`${ADV.beta.cve} org.demo:beta@2.0.0`]);
  const added = (await rowsOf('compare-added'))[0];
  expect(added[1]).toBe('medium');
  expect(added[4]).toBe('2.0.0'); // fixed version
  expect(added[5]).toBe(`${MOD_LIB}team ${TEAM_PLATFORM}`); // introduced by :lib, team platform
  expect((await rowsOf('compare-removed'))[0][4]).toBe('9.0.0');
  expect((await rowsOf('compare-unchanged'))[0][3]).toBe('2.0.0'); // no "was": the same version as the baseline

  // the suppression the change added; delta's, which the baseline had, is not listed
  expect(await rowsOf('compare-suppressions')).toEqual([[EPS.bCve, 'any package', SUPPRESSION.reason, '2099-12-31']]);
  expect(await rowsOf('compare-dependencies-added')).toEqual([['org.demo:epsilon', '1.0.0']]);
  expect(await rowsOf('compare-dependencies-removed')).toEqual([['org.demo:zeta', '1.0.0']]);
  expect(await rowsOf('compare-dependencies-changed')).toEqual([['org.demo:alpha', '1.0.0', '9.0.0']]);

  // a finding links to its page (a fixed one to the baseline's)
  const fixedLink = page.locator('section[aria-labelledby="compare-removed"]').getByRole('link', {
    name: ADV.alpha.cve,
    exact: true,
  });
  expect(await fixedLink.getAttribute('href')).toMatch(new RegExp(`^/app/scans/${b2}/findings/`));
  await atBothWidths(page, 'compare', () => compared());
  await noScriptRan(page);

  await fixedLink.click();
  await page.getByRole('heading', { name: `${ADV.alpha.cve} in org.demo:alpha` }).waitFor();
  await page.goBack();
  await compared();
  // every control labelled, and reached with the keyboard
  await checkListView(page, app.baseUrl, `/app/scans/${head}/compare`, 'compare-keyboard');
});

test('the suppressed filter lists the suppressed findings too, and lives in the URL', async () => {
  await page.goto(`${app.baseUrl}/app/scans/${head}/compare`);
  await compared();
  await page.getByLabel('Suppressed findings').selectOption('all');
  await page.waitForURL((u) => u.search === '?suppressed=all');
  await compared();
  // in severity then finding id order: the two epsilon findings in either order
  expect((await findingsOf('compare-added')).sort()).toEqual([
    `${EPS.aCve} org.demo:epsilon@1.0.0`,
    `${EPS.bCve} org.demo:epsilon@1.0.0`,
  ]);
  const suppressedRow = page
    .locator('section[aria-labelledby="compare-added"] tbody tr')
    .filter({ has: page.getByRole('link', { name: EPS.bCve, exact: true }) });
  expect(await suppressedRow.textContent()).toContain(`suppressed: ${SUPPRESSION.reason}`);
  expect((await findingsOf('compare-unchanged')).sort()).toEqual([
    `${ADV.beta.cve} org.demo:beta@2.0.0`,
    `${ADV.delta.cve} org.demo:delta@1.0.0`,
  ]);
  await page.getByLabel('Suppressed findings').selectOption('true');
  await page.waitForURL((u) => u.search === '?suppressed=true');
  await compared();
  expect(await emptyText('compare-removed')).toBe('No finding here matches the suppressed filter.');
  await page.reload();
  await compared();
  expect(await page.getByLabel('Suppressed findings').inputValue()).toBe('true');
  await noScriptRan(page);
});

test('another baseline chosen: the URL names it and the comparison changes; Automatic comes back to the plain URL', async () => {
  await page.goto(`${app.baseUrl}/app/scans/${head}/compare`);
  await compared();
  const chooser = page.getByLabel('Baseline', { exact: true });
  // the earlier completed scans of the project and ecosystem, newest first, after Automatic
  await page.getByText('Earlier completed gradle scans of this project, newest first.').waitFor();
  expect(await chooser.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual([
    'auto',
    b2,
    b1,
  ]);
  expect(await chooser.locator('option').nth(2).textContent()).toMatch(
    new RegExp(`^${b1} · no ref @ 111111111111 · \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC$`),
  );
  expect(await chooser.inputValue()).toBe('auto');

  await chooser.selectOption(b1);
  await page.waitForURL((u) => u.search === `?baseline=${b1}`);
  await compared();
  expect(await page.locator('#compare-baseline').textContent()).toMatch(
    new RegExp(`^${b1} · no ref @ 111111111111 · started .* · chosen$`),
  );
  expect(await page.locator('.list-counts').textContent()).toBe(
    `Compared with baseline ${b1}: 1 new, 1 disclosed, 1 fixed, 1 unchanged.`,
  );
  // beta was 1.5.0 in that baseline: still vulnerable after the bump
  expect((await rowsOf('compare-unchanged'))[0].slice(0, 4)).toEqual([
    ADV.beta.cve,
    'medium',
    'org.demo:beta',
    '2.0.0was 1.5.0',
  ]);
  expect(await rowsOf('compare-dependencies-changed')).toEqual([
    ['org.demo:alpha', '1.0.0', '9.0.0'],
    ['org.demo:beta', '1.5.0', '2.0.0'],
  ]);
  expect(await chooser.inputValue()).toBe(b1);
  await checkView(page, 'compare-chosen-baseline');

  // a reload keeps the choice; Back returns to the automatic one
  await page.reload();
  await compared();
  expect(await page.getByLabel('Baseline', { exact: true }).inputValue()).toBe(b1);
  await page.goBack();
  await page.waitForURL((u) => u.search === '');
  await compared();
  expect(await page.locator('#compare-baseline').textContent()).toContain(b2);

  await page.getByLabel('Baseline', { exact: true }).selectOption(b1);
  await page.waitForURL((u) => u.search === `?baseline=${b1}`);
  await compared();
  await page.getByLabel('Baseline', { exact: true }).selectOption('auto');
  await page.waitForURL((u) => u.pathname === `/app/scans/${head}/compare` && u.search === '');
  await compared();
  expect(await rowsOf('compare-dependencies-changed')).toEqual([['org.demo:alpha', '1.0.0', '9.0.0']]);
});

test('the first tracked scan has no baseline: it says so, and every finding is new', async () => {
  // reached from the project page's row of that scan
  await page.goto(`${app.baseUrl}/app/projects/${projectId}`);
  const row = page.getByRole('row', { name: new RegExp(b1) });
  await row.getByRole('link', { name: 'Compare this scan with its baseline' }).click();
  await page.waitForURL((u) => u.pathname === `/app/scans/${b1}/compare`);
  await compared();
  expect(await page.locator('#no-baseline').textContent()).toBe(
    'No baseline: this project has no completed scan of its default branch before this one, so every finding counts as new.',
  );
  expect(await page.locator('#compare-baseline').textContent()).toBe('none');
  expect(await page.locator('.list-counts').textContent()).toBe(
    'Compared with no baseline: 2 new, 0 disclosed, 0 fixed, 0 unchanged.',
  );
  expect((await findingsOf('compare-added')).sort()).toEqual(
    [`${ADV.alpha.cve} org.demo:alpha@1.0.0`, `${ADV.beta.cve} org.demo:beta@1.5.0`].sort(),
  );
  expect(await emptyText('compare-removed')).toBe('Nothing fixed: every finding of the baseline is still there.');
  expect(await emptyText('compare-disclosed')).toBe('No finding disclosed since the baseline.');
  expect(await page.getByText('No earlier completed scan of this project and ecosystem to choose.').count()).toBe(1);
  await atBothWidths(page, 'compare-no-baseline', () => compared());
});

test('a list the API cut says how many are not shown and reads on, 200 at a time', async () => {
  // the API cuts a list at 2,000 findings or 10,000 changes: here the answer is cut at one change, as if it were
  let partRequest = '';
  const comparison = (u: URL) => u.pathname === `/v1/scans/${head}/compare`;
  await page.route(comparison, async (route) => {
    const u = new URL(route.request().url());
    if (u.searchParams.get('part')) {
      partRequest = u.search;
      const whole = await (await route.fetch({ url: `${u.origin}${u.pathname}?baseline=${b1}` })).json();
      await route.fulfill({
        json: {
          scanId: head,
          baseline: whole.baseline,
          part: 'dependencies.changed',
          items: whole.dependencies.changed.slice(1),
          nextCursor: null,
        },
      });
      return;
    }
    const body = await (await route.fetch()).json();
    body.dependencies.changed = body.dependencies.changed.slice(0, 1);
    body.parts['dependencies.changed'] = { count: 2, nextCursor: 'test-cursor' };
    await route.fulfill({ json: body });
  });
  try {
    await page.goto(`${app.baseUrl}/app/scans/${head}/compare?baseline=${b1}`);
    await compared();
    const section = page.locator('section[aria-labelledby="compare-dependencies-changed"]');
    expect(await section.locator('.compare-more .notice').textContent()).toBe(
      '1 of 2 packages shown; 1 more not shown yet.',
    );
    expect(await rowsOf('compare-dependencies-changed')).toEqual([['org.demo:alpha', '1.0.0', '9.0.0']]);
    await checkView(page, 'compare-cut');
    await section.getByRole('button', { name: 'Show 1 more versions changed' }).click();
    await section.locator('tbody tr').nth(1).waitFor();
    expect(await rowsOf('compare-dependencies-changed')).toEqual([
      ['org.demo:alpha', '1.0.0', '9.0.0'],
      ['org.demo:beta', '1.5.0', '2.0.0'],
    ]);
    expect(Object.fromEntries(new URLSearchParams(partRequest))).toEqual({
      baseline: b1,
      suppressed: 'false',
      part: 'dependencies.changed',
      cursor: 'test-cursor',
      limit: '200',
    });
    expect(await section.locator('.compare-more').count()).toBe(0);
  } finally {
    await page.unroute(comparison);
  }
});

test('refusals in words: an unknown, unfinished or foreign baseline, an unknown scan; a queued scan is followed live', async () => {
  await page.goto(`${app.baseUrl}/app/scans/${head}/compare?baseline=scn_doesnotexist`);
  await page.getByRole('alert').filter({ hasText: 'No such scan in this organization' }).waitFor();
  expect(await page.locator('section.compare-section').count()).toBe(0);
  // the unknown id stays the chooser's value, beside Automatic
  expect(await page.getByLabel('Baseline', { exact: true }).inputValue()).toBe('scn_doesnotexist');

  const other = await uploadAndWait(app, key, demoSnapshot('other-project'));
  await page.goto(`${app.baseUrl}/app/scans/${head}/compare?baseline=${other}`);
  await page
    .getByRole('alert')
    .filter({ hasText: 'The baseline chosen is not a scan of the same project and ecosystem' })
    .waitFor();

  await page.goto(`${app.baseUrl}/app/scans/scn_doesnotexist/compare`);
  await page.getByRole('heading', { name: 'Scan not found' }).waitFor();

  await app.pauseWorker();
  let queued: string;
  try {
    const res = await app.t.api
      .post('/v1/scans/dependency-snapshots')
      .set(bearer(key))
      .send(shopSnapshot({ beta: '2.0.0', branch: true, ref: 'feature/y', commit: '4'.repeat(40) }));
    expect(res.status).toBe(201);
    queued = res.body.id as string;
    // a baseline that has not completed: 409 from the API, in words
    await page.goto(`${app.baseUrl}/app/scans/${head}/compare?baseline=${queued}`);
    await page.getByRole('alert').filter({ hasText: 'The baseline chosen has not completed' }).waitFor();
    // the queued scan's own comparison waits for it, and comes when it completes
    await page.goto(`${app.baseUrl}/app/scans/${queued}/compare`);
    await page.getByText('This scan is queued: the comparison appears when it completes.').waitFor();
    await checkView(page, 'compare-queued');
  } finally {
    await app.resumeWorker();
  }
  await page.waitForFunction(
    () => /^Compared with baseline/.test(document.querySelector('.list-counts')?.textContent ?? ''),
    undefined,
    {
      timeout: 45_000,
    },
  );
  await compared();
  expect(await page.locator('#compare-baseline').textContent()).toContain(b2);
  expect(await findingsOf('compare-added')).toEqual([`${EPS.aCve} org.demo:epsilon@1.0.0`]);
  expect(unexpected(errors)).toEqual([]);
}, 120_000);

test("the view's pure pieces: its URL query, the baseline choices, the cut lists' words, refusals in words", () => {
  expect(compareQueryFromUrl({})).toEqual({ baseline: undefined, suppressed: 'false' });
  expect(compareQueryFromUrl({ baseline: 'auto', suppressed: 'junk' })).toEqual({
    baseline: undefined,
    suppressed: 'false',
  });
  const q = compareQueryFromUrl({ baseline: 'scn_a', suppressed: 'all' });
  expect(q).toEqual({ baseline: 'scn_a', suppressed: 'all' });
  expect(compareQueryToUrl(q)).toEqual({ baseline: 'scn_a', suppressed: 'all' });
  expect(compareQueryToUrl({ suppressed: 'false' })).toEqual({ baseline: undefined, suppressed: undefined });

  const scan = (id: string, startedAt: string, more: Partial<Scan> = {}) =>
    ({ id, startedAt, status: 'completed', ecosystem: 'gradle', ...more }) as Scan;
  const me = scan('scn_me', '2024-05-01T00:00:00Z');
  expect(
    baselineCandidates(
      [
        scan('scn_later', '2024-06-01T00:00:00Z'),
        me,
        scan('scn_old', '2024-01-01T00:00:00Z'),
        scan('scn_newer', '2024-04-01T00:00:00Z'),
        scan('scn_failed', '2024-03-01T00:00:00Z', { status: 'failed' }),
        scan('scn_npm', '2024-03-01T00:00:00Z', { ecosystem: 'javascript' }),
        scan('scn_old', '2024-01-01T00:00:00Z'),
      ],
      me,
    ).map((s) => s.id),
  ).toEqual(['scn_newer', 'scn_old']);

  expect(moreText(2000, 2345, ['finding', 'findings'])).toBe('2,000 of 2,345 findings shown; 345 more not shown yet.');
  expect(compareRefusal(409, 'invalid_state', 'scan scn_x is running, not completed')).toMatch(/^This scan has not/);
  expect(compareRefusal(409, 'invalid_state', 'baseline scan scn_x is running, not completed')).toMatch(
    /^The baseline chosen has not completed/,
  );
  expect(compareRefusal(422, 'invalid_parameter', 'limit: must be at most 200')).toBeUndefined();
});
