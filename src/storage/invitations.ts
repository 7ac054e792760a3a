// Invitations: email-bound, single use, 7 days. The svc_inv_ token is returned once and stored only as its SHA-256
// (the document's _id), so a lookup or an acceptance is one _id read.
//
// Revocation and acceptance are decided once, by inserting a claim whose _id names the invitation's decision (the
// pattern of scans' terminal status, README "Local database caveat"): a conditional update alone lets both win on
// FerretDB. Only the winner writes the invitation's status, and an acceptance adds the member only after it won.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { newId, newSecret, sha256Hex } from '../domain/ids';
import { addMember } from './accounts';
import type { InvitationDoc, MemberDoc } from './documents/accounts';
import type { Role } from '../domain/roles';
import { isDuplicateKey, type Store } from './mongo';

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
  const replaced: InvitationDoc[] = [];
  for (const p of pending) if (await revokeInvitation(store, p, now)) replaced.push(p); // an acceptance that won stays
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

export const findInvitationByToken = (store: Store, token: string) =>
  store.c.invitations.findOne({ _id: sha256Hex(token) });

export async function findInvitation(store: Store, orgId: string, id: string): Promise<InvitationDoc | null> {
  const doc = await store.c.invitations.findOne({ id });
  return doc && doc.orgId === orgId ? doc : null;
}

/** Newest first (ids are time-sortable), optionally by status, after a cursor id. */
export async function listInvitations(
  store: Store,
  orgId: string,
  o: { status?: InvitationStatus; beforeId?: string; limit: number },
  now = new Date(),
): Promise<InvitationDoc[]> {
  const docs = await store.c.invitations.find({ orgId }).toArray();
  return docs
    .filter((d) => (!o.status || invitationStatus(d, now) === o.status) && (!o.beforeId || d.id < o.beforeId))
    .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .slice(0, o.limit);
}

const decisionId = (inv: Pick<InvitationDoc, 'id'>) => `invitation-decision:${inv.id}`;
const REVOKED = 'revoked';
/** How long a revocation waits for an acceptance that holds the decision to add its member or give the claim back. */
const SETTLE_MS = 2000;

/** Inserts this decision; returns the one that holds (this one, another, or null when it was released meanwhile). */
async function decide(store: Store, inv: InvitationDoc, value: string): Promise<string | null> {
  try {
    await store.c.claims.insertOne({ _id: decisionId(inv), value, at: new Date() });
    return value;
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    return (await store.c.claims.findOne({ _id: decisionId(inv) }))?.value ?? null;
  }
}

/**
 * pending → revoked; false when the invitation is not pending (or expired) any more, or an acceptance won. A
 * revocation that finds an acceptance still adding its member waits for it: if the acceptance gives the decision
 * back (the invitee already belongs to an organization), the revocation takes it.
 */
export async function revokeInvitation(store: Store, doc: InvitationDoc, now = new Date()): Promise<boolean> {
  if (invitationStatus(doc, now) !== 'pending') return false;
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const won = await decide(store, doc, REVOKED);
    if (won === REVOKED) break; // ours, or a concurrent revocation's: either way the status write below is due
    if (won === null) continue;
    const current = await store.c.invitations.findOne({ _id: doc._id });
    if (!current || current.status !== 'pending' || Date.now() > deadline) return false;
    await sleep(20);
  }
  const r = await store.c.invitations.updateOne(
    { _id: doc._id, status: 'pending' },
    { $set: { status: 'revoked', revokedAt: now } },
  );
  return r.modifiedCount === 1;
}

export type Acceptance =
  | { outcome: 'accepted'; member: MemberDoc }
  | { outcome: 'revoked' | 'expired' | 'already_accepted' | 'already_in_org' };

/**
 * pending → accepted, the user joining the organization: the decision is claimed first, so that a revocation (or
 * another acceptance) that came first wins, and only then is the member added. Each attempt claims with a value of
 * its own, so that it never gives back a decision another attempt holds.
 */
export async function acceptInvitation(
  store: Store,
  inv: InvitationDoc,
  user: { id: string; email: string },
): Promise<Acceptance> {
  if (invitationStatus(inv) === 'expired') return { outcome: 'expired' };
  const mine = `accepted:${user.id}:${randomBytes(8).toString('hex')}`;
  let won = await decide(store, inv, mine);
  while (won === null) won = await decide(store, inv, mine); // given back between our insert and our read
  if (won !== mine) return { outcome: won === REVOKED ? 'revoked' : 'already_accepted' };
  let member: MemberDoc;
  try {
    member = await addMember(store, inv.orgId, user.email, inv.role);
  } catch (err) {
    // Another organization took the user meanwhile (unique userId): the invitation stays pending, so the decision is
    // given back. Any other failure keeps it: the member may have been stored, and a later revocation must not win.
    if (!isDuplicateKey(err)) throw err;
    await store.c.claims.deleteOne({ _id: decisionId(inv), value: mine });
    return { outcome: 'already_in_org' };
  }
  await store.c.invitations.updateOne(
    { _id: inv._id, status: 'pending' },
    { $set: { status: 'accepted', acceptedAt: member.joinedAt } },
  );
  return { outcome: 'accepted', member };
}
