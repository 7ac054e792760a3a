// Gateways: enrollment (pending), approval within the requested scope (active), heartbeats,
// revocation, the inventory list. Approval and revocation are decided by claims (storage/decisions.ts); statuses that
// depend on the clock (expired) are derived when read (domain/hosts/status.ts).
import type { Filter } from 'mongodb';
import { newId, newSecret, sha256Hex } from '../domain/ids';
import type { FleetWindows, GatewayStatus } from '../domain/hosts/status';
import { claimDecision, revokeOnce } from './decisions';
import type { EnrollmentTokenDoc, GatewayDoc } from './documents/fleet';
import { markEnrollmentTokenUsed, useEnrollmentToken } from './enrollment-tokens';
import type { Store } from './mongo';

export const findGatewayCredential = (store: Store, hash: string) => store.c.gatewayCredentials.findOne({ _id: hash });

export async function findGateway(store: Store, orgId: string, id: string): Promise<GatewayDoc | null> {
  const doc = await store.c.gateways.findOne({ _id: id });
  return doc && doc.orgId === orgId ? doc : null;
}

/** Enrollment: takes the token's one use, then stores the pending gateway and its credential. Null: the token was used. */
export async function enroll(
  store: Store,
  token: EnrollmentTokenDoc,
  e: { name: string; version: string; requestedScope: string[] },
  now = new Date(),
): Promise<{ gateway: GatewayDoc; credential: string } | null> {
  const id = newId('gw', now.getTime());
  if (!(await useEnrollmentToken(store, token, id, now))) return null;
  const credential = newSecret('svc_gwc_');
  const gateway: GatewayDoc = {
    _id: id,
    orgId: token.orgId,
    name: e.name,
    state: 'pending',
    requestedScope: e.requestedScope,
    networkScope: [],
    version: e.version,
    enrollmentTokenId: token.id,
    enrolledAt: now,
    lastSeenAt: now,
    aliveAt: now,
    approvedAt: null,
    approvedBy: null,
    revokedAt: null,
  };
  await store.c.gatewayCredentials.insertOne({
    _id: sha256Hex(credential),
    gatewayId: id,
    orgId: token.orgId,
    createdAt: now,
  });
  await store.c.gateways.insertOne(gateway);
  await markEnrollmentTokenUsed(store, token, id, now);
  return { gateway, credential };
}

/** pending → active with the approved scope; false when another approval came first. */
export async function approveGateway(
  store: Store,
  g: GatewayDoc,
  networkScope: string[],
  approvedBy: string | null,
  now = new Date(),
): Promise<GatewayDoc | null> {
  if (!(await claimDecision(store, `gateway-approved:${g._id}`, approvedBy ?? '', undefined, now))) return null;
  const set = { state: 'active' as const, networkScope, approvedAt: now, approvedBy, aliveAt: now };
  await store.c.gateways.updateOne({ _id: g._id }, { $set: set });
  return { ...g, ...set };
}

/** A heartbeat: seen now (and alive again, when active), with the version it reports. */
export async function recordGatewayHeartbeat(
  store: Store,
  g: GatewayDoc,
  version: string | undefined,
  now = new Date(),
): Promise<GatewayDoc> {
  const set: Partial<GatewayDoc> = { lastSeenAt: now, aliveAt: now, ...(version !== undefined ? { version } : {}) };
  await store.c.gateways.updateOne({ _id: g._id }, { $set: set });
  // a pending gateway's aliveAt is not its status's clock (its enrollment is): the approval sets it anew
  return { ...g, ...set };
}

export type GatewayPosition = [name: string, id: string];

/** Gateways by name, then id; the status filter is a condition on the clock fields (pages stay full and in order). */
export async function listGateways(
  store: Store,
  orgId: string,
  o: { status?: GatewayStatus; after?: GatewayPosition; limit: number },
  w: FleetWindows,
  now = new Date(),
): Promise<GatewayDoc[]> {
  // orgId stays a top-level equality (the one condition FerretDB pushes down to PostgreSQL)
  const filter: Filter<GatewayDoc> = { orgId };
  const ors: Filter<GatewayDoc>[][] = [];
  const pendingCutoff = new Date(now.getTime() - w.pendingGatewayMs);
  const aliveCutoff = new Date(now.getTime() - w.gatewayExpiryMs);
  if (o.status === 'revoked') filter.revokedAt = { $ne: null };
  else if (o.status === 'pending')
    Object.assign(filter, { revokedAt: null, state: 'pending', enrolledAt: { $gt: pendingCutoff } });
  else if (o.status === 'active')
    Object.assign(filter, { revokedAt: null, state: 'active', aliveAt: { $gt: aliveCutoff } });
  else if (o.status === 'expired') {
    filter.revokedAt = null;
    ors.push([
      { state: 'pending', enrolledAt: { $lte: pendingCutoff } },
      { state: 'active', aliveAt: { $lte: aliveCutoff } },
    ]);
  }
  if (o.after) ors.push([{ name: { $gt: o.after[0] } }, { name: o.after[0], _id: { $gt: o.after[1] } }]);
  if (ors.length === 1) filter.$or = ors[0];
  else if (ors.length > 1) filter.$and = ors.map((or) => ({ $or: or }));
  return store.c.gateways.find(filter).sort({ name: 1, _id: 1 }).limit(o.limit).toArray();
}

/** True when this call revoked the gateway; false when it is unknown, another organization's or already revoked. */
export async function revokeGateway(store: Store, orgId: string, id: string, now = new Date()): Promise<boolean> {
  const g = await findGateway(store, orgId, id);
  if (!g || g.revokedAt) return false;
  return revokeOnce(
    store,
    `gateway-revoked:${id}`,
    orgId,
    () => store.c.gateways.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: now } }),
    now,
  );
}
