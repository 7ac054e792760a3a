// The import of a VEX document and the VEX exports, in a real browser against the real service and a real scan worker
// (components/vex-import.tsx, views/project.tsx, views/findings.tsx): a tracked scan of a project gives it alerts
// (alpha, beta; delta suppressed by the snapshot), a newer scan of a branch gives none. An owner imports an OpenVEX
// document through the file picker of the project page: one statement decides alpha's alert, one names nothing of
// the project; the report's tables say which alert was decided and why the other statement was not applied, and the
// alert holds the imported analysis. A file that is not JSON is refused in words at the file's input. The project
// page's exports are the VEX documents of its latest tracked scan (not of the newer branch scan). On the scan page,
// a statement about an alert a person decided is not applied until the overwrite box is ticked. An auditor sees the
// exports and no import form. Each view with axe-core at 390 and 1280 pixels.
import fs from 'node:fs';
import type { BrowserContext, Page, Response } from 'playwright-core';
import { bearer, workflowClosed, type Org } from '../helpers/context';
import { ADV, demoSnapshot } from './fixtures';
import {
  atBothWidths,
  checkView,
  demoOrg,
  findingsRows,
  sessionPage,
  startWebApp,
  unexpected,
  uploadAndWait,
  type WebApp,
  tableRows,
} from './helpers';

const PROJECT = 'vex-shop';

let app: WebApp;
let org: Org;
let key: string;
let scanId: string;
let branchScanId: string;
let projectId: string;
/** Alert ids and advisories by package: alpha, beta, delta. */
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

const purl = (pkg: string, version: string) => `pkg:maven/org.demo/${pkg}@${version}`;

/** An OpenVEX 0.2.0 document of these statements (each: advisory, package purl, status, and its other fields). */
function openvex(statements: { vulnerability: string; product: string; status: string; [k: string]: unknown }[]) {
  return {
    '@context': 'https://openvex.dev/ns/v0.2.0',
    '@id': `https://vendor.example.test/vex/${Date.now()}`,
    author: 'Vendor security team',
    timestamp: '2025-01-02T03:04:05Z',
    version: 1,
    statements: statements.map(({ vulnerability, product, ...rest }) => ({
      vulnerability: { name: vulnerability },
      products: [{ '@id': product }],
      ...rest,
    })),
  };
}

/** A file for the picker. */
const file = (name: string, body: unknown) => ({
  name,
  mimeType: 'application/json',
  buffer: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body, null, 2)),
});

/** Chooses `f` in the import form and imports it; resolves with the API's answer. */
async function importFile(p: Page, f: ReturnType<typeof file>, overwrite = false): Promise<Response> {
  const form = p.getByRole('form', { name: 'Import a VEX document' });
  await form.getByLabel('File (JSON)').setInputFiles(f);
  const box = form.getByRole('checkbox', { name: 'Replace analyses people made (overwrite)' });
  if ((await box.isChecked()) !== overwrite) await box.click();
  const [res] = await Promise.all([
    p.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith('/vex')),
    form.getByRole('button', { name: 'Import', exact: true }).click(),
  ]);
  return res;
}

beforeAll(async () => {
  app = await startWebApp();
  ({ org, key } = await demoOrg(app, 'acme'));
  scanId = await uploadAndWait(app, key, {
    ...demoSnapshot(PROJECT),
    metadata: { ref: 'main', commit: 'a'.repeat(40) },
  });
  await workflowClosed(app.t, scanId); // the alerts move after the scan completes, before its workflow closes
  // a newer scan of a branch: not the one the project's page exports
  branchScanId = await uploadAndWait(app, key, {
    ...demoSnapshot(PROJECT),
    metadata: { ref: 'refs/heads/feature/x', commit: 'b'.repeat(40) },
  });
  await workflowClosed(app.t, branchScanId);
  projectId = (await app.t.api.get(`/v1/scans/${scanId}`).set(bearer(key))).body.project;
  const all = await app.t.api.get(`/v1/alerts?project=${projectId}&suppressed=all`).set(bearer(key));
  for (const a of all.body.alerts as { id: string; package: string; advisory: string }[]) {
    ids[a.package.replace('org.demo:', '')] = a.id;
    advisories[a.package.replace('org.demo:', '')] = a.advisory;
  }
  expect(Object.keys(ids).sort()).toEqual(['alpha', 'beta', 'delta']);
  ({ page, errors } = await pageOf(org.ownerToken));
}, 180_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await app?.close();
});

