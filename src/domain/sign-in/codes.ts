// One-time sign-in codes: the pure rules. Storage is in src/storage/login-codes.ts.
//
// A code is 8 decimal digits, uniform over 00000000-99999999 (crypto.randomInt, leading zeros kept). It is stored
// only as a keyed hash: HMAC-SHA256 under a server key that never enters the database, over a fixed label, the
// normalised email, the hash of the browser binding and the code. A plain SHA-256 of an 8-digit code would be
// reversed offline from a copy of the database in well under a second (10^8 candidates); with the HMAC, a copy of the
// database alone reveals nothing, and the email and binding in the input make a stored hash useless for any other
// address or browser. The binding is the random value of the `__Host-svc_login` cookie; it has 256 bits of entropy,
// so its plain SHA-256 (like the other credentials' hashes, domain/ids.ts) is stored and compared as is.
import { createHash, createHmac, hkdfSync, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export const CODE_DIGITS = 8;
export const CODE_TTL_MS = 10 * 60 * 1000;
export const MAX_ATTEMPTS = 5;
/** Longest email accepted (RFC 5321: 64 + 1 + 255, rounded as the invitations' limit). */
export const MAX_EMAIL_LENGTH = 320;

const CODE_SPACE = 10 ** CODE_DIGITS;
const CODE_SHAPE = /^[0-9]{8}$/;
// One @, a dot in the domain part, no whitespace or control characters anywhere (the invitations' rule, tightened).
const EMAIL_SHAPE = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;

/** A new code: 8 digits, uniform, leading zeros kept. `draw` is crypto.randomInt; tests pass their own. */
export function generateCode(draw: (max: number) => number = (max) => randomInt(max)): string {
  const n = draw(CODE_SPACE);
  if (!Number.isInteger(n) || n < 0 || n >= CODE_SPACE) throw new RangeError(`code draw out of range: ${n}`);
  return String(n).padStart(CODE_DIGITS, '0');
}

/** Whether a submitted value has the shape of a code (exactly 8 ASCII digits); anything else can never match. */
export function isCodeShape(value: unknown): value is string {
  return typeof value === 'string' && CODE_SHAPE.test(value);
}

/** Trimmed and lower-cased; null when the value is not a string holding one plausible email address. */
export function normalizeSignInEmail(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const email = value.trim().toLowerCase();
  if (email.length === 0 || email.length > MAX_EMAIL_LENGTH || !EMAIL_SHAPE.test(email)) return null;
  return email;
}

/** The random value of a new `__Host-svc_login` cookie (32 bytes, base64url: cookie-safe). */
export function newBindingValue(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored of the binding cookie's value: its SHA-256, hex. */
export function bindingHash(cookieValue: string): string {
  return createHash('sha256').update(cookieValue, 'utf8').digest('hex');
}

/** The code-hashing key, derived from a 32-byte master key kept outside the database (e.g. SECRETS_KEY). */
export function deriveCodeKey(masterKey: Buffer): Buffer {
  if (masterKey.length < 32) throw new RangeError('the master key must hold at least 32 bytes');
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'svc login code v1', 32));
}

/** HMAC-SHA256 (hex) of the code, bound to the email and the binding. Fields are NUL-separated: none holds a NUL. */
export function codeHash(key: Buffer, input: { email: string; bindingHash: string; code: string }): string {
  if (key.length < 32) throw new RangeError('the code key must hold at least 32 bytes');
  return createHmac('sha256', key)
    .update(['svc-login-code', input.email, input.bindingHash, input.code].join('\0'), 'utf8')
    .digest('hex');
}

/** Constant-time equality of two hex digests (false when their lengths differ). */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The stored state of one code, as the judgement needs it. */
export interface CodeRecord {
  codeHash: string;
  bindingHash: string;
  expiresAt: Date;
  /** How the code ended, when it did: consumed by a sign-in, or replaced by a newer code of the same email. */
  ended: 'used' | 'replaced' | null;
}

/** Why a submission is refused (all of them answer 401 invalid_token), or ok. */
export type CodeVerdict = 'ok' | 'none' | 'replaced' | 'used' | 'expired' | 'unbound' | 'too_many_attempts' | 'wrong';

/**
 * The checks made before an attempt is recorded: none of them costs the code an attempt, so that a try from another
 * browser (which cannot succeed) cannot burn the code of the browser that asked for it. null: record an attempt, then
 * call judgeAttempt.
 */
export function precheck(
  record: CodeRecord | null,
  submittedBindingHash: string | null,
  now: Date,
): CodeVerdict | null {
  if (!record) return 'none';
  if (record.ended) return record.ended;
  if (now.getTime() >= record.expiresAt.getTime()) return 'expired';
  if (!submittedBindingHash || !sameDigest(record.bindingHash, submittedBindingHash)) return 'unbound';
  return null;
}

/**
 * The decision on one submission, a pure function of the stored record, the submission and now. `attempt` is the
 * number (1-based) under which this submission was recorded before being judged, or null when no attempt could be
 * recorded (all MAX_ATTEMPTS taken): an attempt is counted first, so concurrent wrong tries cannot exceed the limit.
 * `submittedCodeHash` is null when the submitted value does not have a code's shape.
 */
export function judgeAttempt(
  record: CodeRecord | null,
  submission: { bindingHash: string | null; codeHash: string | null; attempt: number | null },
  now: Date,
): CodeVerdict {
  const early = precheck(record, submission.bindingHash, now);
  if (early) return early;
  if (submission.attempt === null || submission.attempt < 1 || submission.attempt > MAX_ATTEMPTS)
    return 'too_many_attempts';
  if (!submission.codeHash || !sameDigest(record!.codeHash, submission.codeHash)) return 'wrong';
  return 'ok';
}
