// One-time sign-in codes against the real database of the test run (FerretDB unless SCANNER_TEST_MONGODB_URI says
// otherwise): replacement, expiry, single use, attempts (also concurrent), binding, limits, no plaintext stored.
import { randomBytes } from 'node:crypto';
import {
  bindingHash,
  CODE_TTL_MS,
  codeHash,
  deriveCodeKey,
  generateCode,
  MAX_ATTEMPTS,
} from '../../src/domain/sign-in/codes';
import { LIMIT_WINDOW_MS } from '../../src/domain/sign-in/limits';
import { admitCodeRequest, issue, sweepLoginCodes, verify } from '../../src/storage/login-codes';
import { connectStore, ensureIndexes, type Store } from '../../src/storage/mongo';
import { requireEnv } from '../helpers/context';

let store: Store;
const dbName = `t_${randomBytes(6).toString('hex')}`;
beforeAll(async () => {
  store = await connectStore(requireEnv('MONGODB_URI'), dbName);
  await ensureIndexes(store);
}, 60_000);
afterAll(async () => {
  await store.db.dropDatabase();
  await store.close();
});

const key = deriveCodeKey(randomBytes(32));
let seq = 0;
const newEmail = () => `user${++seq}.${randomBytes(4).toString('hex')}@example.com`;

/** What the route will do: a code for the email, bound to a browser; returns what the mail and the cookie carry. */
async function requestCode(email: string, now = new Date(), browser = randomBytes(32).toString('base64url')) {
  const code = generateCode();
  const binding = bindingHash(browser);
  const { codeId, replaced } = await issue(
    store,
    {
      email,
      bindingHash: binding,
      codeHash: codeHash(key, { email, bindingHash: binding, code }),
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    },
    now,
  );
  return { code, browser, codeId, replaced };
}

/** What the route will do with {email, code} and the cookie. */
function submit(email: string, code: string, browser: string | null, now = new Date()) {
  const binding = browser === null ? null : bindingHash(browser);
  return verify(
    store,
    {
      email,
      bindingHash: binding,
      codeHash:
        binding === null || !/^[0-9]{8}$/.test(code) ? null : codeHash(key, { email, bindingHash: binding, code }),
    },
    now,
  );
}

const other = (code: string) => String((Number(code) + 1) % 100_000_000).padStart(8, '0');

test('the right code from the bound browser signs in once; a second use is refused', async () => {
  const email = newEmail();
  const r = await requestCode(email);
  expect(r.replaced).toBe(false);
  expect(await submit(email, r.code, r.browser)).toEqual({ verdict: 'ok', codeId: r.codeId });
  expect((await submit(email, r.code, r.browser)).verdict).toBe('used');
});

test('no code for the email: none', async () => {
  expect(await submit(newEmail(), '12345678', 'x')).toEqual({ verdict: 'none', codeId: null });
});

test('a new code replaces the previous one: the old code no longer signs in, the new one does', async () => {
  const email = newEmail();
  const first = await requestCode(email);
  const second = await requestCode(email, new Date(), first.browser);
  expect(second.replaced).toBe(true);
  expect(second.codeId).not.toBe(first.codeId);
  expect((await submit(email, first.code, first.browser)).verdict).toBe(first.code === second.code ? 'ok' : 'wrong');
  if (first.code !== second.code) expect((await submit(email, second.code, second.browser)).verdict).toBe('ok');
  expect(await store.c.loginCodes.countDocuments({ _id: email })).toBe(1);
  expect((await store.c.loginAttempts.findOne({ _id: `${first.codeId}:end` }))?.kind).toBe('replaced');
});

test('concurrent requests for one email from one browser: one current code; the others do not sign in', async () => {
  const email = newEmail();
  const browser = randomBytes(32).toString('base64url');
  const issued = await Promise.all(Array.from({ length: 8 }, () => requestCode(email, new Date(), browser)));
  const current = (await store.c.loginCodes.find({ _id: email }).toArray()).map((d) => d.codeId);
  expect(current).toHaveLength(1);
  const winner = issued.find((r) => r.codeId === current[0])!;
  expect(winner).toBeDefined();
  // MAX_ATTEMPTS - 1 of the other codes (each a wrong attempt at the current one), so that the current one survives
  const losers = issued.filter((r) => r !== winner && r.code !== winner.code).slice(0, MAX_ATTEMPTS - 1);
  expect(losers.length).toBeGreaterThan(0);
  for (const r of losers) expect((await submit(email, r.code, browser)).verdict).toBe('wrong');
  expect((await submit(email, winner.code, browser)).verdict).toBe('ok');
});

