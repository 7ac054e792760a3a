// Webhook signatures: the header is checked against HMACs computed by openssl (not by the code under test), and a
// receiver's verification refuses every tampered, stale or malformed header without throwing.
import { execFileSync } from 'node:child_process';
import { parseSignatureHeader, signatureHeader, verifySignature } from '../../../src/domain/webhooks/signature';

/** HMAC-SHA256 in hex, by openssl: an implementation independent of node:crypto's use in the module. */
function opensslHmac(secret: string, text: string | Buffer): string {
  const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret], { input: text }).toString().trim();
  const hex = out.split(/\s+/).pop()!;
  expect(hex).toMatch(/^[0-9a-f]{64}$/);
  return hex;
}

const secret = 'whsec_3f6b1d0c9e8a7b6c5d4e3f2a1b0c9d8e';
const body =
  '{"id":"evt_01","type":"scan.completed","createdAt":"2025-01-02T03:04:05.000Z","data":{"scan":{"id":"scn_1","name":"é ✓"}}}';
const t = 1735787045;

describe('signatureHeader', () => {
  it('is t=<seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>, as openssl computes it', () => {
    const expected = opensslHmac(secret, `${t}.${body}`);
    expect(signatureHeader(secret, body, t)).toBe(`t=${t},v1=${expected}`);
  });

  it('signs the bytes of a Buffer body exactly as the same string', () => {
    expect(signatureHeader(secret, Buffer.from(body, 'utf8'), t)).toBe(signatureHeader(secret, body, t));
  });

  it('a fixed vector (secret "key", t 0, body "abc") matches the precomputed value', () => {
    // printf '0.abc' | openssl dgst -sha256 -hmac key (and Python's hmac.new(b'key', b'0.abc', sha256) agrees)
    expect(signatureHeader('key', 'abc', 0)).toBe(
      't=0,v1=762c53aa1d60a3a4638b606618736c81fe179dc8b79da355075c5e7f6cb9fefd',
    );
  });

  it('changes with the secret, the body and the time', () => {
    const h = signatureHeader(secret, body, t);
    expect(signatureHeader(`${secret}x`, body, t)).not.toBe(h);
    expect(signatureHeader(secret, `${body} `, t)).not.toBe(h);
    expect(signatureHeader(secret, body, t + 1)).not.toBe(h);
  });

  it('refuses a timestamp that is not whole unix seconds', () => {
    expect(() => signatureHeader(secret, body, 1.5)).toThrow(RangeError);
    expect(() => signatureHeader(secret, body, -1)).toThrow(RangeError);
    expect(() => signatureHeader(secret, body, Date.now() / 1000)).toThrow(RangeError);
  });
});

