// The web app's everyday habits, as a security engineer meets them: counts that say what they count (findings vs
// rows, the same way in every grouping), navigation that keeps its context (the way back keeps every filter and
// returns to the row; the list is one Tab stop), a clean scan said to be clean, zero counts that do not look like
// real ones, an unassigned team named, and a project that does not exist offering nothing of its own.
import fs from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { bearer, type Org } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';
import { ADV, demoSnapshot, MOD_WEB } from './fixtures';
import { checkView, demoOrg, findingsRows, sessionContext, startWebApp, uploadAndWait, type WebApp } from './helpers';

let app: WebApp;
let org: Org;
let scanId: string;
let cleanScanId: string;
let cleanProject: string;
let ctx: BrowserContext;
let page: Page;

beforeAll(async () => {
  app = await startWebApp();
  let key: string;
  ({ org, key } = await demoOrg(app, 'acme'));
  scanId = await uploadAndWait(app, key, demoSnapshot('shop'));
  cleanScanId = await uploadAndWait(app, key, v1Snapshot('clean-web'));
  cleanProject = (await app.t.api.get(`/v1/scans/${cleanScanId}`).set(bearer(key))).body.project;
  ctx = await sessionContext(app, org.ownerToken);
  page = await ctx.newPage();
}, 120_000);

afterAll(async () => {
  await ctx?.close();
  await app?.close();
});

const rows = () => findingsRows(page);

/** The focused element: its text, and whether it is inside the findings list. */
const focused = () =>
  page.evaluate(() => ({
    text: document.activeElement?.textContent ?? '',
    inList: !!document.activeElement?.closest('[role=list][aria-label=Findings]'),
  }));

test('counts say what they count: findings, and the rows when a finding is listed under several groups', async () => {
  // affected view: alpha affects :app (through :lib) and :lib, so its one finding is two rows
  await page.goto(`${app.baseUrl}/app/scans/${scanId}?attribution=affected`);
  const r = await rows();
  const headers = r.filter((x) => x.startsWith('# '));
  const findingRows = r.length - headers.length;
  const perGroup = headers.map((h) => Number(/· (\d+) findings?$/.exec(h)![1]));
  expect(perGroup.reduce((a, b) => a + b, 0)).toBe(findingRows); // the headers add up to the rows shown
  const text = (await page.locator('.list-counts').textContent())!;
  const findings = Number(/· (\d+) findings?/.exec(text)![1]);
  expect(findings).toBeLessThan(findingRows);
  expect(text).toContain(
    `${findings} findings, shown in ${findingRows} rows: a finding is listed under every module it affects, so the groups add up to more`,
  );
  // the same words by introducing dependency; and without grouping there is nothing to explain
  await page.goto(`${app.baseUrl}/app/scans/${scanId}?attribution=affected&group=none`);
  expect((await rows()).length).toBe(findings);
  expect(await page.locator('.list-counts').textContent()).toMatch(new RegExp(`· ${findings} findings$`));
  await checkView(page, 'habits-counts');
});

test('the way back from a finding keeps every filter and returns to its row; browser Back too', async () => {
  const list = `/app/scans/${scanId}?attribution=affected&severity=critical&suppressed=all&group=dependency`;
  await page.goto(`${app.baseUrl}${list}`);
  await rows();
  await page.getByRole('link', { name: ADV.alpha.cve }).first().click();
  await page.getByRole('heading', { name: new RegExp(`^${ADV.alpha.cve} in`) }).waitFor();
  await page.getByRole('link', { name: 'Back to the findings' }).click();
  await page.waitForURL((u) => u.pathname === `/app/scans/${scanId}`);
  expect(new URL(page.url()).search).toBe(list.slice(list.indexOf('?')));
  await rows();
  await page.waitForFunction(() => !!document.activeElement?.closest('[role=list]'));
  expect(await focused()).toEqual({ text: ADV.alpha.cve, inList: true });

  // browser Back from the finding page lands on the row it was opened from, not on the heading
  await page.getByRole('link', { name: ADV.alpha.cve }).first().click();
  await page.getByRole('heading', { name: new RegExp(`^${ADV.alpha.cve} in`) }).waitFor();
  await page.goBack();
  await rows();
  await page.waitForFunction(() => !!document.activeElement?.closest('[role=list]'));
  expect(await focused()).toEqual({ text: ADV.alpha.cve, inList: true });
});

