// Webhook events and deliveries, pure: the payload of an event, the id of its delivery to one
// webhook, what ends a delivery. The workflow and activities that deliver are in workflows/webhook.ts and
// activities/webhooks.ts.
import { createHash } from 'node:crypto';

/** What the payload's `data.scan` is: the Scan resource as GET /v1/scans/{id} presents it. */
export interface EventPayload<S> {
  id: string; // evt_...
  type: string;
  createdAt: string; // ISO 8601
  data: { scan: S };
}

/**
 * The raw body of an event, built once and sent byte for byte on every attempt to every webhook: the signature
 * covers these bytes, so a receiver must verify the raw body before parsing it. Key order is fixed (id, type,
 * createdAt, data).
 */
export function eventBody<S>(e: EventPayload<S>): string {
  return JSON.stringify({ id: e.id, type: e.type, createdAt: e.createdAt, data: { scan: e.data.scan } });
}

const B32 = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford, lower case, as ids are shown (domain/ids.ts)
const EVENT_ID = /^evt_([0-9a-hjkmnp-tv-z]{10})[0-9a-hjkmnp-tv-z]{12}$/;

/**
 * The delivery of an event to a webhook: `dlv_` + the event's time part + 12 characters of SHA-256 over both ids. The
 * same pair always gives the same id, so recording the deliveries of an event again (a retried activity) inserts
 * nothing twice; ids sort by the event's time like every other id (newest first is an _id sort).
 */
export function deliveryId(eventId: string, webhookId: string): string {
  const m = EVENT_ID.exec(eventId);
  if (!m) throw new Error(`not an event id: ${eventId}`);
  const digest = createHash('sha256').update(`${eventId}\n${webhookId}`).digest();
  let tail = '';
  for (let i = 0; i < 12; i++) tail += B32[digest[i] & 31];
  return `dlv_${m[1]}${tail}`;
}

/** A 2xx answer ends a delivery; anything else (another status, a network error, a timeout) is retried. */
export const delivered = (statusCode: number): boolean => statusCode >= 200 && statusCode <= 299;

/** What the delivery log shows for an attempt that got an answer other than 2xx. */
export const statusError = (statusCode: number): string => `HTTP ${statusCode}`;

/** Headers of a delivery besides Content-Type and User-Agent (infra/webhooks/send.ts adds those). */
export function deliveryHeaders(type: string, deliveryId: string, signature: string): Record<string, string> {
  return { 'X-Svc-Event': type, 'X-Svc-Delivery': deliveryId, 'X-Svc-Signature': signature };
}

/** Headers of a chat delivery (Slack, Teams): unsigned, they have no secret; the same event and delivery ids. */
export function chatDeliveryHeaders(type: string, deliveryId: string): Record<string, string> {
  return { 'X-Svc-Event': type, 'X-Svc-Delivery': deliveryId };
}
