// Triage rules in a real browser against the real service and a real scan worker (docs/triage.md#rules): one tracked
// scan of the demo monorepo gives its project alerts (alpha, beta; delta suppressed by the snapshot). An owner creates
// a dry-run rule through the form (refused at the fields first, before anything is sent), its preview lists the alert
// it matches with "would change", the switch to enforce suppresses that alert (read from the API), then the rule is
// deleted with a confirmation; a rule is created with the keyboard alone; an auditor sees the rules and a preview and
// no control. Each view with axe-core, at 390 and 1280 pixels.
import type { BrowserContext, Page } from 'playwright-core';
import { bearer, workflowClosed, type Org } from '../helpers/context';
import { ADV, demoSnapshot } from './fixtures';
import {
  atBothWidths,
  checkView,
  demoOrg,
  noScriptRan,
  sessionPage,
  startWebApp,
  unexpected,
  uploadAndWait,
  type WebApp,
} from './helpers';

const PROJECT = 'ruled';

let app: WebApp;
let org: Org;
let key: string;
/** Alert ids by package: alpha, beta, delta. */
const ids: Record<string, string> = {};
const contexts: BrowserContext[] = [];
let page: Page;
let errors: string[];

const pageOf = (token: string) => sessionPage(app, token, contexts);

const readAlert = async (id: string) => {
  const res = await app.t.api.get(`/v1/alerts/${id}`).set(bearer(key));
  expect(res.status).toBe(200);
  return res.body;
};
const readRules = async () => {
  const res = await app.t.api.get('/v1/triage-rules').set(bearer(org.ownerToken));
  expect(res.status).toBe(200);
  return res.body.rules as { id: string; name: string; mode: string; conditions: object; analysis: object }[];
};

beforeAll(async () => {
  app = await startWebApp();
  ({ org, key } = await demoOrg(app, 'acme rules'));
  const scanId = await uploadAndWait(app, key, demoSnapshot(PROJECT));
  await workflowClosed(app.t, scanId); // the alerts move after the scan completes, before its workflow closes
  const projectId = (await app.t.api.get(`/v1/scans/${scanId}`).set(bearer(key))).body.project;
  const all = await app.t.api.get(`/v1/alerts?project=${projectId}&suppressed=all`).set(bearer(key));
  for (const a of all.body.alerts as { id: string; package: string }[]) ids[a.package.replace('org.demo:', '')] = a.id;
  expect(Object.keys(ids).sort()).toEqual(['alpha', 'beta', 'delta']);
  ({ page, errors } = await pageOf(org.ownerToken));
}, 180_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await app?.close();
});

/** Requests that would write a rule, from a page. */
function writes(p: Page): string[] {
  const seen: string[] = [];
  p.on('request', (r) => {
    if (r.method() !== 'GET' && r.url().includes('/v1/triage-rules'))
      seen.push(`${r.method()} ${new URL(r.url()).pathname}`);
  });
  return seen;
}

/** The focused element: its id, or its tag and accessible text. */
const focused = (p: Page) =>
  p.evaluate(() => {
    const e = document.activeElement as HTMLElement | null;
    return e?.id || `${e?.tagName.toLowerCase()} ${(e?.getAttribute('aria-label') ?? e?.textContent ?? '').trim()}`;
  });

/**
 * The focus is on `id` (an element's id, or "tag text"), once the view's effects have run: a view moves the focus in
 * an effect after it renders, which a check right after the click can run before.
 */
async function expectFocus(p: Page, id: string, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let now = await focused(p);
  while (now !== id && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 25));
    now = await focused(p);
  }
  expect(now).toBe(id);
}

/** Tab (only) until the focus is on `id`, at most `max` presses. */
async function tabTo(p: Page, id: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    if ((await focused(p)) === id) return;
    await p.keyboard.press('Tab');
  }
  await expectFocus(p, id);
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

/** The preview's rows: package, advisory, and the verdict (its reason is under it). */
async function previewRows(p: Page): Promise<string[][]> {
  const section = p.getByRole('region', { name: /^Preview matches of/ });
  await section
    .locator('.list-counts')
    .getByText(/alerts? match/)
    .waitFor();
  return section
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((r) => [
        (r.querySelector('th')?.firstChild?.textContent ?? '').trim(),
        (r.querySelector('td a')?.textContent ?? '').trim(),
        (r.querySelector('.match-change')?.textContent ?? '').trim(),
      ]),
    );
}

