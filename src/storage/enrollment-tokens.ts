// Gateway enrollment tokens: the svc_gw_ token is returned once and stored only as its SHA-256 (the
// document's _id). Single use: the enrollment that inserts the claim `enrollment-token-used:<id>` takes it.
import { newId, newSecret, sha256Hex } from '../domain/ids';
import { enrollmentTokenStatus, type EnrollmentTokenStatus } from '../domain/hosts/status';
import type { EnrollmentTokenDoc } from './documents/fleet';
import { claimDecision, revokeOnce } from './decisions';
import type { Store } from './mongo';

export async function createEnrollmentToken(
  store: Store,
  t: { orgId: string; name: string; createdBy: string | null; expiresAt: Date },
  now = new Date(),
): Promise<{ doc: EnrollmentTokenDoc; token: string }> {
  const token = newSecret('svc_gw_');
  const doc: EnrollmentTokenDoc = {
    _id: sha256Hex(token),
    id: newId('gwt', now.getTime()),
    ...t,
    createdAt: now,
    revokedAt: null,
    usedAt: null,
    gatewayId: null,
  };
  await store.c.enrollmentTokens.insertOne(doc);
  return { doc, token };
}

export const findEnrollmentTokenByHash = (store: Store, hash: string) =>
  store.c.enrollmentTokens.findOne({ _id: hash });

export async function findEnrollmentToken(store: Store, orgId: string, id: string): Promise<EnrollmentTokenDoc | null> {
  const doc = await store.c.enrollmentTokens.findOne({ id });
  return doc && doc.orgId === orgId ? doc : null;
}

/** Newest first (ids are time-sortable), optionally by status, after a cursor id. */
export async function listEnrollmentTokens(
  store: Store,
  orgId: string,
  o: { status?: EnrollmentTokenStatus; beforeId?: string; limit: number },
  now = new Date(),
): Promise<EnrollmentTokenDoc[]> {
  const filter = o.beforeId ? { orgId, id: { $lt: o.beforeId } } : { orgId };
  const out: EnrollmentTokenDoc[] = [];
  // Status depends on the clock, so it is filtered here; an organization holds few tokens.
  for await (const doc of store.c.enrollmentTokens.find(filter).sort({ id: -1 })) {
    if (!o.status || enrollmentTokenStatus(doc, now) === o.status) out.push(doc);
    if (out.length >= o.limit) break;
  }
  return out;
}

/** Takes the token's one use for `gatewayId`: false when another enrollment took it first. */
export function useEnrollmentToken(
  store: Store,
  t: EnrollmentTokenDoc,
  gatewayId: string,
  now = new Date(),
): Promise<boolean> {
  return claimDecision(store, `enrollment-token-used:${t.id}`, gatewayId, undefined, now);
}

/** Records the use once the gateway is stored (the list's `used` status and gatewayId). */
export async function markEnrollmentTokenUsed(
  store: Store,
  t: EnrollmentTokenDoc,
  gatewayId: string,
  now = new Date(),
): Promise<void> {
  await store.c.enrollmentTokens.updateOne({ _id: t._id }, { $set: { usedAt: now, gatewayId } });
}

/** Whether the token's use was taken (exact, from its claim), whatever the token document says yet. */
export async function enrollmentTokenTaken(store: Store, t: EnrollmentTokenDoc): Promise<boolean> {
  return (
    !!t.usedAt || !!(await store.c.claims.findOne({ _id: `enrollment-token-used:${t.id}` }, { projection: { _id: 1 } }))
  );
}

/** True when this call revoked the token; false when it is unknown, another organization's or already revoked. */
export async function revokeEnrollmentToken(
  store: Store,
  orgId: string,
  id: string,
  now = new Date(),
): Promise<boolean> {
  const doc = await findEnrollmentToken(store, orgId, id);
  if (!doc || doc.revokedAt) return false;
  return revokeOnce(
    store,
    `enrollment-token-revoked:${doc.id}`,
    orgId,
    () => store.c.enrollmentTokens.updateOne({ _id: doc._id, revokedAt: null }, { $set: { revokedAt: now } }),
    now,
  );
}

export type { EnrollmentTokenStatus };
