// Organizations, users, members and sessions. Sessions are opaque svc_ses_ tokens stored only as SHA-256 hashes.
import { newId, newSecret, sha256Hex } from '../domain/ids';
import type { Store } from './mongo';
import { isDuplicateKey } from './mongo';
import type { MemberDoc, OrgDoc, SessionDoc, UserDoc } from './documents/accounts';
import type { Role } from '../domain/roles';

export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
export const SESSION_IDLE_MS = 7 * 24 * 3600 * 1000;
const TOUCH_EVERY_MS = 60_000;

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export async function findOrCreateUser(store: Store, email: string): Promise<UserDoc> {
  const e = normalizeEmail(email);
  const existing = await store.c.users.findOne({ email: e });
  if (existing) return existing;
  const user: UserDoc = { _id: newId('usr'), email: e, createdAt: new Date() };
  try {
    await store.c.users.insertOne(user);
    return user;
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    return (await store.c.users.findOne({ email: e }))!;
  }
}

export async function createOrgWithOwner(
  store: Store,
  orgName: string,
  email: string,
): Promise<{ org: OrgDoc; user: UserDoc; member: MemberDoc }> {
  const user = await findOrCreateUser(store, email);
  const existing = await store.c.members.findOne({ userId: user._id });
  if (existing) throw new Error(`${user.email} already belongs to organization ${existing.orgId}`);
  const now = new Date();
  const org: OrgDoc = { _id: newId('org'), name: orgName, createdAt: now };
  await store.c.orgs.insertOne(org);
  const member: MemberDoc = {
    _id: newId('mem'),
    orgId: org._id,
    userId: user._id,
    email: user.email,
    role: 'owner',
    joinedAt: now,
  };
  await store.c.members.insertOne(member);
  return { org, user, member };
}

export async function addMember(store: Store, orgId: string, email: string, role: Role): Promise<MemberDoc> {
  const user = await findOrCreateUser(store, email);
  const member: MemberDoc = {
    _id: newId('mem'),
    orgId,
    userId: user._id,
    email: user.email,
    role,
    joinedAt: new Date(),
  };
  await store.c.members.insertOne(member);
  return member;
}

export async function createSession(
  store: Store,
  userId: string,
  now = new Date(),
  via: 'cli' | 'app' = 'cli',
): Promise<{ token: string; session: SessionDoc }> {
  const token = newSecret('svc_ses_');
  const session: SessionDoc = {
    _id: sha256Hex(token),
    userId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
    revokedAt: null,
    via,
    lastUsedAt: now,
  };
  await store.c.sessions.insertOne(session);
  return { token, session };
}

export type SessionStatus = 'active' | 'revoked' | 'expired' | 'idle';

/**
 * Absolute expiry for every session (valid while now < expiresAt); app sessions also end SESSION_IDLE_MS after their
 * last use (7 days idle). The operator CLI's sessions keep their rules: no idle limit.
 */
export function sessionStatus(s: SessionDoc, now = new Date()): SessionStatus {
  if (s.revokedAt) return 'revoked';
  if (s.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (s.via === 'app' && (s.lastUsedAt ?? s.createdAt).getTime() + SESSION_IDLE_MS <= now.getTime()) return 'idle';
  return 'active';
}

/** Records a use of an app session, at most once a minute (best effort: a lost update costs at most that minute). */
export async function touchSession(store: Store, s: SessionDoc, now = new Date()): Promise<void> {
  if (s.via !== 'app' || (s.lastUsedAt && now.getTime() - s.lastUsedAt.getTime() < TOUCH_EVERY_MS)) return;
  await store.c.sessions.updateOne({ _id: s._id, revokedAt: null }, { $set: { lastUsedAt: now } });
}

export async function revokeSession(store: Store, token: string): Promise<boolean> {
  return revokeSessionByHash(store, sha256Hex(token));
}

export async function revokeSessionByHash(store: Store, tokenHash: string, now = new Date()): Promise<boolean> {
  const r = await store.c.sessions.updateOne({ _id: tokenHash, revokedAt: null }, { $set: { revokedAt: now } });
  return r.modifiedCount === 1;
}

export const findSession = (store: Store, tokenHash: string) => store.c.sessions.findOne({ _id: tokenHash });
export const findUser = (store: Store, userId: string) => store.c.users.findOne({ _id: userId });
export const findUserByEmail = (store: Store, email: string) => store.c.users.findOne({ email: normalizeEmail(email) });
export const memberOfUser = (store: Store, userId: string) => store.c.members.findOne({ userId });
export const findOrg = (store: Store, orgId: string) => store.c.orgs.findOne({ _id: orgId });
