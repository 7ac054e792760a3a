// The host and gateway pages (issue 18 point 5) in a real browser against the real service. Hosts
// and gateways are seeded through the API as the sidecar and the gateway would (a registration token, attestations
// with different labels, a heartbeat through a gateway; enrollment tokens, enrollments, one approval). Then: the hosts
// list with its label and status filters in the URL surviving a reload (a malformed filter shown with the server's
// words); a registration token created (shown once, gone after a reload) and revoked; a pending gateway approved with
// a narrowed scope after a wider one was refused in the server's words; a host and a gateway revoked (their
// credentials then get 401); an enrollment token created by keyboard only; axe on every new page; script payloads in
// hostnames, labels and names staying text; a member reading the lists without the admin controls.
import type { BrowserContext, Page } from 'playwright-core';
import { bearer, newOrg, type Org } from '../helpers/context';
import { XSS } from './fixtures';
import {
  checkView,
  sessionContext,
  startWebApp,
  watchErrors,
  type WebApp,
  noScriptRan,
  unexpected,
  checkListView,
} from './helpers';

const XSS_HOST = `host ${XSS.img}`;
const XSS_GATEWAY = `old ${XSS.img}`;

let app: WebApp;
let org: Org;
let ctx: BrowserContext;
let page: Page;
let errors: string[];
/** Host credentials and ids by hostname, gateway credentials and ids by name. */
const hosts: Record<string, { id: string; credential: string }> = {};
const gateways: Record<string, { id: string; credential: string }> = {};

type Res = { status: number; body: any; text: string };
const post = async (path: string, token: string, body: unknown): Promise<Res> =>
  app.t.api
    .post(path)
    .set(bearer(token))
    .send(body as object);

async function attest(token: string, hostname: string, labels: Record<string, string>): Promise<void> {
  const r = await post('/v1/hosts/attestations', token, {
    hostname,
    machineId: `${hostname}-${Date.now()}`,
    labels,
    os: 'linux',
    arch: 'x64',
    agentVersion: '1.4.2',
  });
  if (r.status !== 201) throw new Error(`attestation of ${hostname}: ${r.status} ${r.text}`);
  hosts[hostname] = { id: r.body.host.id, credential: r.body.credential };
}

async function enrollGateway(name: string, networkScope: string[]): Promise<void> {
  const t = await post('/v1/gateways/enrollment-tokens', org.ownerToken, { name: `token of ${name}` });
  if (t.status !== 201) throw new Error(`enrollment token: ${t.status} ${t.text}`);
  const r = await post('/v1/gateways/enrollments', t.body.token, { name, version: '2.0.1', networkScope });
  if (r.status !== 201) throw new Error(`enrollment of ${name}: ${r.status} ${r.text}`);
  gateways[name] = { id: r.body.gateway.id, credential: r.body.credential };
}

const hostHeartbeat = (name: string, body: unknown = {}) =>
  post(`/v1/hosts/${hosts[name].id}/heartbeats`, hosts[name].credential, body);
const gatewayHeartbeat = (name: string) =>
  post(`/v1/gateways/${gateways[name].id}/heartbeats`, gateways[name].credential, {});

beforeAll(async () => {
  app = await startWebApp();
  org = await newOrg(app.t.store, 'acme fleet');
  const reg = await post('/v1/hosts/registration-tokens', org.ownerToken, {
    name: 'seed',
    uses: 10,
    labels: { site: 'dc1' },
  });
  expect(reg.status).toBe(201);
  await attest(reg.body.token, 'web-1.prod', { env: 'prod', role: 'web' });
  await attest(reg.body.token, 'web-2.staging', { env: 'staging', role: 'web' });
  await attest(reg.body.token, 'db-1.prod', { env: 'prod', role: 'db' });
  await attest(reg.body.token, XSS_HOST, { env: 'qa', note: XSS.img });
  // three gateways: two pending, one approved that db-1.prod heartbeats through
  await enrollGateway('gw-dc1', ['10.20.0.0/16', 'fd00:20::/32']);
  await enrollGateway('gw-edge', ['10.30.0.0/16']);
  await enrollGateway(XSS_GATEWAY, ['192.168.0.0/24']);
  expect(
    (await post(`/v1/gateways/${gateways['gw-edge'].id}/approval`, org.ownerToken, { networkScope: ['10.30.0.0/16'] }))
      .status,
  ).toBe(200);
  const beat = await hostHeartbeat('db-1.prod', { connectivity: 'gateway', gatewayId: gateways['gw-edge'].id });
  expect([beat.status, beat.body.host?.connectivity]).toEqual([200, 'gateway']);
  ctx = await sessionContext(app, org.ownerToken);
  page = await ctx.newPage();
  errors = watchErrors(page);
}, 120_000);

