// Webhook event activities, run by workflows/webhook.ts: record an event's deliveries with the body
// built once, then one delivery activity per webhook, retried by Temporal with backoff for up to the window. Not
// wrapped by outageAware (activities/outage.ts): a delivery's retries are its own policy's, whatever the error.
import { performance } from 'node:perf_hooks';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { deliveryHeaders, deliveryId, delivered, eventBody, statusError } from '../src/domain/webhooks/deliveries';
import { signatureHeader } from '../src/domain/webhooks/signature';
import { presentScan } from '../src/presenters/scans';
import { presentAlert } from '../src/presenters/alerts';
import { viewOf } from '../src/domain/alerts/query';
import { alertEventBody, alertsForWebhook } from '../src/domain/webhooks/alert-events';
import { analysisExpiredBody } from '../src/domain/webhooks/analysis-events';
import { alertViewsOf } from './triage-reconcile';
import { readStateAlerts, storedMove } from '../src/storage/alerts';
import { checkDestination, policyFromEnv, type DestinationPolicy } from '../src/infra/webhooks/destination';
import { postWebhook } from '../src/infra/webhooks/send';
import type { Logger } from '../src/logger';
import type { WebhookDeliveryDoc } from '../src/storage/documents/webhooks';
import type { Store } from '../src/storage/mongo';
import { getScan } from '../src/storage/scans';
import { secretsFromEnv, type SecretBox } from '../src/storage/secrets';
import { failDelivery, getDelivery, recordAttempt, recordDeliveries } from '../src/storage/webhook-deliveries';
import { subscribedWebhooks, webhookSecret } from '../src/storage/webhooks';
import { WEBHOOK_DELETED, type WebhookEventInput } from '../src/temporal/webhook-workflow-contract';

export interface WebhookConfig {
  box: SecretBox;
  policy: DestinationPolicy;
}

export interface WebhookActivityDeps {
  store: Store;
  logger: Logger;
  /** The secret box and destination policy; from the environment on first use when not given. */
  webhooks?: WebhookConfig;
}

export const WEBHOOK_DELETED_MESSAGE = 'webhook deleted';

