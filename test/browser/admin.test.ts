// The admin pages in a real browser against the real service: sign-in through the pages with the code read from the
// file mail sender, API key creation (secret shown once) and revocation (the key stops working), an invitation
// accepted by a second user in a second browser context, role change (and a refusal shown as the server says it),
// removal, the audit trail of all that, a member kept out of the admin pages, script payloads in emails and names
// staying text, keyboard-only use, and axe-core on every admin page.
import type { BrowserContext, Page } from 'playwright-core';
import { addMember } from '../../src/storage/accounts';
import { createInvitation } from '../../src/storage/invitations';
import { bearer, newOrg, readMail, type Org } from '../helpers/context';
import { demoSnapshot, XSS } from './fixtures';
import {
  checkView,
  sessionContext,
  startWebApp,
  uploadAndWait,
  watchErrors,
  type WebApp,
  noScriptRan,
  unexpected,
} from './helpers';

const XSS_NAME = `deploy ${XSS.img}`;
const XSS_EMAIL = `${XSS.img}@evil.test`;
const INVITEE = `new-${Date.now()}@example.test`;

let app: WebApp;
let org: Org;
let ownerEmail: string;
let projectId: string;
let ctx: BrowserContext;
let page: Page;
let errors: string[];

beforeAll(async () => {
  app = await startWebApp();
  org = await newOrg(app.t.store, 'acme admin');
  ownerEmail = (await app.t.api.get('/v1/me').set(bearer(org.ownerToken))).body.user.email;
  const uploader = await org.key(['sca:upload', 'scans:read']);
  const scanId = await uploadAndWait(app, uploader, demoSnapshot('admin-shop'));
  projectId = (await app.t.api.get(`/v1/scans/${scanId}`).set(bearer(uploader))).body.project;
  // user-controlled text planted where the pages show it: a member's email and a pending invitation's email
  await addMember(app.t.store, org.orgId, XSS_EMAIL, 'auditor');
  await createInvitation(app.t.store, {
    orgId: org.orgId,
    email: `invited-${XSS.img}@evil.test`,
    role: 'member',
    createdBy: org.memberId,
  });
  ctx = await sessionContext(app);
  page = await ctx.newPage();
  errors = watchErrors(page);
}, 120_000);

afterAll(async () => {
  await ctx?.close();
  await app?.close();
});

/** Signs in through the page this context is on (the sign-in view or the invitation page's form). */
async function signInWithCode(p: Page, email: string, emailLabel = 'Email address') {
  const before = await readMail(app.mailDir, email, { timeoutMs: 1 }).then(
    (m) => m.file,
    () => undefined,
  );
  const field = p.getByLabel(emailLabel, { exact: true });
  if ((await field.inputValue()) !== email) await field.fill(email);
  await p.getByRole('button', { name: 'Send me a code' }).click();
  const mail = await readMail(app.mailDir, email, { after: before });
  expect(mail.code).toMatch(/^\d{8}$/);
  await p.getByLabel('Code from the email').fill(mail.code!);
  await p.getByRole('button', { name: 'Sign in' }).click();
}

/** Waits until the table's rows differ from `before` (a new page or filter loaded), and returns them. */
async function rowsChangedFrom(before: string[], p: Page = page): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const now = await rowTexts(p);
    if (now.length && JSON.stringify(now) !== JSON.stringify(before)) return now;
    await p.waitForTimeout(50);
  }
  throw new Error('the rows did not change');
}

/** The text of each row of the page's table body. */
async function rowTexts(p: Page = page): Promise<string[]> {
  return p.$$eval('table.grid tbody tr', (trs) => trs.map((tr) => (tr.textContent ?? '').replace(/\s+/g, ' ').trim()));
}

test('the owner signs in through the pages with the mailed code and returns to the admin page asked for', async () => {
  await page.goto(`${app.baseUrl}/app/api-keys`);
  await page.waitForURL(/\/app\/sign-in\?next=/);
  await signInWithCode(page, ownerEmail);
  await page.waitForURL(`**/app/api-keys`);
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const label of ['Members', 'Invitations', 'API keys', 'Audit trail'])
    await nav.getByRole('link', { name: label }).waitFor();
  // no credential in web storage
  expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 0]);
});