test('expired at 10 minutes: refused, and the try costs no attempt', async () => {
  const email = newEmail();
  const t0 = new Date();
  const r = await requestCode(email, t0);
  expect((await submit(email, r.code, r.browser, new Date(t0.getTime() + CODE_TTL_MS))).verdict).toBe('expired');
  expect(await store.c.loginAttempts.countDocuments({ codeId: r.codeId })).toBe(0);
  expect((await submit(email, r.code, r.browser, new Date(t0.getTime() + CODE_TTL_MS - 1000))).verdict).toBe('ok');
});

test('another browser, or none: unbound even with the right code; such tries cost no attempt', async () => {
  const email = newEmail();
  const r = await requestCode(email);
  for (let i = 0; i < MAX_ATTEMPTS + 2; i++) {
    expect((await submit(email, r.code, randomBytes(32).toString('base64url'))).verdict).toBe('unbound');
    expect((await submit(email, other(r.code), null)).verdict).toBe('unbound');
  }
  expect(await store.c.loginAttempts.countDocuments({ codeId: r.codeId })).toBe(0);
  expect((await submit(email, r.code, r.browser)).verdict).toBe('ok');
});

test('5 wrong attempts burn the code: the right one is then refused', async () => {
  const email = newEmail();
  const r = await requestCode(email);
  for (let i = 0; i < MAX_ATTEMPTS - 1; i++)
    expect((await submit(email, other(r.code), r.browser)).verdict).toBe('wrong');
  expect((await submit(email, 'not-a-code', r.browser)).verdict).toBe('wrong'); // a malformed value is an attempt too
  expect((await submit(email, r.code, r.browser)).verdict).toBe('too_many_attempts');
  expect((await submit(email, r.code, r.browser)).verdict).toBe('too_many_attempts');
  expect(await store.c.loginAttempts.countDocuments({ codeId: r.codeId, kind: 'attempt' })).toBe(MAX_ATTEMPTS);
});

test('the 5th attempt may still be the right one', async () => {
  const email = newEmail();
  const r = await requestCode(email);
  for (let i = 0; i < MAX_ATTEMPTS - 1; i++)
    expect((await submit(email, other(r.code), r.browser)).verdict).toBe('wrong');
  expect((await submit(email, r.code, r.browser)).verdict).toBe('ok');
});

test('30 concurrent wrong tries take exactly 5 attempts, then the right code is refused', async () => {
  for (let round = 0; round < 3; round++) {
    const email = newEmail();
    const r = await requestCode(email);
    const got = await Promise.all(Array.from({ length: 30 }, () => submit(email, other(r.code), r.browser)));
    const counts = got.reduce<Record<string, number>>((m, g) => ({ ...m, [g.verdict]: (m[g.verdict] ?? 0) + 1 }), {});
    expect(counts).toEqual({ wrong: MAX_ATTEMPTS, too_many_attempts: 30 - MAX_ATTEMPTS });
    expect(await store.c.loginAttempts.countDocuments({ codeId: r.codeId, kind: 'attempt' })).toBe(MAX_ATTEMPTS);
    expect((await submit(email, r.code, r.browser)).verdict).toBe('too_many_attempts');
  }
});

test('concurrent correct submissions: exactly one signs in', async () => {
  for (let round = 0; round < 5; round++) {
    const email = newEmail();
    const r = await requestCode(email);
    const got = await Promise.all(Array.from({ length: 4 }, () => submit(email, r.code, r.browser)));
    expect(got.filter((g) => g.verdict === 'ok')).toHaveLength(1);
    expect(got.filter((g) => g.verdict !== 'ok').map((g) => g.verdict)).toEqual(['used', 'used', 'used']);
  }
});

test('a correct submission racing a new code: never both the old code and a later use of it', async () => {
  const email = newEmail();
  const r = await requestCode(email);
  const [sub] = await Promise.all([submit(email, r.code, r.browser), requestCode(email, new Date(), r.browser)]);
  expect(['ok', 'replaced']).toContain(sub.verdict);
  expect((await store.c.loginAttempts.findOne({ _id: `${r.codeId}:end` }))?.kind).toBe(
    sub.verdict === 'ok' ? 'used' : 'replaced',
  );
  expect((await submit(email, r.code, r.browser)).verdict).not.toBe('ok');
});

