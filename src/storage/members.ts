// Members of an organization: listing in the contract's order, role changes and removal with the last-owner rule.
import type { MemberDoc } from './documents/accounts';
import type { Role } from '../domain/roles';
import type { Store } from './mongo';

export const ROLE_RANK: Record<Role, number> = { owner: 0, admin: 1, member: 2, auditor: 3 };

/** Every member of the organization, ordered by role rank (owner first), then email, then id. */
export async function orgMembers(store: Store, orgId: string): Promise<MemberDoc[]> {
  const docs = await store.c.members.find({ orgId }).toArray();
  return docs.sort(
    (a, b) =>
      ROLE_RANK[a.role] - ROLE_RANK[b.role] ||
      (a.email < b.email ? -1 : a.email > b.email ? 1 : 0) ||
      (a._id < b._id ? -1 : 1),
  );
}

/** The member of this organization with this (normalised) email address, if any. */
export async function memberByEmail(store: Store, orgId: string, email: string): Promise<MemberDoc | null> {
  return store.c.members.findOne({ orgId, email });
}

export async function findMember(store: Store, orgId: string, memberId: string): Promise<MemberDoc | null> {
  const m = await store.c.members.findOne({ _id: memberId });
  return m && m.orgId === orgId ? m : null;
}

export async function ownerCount(store: Store, orgId: string): Promise<number> {
  return (await store.c.members.find({ orgId, role: 'owner' }).toArray()).length;
}

export async function setRole(store: Store, m: MemberDoc, role: Role): Promise<MemberDoc | null> {
  const r = await store.c.members.updateOne({ _id: m._id, role: m.role }, { $set: { role } });
  return r.modifiedCount === 1 || m.role === role ? { ...m, role } : null;
}

export async function removeMember(store: Store, m: MemberDoc): Promise<boolean> {
  const r = await store.c.members.deleteOne({ _id: m._id });
  return r.deletedCount === 1;
}