afterAll(async () => {
  await ctx?.close();
  await app?.close();
});

/** The text of each row of the page's table body. */
async function rowTexts(p: Page = page): Promise<string[]> {
  return p.$$eval('table.grid tbody tr', (trs) => trs.map((tr) => (tr.textContent ?? '').replace(/\s+/g, ' ').trim()));
}

/** The hostnames (row headers) of the table, once they equal `expected` (a filter's list has loaded). */
async function rowHeadersBecome(expected: string[], p: Page = page): Promise<void> {
  let seen: string[] = [];
  for (let i = 0; i < 100; i++) {
    seen = await p.$$eval('table.grid tbody th[scope=row]', (ths) => ths.map((th) => (th.textContent ?? '').trim()));
    if (JSON.stringify(seen) === JSON.stringify(expected)) return;
    await p.waitForTimeout(50);
  }
  expect(seen).toEqual(expected);
}

test('hosts: the list by hostname with labels and connectivity as text; label and status filters in the URL survive a reload', async () => {
  await page.goto(`${app.baseUrl}/app/hosts`);
  await page.getByRole('heading', { name: 'Hosts', exact: true }).waitFor();
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const label of ['Hosts', 'Gateways']) await nav.getByRole('link', { name: label, exact: true }).waitFor();
  await rowHeadersBecome(['db-1.prod', XSS_HOST, 'web-1.prod', 'web-2.staging']);
  await page.getByRole('cell', { name: 'through the gateway gw-edge' }).waitFor(); // the gateways' names are read after the hosts
  const rows = await rowTexts();
  expect(rows[0]).toContain('env=prod');
  expect(rows[0]).toContain('role=db');
  expect(rows[0]).toContain('site=dc1'); // the token's label
  expect(rows[0]).toContain('through the gateway gw-edge');
  expect(rows[0]).toContain('1.4.2');
  expect(rows[0]).toContain('linux / x64');
  expect(rows[2]).toContain('direct');
  expect(rows[1]).toContain(`note=${XSS.img}`); // the payload as text
  await checkView(page, 'hosts');
  await noScriptRan(page);

  // label filters: repeatable, all must match, in the URL
  await page.getByLabel('Label (key=value)').fill('env=prod');
  await page.getByRole('button', { name: 'Add label filter' }).click();
  await page.waitForURL(/\/app\/hosts\?label=env%3Dprod$/);
  await rowHeadersBecome(['db-1.prod', 'web-1.prod']);
  await page.getByLabel('Label (key=value)').fill('role=web');
  await page.keyboard.press('Enter');
  await page.waitForURL(/\?label=env%3Dprod&label=role%3Dweb$/);
  await rowHeadersBecome(['web-1.prod']);
  await page.reload();
  await rowHeadersBecome(['web-1.prod']);
  await page.getByRole('button', { name: 'Remove the label filter env=prod' }).waitFor();
  await page.getByRole('button', { name: 'Remove the label filter role=web' }).waitFor();
  // the status filter joins them
  await page.getByLabel('Status').selectOption('revoked');
  await page.waitForURL(/\?status=revoked&label=env%3Dprod&label=role%3Dweb$/);
  await page.getByText('No host matches these filters.').waitFor();
  await page.reload();
  await page.getByText('No host matches these filters.').waitFor();
  expect(await page.getByLabel('Status').inputValue()).toBe('revoked');
  await page.getByLabel('Status').selectOption('active');
  await page.waitForURL(/\?status=active&label=env%3Dprod&label=role%3Dweb$/);
  await rowHeadersBecome(['web-1.prod']);
  await page.getByRole('button', { name: 'Remove the label filter env=prod' }).click();
  await page.waitForURL(/\?status=active&label=role%3Dweb$/);
  await rowHeadersBecome(['web-1.prod', 'web-2.staging']);

  // a payload as a label filter value: sent, matched, shown as text
  await page.goto(`${app.baseUrl}/app/hosts`);
  await page.getByLabel('Label (key=value)').fill(`note=${XSS.img}`);
  await page.getByRole('button', { name: 'Add label filter' }).click();
  await rowHeadersBecome([XSS_HOST]);
  await page.getByRole('button', { name: `Remove the label filter note=${XSS.img}` }).waitFor();
  await noScriptRan(page);

  // a malformed filter: the server's 422 in its words, the page still works
  await page.goto(`${app.baseUrl}/app/hosts?label=role%3Dweb`);
  await rowHeadersBecome(['web-1.prod', 'web-2.staging']);
  await page.getByLabel('Label (key=value)').fill('not a label');
  await page.getByRole('button', { name: 'Add label filter' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toMatch(
    /^Could not list the hosts: The label: "not a label" is not key=value .*[^)]$/,
  );
  expect(await page.locator('table.grid').count()).toBe(0);
  await page.reload(); // the same view, from the URL
  await page.getByRole('alert').filter({ hasText: '"not a label" is not key=value' }).waitFor();
  await page.getByRole('button', { name: 'Remove the label filter not a label' }).click();
  await page.waitForURL(/\/app\/hosts\?label=role%3Dweb$/);
  await rowHeadersBecome(['web-1.prod', 'web-2.staging']);
  expect(await page.getByRole('alert').count()).toBe(0);
  expect(unexpected(errors)).toEqual([]);
});

