// Organizations, users, members and sessions. Sessions are opaque svc_ses_ tokens stored only as SHA-256 hashes.
import { newId, newSecret, sha256Hex } from '../domain/ids';
import type { Store } from './mongo';
import { isDuplicateKey } from './mongo';
import type { MemberDoc, OrgDoc, Role, SessionDoc, UserDoc } from './documents';

export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

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

export async function createOrgWithOwner(store: Store, orgName: string, email: string): Promise<{ org: OrgDoc; user: UserDoc; member: MemberDoc }> {
  const user = await findOrCreateUser(store, email);
  const existing = await store.c.members.findOne({ userId: user._id });
  if (existing) throw new Error(`${user.email} already belongs to organization ${existing.orgId}`);
  const now = new Date();
  const org: OrgDoc = { _id: newId('org'), name: orgName, createdAt: now };
  await store.c.orgs.insertOne(org);
  const member: MemberDoc = { _id: newId('mem'), orgId: org._id, userId: user._id, email: user.email, role: 'owner', joinedAt: now };
  await store.c.members.insertOne(member);
  return { org, user, member };
}

export async function addMember(store: Store, orgId: string, email: string, role: Role): Promise<MemberDoc> {
  const user = await findOrCreateUser(store, email);
  const member: MemberDoc = { _id: newId('mem'), orgId, userId: user._id, email: user.email, role, joinedAt: new Date() };
  await store.c.members.insertOne(member);
  return member;
}

export async function createSession(store: Store, userId: string, now = new Date()): Promise<{ token: string; session: SessionDoc }> {
  const token = newSecret('svc_ses_');
  const session: SessionDoc = { _id: sha256Hex(token), userId, createdAt: now, expiresAt: new Date(now.getTime() + SESSION_TTL_MS), revokedAt: null };
  await store.c.sessions.insertOne(session);
  return { token, session };
}

export async function revokeSession(store: Store, token: string): Promise<boolean> {
  const r = await store.c.sessions.updateOne({ _id: sha256Hex(token), revokedAt: null }, { $set: { revokedAt: new Date() } });
  return r.modifiedCount === 1;
}

export const findSession = (store: Store, tokenHash: string) => store.c.sessions.findOne({ _id: tokenHash });
export const findUser = (store: Store, userId: string) => store.c.users.findOne({ _id: userId });
export const findUserByEmail = (store: Store, email: string) => store.c.users.findOne({ email: normalizeEmail(email) });
export const memberOfUser = (store: Store, userId: string) => store.c.members.findOne({ userId });
export const findOrg = (store: Store, orgId: string) => store.c.orgs.findOne({ _id: orgId });