test('the list is one Tab stop: arrows move inside it, one Tab leaves it', async () => {
  await page.goto(`${app.baseUrl}/app/scans/${scanId}?suppressed=all&group=none`);
  const r = await rows();
  expect(r.length).toBeGreaterThan(1);
  // only one control of the list is in the Tab order
  const tabbable = await page.$$eval(
    '[role=list][aria-label=Findings] a, [role=list][aria-label=Findings] [role=listitem]',
    (els) => els.filter((e) => (e as HTMLElement).tabIndex >= 0).length,
  );
  expect(tabbable).toBe(1);
  await page.locator('[role=list][aria-label=Findings] a[tabindex="0"]').focus();
  const first = await focused();
  await page.keyboard.press('ArrowDown');
  const second = await focused();
  expect(second.inList).toBe(true);
  expect(second.text).not.toBe(first.text);
  await page.keyboard.press('Tab');
  expect((await focused()).inList).toBe(false);
  // coming back with Shift+Tab lands on the row last used
  await page.keyboard.press('Shift+Tab');
  expect(await focused()).toEqual(second);
});

test('a clean scan says so; zero counts are muted; a team-less module is "team unassigned"', async () => {
  await page.goto(`${app.baseUrl}/app/scans/${cleanScanId}`);
  await page.locator('p.clean').waitFor();
  expect(await page.locator('p.clean').textContent()).toMatch(
    /^No known vulnerability: none of this scan's packages matches an advisory \(scanned \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
  );
  expect(await page.getByText('No finding matches these filters').count()).toBe(0);
  // with a filter, the empty list is the filter's doing
  await page.goto(`${app.baseUrl}/app/scans/${cleanScanId}?severity=critical`);
  await page.getByText('No finding matches these filters.').waitFor();

  await page.goto(`${app.baseUrl}/app/projects/${cleanProject}`);
  await page.getByRole('cell', { name: /completed/ }).waitFor();
  const counts = await page.$$eval('td .count', (els) =>
    els.map((e) => ({ text: e.textContent, zero: e.classList.contains('count-zero') })),
  );
  expect(counts.length).toBeGreaterThan(0);
  for (const c of counts) expect(c.zero).toBe(/ 0$/.test(c.text ?? ''));
  const color = await page.$eval('td .count.sev-critical', (e) => getComputedStyle(e).color);
  const muted = await page.$eval('.muted', (e) => getComputedStyle(e).color);
  expect(color).toBe(muted);

  // :web has no team: named as unassigned, as the CLI does
  await page.goto(`${app.baseUrl}/app/scans/${scanId}?suppressed=all`);
  const headers = (await rows()).filter((x) => x.startsWith('# '));
  expect(headers).toContain(`# ${MOD_WEB} · team unassigned · 1 finding`);
});

test('a project that does not exist says so and offers no inventory link', async () => {
  await page.goto(`${app.baseUrl}/app/projects/prj_doesnotexist0000000000`);
  await page.getByRole('heading', { name: 'Project not found' }).waitFor();
  expect(await page.getByRole('link', { name: 'Dependency inventory' }).count()).toBe(0);
  await page.getByRole('link', { name: 'See every project' }).waitFor();
  await checkView(page, 'habits-project-missing');
});

test('a finding links its advisory and aliases to where they are published (NVD, GitHub, OSV)', async () => {
  await page.goto(`${app.baseUrl}/app/scans/${scanId}`);
  await rows();
  await page.getByRole('link', { name: ADV.alpha.cve }).first().click();
  await page.getByRole('heading', { name: new RegExp(`^${ADV.alpha.cve} in`) }).waitFor();
  const links = await page.$$eval('dl.facts a', (els) =>
    els.map((a) => ({ href: a.getAttribute('href'), target: a.getAttribute('target'), rel: a.getAttribute('rel') })),
  );
  expect(links).toEqual(
    expect.arrayContaining([
      { href: `https://nvd.nist.gov/vuln/detail/${ADV.alpha.cve}`, target: '_blank', rel: 'noopener noreferrer' },
      { href: `https://osv.dev/vulnerability/${ADV.alpha.cve}`, target: '_blank', rel: 'noopener noreferrer' },
      { href: `https://osv.dev/vulnerability/${ADV.alpha.id}`, target: '_blank', rel: 'noopener noreferrer' },
    ]),
  );
  // a well-formed GHSA id links to GitHub's advisory database (the demo ids are not well formed)
  expect(links.some((l) => l.href?.startsWith('https://github.com/'))).toBe(false);
  // the CVSS score, version and vector the advisory gave
  const facts = await page.locator('dl.facts').innerText();
  expect(facts).toContain('9.8 (CVSS 3.1) CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H');
});

