// The pure rules of one-time sign-in codes: code shape and distribution, email normalisation, the
// keyed hash, and the verdict on a submission.
import { createHash, createHmac } from 'node:crypto';
import {
  bindingHash,
  CODE_TTL_MS,
  codeHash,
  deriveCodeKey,
  generateCode,
  isCodeShape,
  judgeAttempt,
  MAX_ATTEMPTS,
  newBindingValue,
  normalizeSignInEmail,
  precheck,
  sameDigest,
  type CodeRecord,
} from '../../../src/domain/sign-in/codes';
import {
  CODES_PER_ADDRESS,
  CODES_PER_EMAIL,
  LIMIT_WINDOW_MS,
  limitWindow,
  retryAfterSeconds,
} from '../../../src/domain/sign-in/limits';

const key = Buffer.alloc(32, 7);
const otherKey = Buffer.alloc(32, 8);

describe('generateCode', () => {
  test('8 digits with leading zeros, from the whole range', () => {
    expect(generateCode(() => 0)).toBe('00000000');
    expect(generateCode(() => 42)).toBe('00000042');
    expect(generateCode(() => 99_999_999)).toBe('99999999');
  });

  test('draws uniformly over 10^8 values', () => {
    const seen: number[] = [];
    generateCode((max) => (seen.push(max), 1));
    expect(seen).toEqual([100_000_000]);
  });

  test('a draw out of range is refused, never truncated or padded into a code', () => {
    for (const bad of [-1, 100_000_000, 1.5, NaN]) expect(() => generateCode(() => bad)).toThrow(RangeError);
  });

  test('real codes: always 8 digits; every digit position takes every value', () => {
    const codes = Array.from({ length: 2000 }, () => generateCode());
    for (const c of codes) expect(c).toMatch(/^[0-9]{8}$/);
    for (let i = 0; i < 8; i++) expect(new Set(codes.map((c) => c[i])).size).toBe(10);
    expect(new Set(codes).size).toBeGreaterThan(1990);
  });
});

test('isCodeShape: exactly 8 ASCII digits', () => {
  for (const ok of ['00000000', '12345678']) expect(isCodeShape(ok)).toBe(true);
  for (const bad of ['1234567', '123456789', ' 12345678', '1234567a', '١٢٣٤٥٦٧٨', 12345678, null, undefined, ''])
    expect(isCodeShape(bad)).toBe(false);
});

describe('normalizeSignInEmail', () => {
  test('trims and lower-cases', () => {
    expect(normalizeSignInEmail('  Alice@Example.COM \n')).toBe('alice@example.com');
    expect(normalizeSignInEmail('a.b+tag@sub.example.org')).toBe('a.b+tag@sub.example.org');
  });

  test('refuses what is not one address', () => {
    for (const bad of [
      '',
      '   ',
      'alice',
      'alice@',
      '@example.com',
      'alice@example',
      'a@b@example.com',
      'al ice@example.com',
      'alice@exa mple.com',
      'alice\u0000@example.com',
      'alice@example.com\u0007x',
      `${'a'.repeat(320)}@example.com`,
      42,
      null,
      undefined,
      ['a@b.c'],
      { email: 'a@b.c' },
    ]) {
      expect(normalizeSignInEmail(bad)).toBeNull();
    }
  });

  test('the longest accepted is 320 characters', () => {
    const at320 = `${'a'.repeat(320 - '@example.com'.length)}@example.com`;
    expect(normalizeSignInEmail(at320)).toBe(at320);
    expect(normalizeSignInEmail(`a${at320}`)).toBeNull();
  });
});

describe('hashing', () => {
  const input = { email: 'alice@example.com', bindingHash: bindingHash('cookie-value'), code: '01234567' };

  test('the code hash is HMAC-SHA256 under the key, over label, email, binding and code: not a plain hash of the code', () => {
    const h = codeHash(key, input);
    expect(h).toBe(
      createHmac('sha256', key)
        .update(['svc-login-code', 'alice@example.com', input.bindingHash, '01234567'].join('\u0000'))
        .digest('hex'),
    );
    expect(h).not.toContain('01234567');
    expect(h).not.toBe(createHash('sha256').update('01234567').digest('hex'));
  });

  test('every input changes it: key, email, binding, code', () => {
    const h = codeHash(key, input);
    expect(codeHash(key, input)).toBe(h);
    expect(codeHash(otherKey, input)).not.toBe(h);
    expect(codeHash(key, { ...input, email: 'bob@example.com' })).not.toBe(h);
    expect(codeHash(key, { ...input, bindingHash: bindingHash('other') })).not.toBe(h);
    expect(codeHash(key, { ...input, code: '01234568' })).not.toBe(h);
  });

  test('a short key is refused', () => {
    expect(() => codeHash(Buffer.alloc(16), input)).toThrow(RangeError);
    expect(() => deriveCodeKey(Buffer.alloc(31))).toThrow(RangeError);
  });

  test('the code key is derived from the master key, deterministically, and differs from it', () => {
    const k = deriveCodeKey(key);
    expect(k).toHaveLength(32);
    expect(deriveCodeKey(key).equals(k)).toBe(true);
    expect(k.equals(key)).toBe(false);
    expect(deriveCodeKey(otherKey).equals(k)).toBe(false);
  });

  test('binding values are random, cookie-safe, and stored as their SHA-256', () => {
    const a = newBindingValue();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newBindingValue()).not.toBe(a);
    expect(bindingHash(a)).toBe(createHash('sha256').update(a).digest('hex'));
  });

  test('sameDigest', () => {
    expect(sameDigest('abcd', 'abcd')).toBe(true);
    expect(sameDigest('abcd', 'abce')).toBe(false);
    expect(sameDigest('abcd', 'abc')).toBe(false);
  });
});

