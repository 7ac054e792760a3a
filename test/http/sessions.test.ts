// Sign-in by emailed code and browser sessions over real HTTP on the real database: the codes'
// rules, the cookies' attributes, when a session cookie counts as a credential, expiry, sign-out, no CORS, and no
// account enumeration.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Response } from 'supertest';
import { createOrgWithOwner, createSession, findOrCreateUser, findUserByEmail } from '../../src/storage/accounts';
import { sha256Hex } from '../../src/domain/ids';
import { uploadPreparer } from '../../src/pool/upload-pool';
import type { MailSender } from '../../src/infra/mail';
import { appWithoutTemporal, bearer, newOrg, readMail, testContext, type TestContext } from '../helpers/context';

const APP_URL = 'https://scanner.example.test/app';
const APP_ORIGIN = 'https://scanner.example.test';
const DAY = 24 * 3600 * 1000;

let t: TestContext;
let mailDir: string;
let n = 0;
const email = (tag: string) => `${tag}-${Date.now()}-${n++}@example.test`;

beforeAll(async () => {
  mailDir = mkdtempSync(path.join(os.tmpdir(), 'mail-'));
  // every request here comes from 127.0.0.1: the per-address limit is tested on an API of its own below
  t = await testContext({
    mailDir,
    signInLimits: { perEmail: 5, perAddress: 10_000 },
    platform: { publicAppUrl: APP_URL, challengeSources: [], challengeSourcesUpdatedAt: new Date() },
  });
}, 60_000);
afterAll(() => t.close());

const err = (res: Response) => ({ status: res.status, code: res.body?.error?.code });
const cookies = (res: Response): string[] => ([] as string[]).concat(res.headers['set-cookie'] ?? []);
const cookieNamed = (res: Response, name: string) => cookies(res).find((c) => c.startsWith(`${name}=`));
const valueOf = (setCookie: string | undefined) => setCookie?.split(';')[0].split('=').slice(1).join('=') ?? '';
const attrs = (setCookie: string) =>
  setCookie
    .split(';')
    .slice(1)
    .map((s) => s.trim());

/** Asks for a code as a browser would: returns the binding cookie and the mailed code. */
async function requestCode(address: string): Promise<{ binding: string; code: string; res: Response }> {
  const to = address.trim().toLowerCase(); // where the service sends it
  const before = (await readMail(mailDir, to, { timeoutMs: 0 }).catch(() => null))?.file;
  const res = await t.api.post('/v1/sessions/codes').send({ email: address });
  expect(res.status).toBe(202);
  const mail = await readMail(mailDir, to, { after: before });
  return { binding: valueOf(cookieNamed(res, '__Host-svc_login')), code: mail.code!, res };
}

const signIn = (address: string, code: string, binding: string | null) => {
  const req = t.api.post('/v1/sessions');
  if (binding !== null) req.set('Cookie', `__Host-svc_login=${binding}`);
  return req.send({ email: address, code });
};

async function signedIn(address: string): Promise<{ token: string; res: Response }> {
  const { binding, code } = await requestCode(address);
  const res = await signIn(address, code, binding);
  expect(res.status).toBe(201);
  return { token: valueOf(cookieNamed(res, '__Host-svc_session')), res };
}

/** Headers of the web app's own requests carrying the session cookie. */
const app = (token: string, extra: Record<string, string> = {}) => ({
  Cookie: `__Host-svc_session=${token}`,
  'X-Svc-App': '1',
  ...extra,
});