test('API key: created with scopes and a chosen project, the secret shown once, then revoked (it stops working)', async () => {
  await page.goto(`${app.baseUrl}/app/api-keys`);
  await page.getByLabel('Name', { exact: true }).fill(XSS_NAME);
  await page.getByRole('checkbox', { name: /^scans:read/ }).check();
  await page.getByRole('checkbox', { name: /^deps:read/ }).check();
  await page.getByRole('radio', { name: 'Chosen projects' }).check();
  await page.getByRole('checkbox', { name: 'admin-shop' }).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const secretField = page.getByLabel(`Secret of the key ${XSS_NAME}`);
  await secretField.waitFor();
  const secret = await secretField.inputValue();
  expect(secret).toMatch(/^svc_key_/);
  await page.getByText('you will not see it again').waitFor();
  await checkView(page, 'admin-api-key-created');
  // the secret works, for the chosen project only
  const projects = await app.t.api.get('/v1/projects').set(bearer(secret));
  expect(projects.status).toBe(200);
  expect(projects.body.projects.map((p: { id: string }) => p.id)).toEqual([projectId]);
  const row = (await rowTexts()).find((r) => r.includes(XSS_NAME));
  expect(row).toContain(secret.slice(0, 12));
  expect(row).toContain('scans:read, deps:read');
  expect(row).toContain('admin-shop');
  expect(row).not.toContain(secret);
  // gone once dismissed, and after a reload
  await page.getByRole('button', { name: 'I have copied it' }).click();
  await secretField.waitFor({ state: 'detached' });
  await page.reload();
  await page
    .getByRole('cell', { name: secret.slice(0, 12), exact: false })
    .first()
    .waitFor();
  expect(await page.content()).not.toContain(secret);

  // revoke with the keyboard only: focus the button, Enter, the confirmation takes the focus, Enter
  await page.getByRole('button', { name: `Revoke the key ${XSS_NAME}` }).focus();
  await page.keyboard.press('Enter');
  const confirm = page
    .getByRole('group', { name: /Revoke the key .* It stops working at once/ })
    .getByRole('button', { name: 'Revoke' });
  await confirm.waitFor();
  expect(await confirm.evaluate((b) => b === document.activeElement)).toBe(true);
  expect(await confirm.evaluate((b) => getComputedStyle(b).outlineStyle)).not.toBe('none'); // visible focus
  await page.keyboard.press('Enter');
  await page
    .getByRole('status')
    .filter({ hasText: `The key ${XSS_NAME} was revoked` })
    .waitFor();
  await page.getByRole('row').filter({ hasText: XSS_NAME }).filter({ hasText: 'Revoked' }).waitFor();
  expect((await app.t.api.get('/v1/projects').set(bearer(secret))).status).toBe(401);

  // the status filter lives in the URL
  await page.getByLabel('Status').selectOption('revoked');
  await page.waitForURL(/\/app\/api-keys\?status=revoked$/);
  await page.reload();
  expect(await page.getByLabel('Status').inputValue()).toBe('revoked');
  await page.getByRole('rowheader', { name: XSS_NAME }).waitFor();
  await noScriptRan(page);
});

test('API key: a project-restricted key with an organization-wide scope is refused and the server says why', async () => {
  await page.goto(`${app.baseUrl}/app/api-keys`);
  await page.getByLabel('Name', { exact: true }).fill('restricted hosts');
  await page.getByRole('checkbox', { name: /^hosts:read/ }).check();
  await page.getByRole('radio', { name: 'Chosen projects' }).check();
  await page.getByRole('checkbox', { name: 'admin-shop' }).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const alert = page.getByRole('alert');
  const secret = page.getByLabel('Secret of the key restricted hosts');
  await Promise.race([alert.waitFor(), secret.waitFor()]);
  expect({ secretShown: await secret.count() }).toEqual({ secretShown: 0 }); // 1: the server created the key (it must answer 422 invalid_scope)
  // at the field it is about, in words, without the error code
  expect(await alert.textContent()).toBe(
    'The scopes: hosts:read covers the whole organization; a key restricted to projects cannot hold it (use projects "all").',
  );
  expect(await page.locator('#key-scopes').getAttribute('aria-invalid')).toBe('true');
  expect(await page.locator('#key-scopes').getAttribute('aria-describedby')).toBe('key-scopes-error');
  expect(await page.locator('#key-scopes #key-scopes-error').count()).toBe(1);
});

