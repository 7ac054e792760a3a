// Hosts: attestation by a registration token, heartbeats by the host's credential, revocation, the
// inventory list. Every decision that must have one winner is a claim (storage/decisions.ts): a machine's next host
// (`host-machine:<org>:<sha256(machineId)>:<seq>`), a host's next credential (`host-credential:<host>:<gen>`) and a
// revocation. Credentials are stored only as SHA-256 hashes; the one of generation host.credentialGen is valid.
import { LRUCache } from 'lru-cache';
import type { Filter } from 'mongodb';
import { fromPairs, mergeLabels, toPairs, type Labels } from '../domain/hosts/labels';
import type { FleetWindows, HostStatus } from '../domain/hosts/status';
import { hostStatus } from '../domain/hosts/status';
import { newId, newSecret, sha256Hex } from '../domain/ids';
import { claimDecision, releaseDecision, revokeOnce } from './decisions';
import type { HostCredentialDoc, HostDoc, RegistrationTokenDoc } from './documents/fleet';
import type { Store } from './mongo';
import { takeUse } from './registration-tokens';

export interface AttestationRequest {
  hostname: string;
  machineId: string;
  labels: Labels;
  os: string | null;
  arch: string | null;
  agentVersion: string | null;
  /** X-Svc-Host-Credential, when sent: the credential of the machine's current host. */
  presented: string | undefined;
}

export type Attestation =
  | { outcome: 'registered' | 'reattested'; host: HostDoc; credential: string; use: number }
  | { outcome: 'conflict'; message: string }
  | { outcome: 'exhausted' };

/**
 * Host credential documents never change once written (a host's revocation and its re-attestations are decided on the
 * host document, which every request reads), so each API process keeps the ones it has seen: a heartbeat then costs
 * one read (its host) and one write. Unknown hashes are never kept.
 */
const credentials = new WeakMap<Store, LRUCache<string, HostCredentialDoc>>();
const credentialCache = (store: Store) =>
  credentials.get(store) ?? credentials.set(store, new LRUCache({ max: 50_000 })).get(store)!;

export async function findHostCredential(store: Store, hash: string): Promise<HostCredentialDoc | null> {
  const cache = credentialCache(store);
  const kept = cache.get(hash);
  if (kept) return kept;
  const doc = await store.c.hostCredentials.findOne({ _id: hash });
  if (doc) cache.set(hash, doc);
  return doc;
}

export async function findHost(store: Store, orgId: string, id: string): Promise<HostDoc | null> {
  const doc = await store.c.hosts.findOne({ _id: id });
  return doc && doc.orgId === orgId ? doc : null;
}

/** Whether `cred` is the current credential of its host (the host not revoked). */
export const credentialValid = (host: HostDoc | null, cred: HostCredentialDoc): boolean =>
  !!host && !host.revokedAt && host.credentialGen === cred.gen && host._id === cred.hostId;

/** The machine's newest host in the organization (revoked or not), if any. */
async function latestHostOfMachine(store: Store, orgId: string, machineId: string): Promise<HostDoc | null> {
  const [doc] = await store.c.hosts.find({ orgId, machineId }).sort({ machineSeq: -1 }).limit(1).toArray();
  return doc ?? null;
}

async function isCurrentCredential(store: Store, host: HostDoc, presented: string): Promise<boolean> {
  const cred = await findHostCredential(store, sha256Hex(presented));
  return !!cred && credentialValid(host, cred);
}

/**
 * Attestation: a new host for the machine, or (the machine's host expired, or its current credential presented) the
 * same host with a new credential, the previous one no longer valid. The decision is claimed first, then the
 * token's use is taken (a claim whose use could not be taken is given back), then both are written.
 */
