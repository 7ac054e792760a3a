// Webhook signatures: X-Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>.
// The timestamp is inside the signed text so a captured delivery cannot be replayed later with a fresh t; several
// v1= values may appear (a receiver accepts any one), which leaves room for rotating a secret without a gap.
// Other keys (a future v2=) are ignored, as receivers of Stripe-style headers do.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Svc-Signature';
export const DEFAULT_TOLERANCE_S = 300;

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const UNIX_SECONDS = /^\d{1,12}$/;

function hmac(secret: string, t: number, body: string | Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest();
}

/** The X-Svc-Signature header value for a body sent at unix time `t` (seconds). */
export function signatureHeader(secret: string, body: string | Uint8Array, t: number): string {
  if (!Number.isSafeInteger(t) || t < 0)
    throw new RangeError(`signature timestamp must be whole unix seconds, got ${t}`);
  return `t=${t},v1=${hmac(secret, t, body).toString('hex')}`;
}

/** The parts of a header, or null when it is malformed (no t, two t, a t that is not whole seconds, an empty part). */
export function parseSignatureHeader(header: string): { t: number; v1: string[] } | null {
  if (typeof header !== 'string' || header.length > 4096) return null;
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (t !== undefined || !UNIX_SECONDS.test(value)) return null;
      t = Number(value);
    } else if (key === 'v1') {
      if (HEX_SHA256.test(value)) v1.push(value);
    }
  }
  return t === undefined ? null : { t, v1 };
}

/**
 * What a receiver does: parse the header, recompute the HMAC over "<t>.<raw body>", compare in constant time, and
 * refuse a timestamp more than toleranceS (default 300) from now (unix seconds). Several v1= values are accepted
 * (any one matching). Pass the raw body as received (bytes or the exact string), never re-serialized JSON.
 * Never throws: anything malformed is false.
 */
export function verifySignature(
  secret: string,
  header: string,
  body: string | Uint8Array,
  opts: { now: number; toleranceS?: number },
): boolean {
  try {
    const parsed = parseSignatureHeader(header);
    if (!parsed || parsed.v1.length === 0) return false;
    const tolerance = opts.toleranceS ?? DEFAULT_TOLERANCE_S;
    if (!(tolerance >= 0) || !Number.isFinite(opts.now) || Math.abs(opts.now - parsed.t) > tolerance) return false;
    const expected = hmac(secret, parsed.t, body);
    let match = false;
    // Every candidate is compared (no early exit), so the time taken does not tell which one matched.
    for (const candidate of parsed.v1) {
      if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) match = true;
    }
    return match;
  } catch {
    return false;
  }
}
