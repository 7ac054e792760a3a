// Webhooks: stored with their signing secret sealed (storage/secrets.ts); the secret is shown once,
// at creation. A chat webhook (slack, teams) has no secret: its URL is the credential, stored sealed, with only its
// masked form in `url` (domain/webhooks/chat.ts maskedUrl). Deleting marks the document deleted: deliveries in flight
// see it and stop, lists skip it.
import type { Filter } from 'mongodb';
import { newId, newSecret } from '../domain/ids';
import { isChatFormat, maskedUrl, type WebhookFormat } from '../domain/webhooks/chat';
import type { WebhookDoc } from './documents/webhooks';
import { isDuplicateKey, type Store } from './mongo';
import type { SecretBox } from './secrets';

export const WEBHOOK_EVENTS = [
  'scan.completed',
  'scan.failed',
  'alert.opened',
  'alert.fixed',
  'alert.reopened',
  'analysis.expired',
] as const;
/** The alert events: one per tracked scan or re-match that opened, fixed or reopened alerts, listing them. */
export const ALERT_EVENTS = ['alert.opened', 'alert.fixed', 'alert.reopened'] as const;
export type AlertWebhookEvent = (typeof ALERT_EVENTS)[number];
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** Live webhooks per organization (POST /v1/webhooks refuses one more with 422 invalid_parameter). */
export const MAX_WEBHOOKS_PER_ORG = 20;

export interface NewWebhook {
  orgId: string;
  /** The destination as checked (a chat webhook's is sealed, and only its masked form stored in clear). */
  url: string;
  /** Default json. */
  format?: WebhookFormat;
  events: WebhookEvent[];
  createdBy: string | null;
  minSeverity?: WebhookDoc['minSeverity'];
  projects?: string[] | null;
}

/** Creates a webhook; `secret` is its signing secret (json), or null (a chat webhook: deliveries are not signed). */
export async function createWebhook(
  store: Store,
  box: SecretBox,
  w: NewWebhook & { format?: 'json' },
  now?: Date,
): Promise<{ doc: WebhookDoc; secret: string }>;
export async function createWebhook(
  store: Store,
  box: SecretBox,
  w: NewWebhook,
  now?: Date,
): Promise<{ doc: WebhookDoc; secret: string | null }>;
export async function createWebhook(
  store: Store,
  box: SecretBox,
  w: NewWebhook,
  now = new Date(),
): Promise<{ doc: WebhookDoc; secret: string | null }> {
  const format = w.format ?? 'json';
  const chat = isChatFormat(format);
  const secret = chat ? null : newSecret('svc_whs_');
  const doc: WebhookDoc = {
    _id: newId('whk', now.getTime()),
    ...w,
    format,
    ...(chat ? { url: maskedUrl(w.url), sealedUrl: box.seal(w.url) } : {}),
    secret: secret === null ? null : box.seal(secret),
    createdAt: now,
    deletedAt: null,
  };
  await store.c.webhooks.insertOne(doc);
  return { doc, secret };
}

/** A webhook of the organization, deleted or not (null when it is another organization's or unknown). */
export async function getWebhook(store: Store, orgId: string, id: string): Promise<WebhookDoc | null> {
  const doc = await store.c.webhooks.findOne({ _id: id });
  return doc && doc.orgId === orgId ? doc : null;
}

/** Newest first, deleted ones left out; `beforeId` continues a page. */
export async function listWebhooks(
  store: Store,
  orgId: string,
  opts: { beforeId?: string; limit: number },
): Promise<WebhookDoc[]> {
  const filter: Filter<WebhookDoc> = { orgId, deletedAt: null };
  if (opts.beforeId) filter._id = { $lt: opts.beforeId };
  return store.c.webhooks.find(filter).sort({ _id: -1 }).limit(opts.limit).toArray();
}

/**
 * True when this call deleted the webhook; false when it is unknown, another organization's or already deleted (of two
 * concurrent deletes, one wins).
 */
export async function deleteWebhook(store: Store, orgId: string, id: string, now = new Date()): Promise<boolean> {
  const live = await store.c.webhooks.findOne({ _id: id, orgId, deletedAt: null }, { projection: { _id: 1 } });
  if (!live) return false;
  // One deletion wins, by an insert whose _id names the decision (README "Local database caveat": on FerretDB two
  // concurrent compare-and-set updates may both succeed, and both callers would answer 204 and audit it).
  let won = true;
  try {
    await store.c.claims.insertOne({ _id: `webhook-deleted:${id}`, value: orgId, at: now });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    won = false;
  }
  // the loser writes it too: a winner that died between its claim and this write leaves no webhook half-deleted
  await store.c.webhooks.updateOne({ _id: id, orgId, deletedAt: null }, { $set: { deletedAt: now } });
  return won;
}

/** How many live (not deleted) webhooks the organization has. */
export function countWebhooks(store: Store, orgId: string): Promise<number> {
  return store.c.webhooks.countDocuments({ orgId, deletedAt: null });
}

/**
 * Whether `id` is among the organization's `max` oldest live webhooks. Creations that passed the count together check
 * this after their write, and those past the bound withdraw: exact as long as ids follow the order of the writes (an
 * id starts with its creator's clock millisecond); two writes within one millisecond, or across skewed clocks, may both
 * stay, one over the bound.
 */
export async function withinFirst(store: Store, orgId: string, id: string, max: number): Promise<boolean> {
  const first = await store.c.webhooks
    .find({ orgId, deletedAt: null }, { projection: { _id: 1 } })
    .sort({ _id: 1 })
    .limit(max)
    .toArray();
  return first.some((d) => d._id === id);
}

/** The live webhooks of an organization that subscribe to an event type, oldest first. */
export function subscribedWebhooks(store: Store, orgId: string, type: WebhookEvent): Promise<WebhookDoc[]> {
  return store.c.webhooks.find({ orgId, deletedAt: null, events: type }).sort({ _id: 1 }).toArray();
}

/** The signing secret of a webhook, unsealed; null for a chat webhook, which has none. */
export const webhookSecret = (box: SecretBox, doc: WebhookDoc): string | null =>
  doc.secret ? box.open(doc.secret) : null;

/** How a webhook's deliveries are shaped (json when made before formats existed). */
export const webhookFormat = (doc: Pick<WebhookDoc, 'format'>): WebhookFormat => doc.format ?? 'json';

/** Where deliveries go: a chat webhook's sealed URL, unsealed; a json webhook's URL as stored. */
export const webhookUrl = (box: SecretBox, doc: WebhookDoc): string =>
  doc.sealedUrl ? box.open(doc.sealedUrl) : doc.url;