test('hosts: pages of the list as links, the cursor in the URL', async () => {
  await page.goto(`${app.baseUrl}/app/hosts?limit=2`);
  await rowHeadersBecome(['db-1.prod', XSS_HOST]);
  await page.getByRole('link', { name: 'Next page' }).click();
  await page.waitForURL(/limit=2&cursor=/);
  await rowHeadersBecome(['web-1.prod', 'web-2.staging']);
  await page.reload();
  await rowHeadersBecome(['web-1.prod', 'web-2.staging']);
  await page.getByRole('link', { name: 'First page' }).click();
  await rowHeadersBecome(['db-1.prod', XSS_HOST]);
});

test('registration token: created with uses, lifetime and labels, shown once (not after a reload), then revoked', async () => {
  await page.goto(`${app.baseUrl}/app/hosts`);
  await page.getByRole('navigation', { name: 'Host pages' }).getByRole('link', { name: 'Registration tokens' }).click();
  await page.waitForURL(/\/app\/hosts\/registration-tokens$/);
  await page.getByRole('heading', { name: 'Registration tokens' }).waitFor();
  await page.getByRole('rowheader', { name: 'seed' }).waitFor();

  // a line that is not key=value is caught here; a key the server refuses is shown in its words
  await page.getByLabel('Name', { exact: true }).fill('rack 7');
  await page.getByLabel('Labels (optional, one key=value a line)').fill('rack=7\nnope');
  await page.getByRole('button', { name: 'Create token' }).click();
  // both at the labels field (invalid, described by its hint and its message)
  const labelsError = page.locator('#reg-labels-error');
  await labelsError.filter({ hasText: 'Labels, line 2: write key=value' }).waitFor();
  await page.getByLabel('Labels (optional, one key=value a line)').fill('bad key=1');
  await page.getByRole('button', { name: 'Create token' }).click();
  await labelsError.filter({ hasText: /^The labels: key "bad key": .*[^)]$/ }).waitFor();
  const labels = page.getByLabel('Labels (optional, one key=value a line)');
  expect(await labels.getAttribute('aria-invalid')).toBe('true');
  expect(await labels.getAttribute('aria-describedby')).toBe('reg-labels-hint reg-labels-error');

  await page.getByLabel('Labels (optional, one key=value a line)').fill('rack=7\nsite=dc2');
  await page.getByLabel('Uses (hosts it can register)').fill('3');
  await page.getByLabel('Valid for').selectOption({ label: '7 days' });
  await page.getByRole('button', { name: 'Create token' }).click();
  const field = page.getByLabel('Registration token rack 7', { exact: true });
  await field.waitFor();
  const token = await field.inputValue();
  expect(token).toMatch(/^svc_reg_/);
  await page.getByText('you will not see it again').waitFor();
  expect(await page.locator('.howto').textContent()).toContain(
    `scanner sidecar --server ${app.baseUrl} --registration-token FILE`,
  );
  await checkView(page, 'hosts-registration-token-created');
  const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'rack 7' }) });
  await row.filter({ hasText: 'Active' }).filter({ hasText: '3 of 3' }).waitFor();
  expect(await row.textContent()).toContain('rack=7');
  expect(await row.textContent()).not.toContain(token);
  // it lives about 7 days
  const listed = (
    await app.t.api.get('/v1/hosts/registration-tokens').set(bearer(org.ownerToken))
  ).body.registrationTokens.find((t: { name: string }) => t.name === 'rack 7');
  expect(Math.round((Date.parse(listed.expiresAt) - Date.now()) / 3_600_000)).toBe(7 * 24);

  // the token registers a host with its labels
  await attest(token, 'rack7-a', { role: 'worker' });
  expect(
    (await app.t.api.get('/v1/hosts?label=rack%3D7').set(bearer(org.ownerToken))).body.hosts.map(
      (h: { hostname: string }) => h.hostname,
    ),
  ).toEqual(['rack7-a']);

  // gone after a reload; the list counts the use
  await page.reload();
  await row.filter({ hasText: '2 of 3' }).waitFor();
  expect(await page.content()).not.toContain(token);
  expect(await page.getByLabel('Registration token rack 7', { exact: true }).count()).toBe(0);
  expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 0]); // no credential kept

  await page.getByRole('button', { name: 'Revoke the registration token rack 7' }).click();
  await page
    .getByRole('group', { name: 'Revoke the registration token rack 7? It registers no more hosts.' })
    .getByRole('button', { name: 'Revoke' })
    .click();
  await page.getByRole('status').filter({ hasText: 'The registration token rack 7 was revoked' }).waitFor();
  await row.filter({ hasText: 'Revoked' }).waitFor();
  const refused = await post('/v1/hosts/attestations', token, {
    hostname: 'rack7-b',
    machineId: `rack7-b-${Date.now()}`,
  });
  expect([refused.status, refused.body.error?.code]).toEqual([401, 'invalid_token']);
  // the host it registered keeps working
  expect((await hostHeartbeat('rack7-a')).status).toBe(200);

  // the status filter lives in the URL
  await page.getByLabel('Status').selectOption('revoked');
  await page.waitForURL(/\/app\/hosts\/registration-tokens\?status=revoked$/);
  await page.reload();
  await rowHeadersBecome(['rack 7']);
  expect(unexpected(errors)).toEqual([]);
});