test('no plaintext code, cookie value or client address is stored', async () => {
  const email = newEmail();
  const r = await requestCode(email);
  await submit(email, other(r.code), r.browser);
  await admitCodeRequest(store, { email, address: '203.0.113.9' });
  const everything = JSON.stringify(
    await Promise.all([
      store.c.loginCodes.find({}).toArray(),
      store.c.loginAttempts.find({}).toArray(),
      store.c.loginLimits.find({}).toArray(),
    ]),
  );
  expect(everything).not.toContain(r.code);
  expect(everything).not.toContain(other(r.code));
  expect(everything).not.toContain(r.browser);
  expect(everything).not.toContain('203.0.113.9');
  const doc = (await store.c.loginCodes.findOne({ _id: email }))!;
  expect(doc.codeHash).toMatch(/^[0-9a-f]{64}$/);
  expect(doc.bindingHash).toBe(bindingHash(r.browser));
  expect(Object.keys(doc).sort()).toEqual(['_id', 'bindingHash', 'codeHash', 'codeId', 'createdAt', 'expiresAt']);
});

describe('limits', () => {
  // the middle of a window, so that a test never straddles two
  const inWindow = () => new Date((Math.floor(Date.now() / LIMIT_WINDOW_MS) + 0.5) * LIMIT_WINDOW_MS);
  const address = () => `198.51.100.${randomBytes(2).readUInt16BE()}:${seq++}`;

  test('5 codes per email per window, whatever the address; another email is not affected', async () => {
    const email = newEmail();
    const now = inWindow();
    for (let i = 0; i < 5; i++)
      expect(await admitCodeRequest(store, { email, address: address() }, now)).toEqual({ admitted: true });
    expect(await admitCodeRequest(store, { email, address: address() }, now)).toEqual({
      admitted: false,
      scope: 'email',
      retryAfter: LIMIT_WINDOW_MS / 2000,
    });
    expect(await admitCodeRequest(store, { email: newEmail(), address: address() }, now)).toEqual({ admitted: true });
    // the next window starts afresh
    expect(
      await admitCodeRequest(store, { email, address: address() }, new Date(now.getTime() + LIMIT_WINDOW_MS)),
    ).toEqual({ admitted: true });
  });

  test('20 codes per address per window, whatever the emails; a refused request does not count for its email', async () => {
    const addr = address();
    const now = inWindow();
    for (let i = 0; i < 20; i++)
      expect((await admitCodeRequest(store, { email: newEmail(), address: addr }, now)).admitted).toBe(true);
    const email = newEmail();
    expect(await admitCodeRequest(store, { email, address: addr }, now)).toMatchObject({
      admitted: false,
      scope: 'address',
    });
    for (let i = 0; i < 5; i++)
      expect((await admitCodeRequest(store, { email, address: address() }, now)).admitted).toBe(true);
  });

  test('concurrent requests: exactly the limit is admitted, on FerretDB too', async () => {
    const email = newEmail();
    const now = inWindow();
    const got = await Promise.all(
      Array.from({ length: 25 }, () => admitCodeRequest(store, { email, address: address() }, now)),
    );
    expect(got.filter((g) => g.admitted)).toHaveLength(5);
    const addr = address();
    const many = await Promise.all(
      Array.from({ length: 40 }, () => admitCodeRequest(store, { email: newEmail(), address: addr }, now)),
    );
    expect(many.filter((g) => g.admitted)).toHaveLength(20);
  });
});

test('the sweep deletes expired codes, attempts and limit numbers, and keeps live ones', async () => {
  const t0 = new Date(Date.now() - 2 * LIMIT_WINDOW_MS);
  const oldEmail = newEmail();
  const old = await requestCode(oldEmail, t0);
  await submit(oldEmail, other(old.code), old.browser, t0);
  await admitCodeRequest(store, { email: oldEmail, address: `192.0.2.${seq++}` }, t0);
  const liveEmail = newEmail();
  const live = await requestCode(liveEmail);
  await submit(liveEmail, other(live.code), live.browser);
  await sweepLoginCodes(store);
  expect(await store.c.loginCodes.findOne({ _id: oldEmail })).toBeNull();
  expect(await store.c.loginAttempts.countDocuments({ codeId: old.codeId })).toBe(0);
  expect(await store.c.loginLimits.countDocuments({ expiresAt: { $lt: new Date() } })).toBe(0);
  expect(await store.c.loginCodes.findOne({ _id: liveEmail })).not.toBeNull();
  expect(await store.c.loginAttempts.countDocuments({ codeId: live.codeId })).toBe(1);
  expect((await submit(liveEmail, live.code, live.browser)).verdict).toBe('ok');
});
