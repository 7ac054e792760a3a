// Webhook deliveries: one document per (event, webhook), _id the dlv_ id of X-Svc-Delivery, holding
// the body every attempt sends and the attempts so far. A delivery only moves forward: pending → succeeded | failed;
// an attempt is recorded only while it is pending, so a late attempt never reopens a finished delivery.
import type { Filter } from 'mongodb';
import type { WebhookDeliveryDoc } from './documents/webhooks';
import { isDuplicateKey, type Store } from './mongo';
import type { WebhookEvent } from './webhooks';

export type DeliveryAttempt = WebhookDeliveryDoc['attempts'][number];
/** A delivery as the log shows it: without its body. */
export type DeliverySummary = Omit<WebhookDeliveryDoc, 'body'>;

/**
 * Whether the organization has a live webhook subscribed to the event type: one query on the {orgId, _id} index,
 * asked when a scan ends, so that no event workflow starts for an organization without webhooks.
 */
export async function hasSubscriber(store: Store, orgId: string, type: WebhookEvent): Promise<boolean> {
  const doc = await store.c.webhooks.findOne({ orgId, deletedAt: null, events: type }, { projection: { _id: 1 } });
  return doc !== null;
}

/** Inserts the deliveries not recorded yet (ids are deterministic per event and webhook: a retry inserts nothing twice). */
export async function recordDeliveries(store: Store, docs: WebhookDeliveryDoc[]): Promise<void> {
  await Promise.all(
    docs.map(async (d) => {
      try {
        await store.c.webhookDeliveries.insertOne(d);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }),
  );
}

export function getDelivery(store: Store, id: string): Promise<WebhookDeliveryDoc | null> {
  return store.c.webhookDeliveries.findOne({ _id: id });
}

/** Appends an attempt to a pending delivery and moves it to `status` (pending while it is retried). */
export async function recordAttempt(
  store: Store,
  id: string,
  attempt: DeliveryAttempt,
  status: WebhookDeliveryDoc['status'],
): Promise<boolean> {
  const res = await store.c.webhookDeliveries.updateOne(
    { _id: id, status: 'pending' },
    { $push: { attempts: attempt }, $set: { status, updatedAt: attempt.at } },
  );
  if (res.modifiedCount === 1) return true;
  // Failed meanwhile (its retry window closed while this attempt was in flight, or its webhook was deleted): the
  // attempt reached the destination all the same, so the log keeps it; the delivery stays failed. (A delivery that
  // succeeded takes no later attempt: attempts run one after another, and a 2xx ends them.)
  await store.c.webhookDeliveries.updateOne({ _id: id, status: 'failed' }, { $push: { attempts: attempt } });
  return false;
}

/** A pending delivery that stops for good (its webhook deleted, its retry window over); false when it was not pending. */
export async function failDelivery(store: Store, id: string, error: string, now = new Date()): Promise<boolean> {
  const res = await store.c.webhookDeliveries.updateOne(
    { _id: id, status: 'pending' },
    { $set: { status: 'failed', error: error.slice(0, 500), updatedAt: now } },
  );
  return res.modifiedCount === 1;
}

/** A webhook's deliveries, newest first (an _id sort on the {webhookId, _id} index), bodies left out; `beforeId` continues a page. */
export function listDeliveries(
  store: Store,
  webhookId: string,
  opts: { beforeId?: string; limit: number },
): Promise<DeliverySummary[]> {
  const filter: Filter<WebhookDeliveryDoc> = { webhookId };
  if (opts.beforeId) filter._id = { $lt: opts.beforeId };
  return store.c.webhookDeliveries
    .find(filter, { projection: { body: 0 } })
    .sort({ _id: -1 })
    .limit(opts.limit)
    .toArray();
}