test('invitation: the link shown once, accepted by a second user who signs in on the invitation page; the owner sees the member', async () => {
  await page.goto(`${app.baseUrl}/app/invitations`);
  await page.getByRole('heading', { name: 'Invitations' }).waitFor();
  await page.getByLabel('Email address').fill(INVITEE);
  await page.getByLabel('Role', { exact: true }).selectOption('member');
  await page.getByRole('button', { name: 'Invite', exact: true }).click();
  const linkField = page.getByLabel(`Invitation link for ${INVITEE}`);
  await linkField.waitFor();
  const inviteUrl = new URL(await linkField.inputValue());
  expect(inviteUrl.pathname).toBe('/app/invitations/accept');
  expect(inviteUrl.hash).toMatch(/^#token=svc_inv_/);
  await checkView(page, 'admin-invitations');
  await noScriptRan(page);

  const guest = await sessionContext(app);
  try {
    const g = await guest.newPage();
    const gErrors = watchErrors(g);
    await g.goto(`${app.baseUrl}${inviteUrl.pathname}${inviteUrl.hash}`);
    await g.getByRole('heading', { name: 'Accept an invitation' }).waitFor();
    await g.getByText(INVITEE, { exact: true }).waitFor();
    expect(new URL(g.url()).hash).toBe(''); // the token left the address bar
    const facts = await g.locator('dl.facts').textContent();
    expect(facts).toContain('acme admin');
    expect(facts).toContain('Member');
    expect(facts).toContain('pending');
    expect(await g.getByLabel('Email address').inputValue()).toBe(INVITEE); // prefilled
    await checkView(g, 'admin-invitation-accept');
    await signInWithCode(g, INVITEE);
    await g.getByRole('button', { name: 'Accept and join acme admin' }).click();
    await g.waitForURL(`**/app/`);
    await g.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(await g.locator('.who').textContent()).toContain(`${INVITEE} · acme admin (member)`);
    // a member has no admin section in the nav
    const nav = g.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link', { name: 'API keys' }).count()).toBe(0);
    expect(await nav.getByRole('link', { name: 'Audit trail' }).count()).toBe(0);
    expect(await g.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 0]);

    // the same link again: refused with a clear message
    await g.goto(`${app.baseUrl}${inviteUrl.pathname}${inviteUrl.hash}`);
    const refused = g.getByRole('alert');
    await refused.waitFor();
    expect(await refused.textContent()).toContain('already accepted');

    // a member opening an admin URL sees the server's 403 message
    await g.goto(`${app.baseUrl}/app/audit`);
    const forbidden = g.getByRole('alert');
    await forbidden.waitFor();
    expect(await forbidden.textContent()).toMatch(/requires role/);
    // the members page: readable, no role control, only leaving
    await g.goto(`${app.baseUrl}/app/members`);
    await g.getByRole('rowheader', { name: /\(you\)/ }).waitFor();
    expect(await g.getByRole('combobox', { name: /^Role of / }).count()).toBe(0);
    await g.getByRole('button', { name: 'Leave the organization' }).waitFor();
    expect(unexpected(gErrors)).toEqual([]);
  } finally {
    await guest.close();
  }

  await page.goto(`${app.baseUrl}/app/members`);
  await page.getByRole('rowheader', { name: INVITEE }).waitFor();
  const rows = await rowTexts();
  expect(rows[0]).toContain(ownerEmail); // owners first
  expect(rows.some((r) => r.includes(XSS_EMAIL))).toBe(true);
  await checkView(page, 'admin-members');
  await noScriptRan(page);
});