test('an owner creates a dry-run rule (refused at the fields first), previews it, enforces it, deletes it', async () => {
  const sent = writes(page);
  await page.goto(`${app.baseUrl}/app/triage-rules`);
  await page.getByRole('heading', { name: 'Triage rules', level: 1 }).waitFor();
  await page.getByText('No triage rule yet.').waitFor();
  // the navigation leads here, and so does the alerts list
  expect(
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Rules', exact: true })
      .getAttribute('aria-current'),
  ).toBe('page');
  await page.getByRole('button', { name: 'New rule…' }).click();
  const form = page.getByRole('form', { name: 'New triage rule' });
  await expectFocus(page, 'rule-name');
  await form.getByLabel('Name').fill('beta is resolved upstream');
  // 101 teams: said at the field as soon as it changes
  await form.getByLabel('Teams').fill(Array.from({ length: 101 }, (_, i) => `team-${i}`).join(', '));
  expect(await described(page, '#rule-teams')).toEqual({
    invalid: 'true',
    description: [
      'every module that brings the finding in belongs to one of them',
      'At most 100 teams (there are 101).',
    ],
  });
  await form.getByLabel('Packages').fill('org.demo:be*');
  await form.getByRole('radio', { name: /^Resolved/ }).check();
  await form.getByRole('button', { name: 'Create the rule' }).click();
  // the detail is required for resolved too: two fields, the focus on the first; nothing was sent
  expect(await described(page, '#rule-analysis-detail')).toEqual({
    invalid: 'true',
    description: ['0 of 2,000 characters', 'The detail is required when the state is “resolved”.'],
  });
  await expectFocus(page, 'rule-teams');
  expect(await form.locator('.outcome [role=status]').textContent()).toBe('2 fields need a change.');
  expect(sent).toEqual([]);
  await checkView(page, 'triage-rules-refused');

  await form.getByLabel('Teams').fill('');
  expect((await described(page, '#rule-teams')).invalid).toBeNull();
  await form.getByLabel('Detail (required)').fill('Fixed by the vendor patch we ship.');
  expect(await form.getByRole('radio', { name: /^Dry run/ }).isChecked()).toBe(true);
  await form.getByRole('button', { name: 'Create the rule' }).click();
  await page.getByText(/^The rule “beta is resolved upstream” was created \(dry run\)/).waitFor();
  expect(sent).toEqual(['POST /v1/triage-rules']);
  const [created] = await readRules();
  expect(created).toMatchObject({
    name: 'beta is resolved upstream',
    mode: 'dry_run',
    conditions: { packages: ['org.demo:be*'] },
    analysis: { state: 'resolved', detail: 'Fixed by the vendor patch we ship.', versions: null },
  });
  await page.waitForURL((u) => u.search === `?preview=${created.id}`);

  // the list: name, mode, conditions and analysis in words, who created it
  const row = page.getByRole('row', { name: /beta is resolved upstream/ });
  const text = await row.textContent();
  expect(text).toContain('Dry run');
  expect(text).toContain('package matching org.demo:be*');
  expect(text).toContain('Resolved');
  expect(text).toContain('no expiry');
  // the preview: beta, which enforcing the rule would suppress
  expect(await previewRows(page)).toEqual([['org.demo:beta', ADV.beta.cve, 'would change']]);
  const preview = page.getByRole('region', { name: 'Preview matches of “beta is resolved upstream”' });
  await preview.getByText('enforcing this rule would suppress it').waitFor();
  expect(await preview.locator('.list-counts').textContent()).toBe(
    '1 open alert matches now; of the 1 shown, 1 would change.',
  );
  expect((await readAlert(ids.beta)).suppressed).toBe(false);
  await atBothWidths(page, 'triage-rules-preview', () => preview.locator('tbody tr').first().waitFor());

  // enforce: the alert reads suppressed by the rule; the preview says it applies already
  await page.getByRole('button', { name: 'Enforce the rule beta is resolved upstream' }).click();
  await page
    .getByText('The rule “beta is resolved upstream” is enforced now: it marks them “resolved” and suppresses them.')
    .waitFor();
  await preview.getByText('this rule applies to it already').waitFor();
  expect(await row.textContent()).toContain('Enforced');
  expect(sent).toEqual(['POST /v1/triage-rules', `PATCH /v1/triage-rules/${created.id}`]);
  const beta = await readAlert(ids.beta);
  expect([beta.suppressed, beta.suppressionSource, beta.ruleId]).toEqual([true, 'rule', created.id]);
  await checkView(page, 'triage-rules-enforced');

  // delete, with a confirmation: the alert is counted again
  await page.getByRole('button', { name: 'Delete the rule beta is resolved upstream' }).click();
  await expectFocus(page, 'button Delete');
  await page
    .getByRole('group', { name: 'Delete the rule “beta is resolved upstream”?' })
    .getByRole('button', { name: 'Delete' })
    .click();
  await page.getByText(/^The rule “beta is resolved upstream” was deleted/).waitFor();
  await page.getByText('No triage rule yet.').waitFor();
  await page.waitForURL((u) => u.search === '');
  expect(await readRules()).toEqual([]);
  expect((await readAlert(ids.beta)).suppressed).toBe(false);
  await noScriptRan(page);
  expect(unexpected(errors)).toEqual([]);
});