/** A delivery of an event to one webhook, not attempted yet; its id derives from both (a retry records none twice). */
function pendingDelivery(
  eventId: string,
  webhookId: string,
  orgId: string,
  type: string,
  body: string,
  now: Date,
): WebhookDeliveryDoc {
  return {
    _id: deliveryId(eventId, webhookId),
    orgId,
    webhookId,
    eventId,
    type,
    status: 'pending',
    attempts: [],
    body,
    error: null,
    createdAt: now,
    updatedAt: now,
  };
}

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const { store, logger } = deps;
  let fromEnv: WebhookConfig | undefined;
  const config = () => deps.webhooks ?? (fromEnv ??= { box: secretsFromEnv(), policy: policyFromEnv() });

  /** Stops a delivery whose webhook is gone (or was found failed already): never retried. */
  function stopped(d: Pick<WebhookDeliveryDoc, '_id' | 'error'>): ApplicationFailure {
    return ApplicationFailure.nonRetryable(
      `delivery ${d._id} stopped: ${d.error ?? WEBHOOK_DELETED_MESSAGE}`,
      WEBHOOK_DELETED,
    );
  }

  /**
   * An alert event: the alerts its move changed that way, read from the move's stored state (states never change, so
   * a retry builds the same bodies); one delivery per subscribed webhook whose filters keep at least one alert.
   */
  async function recordAlertEvent(input: Required<Omit<WebhookEventInput, 'retry' | 'expired'>>) {
    const { eventId, type, orgId, createdAt } = input;
    const { pairId, seq } = input.alerts;
    const [hooks, states, stored] = await Promise.all([
      subscribedWebhooks(store, orgId, type),
      readStateAlerts(store, pairId, seq),
      storedMove(store, pairId, seq),
    ]);
    if (!stored) throw ApplicationFailure.nonRetryable(`alert move ${pairId}:${seq} not found`, 'alert_move_not_found');
    const ids = new Set(
      type === 'alert.opened' ? stored.move.opened : type === 'alert.fixed' ? stored.move.fixed : stored.move.reopened,
    );
    // Alerts that triage suppressed as the move's scan was processed leave the events (docs/triage.md).
    const changed = states
      .filter(
        (a) =>
          ids.has(a.id) && !(a.suppressed && (a.suppressionSource === 'analysis' || a.suppressionSource === 'rule')),
      )
      .map((a) => viewOf(a));
    const first = changed[0] ?? states[0];
    const data = {
      project: first?.projectId ?? '',
      ecosystem: first?.ecosystem ?? '',
      scanId: input.scanId,
      trigger: stored.rematch ? ('rematch' as const) : ('scan' as const),
      generation: stored.generation,
    };
    const now = new Date();
    const docs: WebhookDeliveryDoc[] = [];
    for (const w of hooks) {
      const kept = alertsForWebhook(changed, w);
      if (!kept.length) continue;
      docs.push(
        pendingDelivery(
          eventId,
          w._id,
          orgId,
          type,
          alertEventBody({ id: eventId, type, createdAt }, data, kept.map(presentAlert)),
          now,
        ),
      );
    }
    await recordDeliveries(store, docs);
    return {
      deliveries: docs.map((d) => ({ deliveryId: d._id, webhookId: d.webhookId })),
      bytes: docs.reduce((n, d) => n + Buffer.byteLength(d.body), 0),
    };
  }

  /**
   * An analysis.expired event: the alerts of its announcement as the API presents them now (each with its analysis,
   * `expired: true` unless decided again since); one delivery per subscribed webhook whose filters keep at least one.
   */
  async function recordExpiryEvent(
    input: Omit<WebhookEventInput, 'retry' | 'alerts'> & Required<Pick<WebhookEventInput, 'expired'>>,
  ) {
    const { eventId, type, orgId, createdAt } = input;
    const [hooks, views] = await Promise.all([
      subscribedWebhooks(store, orgId, type),
      alertViewsOf(
        store,
        orgId,
        input.expired.alerts.map((a) => a.alertId),
      ),
    ]);
    const now = new Date();
    const docs: WebhookDeliveryDoc[] = [];
    for (const w of hooks) {
      const kept = alertsForWebhook(views, w);
      if (!kept.length) continue;
      const body = analysisExpiredBody({ id: eventId, type, createdAt }, kept.map(presentAlert));
      docs.push(pendingDelivery(eventId, w._id, orgId, type, body, now));
    }
    await recordDeliveries(store, docs);
    return {
      deliveries: docs.map((d) => ({ deliveryId: d._id, webhookId: d.webhookId })),
      bytes: docs.reduce((n, d) => n + Buffer.byteLength(d.body), 0),
    };
  }

  return {
    /**
     * Builds the event's body once ({id, type, createdAt, data: {scan}}, the scan as the API presents it: terminal
     * scans never change, so a retry builds the same) and records one pending delivery per webhook subscribed now.
     * Delivery ids are derived from the event and webhook ids: a retry inserts none twice.
     */
    async recordWebhookEvent({
      eventId,
      type,
      scanId,
      orgId,
      createdAt,
      alerts,
      expired,
    }: Omit<WebhookEventInput, 'retry'>) {
      if (alerts) return recordAlertEvent({ eventId, type, scanId, orgId, createdAt, alerts });
      if (expired) return recordExpiryEvent({ eventId, type, scanId, orgId, createdAt, expired });
      const [scan, hooks] = await Promise.all([getScan(store, scanId), subscribedWebhooks(store, orgId, type)]);
      if (!scan) throw ApplicationFailure.nonRetryable(`scan ${scanId} not found`, 'scan_not_found');
      const body = eventBody({ id: eventId, type, createdAt, data: { scan: presentScan(scan) } });
      const now = new Date();
      const docs = hooks.map((w) => pendingDelivery(eventId, w._id, orgId, type, body, now));
      await recordDeliveries(store, docs);
      return {
        deliveries: docs.map((d) => ({ deliveryId: d._id, webhookId: d.webhookId })),
        bytes: Buffer.byteLength(body),
      };
    },

    /**
     * One attempt: the webhook (deleted: the delivery fails, not retried), its secret, the destination checked
     * (resolved once, connected to that address), signed with this attempt's time, POSTed; the attempt recorded.
     * A 2xx ends the delivery; anything else throws, for Temporal to retry with the same body and X-Svc-Delivery.
     */
    async deliverWebhook({ deliveryId: id, timeoutMs }: { deliveryId: string; timeoutMs: number }) {
      const n = Context.current().info.attempt;
      const d = await getDelivery(store, id);
      if (!d) throw ApplicationFailure.nonRetryable(`delivery ${id} not found`, 'delivery_not_found');
      if (d.status === 'succeeded')
        return { statusCode: d.attempts[d.attempts.length - 1]?.statusCode ?? null, attempts: d.attempts.length };
      if (d.status === 'failed') throw stopped(d);
      const hook = await store.c.webhooks.findOne({ _id: d.webhookId });
      if (!hook || hook.deletedAt || hook.orgId !== d.orgId) {
        await failDelivery(store, id, WEBHOOK_DELETED_MESSAGE);
        throw stopped({ _id: id, error: WEBHOOK_DELETED_MESSAGE });
      }
      const { box, policy } = config();
      const secret = webhookSecret(box, hook);
      const at = new Date();
      const started = performance.now();
      let statusCode: number | null = null;
      let error: string | null = null;
      try {
        const dest = await checkDestination(hook.url, policy);
        const t = Math.floor(Date.now() / 1000);
        const res = await postWebhook(
          dest,
          d.body,
          deliveryHeaders(d.type, id, signatureHeader(secret, d.body, t)),
          policy,
          { timeoutMs },
        );
        statusCode = res.statusCode;
        if (!delivered(statusCode)) error = statusError(statusCode);
      } catch (err) {
        error = (err instanceof Error ? err.message : String(err)).slice(0, 500);
      }
      const ok = error === null;
      const attempt = { n, at, durationMs: Math.round(performance.now() - started), statusCode, error };
      if (!(await recordAttempt(store, id, attempt, ok ? 'succeeded' : 'pending'))) {
        // No longer pending: its webhook was deleted meanwhile (or another attempt ended it).
        const now = await getDelivery(store, id);
        if (now?.status === 'failed') throw stopped(now);
      }
      logger.debug(
        { deliveryId: id, webhookId: d.webhookId, attempt: n, statusCode, error },
        'webhook delivery attempt',
      );
      if (!ok) throw ApplicationFailure.retryable(`attempt ${n}: ${error}`, 'webhook_delivery_failed');
      return { statusCode, attempts: n };
    },

    /** Ends a delivery still pending when its retries are over (the window ran out); a finished one is left as it is. */
    async failWebhookDelivery({ deliveryId: id, error }: { deliveryId: string; error: string }) {
      return { failed: await failDelivery(store, id, error) };
    },
  };
}
