// One-time sign-in codes, stored. The rules are in domain/sign-in; this file only keeps the state.
//
// - loginCodes: the current code of each email, _id = the normalised email; a new code replaces the document. The
//   code is stored as its keyed hash only (domain/sign-in/codes.ts codeHash), with the hash of the browser binding.
// - loginAttempts: the decisions about one code, each an insert whose _id names it (README "Local database caveat":
//   FerretDB's $inc and compare-and-set race, a unique _id does not). `${codeId}:${n}`, n = 1..MAX_ATTEMPTS, is the
//   n-th attempt, recorded before it is judged, so concurrent wrong tries can take at most MAX_ATTEMPTS numbers and a
//   further try has none: the code is burnt. `${codeId}:end` is how the code ended (used by a sign-in, or replaced by a
//   newer code): the first insert wins, so of two concurrent correct submissions exactly one signs in.
// - loginLimits: the requests of one limit key in one window, numbered the same way: `${key}:${n}`, n = 1..limit.
//
// FerretDB has no TTL index: sweepLoginCodes deletes what expired.
import { randomBytes } from 'node:crypto';
import { judgeAttempt, MAX_ATTEMPTS, precheck, type CodeRecord, type CodeVerdict } from '../domain/sign-in/codes';
import { CODES_PER_ADDRESS, CODES_PER_EMAIL, limitWindow, retryAfterSeconds } from '../domain/sign-in/limits';
import { sha256Hex } from '../domain/ids';
import type { LoginAttemptDoc, LoginCodeDoc, LoginLimitDoc } from './documents/accounts';
import { isDuplicateKey, type Store } from './mongo';

const endId = (codeId: string) => `${codeId}:end`;