test('gateways: pending ones with their requested scope; a wider scope refused in the server words; approved with a narrowed one', async () => {
  await page.goto(`${app.baseUrl}/app/gateways`);
  await page.getByRole('heading', { name: 'Gateways', exact: true }).waitFor();
  await rowHeadersBecome(['gw-dc1', 'gw-edge', XSS_GATEWAY]);
  await page.locator('.notice').filter({ hasText: '2 gateways wait for approval.' }).waitFor();
  const dc1 = page
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: 'gw-dc1' }) })
    .first();
  expect(await dc1.textContent()).toContain('Pending approval');
  expect(
    await page.getByRole('list', { name: 'Requested scope of gw-dc1' }).getByRole('listitem').allTextContents(),
  ).toEqual(['10.20.0.0/16', 'fd00:20::/32']);
  expect(
    await page.getByRole('list', { name: 'Approved scope of gw-edge' }).getByRole('listitem').allTextContents(),
  ).toEqual(['10.30.0.0/16']);
  await checkView(page, 'gateways');
  await noScriptRan(page);

  await page.getByRole('button', { name: 'Approve the gateway gw-dc1' }).click();
  const form = page.getByRole('form', { name: 'Approve the gateway gw-dc1' });
  const scope = form.getByLabel('Network scope to approve (one CIDR a line)');
  expect(await scope.inputValue()).toBe('10.20.0.0/16\nfd00:20::/32'); // pre-filled with the request
  expect(await scope.evaluate((e) => e === document.activeElement)).toBe(true);
  await checkView(page, 'gateways-approve');
  // wider than the request: refused, the server's words, still pending
  await scope.fill('10.0.0.0/8');
  await form.getByRole('button', { name: 'Approve' }).click();
  const alert = form.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toBe(
    'Could not approve the gateway gw-dc1: The network scope: 10.0.0.0/8 is not within a CIDR the gateway requested (10.20.0.0/16, fd00:20::/32).',
  );
  const still = (await app.t.api.get('/v1/gateways?status=pending').set(bearer(org.ownerToken))).body.gateways.map(
    (g: { name: string }) => g.name,
  );
  expect(still).toContain('gw-dc1');
  // narrowed: approved
  await scope.fill('10.20.5.0/24');
  await form.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('status').filter({ hasText: 'The gateway gw-dc1 was approved for 10.20.5.0/24.' }).waitFor();
  await form.waitFor({ state: 'detached' });
  await dc1.filter({ hasText: 'Active' }).waitFor();
  expect(
    await page.getByRole('list', { name: 'Approved scope of gw-dc1' }).getByRole('listitem').allTextContents(),
  ).toEqual(['10.20.5.0/24']);
  expect(await dc1.textContent()).toContain('requested: 10.20.0.0/16, fd00:20::/32');
  const approved = (await app.t.api.get('/v1/gateways?status=active').set(bearer(org.ownerToken))).body.gateways.find(
    (g: { name: string }) => g.name === 'gw-dc1',
  );
  expect(approved.networkScope).toEqual(['10.20.5.0/24']);
  await page.locator('.notice').filter({ hasText: 'One gateway waits for approval.' }).waitFor();

  // Cancel (and Escape) close the form without approving; the focus returns to its button
  await page.getByRole('button', { name: `Approve the gateway ${XSS_GATEWAY}` }).click();
  await page.waitForFunction(() => document.activeElement?.tagName === 'TEXTAREA'); // the form takes the focus
  await page.keyboard.press('Escape');
  await page.getByRole('form', { name: `Approve the gateway ${XSS_GATEWAY}` }).waitFor({ state: 'detached' });
  expect(
    await page
      .getByRole('button', { name: `Approve the gateway ${XSS_GATEWAY}` })
      .evaluate((b) => b === document.activeElement),
  ).toBe(true);

  // the status filter in the URL: the pending ones only
  await page.getByRole('link', { name: 'Show the pending gateways' }).click();
  await page.waitForURL(/\/app\/gateways\?status=pending$/);
  await rowHeadersBecome([XSS_GATEWAY]);
  await page.reload();
  await rowHeadersBecome([XSS_GATEWAY]);
  expect(await page.getByLabel('Status').inputValue()).toBe('pending');
  await noScriptRan(page);
  expect(unexpected(errors)).toEqual([]);
});