test('an OpenVEX file imported on the project page: the alert decided and the statement not applied, in two tables; the alert holds the analysis', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${app.baseUrl}/app/projects/${projectId}`);
  await page.getByRole('heading', { name: 'Import VEX' }).waitFor();
  const doc = openvex([
    {
      vulnerability: advisories.alpha,
      product: purl('alpha', '1.0.0'),
      status: 'not_affected',
      justification: 'vulnerable_code_not_present',
      impact_statement: 'The vendor build strips the vulnerable class.',
    },
    {
      vulnerability: 'CVE-2099-9999',
      product: purl('nothing', '1.0.0'),
      status: 'not_affected',
      justification: 'component_not_present',
      impact_statement: 'Not shipped.',
    },
  ]);
  const res = await importFile(page, file('vendor.openvex.json', doc));
  expect(res.status()).toBe(200);
  const body = (await res.json()) as {
    applied: number;
    changed: number;
    unmatched: {
      statement: number;
      vulnerability: string | null;
      package: string | null;
      code: string;
      reason: string;
    }[];
  };
  expect(body).toMatchObject({ format: 'openvex', statements: 2, applied: 1, changed: 1 });
  expect(body.unmatched).toEqual([expect.objectContaining({ statement: 1, code: 'no_alert' })]);

  // the report: its summary (which takes the focus), then the alert decided and the statement not applied
  const summary = page.locator('.vex-summary');
  await summary.filter({ hasText: 'Imported' }).waitFor();
  expect(await summary.textContent()).toMatch(
    /^Imported the OpenVEX 0\.2(\.0)? document \(2 statements\): 1 alert decided, 1 changed; 1 statement not applied\.$/,
  );
  expect(await summary.getAttribute('role')).toBe('status');
  expect(await page.evaluate(() => document.activeElement?.classList.contains('vex-summary'))).toBe(true);
  expect(await tableRows(page, 'Alerts decided by vendor.openvex.json', true)).toEqual([
    ['1', `Alert ${ids.alpha}`, advisories.alpha, 'org.demo:alpha', '1.0.0', 'Not affected', 'yes'],
  ]);
  const link = page.getByRole('link', { name: `Alert ${ids.alpha}` });
  expect(await link.getAttribute('href')).toBe(`/app/alerts/${ids.alpha}`);
  const u = body.unmatched[0];
  expect(await tableRows(page, 'Statements of vendor.openvex.json not applied', true)).toEqual([
    ['2', 'CVE-2099-9999', purl('nothing', '1.0.0'), 'No alert of this project is for CVE-2099-9999.'],
  ]);
  expect(u).toEqual({
    statement: 1,
    vulnerability: 'CVE-2099-9999',
    package: purl('nothing', '1.0.0'),
    code: 'no_alert',
    reason: 'no alert of this project is for CVE-2099-9999',
  });
  await atBothWidths(page, 'vex-import-report', () => summary.waitFor());

  // the alert holds the imported analysis: through the API, and on its page
  const alpha = await readAlert(ids.alpha);
  expect(alpha.analysis).toMatchObject({
    state: 'not_affected',
    justification: 'code_not_present',
    detail: 'The vendor build strips the vulnerable class.',
  });
  await page.setViewportSize({ width: 1280, height: 900 });
  await link.click();
  await page.waitForURL((url) => url.pathname === `/app/alerts/${ids.alpha}`);
  await page.locator('.analysis-badge.state-not_affected').waitFor();
  await page.getByText('The vendor build strips the vulnerable class.').waitFor();
  expect(unexpected(errors)).toEqual([]);
});

test('a file that is not JSON is refused in words at the file input, which takes the focus', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${app.baseUrl}/app/projects/${projectId}`);
  await page.getByRole('heading', { name: 'Import VEX' }).waitFor();
  // no file chosen: said before anything is sent
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  const error = page.locator('#vex-import-file-error');
  await error.waitFor();
  expect(await error.textContent()).toBe('Choose a VEX document (a JSON file) to import.');

  const res = await importFile(
    page,
    file('broken.json', '{"@context": "https://openvex.dev/ns/v0.2.0", "statements": ['),
  );
  expect(res.status()).toBe(422);
  const answer = (await res.json()) as { error: { code: string; message: string } };
  expect(answer.error.code).toBe('invalid_parameter');
  await error.filter({ hasText: 'broken.json was not imported' }).waitFor();
  // the API's message ("document: is not valid JSON"), as a sentence about the document
  expect(answer.error.message).toBe('document: is not valid JSON');
  expect(await error.textContent()).toBe('broken.json was not imported: The document is not valid JSON.');
  expect(await error.getAttribute('role')).toBe('alert');
  const input = page.getByLabel('File (JSON)');
  expect(await input.getAttribute('aria-invalid')).toBe('true');
  expect(await input.getAttribute('aria-describedby')).toBe('vex-import-file-hint vex-import-file-error');
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('vex-import-file');
  expect(await page.locator('.vex-summary').textContent()).toBe('');
  await atBothWidths(page, 'vex-import-refused', () => error.waitFor());
  expect(unexpected(errors)).toEqual([]);
});