test('invitations: revoking one, the status filter in the URL, and the revoked link refused on the accept page', async () => {
  const created = await app.t.api
    .post('/v1/invitations')
    .set(bearer(org.ownerToken))
    .send({ email: 'later@example.test', role: 'auditor' });
  expect(created.status).toBe(201);
  await page.goto(`${app.baseUrl}/app/invitations?status=pending`);
  await page.getByRole('rowheader', { name: 'later@example.test' }).waitFor();
  expect(await page.getByRole('rowheader', { name: INVITEE }).count()).toBe(0); // accepted: not pending
  await page.getByRole('button', { name: 'Revoke the invitation of later@example.test' }).click();
  await page
    .getByRole('group', { name: 'Revoke the invitation of later@example.test?' })
    .getByRole('button', { name: 'Revoke' })
    .click();
  await page.getByRole('status').filter({ hasText: 'The invitation of later@example.test was revoked.' }).waitFor();
  await page.getByRole('rowheader', { name: 'later@example.test' }).waitFor({ state: 'detached' });
  await page.getByLabel('Status').selectOption('revoked');
  await page.waitForURL(/status=revoked/);
  await page.getByRole('rowheader', { name: 'later@example.test' }).waitFor();

  const url = new URL(created.body.inviteUrl);
  const guest = await sessionContext(app);
  try {
    const g = await guest.newPage();
    await g.goto(`${app.baseUrl}${url.pathname}${url.hash}`);
    const alert = g.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('This invitation was revoked');
    expect(await g.getByRole('button', { name: /Accept/ }).count()).toBe(0);
    // a link without its token, or with an unknown one
    await g.goto(`${app.baseUrl}/app/invitations/accept#token=svc_inv_unknown`);
    await g.getByRole('alert').filter({ hasText: 'This invitation link is not valid' }).waitFor();
  } finally {
    await guest.close();
  }
});

test('members: role change, a refusal shown as the server words it, removal with a confirmation', async () => {
  await page.goto(`${app.baseUrl}/app/members`);
  const role = page.getByRole('combobox', { name: `Role of ${INVITEE}` });
  await role.selectOption('auditor');
  await page
    .getByRole('status')
    .filter({ hasText: `${INVITEE} is now Auditor.` })
    .waitFor();
  expect(
    (await app.t.api.get('/v1/members?role=auditor').set(bearer(org.ownerToken))).body.members.map(
      (m: { email: string }) => m.email,
    ),
  ).toContain(INVITEE);

  // the sole owner cannot demote themself: the server's 409 last_owner message, and the select shows the role kept
  const own = page.getByRole('combobox', { name: `Role of ${ownerEmail}` });
  await own.selectOption('member');
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toBe(
    `Could not change the role of ${ownerEmail}: The organization must keep at least one owner.`,
  );
  expect(await own.inputValue()).toBe('owner');

  // removal asks first; Cancel keeps the member
  await page.getByRole('button', { name: `Remove ${INVITEE}` }).click();
  await page.getByRole('button', { name: 'Cancel' }).click();
  expect(
    await page.getByRole('button', { name: `Remove ${INVITEE}` }).evaluate((b) => b === document.activeElement),
  ).toBe(true);
  await page.getByRole('button', { name: `Remove ${INVITEE}` }).click();
  await page
    .getByRole('group', { name: `Remove ${INVITEE}?` })
    .getByRole('button', { name: 'Remove' })
    .click();
  await page
    .getByRole('status')
    .filter({ hasText: `${INVITEE} was removed from the organization.` })
    .waitFor();
  await page.getByRole('rowheader', { name: INVITEE }).waitFor({ state: 'detached' });

  // the role filter lives in the URL
  const all = await rowTexts();
  await page.getByLabel('Role', { exact: true }).selectOption('auditor');
  await page.waitForURL(/\/app\/members\?role=auditor$/);
  expect((await rowsChangedFrom(all)).map((r) => r.includes(XSS_EMAIL))).toEqual([true]);
  await noScriptRan(page);
});

