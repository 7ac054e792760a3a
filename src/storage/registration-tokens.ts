// Host registration tokens: the svc_reg_ token is returned once and stored only as its SHA-256 (the
// document's _id). A token's uses are documents `${tokenId}:${n}` (n = 1..uses): the insert that creates one takes
// that use, so concurrent attestations take exactly `uses` of them between them, on FerretDB as on MongoDB.
import { newId, newSecret, sha256Hex } from '../domain/ids';
import { toPairs, type Labels } from '../domain/hosts/labels';
import { registrationTokenStatus, type RegistrationTokenStatus } from '../domain/hosts/status';
import type { RegistrationTokenDoc } from './documents/fleet';
import { revokeOnce } from './decisions';
import { isDuplicateKey, type Store } from './mongo';

export interface NewRegistrationToken {
  orgId: string;
  name: string;
  uses: number;
  labels: Labels;
  createdBy: string | null;
  expiresAt: Date;
}

export async function createRegistrationToken(
  store: Store,
  t: NewRegistrationToken,
  now = new Date(),
): Promise<{ doc: RegistrationTokenDoc; token: string }> {
  const token = newSecret('svc_reg_');
  const doc: RegistrationTokenDoc = {
    _id: sha256Hex(token),
    id: newId('hrt', now.getTime()),
    orgId: t.orgId,
    name: t.name,
    uses: t.uses,
    used: 0,
    labels: toPairs(t.labels),
    createdBy: t.createdBy,
    createdAt: now,
    expiresAt: t.expiresAt,
    revokedAt: null,
  };
  await store.c.registrationTokens.insertOne(doc);
  return { doc, token };
}

export const findRegistrationTokenByHash = (store: Store, hash: string) =>
  store.c.registrationTokens.findOne({ _id: hash });

export async function findRegistrationToken(
  store: Store,
  orgId: string,
  id: string,
): Promise<RegistrationTokenDoc | null> {
  const doc = await store.c.registrationTokens.findOne({ id });
  return doc && doc.orgId === orgId ? doc : null;
}

/** How many uses each token has given (exact: its use documents), for tokens of one organization. */
export async function usesOf(store: Store, orgId: string, tokenIds: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>(tokenIds.map((id) => [id, 0]));
  if (tokenIds.length === 0) return out;
  const rows = await store.c.registrationUses
    .aggregate<{ _id: string; n: number }>([{ $match: { orgId } }, { $group: { _id: '$tokenId', n: { $sum: 1 } } }])
    .toArray();
  for (const r of rows) if (out.has(r._id)) out.set(r._id, r.n);
  return out;
}

export async function usesOfToken(store: Store, t: RegistrationTokenDoc): Promise<number> {
  return store.c.registrationUses.countDocuments({ orgId: t.orgId, tokenId: t.id });
}

export async function tokenStatusNow(
  store: Store,
  t: RegistrationTokenDoc,
  now = new Date(),
): Promise<{ status: RegistrationTokenStatus; used: number }> {
  const used = await usesOfToken(store, t);
  return { status: registrationTokenStatus(t, used, now), used };
}

/** Newest first (ids are time-sortable), optionally by status, after a cursor id; each with its uses so far. */
export async function listRegistrationTokens(
  store: Store,
  orgId: string,
  o: { status?: RegistrationTokenStatus; beforeId?: string; limit: number },
  now = new Date(),
): Promise<Array<{ doc: RegistrationTokenDoc; used: number }>> {
  const filter = o.beforeId ? { orgId, id: { $lt: o.beforeId } } : { orgId };
  const docs = await store.c.registrationTokens.find(filter).sort({ id: -1 }).toArray();
  const used = await usesOf(
    store,
    orgId,
    docs.map((d) => d.id),
  );
  const out: Array<{ doc: RegistrationTokenDoc; used: number }> = [];
  // Status depends on the clock and the uses, so it is filtered here; an organization holds few tokens.
  for (const doc of docs) {
    const u = used.get(doc.id) ?? 0;
    if (!o.status || registrationTokenStatus(doc, u, now) === o.status) out.push({ doc, used: u });
    if (out.length >= o.limit) break;
  }
  return out;
}

/**
 * Takes the next use of the token for `hostId`: its number, or null when every use is taken. Uses are taken in order
 * from the hint (`used`, only ever set to a use that was taken), so the taken ones are always 1..k.
 */
export async function takeUse(
  store: Store,
  t: RegistrationTokenDoc,
  hostId: string,
  now = new Date(),
): Promise<number | null> {
  const fresh = await store.c.registrationTokens.findOne({ _id: t._id }, { projection: { used: 1 } });
  for (let n = Math.max(fresh?.used ?? 0, t.used) + 1; n <= t.uses; n++) {
    try {
      await store.c.registrationUses.insertOne({
        _id: `${t.id}:${n}`,
        tokenId: t.id,
        orgId: t.orgId,
        n,
        hostId,
        at: now,
      });
    } catch (err) {
      if (isDuplicateKey(err)) continue;
      throw err;
    }
    await store.c.registrationTokens.updateOne({ _id: t._id, used: { $lt: n } }, { $set: { used: n } });
    return n;
  }
  return null;
}

/** True when this call revoked the token; false when it is unknown, another organization's or already revoked. */
export async function revokeRegistrationToken(
  store: Store,
  orgId: string,
  id: string,
  now = new Date(),
): Promise<boolean> {
  const doc = await findRegistrationToken(store, orgId, id);
  if (!doc || doc.revokedAt) return false;
  return revokeOnce(
    store,
    `registration-token-revoked:${doc.id}`,
    orgId,
    () => store.c.registrationTokens.updateOne({ _id: doc._id, revokedAt: null }, { $set: { revokedAt: now } }),
    now,
  );
}