describe('POST /v1/sessions/codes', () => {
  test('202 {} with a binding cookie (HttpOnly, Secure, SameSite=Strict, Path=/), and an 8-digit code mailed to the address', async () => {
    const address = email('first');
    const { binding, code, res } = await requestCode(address);
    expect(res.body).toEqual({});
    const set = cookieNamed(res, '__Host-svc_login')!;
    expect(attrs(set)).toEqual(
      expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/', 'Max-Age=600']),
    );
    expect(set).not.toMatch(/Domain=/i);
    expect(binding).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(code).toMatch(/^[0-9]{8}$/);
    const mail = await readMail(mailDir, address);
    expect(mail.text).toContain(code);
    expect(mail.text).toContain(APP_URL);
  });

  test('the same answer for an email with an account, one without, and an upper-case spelling of one', async () => {
    const { user } = await createOrgWithOwner(t.store, 'known', email('known'));
    const answers = [];
    const unknown = email('unknown');
    for (const address of [user.email, unknown, `  ${user.email.toUpperCase()} `]) {
      const res = await t.api.post('/v1/sessions/codes').send({ email: address });
      answers.push({
        status: res.status,
        body: res.body,
        cookies: cookies(res).map((c) => c.replace(/=[^;]*;/, '=<v>;').replace(/Expires=.*$/, '')),
        headers: Object.keys(res.headers)
          .filter((h) => !['date', 'x-request-id', 'set-cookie', 'content-length'].includes(h))
          .sort(),
      });
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    // the unknown email got no user (only signing in creates one), but a code like the known one
    expect(await findUserByEmail(t.store, unknown)).toBeNull();
    expect((await readMail(mailDir, unknown)).code).toMatch(/^[0-9]{8}$/);
  });

  test('the answer does not wait for the mail: a sender that hangs, or fails, changes nothing for the caller', async () => {
    const hanging: MailSender = { description: 'hangs', send: () => new Promise<void>(() => undefined) };
    const failing: MailSender = {
      description: 'fails',
      send: async () => Promise.reject(new Error('550 no such user')),
    };
    for (const mail of [hanging, failing]) {
      const uploads = uploadPreparer(1);
      const other = await appWithoutTemporal(t.store, { uploads, signIn: { mail, codeKey: Buffer.alloc(32, 7) } });
      try {
        const res = await other.api.post('/v1/sessions/codes').send({ email: email('mailless') });
        expect({ status: res.status, body: res.body }).toEqual({ status: 202, body: {} });
      } finally {
        await new Promise((r) => other.server.close(r));
        await uploads.close();
      }
    }
  });

  test('the code is stored only as a keyed hash bound to the browser, never in plaintext', async () => {
    const address = email('stored');
    const { binding, code } = await requestCode(address);
    const doc = await t.store.c.loginCodes.findOne({ _id: address });
    expect(doc).not.toBeNull();
    expect(JSON.stringify(doc)).not.toContain(code);
    expect(JSON.stringify(doc)).not.toContain(binding);
    expect(doc!.codeHash).not.toBe(sha256Hex(code));
    expect(doc!.bindingHash).toBe(sha256Hex(binding));
    expect(doc!.expiresAt.getTime() - doc!.createdAt.getTime()).toBe(10 * 60 * 1000);
  });

  test('bad input: 422 with the envelope, never a 5xx', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'missing_parameter'],
      [{ email: '' }, 'missing_parameter'],
      [{ email: 'not-an-email' }, 'invalid_parameter'],
      [{ email: 42 }, 'invalid_parameter'],
      [{ email: ['a@b.example'] }, 'invalid_parameter'],
      [{ email: 'a@b.example, c@d.example' }, 'invalid_parameter'],
      [{ email: 'a,b@c.example' }, 'invalid_parameter'],
      [{ email: 'x@y.example\r\nBcc: z@w.example' }, 'invalid_parameter'],
      [{ email: `${'a'.repeat(320)}@b.example` }, 'invalid_parameter'],
      [[], 'invalid_parameter'],
    ];
    for (const [body, code] of cases)
      expect(err(await t.api.post('/v1/sessions/codes').send(body as object))).toEqual({ status: 422, code });
    const notJson = await t.api.post('/v1/sessions/codes').set('Content-Type', 'application/json').send('{"email":');
    expect(notJson.status).toBeGreaterThanOrEqual(400);
    expect(notJson.status).toBeLessThan(500);
    expect(notJson.body.error.code).toBeDefined();
  });

  test('limited per email (5 per 15 minutes) with Retry-After, and per client address', async () => {
    const address = email('limited');
    for (let i = 0; i < 5; i++)
      expect((await t.api.post('/v1/sessions/codes').send({ email: address })).status).toBe(202);
    const limited = await t.api.post('/v1/sessions/codes').send({ email: address });
    expect(err(limited)).toEqual({ status: 429, code: 'rate_limited' });
    expect(limited.body.error.message).toMatch(/email/);
    const retry = Number(limited.headers['retry-after']);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(15 * 60);
    expect(cookieNamed(limited, '__Host-svc_login')).toBeUndefined();
    // another email from the same address still gets one
    expect((await t.api.post('/v1/sessions/codes').send({ email: email('other') })).status).toBe(202);

    // per address, with a small limit on an API of its own (the limit is always on, whatever RATE_LIMIT_ENFORCE)
    const small = await testContext({
      dbName: `${t.store.db.databaseName}_lim`,
      mailDir,
      signInLimits: { perEmail: 5, perAddress: 3 },
    });
    try {
      for (let i = 0; i < 3; i++)
        expect((await small.api.post('/v1/sessions/codes').send({ email: email('addr') })).status).toBe(202);
      const refused = await small.api.post('/v1/sessions/codes').send({ email: email('addr') });
      expect(err(refused)).toEqual({ status: 429, code: 'rate_limited' });
      expect(refused.body.error.message).toMatch(/client address/);
    } finally {
      await small.close();
    }
  });
});