describe('judgeAttempt', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const binding = bindingHash('browser-a');
  const right = codeHash(key, { email: 'a@example.com', bindingHash: binding, code: '00001234' });
  const wrongHash = codeHash(key, { email: 'a@example.com', bindingHash: binding, code: '00001235' });
  const rec = (over: Partial<CodeRecord> = {}): CodeRecord => ({
    codeHash: right,
    bindingHash: binding,
    expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    ended: null,
    ...over,
  });
  const sub = (
    over: Partial<{ bindingHash: string | null; codeHash: string | null; attempt: number | null }> = {},
  ) => ({ bindingHash: binding, codeHash: right, attempt: 1, ...over });

  test('the right code from the bound browser, within the time and the attempts: ok', () => {
    for (let n = 1; n <= MAX_ATTEMPTS; n++) expect(judgeAttempt(rec(), sub({ attempt: n }), now)).toBe('ok');
    expect(judgeAttempt(rec(), sub(), new Date(now.getTime() + CODE_TTL_MS - 1))).toBe('ok');
  });

  test('no code, a used or replaced one', () => {
    expect(judgeAttempt(null, sub(), now)).toBe('none');
    expect(judgeAttempt(rec({ ended: 'used' }), sub(), now)).toBe('used');
    expect(judgeAttempt(rec({ ended: 'replaced' }), sub(), now)).toBe('replaced');
  });

  test('expired at exactly expiresAt and after', () => {
    expect(judgeAttempt(rec(), sub(), new Date(now.getTime() + CODE_TTL_MS))).toBe('expired');
    expect(judgeAttempt(rec(), sub(), new Date(now.getTime() + CODE_TTL_MS + 60_000))).toBe('expired');
  });

  test('another browser, or none: unbound, even with the right code', () => {
    expect(judgeAttempt(rec(), sub({ bindingHash: bindingHash('browser-b') }), now)).toBe('unbound');
    expect(judgeAttempt(rec(), sub({ bindingHash: null }), now)).toBe('unbound');
    expect(judgeAttempt(rec(), sub({ bindingHash: '' }), now)).toBe('unbound');
  });

  test('past the attempts: too_many_attempts, even with the right code', () => {
    expect(judgeAttempt(rec(), sub({ attempt: null }), now)).toBe('too_many_attempts');
    expect(judgeAttempt(rec(), sub({ attempt: MAX_ATTEMPTS + 1 }), now)).toBe('too_many_attempts');
    expect(judgeAttempt(rec(), sub({ attempt: 0 }), now)).toBe('too_many_attempts');
  });

  test('a wrong code, or a value that is not a code', () => {
    expect(judgeAttempt(rec(), sub({ codeHash: wrongHash }), now)).toBe('wrong');
    expect(judgeAttempt(rec(), sub({ codeHash: null }), now)).toBe('wrong');
    expect(judgeAttempt(rec(), sub({ codeHash: right.slice(1) }), now)).toBe('wrong');
  });

  test('order: ended before expired before unbound before attempts before the code', () => {
    const late = new Date(now.getTime() + CODE_TTL_MS);
    expect(judgeAttempt(rec({ ended: 'used' }), sub({ bindingHash: null, attempt: null, codeHash: null }), late)).toBe(
      'used',
    );
    expect(judgeAttempt(rec(), sub({ bindingHash: null, attempt: null, codeHash: null }), late)).toBe('expired');
    expect(judgeAttempt(rec(), sub({ bindingHash: null, attempt: null, codeHash: null }), now)).toBe('unbound');
    expect(judgeAttempt(rec(), sub({ attempt: null, codeHash: null }), now)).toBe('too_many_attempts');
  });

  test('precheck: what is decided before an attempt is recorded (so such tries cost none)', () => {
    expect(precheck(rec(), binding, now)).toBeNull();
    expect(precheck(null, binding, now)).toBe('none');
    expect(precheck(rec({ ended: 'used' }), binding, now)).toBe('used');
    expect(precheck(rec(), binding, new Date(now.getTime() + CODE_TTL_MS))).toBe('expired');
    expect(precheck(rec(), bindingHash('x'), now)).toBe('unbound');
  });
});

describe('limits', () => {
  test('15-minute fixed windows; 5 per email, 20 per address', () => {
    expect(LIMIT_WINDOW_MS).toBe(15 * 60 * 1000);
    expect([CODES_PER_EMAIL, CODES_PER_ADDRESS]).toEqual([5, 20]);
    const start = new Date(Math.floor(Date.UTC(2026, 0, 1, 10, 7) / LIMIT_WINDOW_MS) * LIMIT_WINDOW_MS);
    const w = limitWindow(start);
    expect(w.endsAt.getTime() - start.getTime()).toBe(LIMIT_WINDOW_MS);
    expect(limitWindow(new Date(start.getTime() + LIMIT_WINDOW_MS - 1)).index).toBe(w.index);
    expect(limitWindow(new Date(start.getTime() + LIMIT_WINDOW_MS)).index).toBe(w.index + 1);
  });

  test('Retry-After rounds up, at least 1 second', () => {
    const w = limitWindow(new Date(0));
    expect(retryAfterSeconds(new Date(0), w)).toBe(900);
    expect(retryAfterSeconds(new Date(LIMIT_WINDOW_MS - 1500), w)).toBe(2);
    expect(retryAfterSeconds(new Date(LIMIT_WINDOW_MS - 1), w)).toBe(1);
    expect(retryAfterSeconds(new Date(LIMIT_WINDOW_MS), w)).toBe(1);
  });
});