async function insertOnce(insert: () => Promise<unknown>): Promise<boolean> {
  try {
    await insert();
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

/** Ends a code (used or replaced) unless it ended already: whether this call ended it, and how it ended. */
async function endCode(
  store: Store,
  code: Pick<LoginCodeDoc, 'codeId' | 'expiresAt'>,
  kind: 'used' | 'replaced',
  now: Date,
): Promise<{ won: boolean; kind: 'used' | 'replaced' }> {
  const doc: LoginAttemptDoc = {
    _id: endId(code.codeId),
    codeId: code.codeId,
    kind,
    at: now,
    expiresAt: code.expiresAt,
  };
  if (await insertOnce(() => store.c.loginAttempts.insertOne(doc))) return { won: true, kind };
  const held = await store.c.loginAttempts.findOne({ _id: endId(code.codeId) });
  return { won: false, kind: held?.kind === 'replaced' ? 'replaced' : 'used' };
}

/**
 * Stores a new code for the email, replacing (ending) the previous one. Concurrent issues for one email each store a
 * whole document: the last write is the current code, and the others can no longer be found.
 */
export async function issue(
  store: Store,
  i: { email: string; bindingHash: string; codeHash: string; expiresAt: Date },
  now = new Date(),
): Promise<{ codeId: string; replaced: boolean }> {
  const previous = await store.c.loginCodes.findOne({ _id: i.email });
  if (previous) await endCode(store, previous, 'replaced', now);
  const doc: LoginCodeDoc = {
    _id: i.email,
    codeId: `lgc_${randomBytes(16).toString('hex')}`,
    codeHash: i.codeHash,
    bindingHash: i.bindingHash,
    createdAt: now,
    expiresAt: i.expiresAt,
  };
  for (let tries = 0; ; tries++) {
    try {
      await store.c.loginCodes.replaceOne({ _id: i.email }, doc, { upsert: true });
      break;
    } catch (err) {
      // two upserts that both found no document: the loser's insert collides; replacing is then an update
      if (!isDuplicateKey(err) || tries >= 3) throw err;
    }
  }
  return { codeId: doc.codeId, replaced: previous !== null };
}

/** Records the next attempt at a code; its number, or null when all MAX_ATTEMPTS are taken (the code is burnt). */
async function recordAttempt(store: Store, code: LoginCodeDoc, now: Date): Promise<number | null> {
  const taken = await store.c.loginAttempts.countDocuments({ codeId: code.codeId, kind: 'attempt' });
  for (let n = taken + 1; n <= MAX_ATTEMPTS; n++) {
    const doc: LoginAttemptDoc = {
      _id: `${code.codeId}:${n}`,
      codeId: code.codeId,
      kind: 'attempt',
      at: now,
      expiresAt: code.expiresAt,
    };
    if (await insertOnce(() => store.c.loginAttempts.insertOne(doc))) return n;
  }
  return null;
}

async function record(store: Store, code: LoginCodeDoc | null): Promise<CodeRecord | null> {
  if (!code) return null;
  const ended = await store.c.loginAttempts.findOne({ _id: endId(code.codeId) });
  return {
    codeHash: code.codeHash,
    bindingHash: code.bindingHash,
    expiresAt: code.expiresAt,
    ended: ended ? (ended.kind === 'replaced' ? 'replaced' : 'used') : null,
  };
}

/**
 * Judges a submission against the email's current code and, when it is right, consumes the code (once: a concurrent
 * correct submission gets 'used'). Only a submission from the bound browser to a live code costs an attempt.
 * `codeHash` is null when the submitted value does not have a code's shape (it still costs an attempt).
 */
export async function verify(
  store: Store,
  s: { email: string; bindingHash: string | null; codeHash: string | null },
  now = new Date(),
): Promise<{ verdict: CodeVerdict; codeId: string | null }> {
  const code = await store.c.loginCodes.findOne({ _id: s.email });
  const rec = await record(store, code);
  const early = precheck(rec, s.bindingHash, now);
  if (early) return { verdict: early, codeId: code?.codeId ?? null };
  const attempt = await recordAttempt(store, code!, now);
  const verdict = judgeAttempt(rec, { bindingHash: s.bindingHash, codeHash: s.codeHash, attempt }, now);
  if (verdict !== 'ok') return { verdict, codeId: code!.codeId };
  const ended = await endCode(store, code!, 'used', now);
  // a loss is to a concurrent correct submission ('used') or to a newer code issued meanwhile ('replaced')
  return { verdict: ended.won ? 'ok' : ended.kind, codeId: code!.codeId };
}

export type LimitScope = 'email' | 'address';
export type Admission = { admitted: true } | { admitted: false; scope: LimitScope; retryAfter: number };

/** Takes the next number of the key's current window; false when all `limit` are taken. */
async function takeSlot(store: Store, key: string, limit: number, now: Date): Promise<boolean> {
  const w = limitWindow(now);
  const windowKey = `${key}:${w.index}`;
  const taken = await store.c.loginLimits.countDocuments({ key: windowKey });
  for (let n = taken + 1; n <= limit; n++) {
    const doc: LoginLimitDoc = { _id: `${windowKey}:${n}`, key: windowKey, at: now, expiresAt: w.endsAt };
    if (await insertOnce(() => store.c.loginLimits.insertOne(doc))) return true;
  }
  return false;
}

/**
 * Counts one code request against the client address's limit, then the email's (a request refused for its address
 * is not counted for the email). Keys are stored as SHA-256 hashes, not as addresses or emails.
 */
export async function admitCodeRequest(
  store: Store,
  r: { email: string; address: string },
  now = new Date(),
  limits: { perEmail: number; perAddress: number } = { perEmail: CODES_PER_EMAIL, perAddress: CODES_PER_ADDRESS },
): Promise<Admission> {
  const refused = (scope: LimitScope): Admission => ({
    admitted: false,
    scope,
    retryAfter: retryAfterSeconds(now, limitWindow(now)),
  });
  if (!(await takeSlot(store, `a:${sha256Hex(r.address)}`, limits.perAddress, now))) return refused('address');
  if (!(await takeSlot(store, `e:${sha256Hex(r.email)}`, limits.perEmail, now))) return refused('email');
  return { admitted: true };
}

/** Deletes expired codes, their attempts and ends, and the limit numbers of past windows. */
export async function sweepLoginCodes(store: Store, now = new Date()): Promise<void> {
  const before = { expiresAt: { $lt: now } };
  await Promise.all([
    store.c.loginCodes.deleteMany(before),
    store.c.loginAttempts.deleteMany(before),
    store.c.loginLimits.deleteMany(before),
  ]);
}