test("the key form: a CI upload preset, no past expiry offered, refusals at their field in words, and a revoked key's secret taken off the screen", async () => {
  await page.goto(`${app.baseUrl}/app/api-keys`);
  await page.getByRole('button', { name: 'CI upload preset' }).click();
  const checked = await page.$$eval('input[name=scope]:checked', (els) =>
    els.map((e) => (e as HTMLInputElement).value),
  );
  expect(checked.sort()).toEqual(['findings:read', 'sca:upload', 'scans:read']);
  expect(await page.getByLabel('Expires on (optional)').getAttribute('min')).toBe(
    new Date().toISOString().slice(0, 10),
  );
  // a name of 200 characters is refused by nobody, and its row wraps instead of widening the table
  const long = `ci-${'n'.repeat(197)}`;
  await page.getByLabel('Name', { exact: true }).fill(long);
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = page.getByLabel(`Secret of the key ${long}`);
  await secret.waitFor();
  const table = await page.locator('table.grid').boundingBox();
  expect(table!.width).toBeLessThanOrEqual(await page.evaluate(() => document.documentElement.clientWidth));
  // revoking the key whose secret is on screen takes the secret away
  await page.getByRole('button', { name: `Revoke the key ${long}` }).click();
  await page
    .getByRole('group', { name: /^Revoke the key/ })
    .getByRole('button', { name: 'Revoke' })
    .click();
  await page.getByText(`The key ${long} was revoked: it stops working now.`).waitFor();
  expect(await secret.count()).toBe(0);
});

test('inviting a member of this organization is refused at the email field, in words', async () => {
  await page.goto(`${app.baseUrl}/app/invitations`);
  const me = (await app.t.store.c.members.findOne({ orgId: org.orgId }))!.email;
  await page.getByLabel('Email address').fill(me);
  await page.getByRole('button', { name: 'Invite' }).click();
  const message = page.locator('#invite-email-error');
  await message.waitFor();
  expect(await message.textContent()).toBe(`${me} is already a member of this organization.`);
  expect(await page.getByLabel('Email address').getAttribute('aria-invalid')).toBe('true');
  expect(await page.getByLabel('Email address').getAttribute('aria-describedby')).toBe('invite-email-error');
  await checkView(page, 'habits-invite-refused');
});

test("a scan's SBOM and VEX (CycloneDX, and OpenVEX once a finding is triaged) download from its page, as the API serves them", async () => {
  await page.goto(`${app.baseUrl}/app/scans/${scanId}`);
  await rows();
  for (const [label, file, kind] of [
    ['SBOM (CycloneDX)', `${scanId}.sbom.cdx.json`, 'components'],
    ['VEX (CycloneDX)', `${scanId}.vex.cdx.json`, 'vulnerabilities'],
  ] as const) {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: label }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(file);
    const body = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
    expect(body.bomFormat).toBe('CycloneDX');
    expect(Array.isArray(body[kind]) && body[kind].length > 0).toBe(true);
  }

  // OpenVEX carries triage decisions only: with none, the API's refusal is said in words
  await page.getByRole('button', { name: 'VEX (OpenVEX)' }).click();
  const refusal = page.getByRole('alert').filter({ hasText: 'Could not download the VEX (OpenVEX)' });
  await refusal.waitFor();
  expect(await refusal.textContent()).toMatch(/analysis/);
  // one decision on the alert of one finding, then the document holds its statement
  const triager = await org.key(['findings:read', 'findings:triage']);
  const findings = (await app.t.api.get(`/v1/scans/${scanId}/findings`).set(bearer(triager))).body.findings;
  const decided = findings.find((f: { alertId: string | null }) => f.alertId);
  expect(decided).toBeDefined();
  const put = await app.t.api
    .put(`/v1/alerts/${decided.alertId}/analysis`)
    .set(bearer(triager))
    .send({ state: 'not_affected', justification: 'code_not_reachable', detail: 'only in a test helper' });
  expect(put.status).toBe(200);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'VEX (OpenVEX)' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`${scanId}.openvex.json`);
  const openvex = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
  expect(openvex['@context']).toBe('https://openvex.dev/ns/v0.2.0');
  expect(openvex.statements).toEqual([
    expect.objectContaining({
      vulnerability: expect.objectContaining({ name: decided.cve }),
      status: 'not_affected',
      justification: 'vulnerable_code_not_in_execute_path',
      impact_statement: 'only in a test helper',
    }),
  ]);
});