describe('verifySignature (what a receiver does)', () => {
  const header = `t=${t},v1=${opensslHmac(secret, `${t}.${body}`)}`;

  it('accepts the header for the raw body, as a string or as bytes', () => {
    expect(verifySignature(secret, header, body, { now: t })).toBe(true);
    expect(verifySignature(secret, header, Buffer.from(body), { now: t })).toBe(true);
  });

  it('refuses another secret, a changed body, a changed t and a re-serialized body', () => {
    expect(verifySignature('whsec_other', header, body, { now: t })).toBe(false);
    expect(verifySignature(secret, header, body.replace('scn_1', 'scn_2'), { now: t })).toBe(false);
    expect(verifySignature(secret, header.replace(`t=${t}`, `t=${t + 1}`), body, { now: t })).toBe(false);
    expect(verifySignature(secret, header, JSON.stringify(JSON.parse(body), null, 2), { now: t })).toBe(false);
  });

  it('refuses a timestamp more than the tolerance from now, in either direction (300 s by default)', () => {
    expect(verifySignature(secret, header, body, { now: t + 300 })).toBe(true);
    expect(verifySignature(secret, header, body, { now: t - 300 })).toBe(true);
    expect(verifySignature(secret, header, body, { now: t + 301 })).toBe(false);
    expect(verifySignature(secret, header, body, { now: t - 301 })).toBe(false);
    expect(verifySignature(secret, header, body, { now: t + 10, toleranceS: 10 })).toBe(true);
    expect(verifySignature(secret, header, body, { now: t + 11, toleranceS: 10 })).toBe(false);
    expect(verifySignature(secret, header, body, { now: t, toleranceS: -1 })).toBe(false);
    expect(verifySignature(secret, header, body, { now: Number.NaN })).toBe(false);
  });

  it('accepts any one of several v1 values (a rotated secret), in any position, and ignores unknown schemes', () => {
    const old = opensslHmac('whsec_old', `${t}.${body}`);
    const now = opensslHmac(secret, `${t}.${body}`);
    expect(verifySignature(secret, `t=${t},v1=${old},v1=${now}`, body, { now: t })).toBe(true);
    expect(verifySignature(secret, `v1=${now},t=${t},v1=${old}`, body, { now: t })).toBe(true);
    expect(verifySignature('whsec_old', `t=${t},v1=${old},v1=${now}`, body, { now: t })).toBe(true);
    expect(verifySignature(secret, `t=${t},v2=abc,v1=${now}`, body, { now: t })).toBe(true);
    expect(verifySignature(secret, `t=${t}, v1=${now.toUpperCase()}`, body, { now: t })).toBe(true);
    expect(verifySignature('whsec_third', `t=${t},v1=${old},v1=${now}`, body, { now: t })).toBe(false);
  });

  it.each([
    ['empty', ''],
    ['no t', `v1=${'a'.repeat(64)}`],
    ['no v1', `t=${t}`],
    ['two t', `t=${t},t=${t},v1=HMAC`],
    ['t not digits', `t=${t}.0,v1=HMAC`],
    ['t negative', `t=-${t},v1=HMAC`],
    ['t hex', `t=0x10,v1=HMAC`],
    ['t empty', `t=,v1=HMAC`],
    ['empty part', `t=${t},,v1=HMAC`],
    ['part without =', `t=${t},v1`],
    ['key empty', `=${t},v1=HMAC`],
    ['v1 truncated', `t=${t},v1=TRUNC`],
    ['v1 too long', `t=${t},v1=HMAC00`],
    ['v1 not hex', `t=${t},v1=${'z'.repeat(64)}`],
    ['v1 base64', `t=${t},v1=B64`],
    ['huge', `t=${t},v1=HMAC,${'x='.repeat(5000)}`],
  ])('a malformed header (%s) is false, never an exception', (_name, shape) => {
    const good = opensslHmac(secret, `${t}.${body}`);
    const h = shape
      .replace('HMAC', good)
      .replace('TRUNC', good.slice(0, 63))
      .replace('B64', Buffer.from(good, 'hex').toString('base64'));
    expect(verifySignature(secret, h, body, { now: t })).toBe(false);
  });

  it('never throws on input of the wrong type', () => {
    expect(verifySignature(secret, undefined as unknown as string, body, { now: t })).toBe(false);
    expect(verifySignature(secret, 42 as unknown as string, body, { now: t })).toBe(false);
    expect(verifySignature(undefined as unknown as string, header, body, { now: t })).toBe(false);
    expect(verifySignature(secret, header, undefined as unknown as string, { now: t })).toBe(false);
    expect(verifySignature(secret, header, body, undefined as unknown as { now: number })).toBe(false);
  });

  it('round-trips: what signatureHeader makes, verifySignature accepts', () => {
    for (const b of ['', '{}', body, 'x'.repeat(100_000)]) {
      expect(verifySignature(secret, signatureHeader(secret, b, t), b, { now: t })).toBe(true);
    }
  });
});

describe('parseSignatureHeader', () => {
  it('returns t and the well-formed v1 values', () => {
    const a = 'a'.repeat(64);
    const b = 'B'.repeat(64);
    expect(parseSignatureHeader(`t=12,v1=${a},v0=x,v1=${b},v1=short`)).toEqual({ t: 12, v1: [a, b] });
    expect(parseSignatureHeader('t=12')).toEqual({ t: 12, v1: [] });
    expect(parseSignatureHeader('v1=x')).toBeNull();
  });
});