test('the alerts list links to the rules', async () => {
  const projectId = (await readAlert(ids.alpha)).project;
  await page.goto(`${app.baseUrl}/app/projects/${projectId}/alerts`);
  await page.getByRole('link', { name: 'Triage rules' }).last().click();
  await page.getByRole('heading', { name: 'Triage rules', level: 1 }).waitFor();
});

test('keyboard only: a rule on one advisory, in dry run, created from the New rule button', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${app.baseUrl}/app/triage-rules`);
  await page.getByText('No triage rule yet.').waitFor();
  await tabTo(page, 'button New rule…');
  await page.keyboard.press('Enter');
  await expectFocus(page, 'rule-name');
  await page.keyboard.type('alpha is being looked at');
  await tabTo(page, 'rule-advisories', 12);
  await page.keyboard.type(ADV.alpha.id);
  // severities: Space ticks critical
  await tabTo(page, 'rule-severities-critical', 4);
  await page.keyboard.press('Space');
  // the state group: one Tab stop, arrows choose
  await tabTo(page, 'rule-analysis-state-in_triage', 6);
  await page.keyboard.press('ArrowDown');
  await expectFocus(page, 'rule-analysis-state-exploitable');
  await tabTo(page, 'rule-analysis-detail', 8);
  await page.keyboard.type('SEC-7 tracks the upgrade.');
  await tabTo(page, 'rule-mode-dry_run', 10);
  await tabTo(page, 'button Create the rule', 2);
  await page.keyboard.press('Enter');
  await page.getByText(/^The rule “alpha is being looked at” was created \(dry run\)/).waitFor();
  // the preview's heading takes the focus
  await expectFocus(page, 'rule-preview-title');
  const [r] = await readRules();
  expect(r).toMatchObject({
    name: 'alpha is being looked at',
    mode: 'dry_run',
    conditions: { advisories: [ADV.alpha.id], severities: ['critical'] },
    analysis: { state: 'exploitable', detail: 'SEC-7 tracks the upgrade.' },
  });
  expect(await previewRows(page)).toEqual([['org.demo:alpha', ADV.alpha.cve, 'no change']]);
  await page
    .getByRole('region', { name: /^Preview matches of/ })
    .getByText('it is counted already, and “exploitable” does not suppress')
    .waitFor();
  await checkView(page, 'triage-rules-keyboard');
  expect(unexpected(errors)).toEqual([]);
});

test('an auditor sees the rules and a preview, and no control', async () => {
  const auditor = await pageOf(await org.session('auditor'));
  const p = auditor.page;
  const sent = writes(p);
  await p.goto(`${app.baseUrl}/app/triage-rules`);
  const row = p.getByRole('row', { name: /alpha is being looked at/ });
  await row.waitFor();
  await p.getByText('Owners and admins create and change rules; your role reads them and their previews.').waitFor();
  expect(await p.locator('main form').count()).toBe(0);
  expect(await p.locator('main button').count()).toBe(0);
  await row.getByRole('link', { name: 'Preview matches of alpha is being looked at' }).click();
  expect(await previewRows(p)).toEqual([['org.demo:alpha', ADV.alpha.cve, 'no change']]);
  expect(await p.locator('main button').count()).toBe(0);
  await atBothWidths(p, 'triage-rules-auditor', () => p.locator('.rule-preview tbody tr').first().waitFor());
  expect(sent).toEqual([]);
  // and the service refuses an auditor's change anyway
  const [r] = await readRules();
  const patch = await app.t.api
    .patch(`/v1/triage-rules/${r.id}`)
    .set(bearer(await org.session('auditor')))
    .send({ mode: 'enforce' });
  expect(patch.status).toBe(403);
  expect(unexpected(auditor.errors)).toEqual([]);
});