describe('POST /v1/sessions', () => {
  test('201 {user, org, member, expiresAt} and the session cookie; a new email creates a user without organization', async () => {
    const address = email('newcomer');
    expect(await findUserByEmail(t.store, address)).toBeNull();
    const { binding, code } = await requestCode(address);
    const res = await signIn(address, code, binding);
    expect(res.status).toBe(201);
    const user = await findUserByEmail(t.store, address);
    expect(res.body).toEqual({
      user: { id: user!._id, email: address },
      org: null,
      member: null,
      expiresAt: expect.any(String),
    });
    const expiresAt = new Date(res.body.expiresAt).getTime();
    expect(Math.abs(expiresAt - (Date.now() + 30 * DAY))).toBeLessThan(60_000);
    const set = cookieNamed(res, '__Host-svc_session')!;
    expect(set.split(';')[0]).toMatch(/^__Host-svc_session=svc_ses_[A-Za-z0-9]+$/);
    expect(attrs(set).slice(0, 4)).toEqual(['HttpOnly', 'Secure', 'SameSite=Lax', 'Path=/']);
    expect(set).not.toMatch(/Domain=/i);
    // the binding cookie is cleared
    expect(cookieNamed(res, '__Host-svc_login')).toMatch(/^__Host-svc_login=;.*Max-Age=0/);
    // the session is stored hashed, as an app session
    const token = valueOf(set);
    const stored = await t.store.c.sessions.findOne({ _id: sha256Hex(token) });
    expect(stored).toMatchObject({ userId: user!._id, via: 'app', revokedAt: null });
    expect(JSON.stringify(stored)).not.toContain(token);
    const me = await t.api.get('/v1/me').set(app(token));
    expect(me.body).toEqual({ user: { id: user!._id, email: address }, org: null, member: null });
  });

  test('a member signs into their organization; the sign-in and the sign-out are in its audit trail', async () => {
    const address = email('member');
    const { org, member } = await createOrgWithOwner(t.store, 'signed', address);
    const { token, res } = await signedIn(address);
    expect(res.body.org).toEqual({ id: org._id, name: 'signed' });
    expect(res.body.member).toEqual({ id: member._id, role: 'owner', joinedAt: member.joinedAt.toISOString() });
    const out = await t.api.delete('/v1/sessions/current').set(app(token, { 'Sec-Fetch-Site': 'same-origin' }));
    expect(out.status).toBe(204);
    const audit = await t.api.get('/v1/audit-events').set(bearer((await createSession(t.store, member.userId)).token));
    const types = audit.body.auditEvents.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['session.created', 'session.revoked']));
    const created = audit.body.auditEvents.find((e: { type: string }) => e.type === 'session.created');
    expect(created.actor).toMatchObject({ memberId: member._id, email: address });
    expect(JSON.stringify(audit.body)).not.toContain(token);
  });

  test('wrong, unbound, replaced, used and expired codes are 401 invalid_token with one message', async () => {
    const address = email('refusals');
    const first = await requestCode(address);
    const wrong = first.code === '00000000' ? '00000001' : '00000000';
    const refusals: Response[] = [];
    refusals.push(await signIn(address, wrong, first.binding)); // wrong
    refusals.push(await signIn(address, first.code, null)); // no binding cookie
    refusals.push(await signIn(address, first.code, 'A'.repeat(43))); // another browser's binding
    const second = await requestCode(address);
    refusals.push(await signIn(address, first.code, first.binding)); // replaced by the second code
    refusals.push(await signIn(address, second.code, first.binding)); // the new code, from the old binding
    expect((await signIn(address, second.code, second.binding)).status).toBe(201);
    refusals.push(await signIn(address, second.code, second.binding)); // used
    const third = await requestCode(address);
    await t.store.c.loginCodes.updateOne({ _id: address }, { $set: { expiresAt: new Date(Date.now() - 1) } });
    refusals.push(await signIn(address, third.code, third.binding)); // expired
    refusals.push(await signIn(email('never-asked'), third.code, third.binding)); // no code for that email
    for (const r of refusals) {
      expect(err(r)).toEqual({ status: 401, code: 'invalid_token' });
      expect(r.body.error.message).toBe(refusals[0].body.error.message);
      expect(cookieNamed(r, '__Host-svc_session')).toBeUndefined();
    }
  });

  test('5 attempts: the sixth fails even with the right code; tries from another browser do not burn the code', async () => {
    const address = email('attempts');
    const { binding, code } = await requestCode(address);
    const wrong = (i: number) => String((Number(code) + 1 + i) % 1e8).padStart(8, '0');
    for (let i = 0; i < 10; i++) expect((await signIn(address, code, 'B'.repeat(43))).status).toBe(401);
    for (let i = 0; i < 4; i++) expect((await signIn(address, wrong(i), binding)).status).toBe(401);
    // a malformed code counts too
    expect((await signIn(address, 'abc', binding)).status).toBe(401);
    const sixth = await signIn(address, code, binding);
    expect(err(sixth)).toEqual({ status: 401, code: 'invalid_token' });
    expect(sixth.body.error.message).toMatch(/too many attempts/);
    // a new code starts afresh
    const again = await requestCode(address);
    expect((await signIn(address, again.code, again.binding)).status).toBe(201);
  });

  test('bad input: 422 envelopes; an email of another case signs into the same user', async () => {
    expect(err(await t.api.post('/v1/sessions').send({ code: '12345678' }))).toEqual({
      status: 422,
      code: 'missing_parameter',
    });
    expect(err(await t.api.post('/v1/sessions').send({ email: email('x') }))).toEqual({
      status: 422,
      code: 'missing_parameter',
    });
    expect(err(await t.api.post('/v1/sessions').send({ email: 'nope', code: '12345678' }))).toEqual({
      status: 422,
      code: 'invalid_parameter',
    });
    expect(err(await t.api.post('/v1/sessions').send({ email: email('x'), code: 12345678 }))).toEqual({
      status: 401,
      code: 'invalid_token',
    });
    const address = email('cased');
    const user = await findOrCreateUser(t.store, address);
    const { binding, code } = await requestCode(address.toUpperCase());
    const res = await signIn(` ${address.toUpperCase()}`, code, binding);
    expect(res.status).toBe(201);
    expect(res.body.user.id).toBe(user._id);
  });
});