test("the project page exports the VEX of its latest tracked scan (not the newer branch scan's), CycloneDX and OpenVEX", async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${app.baseUrl}/app/projects/${projectId}`);
  const group = page.getByRole('group', { name: `Download the VEX of scan ${scanId}` });
  await group.waitFor();
  // the section names the scan it exports: a link to it, and its id
  const exports = page.locator('.vex-exports');
  const link = exports.getByRole('link', { name: 'its latest completed scan of main', exact: true });
  expect(await link.getAttribute('href')).toBe(`/app/scans/${scanId}`);
  expect(await exports.locator('p code').allTextContents()).toEqual(['main', scanId]);
  expect(await exports.textContent()).not.toContain(branchScanId);
  expect(await group.getByRole('button').allTextContents()).toEqual(['VEX (CycloneDX)', 'VEX (OpenVEX)']);
  for (const [label, path, name] of [
    ['VEX (CycloneDX)', `/v1/scans/${scanId}/vex`, `${scanId}.vex.cdx.json`],
    ['VEX (OpenVEX)', `/v1/scans/${scanId}/vex?format=openvex`, `${scanId}.openvex.json`],
  ] as const) {
    const [request, download] = await Promise.all([
      page.waitForRequest((r) => r.url().includes(`/v1/scans/${scanId}/vex`)),
      page.waitForEvent('download'),
      group.getByRole('button', { name: label }).click(),
    ]);
    const u = new URL(request.url());
    expect(u.pathname + u.search).toBe(path);
    expect(download.suggestedFilename()).toBe(name);
    const doc = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
    if (label === 'VEX (OpenVEX)')
      // the analysis the import made is in the document
      expect(doc.statements).toEqual([
        expect.objectContaining({
          vulnerability: expect.objectContaining({ name: advisories.alpha }),
          status: 'not_affected',
          impact_statement: 'The vendor build strips the vulnerable class.',
        }),
      ]);
    else expect(doc.bomFormat).toBe('CycloneDX');
  }
  await atBothWidths(page, 'vex-project-exports', () => group.waitFor());
  expect(unexpected(errors)).toEqual([]);
});

test("the scan page imports too: a person's analysis is kept unless the overwrite box is ticked", async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  // the owner decides beta's alert in person
  const put = await app.t.api
    .put(`/v1/alerts/${ids.beta}/analysis`)
    .set(bearer(org.ownerToken))
    .send({ state: 'exploitable', detail: 'a person looked at it' });
  expect(put.status).toBe(200);
  await page.goto(`${app.baseUrl}/app/scans/${scanId}`);
  await findingsRows(page);
  await page.getByRole('heading', { name: 'Import VEX' }).waitFor();
  const doc = openvex([
    {
      vulnerability: advisories.beta,
      product: purl('beta', '2.0.0'),
      status: 'not_affected',
      justification: 'vulnerable_code_not_in_execute_path',
      impact_statement: 'Beta is never called with a user path.',
    },
  ]);
  let res = await importFile(page, file('beta.openvex.json', doc));
  expect(res.status()).toBe(200);
  let body = await res.json();
  expect(body).toMatchObject({
    applied: 0,
    changed: 0,
    unmatched: [expect.objectContaining({ code: 'person_analysis' })],
  });
  expect(body.unmatched[0].reason).toMatch(
    new RegExp(`^alert ${ids.beta} holds an analysis by owner-.*@example\\.test: overwrite=true replaces it$`),
  );
  const summary = page.locator('.vex-summary');
  await summary.filter({ hasText: '0 alerts decided' }).waitFor();
  expect(await tableRows(page, 'Statements of beta.openvex.json not applied', true)).toEqual([
    ['1', advisories.beta, 'org.demo:beta', `A${body.unmatched[0].reason.slice(1)}.`],
  ]);
  await page.getByText('import the document again with “Replace analyses people made” ticked').waitFor();
  expect((await readAlert(ids.beta)).analysis.state).toBe('exploitable');

  res = await importFile(page, file('beta.openvex.json', doc), true);
  expect(res.status()).toBe(200);
  body = await res.json();
  expect(body).toMatchObject({ applied: 1, changed: 1, unmatched: [] });
  await summary.filter({ hasText: '1 alert decided, 1 changed' }).waitFor();
  expect(await tableRows(page, 'Alerts decided by beta.openvex.json', true)).toEqual([
    ['1', `Alert ${ids.beta}`, advisories.beta, 'org.demo:beta', '2.0.0', 'Not affected', 'yes'],
  ]);
  expect(await page.getByRole('table', { name: /not applied/ }).count()).toBe(0);
  expect((await readAlert(ids.beta)).analysis).toMatchObject({
    state: 'not_affected',
    detail: 'Beta is never called with a user path.',
  });
  // the list is read again: beta's row says the decision
  await page
    .locator('[role=list][aria-label=Findings] [role=listitem]')
    .filter({ hasText: 'org.demo:beta' })
    .filter({ hasText: 'Not affected' })
    .waitFor();
  await atBothWidths(page, 'vex-import-scan', () => summary.waitFor());
  expect(unexpected(errors)).toEqual([]);
});

test('an auditor sees the exports and no import form, on the project page and the scan page', async () => {
  const auditor = await pageOf(await org.session('auditor'));
  const p = auditor.page;
  await p.goto(`${app.baseUrl}/app/projects/${projectId}`);
  await p.getByRole('group', { name: `Download the VEX of scan ${scanId}` }).waitFor();
  expect(await p.getByRole('heading', { name: 'Import VEX' }).count()).toBe(0);
  expect(await p.locator('input[type=file]').count()).toBe(0);
  await checkView(p, 'vex-project-auditor');
  await p.goto(`${app.baseUrl}/app/scans/${scanId}`);
  await findingsRows(p);
  await p.getByRole('group', { name: 'Download this scan' }).waitFor();
  expect(await p.getByRole('heading', { name: 'Import VEX' }).count()).toBe(0);
  expect(await p.locator('input[type=file]').count()).toBe(0);
  // and the service refuses an auditor's import anyway
  const refused = await app.t.api
    .post(`/v1/projects/${projectId}/vex`)
    .set(bearer(await org.session('auditor')))
    .set('Content-Type', 'application/json')
    .send(
      JSON.stringify(openvex([{ vulnerability: ADV.alpha.cve, product: purl('alpha', '1.0.0'), status: 'affected' }])),
    );
  expect(refused.status).toBe(403);
  expect(unexpected(auditor.errors)).toEqual([]);
});