test('the audit trail shows those events newest first, with their actor and target as text, a page at a time', async () => {
  await page.goto(`${app.baseUrl}/app/audit`);
  await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
  await page.locator('table.grid tbody tr').first().waitFor();
  const rows = await rowTexts();
  const types = rows.map((r) => /\(([a-z_]+\.[a-z_]+)\)/.exec(r)?.[1]);
  // newest first: the removal, the role change, the revocation, ... down to the owner's sign-in
  expect(types.slice(0, 2)).toEqual(['member.removed', 'member.role_changed']);
  for (const t of [
    'session.created',
    'api_key.created',
    'api_key.revoked',
    'invitation.created',
    'invitation.accepted',
    'invitation.revoked',
  ])
    expect(types).toContain(t);
  expect(types.lastIndexOf('session.created')).toBeGreaterThan(types.indexOf('api_key.created'));
  const times = await page.$$eval('table.grid tbody time', (ts) => ts.map((t) => t.getAttribute('datetime') ?? ''));
  expect([...times].sort().reverse()).toEqual(times);
  const removed = rows[0];
  expect(removed).toContain(ownerEmail); // actor
  expect(removed).toContain(INVITEE); // target
  expect(rows.find((r) => r.includes('(member.role_changed)'))).toContain('member → auditor');
  expect(rows.filter((r) => r.includes('(api_key.created)') && r.includes(XSS_NAME))).toHaveLength(1);
  await checkView(page, 'admin-audit');
  await noScriptRan(page);

  // pages: the cursor lives in the URL
  await page.goto(`${app.baseUrl}/app/audit?limit=2`);
  await page.locator('table.grid tbody tr').first().waitFor();
  expect(await rowTexts()).toEqual(rows.slice(0, 2));
  await page.getByRole('link', { name: 'Next page' }).click();
  await page.waitForURL(/limit=2&cursor=/);
  const second = await rowsChangedFrom(rows.slice(0, 2));
  expect(second).toEqual(rows.slice(2, 4));
  await page.reload();
  await page.locator('table.grid tbody tr').first().waitFor();
  expect(await rowTexts()).toEqual(second);
  await page.getByRole('link', { name: 'First page' }).waitFor();
  expect(unexpected(errors)).toEqual([]);
});

test('every admin page: keyboard reachable controls with labels, axe clean (no serious or critical violation)', async () => {
  for (const [path, name, controls] of [
    ['/app/members', 'admin-members-page', true],
    ['/app/invitations', 'admin-invitations-page', true],
    ['/app/api-keys', 'admin-api-keys-page', true],
    ['/app/audit', 'admin-audit-page', false], // a table of text: nothing to operate on one page
  ] as const) {
    await page.goto(`${app.baseUrl}${path}`);
    await page.locator('h1#page-title').waitFor();
    await page.locator('[role=status]:has-text("Loading")').waitFor({ state: 'detached' });
    await checkView(page, name);
    // every form control has an accessible name
    const unlabelled = await page.$$eval('main input, main select, main button', (els) =>
      els
        .filter(
          (e) =>
            !(e as HTMLElement).getAttribute('aria-label') &&
            !(e as HTMLInputElement).labels?.length &&
            !(e.textContent ?? '').trim(),
        )
        .map((e) => e.outerHTML.slice(0, 80)),
    );
    expect(unlabelled).toEqual([]);
    if (!controls) continue;
    // Tab reaches a control of the page's main area
    await page.keyboard.press('Tab');
    let inMain = false;
    const seen: string[] = [];
    for (let i = 0; i < 20 && !inMain; i++) {
      inMain = await page.evaluate(
        () =>
          !!document.activeElement?.closest('main') &&
          document.activeElement?.tagName !== 'MAIN' &&
          document.activeElement?.tagName !== 'H1',
      );
      seen.push(await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 60) ?? 'none'));
      if (!inMain) await page.keyboard.press('Tab');
    }
    expect({ path, inMain, seen }).toEqual({ path, inMain: true, seen: expect.anything() });
  }
  await noScriptRan(page);
});