test('revoking a host and a gateway after a confirmation: their credentials get 401 from then on', async () => {
  expect((await hostHeartbeat('web-2.staging')).status).toBe(200);
  await page.goto(`${app.baseUrl}/app/hosts`);
  await page.getByRole('button', { name: 'Revoke the host web-2.staging' }).click();
  await page
    .getByRole('group', { name: /^Revoke the host web-2\.staging\?/ })
    .getByRole('button', { name: 'Revoke' })
    .click();
  await page
    .getByRole('status')
    .filter({ hasText: 'The host web-2.staging was revoked: its credential stops working now.' })
    .waitFor();
  await page
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: 'web-2.staging' }) })
    .filter({ hasText: 'Revoked' })
    .waitFor();
  expect(await page.getByRole('button', { name: 'Revoke the host web-2.staging' }).count()).toBe(0);
  const host = await hostHeartbeat('web-2.staging');
  expect([host.status, host.body.error?.code]).toEqual([401, 'invalid_token']);
  await page.getByLabel('Status').selectOption('revoked');
  await rowHeadersBecome(['web-2.staging']);

  expect((await gatewayHeartbeat('gw-edge')).status).toBe(200);
  await page.goto(`${app.baseUrl}/app/gateways`);
  await page.getByRole('button', { name: 'Revoke the gateway gw-edge' }).click();
  await page
    .getByRole('group', { name: 'Revoke the gateway gw-edge? Its credential stops working at once.' })
    .getByRole('button', { name: 'Revoke' })
    .click();
  await page
    .getByRole('status')
    .filter({ hasText: 'The gateway gw-edge was revoked: its credential stops working now.' })
    .waitFor();
  await page
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: 'gw-edge' }) })
    .filter({ hasText: 'Revoked' })
    .waitFor();
  const gw = await gatewayHeartbeat('gw-edge');
  expect([gw.status, gw.body.error?.code]).toEqual([401, 'invalid_token']);
  expect(unexpected(errors)).toEqual([]);
});