test('tables sort by a column header (aria-sort says how), the findings by severity', async () => {
  await page.goto(`${app.baseUrl}/app/projects`);
  await page.getByRole('link', { name: 'clean-web' }).waitFor();
  const order = () => page.$$eval('table.grid tbody th', (els) => els.map((e) => e.textContent?.trim()));
  const header = (name: string) => page.getByRole('columnheader', { name: new RegExp(`^${name}`) });
  await header('Project').getByRole('button').click();
  expect(await header('Project').getAttribute('aria-sort')).toBe('ascending');
  expect(await order()).toEqual(['clean-web', 'shop']);
  await header('Project').getByRole('button').click();
  expect(await header('Project').getAttribute('aria-sort')).toBe('descending');
  expect(await order()).toEqual(['shop', 'clean-web']);
  // by findings: the project with a critical one first
  await header('Findings').getByRole('button').click();
  expect(await header('Findings').getAttribute('aria-sort')).toBe('ascending');
  expect(await header('Project').getAttribute('aria-sort')).toBe('none');
  expect(await order()).toEqual(['shop', 'clean-web']);
  await checkView(page, 'habits-projects-sorted');
  // the members, the keys and the invitations sort the same way
  const invited = await app.t.api
    .post('/v1/invitations')
    .set(bearer(org.ownerToken))
    .send({ email: 'sorted@example.test', role: 'member' });
  expect(invited.status).toBe(201);
  for (const [path, column] of [
    ['/app/members', 'Email'],
    ['/app/api-keys', 'Name'],
    ['/app/invitations', 'Email'],
  ] as const) {
    await page.goto(`${app.baseUrl}${path}`);
    await page.locator('h1').waitFor();
    await header(column).getByRole('button').click();
    expect(await header(column).getAttribute('aria-sort')).toBe('ascending');
  }
});

test('the audit trail filters by event and by actor (in the URL), and names keys and projects', async () => {
  // a key restricted to a project, then revoked: its events carry the project and the key by name
  const restricted = await app.t.api
    .post('/v1/api-keys')
    .set(bearer(org.ownerToken))
    .send({ name: 'deploy bot', scopes: ['scans:read'], projects: [cleanProject] });
  expect(restricted.status).toBe(201);
  expect((await app.t.api.delete(`/v1/api-keys/${restricted.body.apiKey.id}`).set(bearer(org.ownerToken))).status).toBe(
    204,
  );
  await page.goto(`${app.baseUrl}/app/audit`);
  await page.getByLabel('Event', { exact: true }).selectOption('api_key.created');
  await page.waitForURL(/\/app\/audit\?type=api_key\.created$/);
  /** Waits until every row of the table is an event of this kind. */
  const onlyRows = (label: string) =>
    page.waitForFunction((l) => {
      const rows = Array.from(document.querySelectorAll('table.grid tbody tr'));
      return rows.length > 0 && rows.every((r) => r.querySelector('th')?.textContent?.startsWith(l));
    }, label);
  await onlyRows('API key created');
  // the project by its slug, not its prj_ id
  await page.getByRole('row').filter({ hasText: 'deploy bot' }).filter({ hasText: 'projects: clean-web' }).waitFor();
  await page.getByLabel('Event', { exact: true }).selectOption('api_key.revoked');
  await page.waitForURL(/type=api_key\.revoked/);
  await onlyRows('API key revoked');
  await page.getByRole('row').filter({ hasText: 'deploy bot' }).waitFor();
  // by actor: the owner (any case) has events; nobody has none
  const owner = (await app.t.store.c.members.findOne({ orgId: org.orgId, role: 'owner' }))!.email;
  await page.getByLabel('Actor (email)').fill(owner.toUpperCase());
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/actor=/);
  await page.getByRole('row').filter({ hasText: 'deploy bot' }).waitFor();
  await page.getByLabel('Actor (email)').fill('nobody@example.test');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('No event matches these filters.').waitFor();
  // a reload keeps both filters
  await page.reload();
  expect(await page.getByLabel('Event', { exact: true }).inputValue()).toBe('api_key.revoked');
  expect(await page.getByLabel('Actor (email)').inputValue()).toBe('nobody@example.test');
  await checkView(page, 'habits-audit-filtered');
});

test("an admin sets a project's default branch on its page; a name git refuses is refused at the field", async () => {
  const projectId = (await app.t.api.get(`/v1/scans/${scanId}`).set(bearer(org.ownerToken))).body.project as string;
  await page.goto(`${app.baseUrl}/app/projects/${projectId}`);
  const input = page.getByLabel('Default branch', { exact: true });
  await input.waitFor();
  expect(await input.inputValue()).toBe('main');
  await input.fill('a b');
  await page.getByRole('button', { name: 'Save' }).click();
  const message = page.locator('#default-branch-error');
  await message.waitFor();
  expect(await message.textContent()).toBe(
    'The default branch must not hold spaces, control characters or any of ~^:?*[\\.',
  );
  expect(await input.getAttribute('aria-describedby')).toBe('default-branch-hint default-branch-error');
  await input.fill('refs/heads/develop');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('The default branch is now develop: its scans are tracked from the next one.').waitFor();
  expect(await input.inputValue()).toBe('develop');
  await page.reload();
  expect(await page.getByLabel('Default branch', { exact: true }).inputValue()).toBe('develop');
  await checkView(page, 'habits-default-branch');
});