export async function attest(
  store: Store,
  token: RegistrationTokenDoc,
  a: AttestationRequest,
  w: FleetWindows,
  now = new Date(),
): Promise<Attestation> {
  const orgId = token.orgId;
  const latest = await latestHostOfMachine(store, orgId, a.machineId);
  let hostId: string;
  let gen: number;
  let decision: string;
  let landed: (value: string) => Promise<boolean>;
  const reattest = !!latest && !latest.revokedAt;
  if (latest && reattest) {
    const current = a.presented !== undefined && (await isCurrentCredential(store, latest, a.presented));
    if (hostStatus(latest, w, now) === 'active' && !current) {
      return {
        outcome: 'conflict',
        message: `machineId: host ${latest._id} of this machine is active; re-attesting it requires its current credential in X-Svc-Host-Credential`,
      };
    }
    hostId = latest._id;
    gen = latest.credentialGen + 1;
    decision = `host-credential:${hostId}:${gen}`;
    landed = async () =>
      ((await store.c.hosts.findOne({ _id: hostId }, { projection: { credentialGen: 1 } }))?.credentialGen ?? 0) >= gen;
  } else {
    hostId = newId('hst', now.getTime());
    gen = 1;
    decision = `host-machine:${orgId}:${sha256Hex(a.machineId)}:${latest ? latest.machineSeq + 1 : 0}`;
    landed = async (holder) => !!(await store.c.hosts.findOne({ _id: holder }, { projection: { _id: 1 } }));
  }
  if (!(await claimDecision(store, decision, hostId, landed, now))) {
    return {
      outcome: 'conflict',
      message: 'machineId: this machine was registered or re-attested by another request at the same time; retry',
    };
  }
  const use = await takeUse(store, token, hostId, now);
  if (use === null) {
    await releaseDecision(store, decision, hostId);
    return { outcome: 'exhausted' };
  }
  const credential = newSecret('svc_hst_');
  const credentialDoc: HostCredentialDoc = { _id: sha256Hex(credential), hostId, orgId, gen, createdAt: now };
  await store.c.hostCredentials.insertOne(credentialDoc);
  credentialCache(store).set(credentialDoc._id, credentialDoc);
  const tokenLabels = fromPairs(token.labels);
  const fields = {
    hostname: a.hostname,
    os: a.os,
    arch: a.arch,
    agentVersion: a.agentVersion,
    tokenLabels: token.labels,
    hostLabels: toPairs(a.labels),
    labels: toPairs(mergeLabels(a.labels, tokenLabels)),
    connectivity: 'direct' as const,
    gatewayId: null,
    registrationTokenId: token.id,
    attestedAt: now,
    lastHeartbeatAt: now,
    credentialGen: gen,
  };
  if (latest && reattest) {
    // never back to an older generation, should two writes cross
    await store.c.hosts.updateOne({ _id: hostId, credentialGen: { $lt: gen } }, { $set: fields });
    const host = (await store.c.hosts.findOne({ _id: hostId })) ?? { ...latest, ...fields };
    return { outcome: 'reattested', host, credential, use };
  }
  const host: HostDoc = {
    _id: hostId,
    orgId,
    machineId: a.machineId,
    machineSeq: latest ? latest.machineSeq + 1 : 0,
    registeredAt: now,
    revokedAt: null,
    ...fields,
  };
  await store.c.hosts.insertOne(host);
  return { outcome: 'registered', host, credential, use };
}

export interface HeartbeatUpdate {
  agentVersion?: string | null;
  labels?: Labels;
  connectivity?: 'direct' | 'gateway';
  gatewayId?: string;
}

/**
 * A heartbeat: lastHeartbeatAt now, and what it reports (its labels replace the host's own; the token's stay). Written
 * only while `gen` is still the host's credential generation and the host is not revoked (the request's recheck,
 * folded into its one write): null when the credential was revoked or replaced meanwhile, and nothing was recorded.
 */
export async function recordHeartbeat(
  store: Store,
  host: HostDoc,
  gen: number,
  u: HeartbeatUpdate,
  now = new Date(),
): Promise<HostDoc | null> {
  const set: Partial<HostDoc> = { lastHeartbeatAt: now };
  if (u.agentVersion !== undefined) set.agentVersion = u.agentVersion;
  if (u.labels) {
    set.hostLabels = toPairs(u.labels);
    set.labels = toPairs(mergeLabels(u.labels, fromPairs(host.tokenLabels)));
  }
  if (u.connectivity) {
    set.connectivity = u.connectivity;
    set.gatewayId = u.connectivity === 'gateway' ? u.gatewayId! : null;
  }
  const r = await store.c.hosts.updateOne({ _id: host._id, revokedAt: null, credentialGen: gen }, { $set: set });
  return r.matchedCount === 1 ? { ...host, ...set } : null;
}

/** Where a page of the host list continues: the last host's hostname and id. */
export type HostPosition = [hostname: string, id: string];

/**
 * Hosts by hostname, then id; the status filter is a condition on lastHeartbeatAt against now - HOST_EXPIRY (so
 * pages stay full and in order), the labels one "all of these key=value pairs".
 */
export async function listHosts(
  store: Store,
  orgId: string,
  o: { status?: HostStatus; labels: string[]; after?: HostPosition; limit: number },
  w: FleetWindows,
  now = new Date(),
): Promise<HostDoc[]> {
  const filter: Filter<HostDoc> = { orgId };
  if (o.labels.length) filter.labels = { $all: o.labels };
  const cutoff = new Date(now.getTime() - w.hostExpiryMs);
  if (o.status === 'revoked') filter.revokedAt = { $ne: null };
  else if (o.status === 'active') Object.assign(filter, { revokedAt: null, lastHeartbeatAt: { $gt: cutoff } });
  else if (o.status === 'expired') Object.assign(filter, { revokedAt: null, lastHeartbeatAt: { $lte: cutoff } });
  if (o.after) filter.$or = [{ hostname: { $gt: o.after[0] } }, { hostname: o.after[0], _id: { $gt: o.after[1] } }];
  return store.c.hosts.find(filter).sort({ hostname: 1, _id: 1 }).limit(o.limit).toArray();
}

/** True when this call revoked the host; false when it is unknown, another organization's or already revoked. */
export async function revokeHost(store: Store, orgId: string, id: string, now = new Date()): Promise<boolean> {
  const host = await findHost(store, orgId, id);
  if (!host || host.revokedAt) return false;
  return revokeOnce(
    store,
    `host-revoked:${id}`,
    orgId,
    () => store.c.hosts.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: now } }),
    now,
  );
}
