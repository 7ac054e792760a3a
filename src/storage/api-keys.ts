// API keys: the secret is returned once and stored only as its SHA-256 (the document's _id).
import type { Filter } from 'mongodb';
import { newId, newSecret, sha256Hex } from '../domain/ids';
import type { ApiKeyDoc } from './documents/accounts';
import type { Store } from './mongo';

export interface NewApiKey {
  orgId: string;
  name: string;
  scopes: string[];
  projects: 'all' | string[];
  createdBy: string | null;
  expiresAt: Date | null;
}

export async function createApiKey(
  store: Store,
  k: NewApiKey,
  now = new Date(),
): Promise<{ doc: ApiKeyDoc; secret: string }> {
  const secret = newSecret('svc_key_');
  const doc: ApiKeyDoc = {
    _id: sha256Hex(secret),
    id: newId('key', now.getTime()),
    prefix: secret.slice(0, 12),
    ...k,
    createdAt: now,
    lastUsedAt: null,
    revokedAt: null,
  };
  await store.c.apiKeys.insertOne(doc);
  return { doc, secret };
}

export const findApiKeyByHash = (store: Store, hash: string) => store.c.apiKeys.findOne({ _id: hash });

export async function findApiKeyById(store: Store, orgId: string, id: string): Promise<ApiKeyDoc | null> {
  const doc = await store.c.apiKeys.findOne({ id });
  return doc && doc.orgId === orgId ? doc : null;
}

export type KeyStatus = 'active' | 'expired' | 'revoked';

export function keyStatus(k: Pick<ApiKeyDoc, 'revokedAt' | 'expiresAt'>, now = new Date()): KeyStatus {
  if (k.revokedAt) return 'revoked';
  if (k.expiresAt && k.expiresAt <= now) return 'expired';
  return 'active';
}

export async function listApiKeys(
  store: Store,
  orgId: string,
  opts: { status?: KeyStatus; beforeId?: string; limit: number },
  now = new Date(),
): Promise<ApiKeyDoc[]> {
  const filter: Filter<ApiKeyDoc> = { orgId };
  if (opts.beforeId) filter.id = { $lt: opts.beforeId };
  const out: ApiKeyDoc[] = [];
  // Status depends on the clock (expiry), so it is filtered here; an org holds few keys.
  for await (const doc of store.c.apiKeys.find(filter).sort({ id: -1 })) {
    if (!opts.status || keyStatus(doc, now) === opts.status) out.push(doc);
    if (out.length >= opts.limit) break;
  }
  return out;
}

/** Revokes the key (once; a second call changes nothing); the key as it was, or null when there is none. */
export async function revokeApiKey(
  store: Store,
  orgId: string,
  id: string,
  now = new Date(),
): Promise<ApiKeyDoc | null> {
  const doc = await findApiKeyById(store, orgId, id);
  if (!doc) return null;
  if (!doc.revokedAt) await store.c.apiKeys.updateOne({ _id: doc._id, revokedAt: null }, { $set: { revokedAt: now } });
  return doc;
}

const LAST_USED_GRANULARITY_MS = 60_000;

/** lastUsedAt is kept to the minute: at most one write per key per minute, never one per request. */
export async function touchApiKey(store: Store, doc: ApiKeyDoc, now = new Date()): Promise<void> {
  if (doc.lastUsedAt && now.getTime() - doc.lastUsedAt.getTime() < LAST_USED_GRANULARITY_MS) return;
  await store.c.apiKeys.updateOne({ _id: doc._id }, { $set: { lastUsedAt: now } });
}