describe('the session cookie as a credential', () => {
  let token: string;
  beforeAll(async () => {
    const org = await newOrg(t.store, 'cookie');
    const owner = await t.store.c.members.findOne({ _id: org.memberId });
    const user = await t.store.c.users.findOne({ _id: owner!.userId });
    ({ token } = await signedIn(user!.email));
  });

  test('on /v1 only with X-Svc-App: 1', async () => {
    expect((await t.api.get('/v1/me').set(app(token))).status).toBe(200);
    const without = await t.api.get('/v1/me').set('Cookie', `__Host-svc_session=${token}`);
    expect(err(without)).toEqual({ status: 401, code: 'invalid_token' });
    expect(without.body.error.message).toMatch(/X-Svc-App/);
    expect(err(await t.api.get('/v1/me').set(app(token, { 'X-Svc-App': 'true' })))).toEqual({
      status: 401,
      code: 'invalid_token',
    });
  });

  test('non-GET requests: only from the app origin (Sec-Fetch-Site: same-origin or Origin = PUBLIC_APP_URL origin)', async () => {
    const create = (headers: Record<string, string>) =>
      t.api
        .post('/v1/api-keys')
        .set(app(token, headers))
        .send({ name: 'k', scopes: ['scans:read'], projects: 'all' });
    expect((await create({ 'Sec-Fetch-Site': 'same-origin' })).status).toBe(201);
    expect((await create({ Origin: APP_ORIGIN })).status).toBe(201);
    for (const headers of [
      {},
      { 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'same-site' },
      { 'Sec-Fetch-Site': 'none' },
      { Origin: 'https://evil.example' },
      { Origin: 'https://scanner.example.test.evil.example' },
      { Origin: 'null' },
      { 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.example' },
    ] as Array<Record<string, string>>) {
      const res = await create(headers);
      expect(err(res)).toEqual({ status: 401, code: 'invalid_token' });
      expect(res.body.error.message).toMatch(/origin/);
    }
    // GET needs no origin proof (a cross-site page cannot add X-Svc-App without a preflight, which is never granted)
    expect((await t.api.get('/v1/api-keys').set(app(token, { 'Sec-Fetch-Site': 'cross-site' }))).status).toBe(200);
  });

  test('Bearer wins when both are sent', async () => {
    const other = await newOrg(t.store, 'bearer');
    const key = await other.key(['scans:read']);
    // a key cannot read /v1/me: the answer is the key's (403), not the cookie session's (200)
    expect(err(await t.api.get('/v1/me').set(app(token)).set(bearer(key)))).toEqual({
      status: 403,
      code: 'insufficient_scope',
    });
    expect(
      err(
        await t.api
          .get('/v1/me')
          .set(app(token))
          .set(bearer('svc_ses_' + 'x'.repeat(40))),
      ),
    ).toEqual({ status: 401, code: 'invalid_token' });
    const res = await t.api.get('/v1/me').set(app(token)).set(bearer(other.ownerToken));
    expect(res.body.org.id).toBe(other.orgId);
  });

  test('malformed or unknown cookies are 401, and an API key in the cookie does not count', async () => {
    const k = await (await newOrg(t.store, 'kc')).key(['scans:read']);
    for (const v of ['svc_ses_' + 'z'.repeat(40), 'garbage', k, ''])
      expect((await t.api.get('/v1/scans').set(app(v))).status).toBe(401);
  });

  test('no CORS on /v1: no Access-Control-* header, preflights are not granted', async () => {
    const answers = [
      await t.api.get('/v1/me').set(app(token, { Origin: 'https://evil.example' })),
      await t.api.options('/v1/api-keys').set({
        Origin: 'https://evil.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'x-svc-app',
      }),
      await t.api
        .post('/v1/sessions/codes')
        .set({ Origin: 'https://evil.example' })
        .send({ email: email('cors') }),
    ];
    for (const res of answers)
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(answers[1].status).toBeGreaterThanOrEqual(400);
  });
});

describe('session lifetime and sign-out', () => {
  const owner = async () => {
    const org = await newOrg(t.store, 'life');
    const m = await t.store.c.members.findOne({ _id: org.memberId });
    return (await t.store.c.users.findOne({ _id: m!.userId }))!;
  };

  test('30 days absolute, 7 days idle; use refreshes lastUsedAt at most once a minute; CLI sessions have no idle limit', async () => {
    const user = await owner();
    const old = await createSession(t.store, user._id, new Date(Date.now() - 30 * DAY + 60_000), 'app');
    await t.store.c.sessions.updateOne({ _id: old.session._id }, { $set: { lastUsedAt: new Date() } });
    expect((await t.api.get('/v1/me').set(app(old.token))).status).toBe(200); // a minute before its end
    await t.store.c.sessions.updateOne({ _id: old.session._id }, { $set: { expiresAt: new Date(Date.now() - 1) } });
    expect(err(await t.api.get('/v1/me').set(app(old.token)))).toEqual({ status: 401, code: 'invalid_token' });

    const idle = await createSession(t.store, user._id, new Date(), 'app');
    await t.store.c.sessions.updateOne(
      { _id: idle.session._id },
      { $set: { lastUsedAt: new Date(Date.now() - 7 * DAY + 60_000) } },
    );
    expect((await t.api.get('/v1/me').set(app(idle.token))).status).toBe(200);
    // the use above moved lastUsedAt to now (best effort, not awaited by the request)
    await expectEventually(
      async () =>
        (await t.store.c.sessions.findOne({ _id: idle.session._id }))!.lastUsedAt!.getTime() > Date.now() - 60_000,
    );
    await t.store.c.sessions.updateOne(
      { _id: idle.session._id },
      { $set: { lastUsedAt: new Date(Date.now() - 7 * DAY) } },
    );
    const res = await t.api.get('/v1/me').set(app(idle.token));
    expect(err(res)).toEqual({ status: 401, code: 'invalid_token' });
    expect(res.body.error.message).toMatch(/7 days/);

    const cli = await createSession(t.store, user._id, new Date(Date.now() - 20 * DAY));
    await t.store.c.sessions.updateOne(
      { _id: cli.session._id },
      { $set: { lastUsedAt: new Date(Date.now() - 20 * DAY) } },
    );
    expect((await t.api.get('/v1/me').set(bearer(cli.token))).status).toBe(200);
  });

  test('DELETE /v1/sessions/current: 204, the cookie cleared, the session revoked at once; with or without organization', async () => {
    for (const address of [(await owner()).email, email('loner')]) {
      const { token } = await signedIn(address);
      const res = await t.api.delete('/v1/sessions/current').set(app(token, { Origin: APP_ORIGIN }));
      expect(res.status).toBe(204);
      expect(cookieNamed(res, '__Host-svc_session')).toMatch(
        /^__Host-svc_session=; HttpOnly; Secure; SameSite=Lax; Path=\/; Max-Age=0/,
      );
      expect(err(await t.api.get('/v1/me').set(app(token)))).toEqual({ status: 401, code: 'invalid_token' });
      expect(err(await t.api.delete('/v1/sessions/current').set(app(token, { Origin: APP_ORIGIN })))).toEqual({
        status: 401,
        code: 'invalid_token',
      });
    }
  });

  test('sign-out from another site is refused (the cookie is ignored), and a key cannot sign out', async () => {
    const { token } = await signedIn((await owner()).email);
    expect(err(await t.api.delete('/v1/sessions/current').set(app(token, { 'Sec-Fetch-Site': 'cross-site' })))).toEqual(
      { status: 401, code: 'invalid_token' },
    );
    expect((await t.api.get('/v1/me').set(app(token))).status).toBe(200);
    const key = await (await newOrg(t.store, 'k')).key(['scans:read']);
    expect(err(await t.api.delete('/v1/sessions/current').set(bearer(key)))).toEqual({
      status: 403,
      code: 'insufficient_scope',
    });
  });

  test("the operator CLI's Bearer session signs out the same way", async () => {
    const user = await owner();
    const { token } = await createSession(t.store, user._id);
    expect((await t.api.delete('/v1/sessions/current').set(bearer(token))).status).toBe(204);
    expect((await t.api.get('/v1/me').set(bearer(token))).status).toBe(401);
  });
});

async function expectEventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
