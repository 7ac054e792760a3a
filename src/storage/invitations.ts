// Invitations: email-bound, single use, 7 days. The svc_inv_ token is returned once and stored only as its SHA-256
// (the document's _id), so a lookup or an acceptance is one _id read.
import { newId, newSecret, sha256Hex } from '../domain/ids';
import type { InvitationDoc, Role } from './documents';
import type { Store } from './mongo';

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

export function invitationStatus(inv: Pick<InvitationDoc, 'status' | 'expiresAt'>, now = new Date()): InvitationStatus {
  return inv.status === 'pending' && inv.expiresAt <= now ? 'expired' : inv.status;
}

/** Creates a pending invitation; a pending one for the same email in the organization is revoked (replaced). */
export async function createInvitation(
  store: Store,
  i: { orgId: string; email: string; role: Role; createdBy: string },
  now = new Date(),
): Promise<{ doc: InvitationDoc; token: string; replaced: InvitationDoc[] }> {
  const pending = await store.c.invitations.find({ orgId: i.orgId, email: i.email, status: 'pending' }).toArray();
  const replaced = pending.filter((p) => invitationStatus(p, now) === 'pending');
  for (const p of replaced) await store.c.invitations.updateOne({ _id: p._id, status: 'pending' }, { $set: { status: 'revoked', revokedAt: now } });
  const token = newSecret('svc_inv_');
  const doc: InvitationDoc = {
    _id: sha256Hex(token),
    id: newId('inv', now.getTime()),
    ...i,
    status: 'pending',
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
    acceptedAt: null,
    revokedAt: null,
  };
  await store.c.invitations.insertOne(doc);
  return { doc, token, replaced };
}

export const findInvitationByToken = (store: Store, token: string) => store.c.invitations.findOne({ _id: sha256Hex(token) });

export async function findInvitation(store: Store, orgId: string, id: string): Promise<InvitationDoc | null> {
  const doc = await store.c.invitations.findOne({ id });
  return doc && doc.orgId === orgId ? doc : null;
}

/** Newest first (ids are time-sortable), optionally by status, after a cursor id. */
export async function listInvitations(store: Store, orgId: string, o: { status?: InvitationStatus; beforeId?: string; limit: number }, now = new Date()): Promise<InvitationDoc[]> {
  const docs = await store.c.invitations.find({ orgId }).toArray();
  return docs
    .filter((d) => (!o.status || invitationStatus(d, now) === o.status) && (!o.beforeId || d.id < o.beforeId))
    .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .slice(0, o.limit);
}

/** pending → revoked; false when the invitation is not pending (or expired) any more. */
export async function revokeInvitation(store: Store, doc: InvitationDoc, now = new Date()): Promise<boolean> {
  if (invitationStatus(doc, now) !== 'pending') return false;
  const r = await store.c.invitations.updateOne({ _id: doc._id, status: 'pending' }, { $set: { status: 'revoked', revokedAt: now } });
  return r.modifiedCount === 1;
}

export async function markAccepted(store: Store, doc: InvitationDoc, now = new Date()): Promise<void> {
  await store.c.invitations.updateOne({ _id: doc._id, status: 'pending' }, { $set: { status: 'accepted', acceptedAt: now } });
}