test('enrollment token: created with the keyboard only, shown once, enrolls one gateway; another one revoked', async () => {
  await page.goto(`${app.baseUrl}/app/gateways/enrollment-tokens`);
  await page.getByRole('heading', { name: 'Enrollment tokens' }).waitFor();
  await page.locator('[role=status]:has-text("Loading")').waitFor({ state: 'detached' });
  // Tab to the name field, type, Tab to the lifetime, choose by typing, Tab to the button, Enter
  const focused = () =>
    page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent?.trim() || '');
  for (let i = 0; i < 30 && (await focused()) !== 'enroll-name'; i++) await page.keyboard.press('Tab');
  expect(await focused()).toBe('enroll-name');
  await page.keyboard.type('dc2 gateway');
  await page.keyboard.press('Tab');
  expect(await focused()).toBe('enroll-expiry');
  await page.keyboard.type('3');
  expect(await page.getByLabel('Valid for').inputValue()).toBe('3d');
  await page.keyboard.press('Tab');
  expect(await focused()).toBe('Create token');
  expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe('none'); // visible focus
  await page.keyboard.press('Enter');
  const field = page.getByLabel('Enrollment token dc2 gateway', { exact: true });
  await field.waitFor();
  expect(await field.evaluate((e) => e === document.activeElement)).toBe(true); // the token takes the focus, selected
  const token = await field.inputValue();
  expect(token).toMatch(/^svc_gw_/);
  await page.keyboard.press('Tab');
  expect(await focused()).toBe('Copy');
  await page.keyboard.press('Enter');
  await page
    .locator('.once [role=status]')
    .filter({ hasText: /Copied|copy it with Ctrl\+C/ })
    .waitFor();
  expect(await page.locator('.howto').textContent()).toContain(
    `scanner gateway --server ${app.baseUrl} --enrollment-token FILE`,
  );
  await checkView(page, 'gateways-enrollment-token-created');
  const listed = (
    await app.t.api.get('/v1/gateways/enrollment-tokens').set(bearer(org.ownerToken))
  ).body.enrollmentTokens.find((t: { name: string }) => t.name === 'dc2 gateway');
  expect(Math.round((Date.parse(listed.expiresAt) - Date.now()) / 3_600_000)).toBe(72);

  // it enrolls one gateway, pending
  const enrolled = await post('/v1/gateways/enrollments', token, { version: '2.0.1', networkScope: ['172.16.0.0/12'] });
  expect([enrolled.status, enrolled.body.gateway?.status, enrolled.body.gateway?.name]).toEqual([
    201,
    'pending',
    'dc2 gateway',
  ]);
  await page.reload();
  await page
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: 'dc2 gateway' }) })
    .filter({ hasText: 'Used' })
    .waitFor();
  expect(await page.content()).not.toContain(token);

  // another, revoked: it enrolls nothing
  await page.getByLabel('Name', { exact: true }).fill('spare');
  await page.getByRole('button', { name: 'Create token' }).click();
  const spare = await page.getByLabel('Enrollment token spare', { exact: true }).inputValue();
  await page.getByRole('button', { name: 'I have copied it' }).click();
  await page.getByLabel('Enrollment token spare', { exact: true }).waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Revoke the enrollment token spare' }).click();
  await page
    .getByRole('group', { name: /^Revoke the enrollment token spare\?/ })
    .getByRole('button', { name: 'Revoke' })
    .click();
  await page.getByRole('status').filter({ hasText: 'The enrollment token spare was revoked' }).waitFor();
  const refused = await post('/v1/gateways/enrollments', spare, { version: '2.0.1', networkScope: ['172.16.0.0/12'] });
  expect([refused.status, refused.body.error?.code]).toEqual([401, 'invalid_token']);
  // the new gateway waits on the gateways page with what it asked for
  await page.goto(`${app.baseUrl}/app/gateways?status=pending`);
  await page
    .getByRole('list', { name: 'Requested scope of dc2 gateway' })
    .filter({ hasText: '172.16.0.0/12' })
    .waitFor();
  expect(unexpected(errors)).toEqual([]);
});