test('an admin: owner-only changes refused with the server words, inviting offers member and auditor only', async () => {
  const admin = await sessionContext(app, await org.session('admin'));
  try {
    const a = await admin.newPage();
    await a.goto(`${app.baseUrl}/app/members`);
    const ownerRole = a.getByRole('combobox', { name: `Role of ${ownerEmail}` });
    await ownerRole.selectOption('member');
    const alert = a.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      `Could not change the role of ${ownerEmail}: You are not allowed to do this: requires role owner (changing an owner).`,
    );
    expect(await ownerRole.inputValue()).toBe('owner');
    await a.getByRole('combobox', { name: `Role of ${XSS_EMAIL}` }).selectOption('admin');
    await alert.filter({ hasText: 'requires role owner (promoting to admin)' }).waitFor();
    expect(await a.getByRole('combobox', { name: `Role of ${XSS_EMAIL}` }).inputValue()).toBe('auditor');
    await noScriptRan(a);
    await a.goto(`${app.baseUrl}/app/invitations`);
    await a.getByRole('heading', { name: 'Invitations' }).waitFor();
    expect(await a.getByLabel('Role', { exact: true }).locator('option').allTextContents()).toEqual([
      'Member',
      'Auditor',
    ]);
  } finally {
    await admin.close();
  }
});

test('a member leaves the organization after confirming, and lands on the page for users without one', async () => {
  const member = await sessionContext(app, await org.session('member'));
  try {
    const m = await member.newPage();
    await m.goto(`${app.baseUrl}/app/members`);
    await m.getByRole('button', { name: 'Leave the organization' }).click();
    await m.getByRole('group', { name: 'Leave the organization?' }).getByRole('button', { name: 'Leave' }).click();
    await m.getByRole('heading', { name: 'No organization yet' }).waitFor();
    expect(
      (await app.t.api.get('/v1/members').set(bearer(org.ownerToken))).body.members.filter(
        (x: { role: string }) => x.role === 'member',
      ),
    ).toEqual([]);
  } finally {
    await member.close();
  }
});

test('the accept page, signed in already: another address is refused (invite_email_mismatch), so is a member of an organization (already_in_org)', async () => {
  const other = await app.t.api
    .post('/v1/invitations')
    .set(bearer(org.ownerToken))
    .send({ email: 'someone-else@example.test', role: 'member' });
  // this organization cannot invite its own member (409 already_member); another organization can, and its
  // invitation is refused at acceptance
  const self = await app.t.api
    .post('/v1/invitations')
    .set(bearer(org.ownerToken))
    .send({ email: ownerEmail, role: 'member' });
  expect([self.status, self.body.error?.code]).toEqual([409, 'already_member']);
  const elsewhere = await newOrg(app.t.store, 'elsewhere');
  const own = await app.t.api
    .post('/v1/invitations')
    .set(bearer(elsewhere.ownerToken))
    .send({ email: ownerEmail, role: 'member' });
  expect([other.status, own.status]).toEqual([201, 201]);
  for (const [created, orgName, words] of [
    [
      other,
      'acme admin',
      `This invitation was sent to someone-else@example.test, but you are signed in as ${ownerEmail}.`,
    ],
    [own, 'elsewhere', 'You already belong to an organization.'],
  ] as const) {
    const u = new URL(created.body.inviteUrl);
    await page.goto(`${app.baseUrl}${u.pathname}${u.hash}`);
    await page.getByRole('button', { name: `Accept and join ${orgName}` }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain(words);
    expect(new URL(page.url()).hash).toBe('');
  }
  // both stay pending
  const pending = async (token: string) =>
    (await app.t.api.get('/v1/invitations?status=pending').set(bearer(token))).body.invitations.map(
      (i: { email: string }) => i.email,
    );
  expect(await pending(org.ownerToken)).toContain('someone-else@example.test');
  expect(await pending(elsewhere.ownerToken)).toContain(ownerEmail);
});