test('every new page: axe clean, every control labelled, Tab reaches the main area', async () => {
  for (const [path, name] of [
    ['/app/hosts', 'hosts-page'],
    ['/app/hosts/registration-tokens', 'hosts-registration-tokens-page'],
    ['/app/gateways', 'gateways-page'],
    ['/app/gateways/enrollment-tokens', 'gateways-enrollment-tokens-page'],
  ] as const) {
    await checkListView(page, app.baseUrl, path, name, 20);
    await noScriptRan(page);
  }
});

test('a member reads hosts and gateways without the admin controls; the token pages refuse with the server words', async () => {
  const member = await sessionContext(app, await org.session('member'));
  try {
    const m = await member.newPage();
    const mErrors = watchErrors(m);
    await m.goto(`${app.baseUrl}/app/hosts`);
    await rowHeadersBecome(['db-1.prod', XSS_HOST, 'rack7-a', 'web-1.prod', 'web-2.staging'], m);
    expect(await m.getByRole('button', { name: /^Revoke/ }).count()).toBe(0);
    expect(await m.getByRole('navigation', { name: 'Host pages' }).count()).toBe(0);
    // every role holds hosts:read and gateways:read: their pages are in its navigation; the admin-only pages are not
    const mainNav = m.getByRole('navigation', { name: 'Main' });
    for (const label of ['Hosts', 'Gateways'])
      expect(await mainNav.getByRole('link', { name: label, exact: true }).count()).toBe(1);
    for (const label of ['API keys', 'Invitations', 'Audit trail'])
      expect(await mainNav.getByRole('link', { name: label, exact: true }).count()).toBe(0);
    await checkView(m, 'hosts-member');
    await m.goto(`${app.baseUrl}/app/gateways`);
    await m.getByRole('rowheader', { name: 'gw-dc1' }).waitFor();
    expect(await m.getByRole('button', { name: /^(Approve|Revoke)/ }).count()).toBe(0);
    await m.locator('.notice').filter({ hasText: 'wait for approval by an admin' }).waitFor();
    for (const path of ['/app/hosts/registration-tokens', '/app/gateways/enrollment-tokens']) {
      await m.goto(`${app.baseUrl}${path}`);
      await m.getByRole('alert').filter({ hasText: 'requires role owner or admin' }).waitFor();
      expect(await m.getByRole('button', { name: 'Create token' }).count()).toBe(0);
    }
    await noScriptRan(m);
    expect(unexpected(mErrors)).toEqual([]);
  } finally {
    await member.close();
  }
});
