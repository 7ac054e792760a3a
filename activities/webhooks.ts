// Webhook event activities, run by workflows/webhook.ts: record an event's deliveries with the body
// built once, then one delivery activity per webhook, retried by Temporal with backoff for up to the window. Not
// wrapped by outageAware (activities/outage.ts): a delivery's retries are its own policy's, whatever the error.
// A chat webhook (format slack or teams) gets the same event as a Slack message or a Teams card (domain/webhooks/
// chat*.ts), built when the deliveries are recorded like a json body, sent unsigned to its unsealed URL through the
// same destination checks, sender, timeouts and retries.
import { performance } from 'node:perf_hooks';
import { ApplicationFailure, Context } from '@temporalio/activity';
import {
  chatDeliveryHeaders,
  deliveryHeaders,
  deliveryId,
  delivered,
  eventBody,
  statusError,
} from '../src/domain/webhooks/deliveries';
import { signatureHeader } from '../src/domain/webhooks/signature';
import { presentScan } from '../src/presenters/scans';
import { presentAlert } from '../src/presenters/alerts';
import { viewOf } from '../src/domain/alerts/query';
import { alertEventBody, alertsForWebhook } from '../src/domain/webhooks/alert-events';
import { analysisExpiredBody } from '../src/domain/webhooks/analysis-events';
import { chatLinkBase, chatSummary, isChatFormat, type ChatEvent, type ChatFormat } from '../src/domain/webhooks/chat';
import { slackBody } from '../src/domain/webhooks/chat-slack';
import { teamsBody } from '../src/domain/webhooks/chat-teams';
import { alertViewsOf } from './triage-reconcile';
import { readStateAlerts, storedMove } from '../src/storage/alerts';
import { checkDestination, policyFromEnv, type DestinationPolicy } from '../src/infra/webhooks/destination';
import { postWebhook } from '../src/infra/webhooks/send';
import type { Logger } from '../src/logger';
import type { WebhookDeliveryDoc } from '../src/storage/documents/webhooks';
import type { Store } from '../src/storage/mongo';
import { projectSlugsByIds } from '../src/storage/projects';
import { getScan } from '../src/storage/scans';
import { secretsFromEnv, type SecretBox } from '../src/storage/secrets';
import { failDelivery, getDelivery, recordAttempt, recordDeliveries } from '../src/storage/webhook-deliveries';
import { subscribedWebhooks, webhookFormat, webhookSecret, webhookUrl } from '../src/storage/webhooks';
import { WEBHOOK_DELETED, type WebhookEventInput } from '../src/temporal/webhook-workflow-contract';

export interface WebhookConfig {
  box: SecretBox;
  policy: DestinationPolicy;
  /**
   * The base of links in chat messages (domain/webhooks/chat.ts chatLinkBase): from PUBLIC_APP_URL when the config
   * comes from the environment; absent or null, chat messages carry no link.
   */
  appUrl?: string | null;
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

/** The raw body of a chat delivery. */
const chatBody = (format: ChatFormat, event: ChatEvent, ctx: Parameters<typeof chatSummary>[1]): string =>
  format === 'slack' ? slackBody(chatSummary(event, ctx)) : teamsBody(chatSummary(event, ctx));

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const { store, logger } = deps;
  let fromEnv: WebhookConfig | undefined;
  const config = () =>
    deps.webhooks ??
    (fromEnv ??= {
      box: secretsFromEnv(),
      policy: policyFromEnv(),
      appUrl: chatLinkBase(process.env.PUBLIC_APP_URL),
    });

  /** What chat messages need beside the event: project slugs (read only when a chat webhook is subscribed). */
  async function chatContext(
    orgId: string,
    hooks: ReadonlyArray<{ format?: string }>,
    projectIds: readonly string[],
  ): Promise<Parameters<typeof chatSummary>[1]> {
    const chat = hooks.some((h) => isChatFormat(h.format));
    const projects =
      chat && projectIds.length ? await projectSlugsByIds(store, orgId, [...new Set(projectIds)]) : new Map();
    return { projects, appUrl: config().appUrl ?? null };
  }

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
    const ctx = await chatContext(orgId, hooks, data.project ? [data.project] : []);
    for (const w of hooks) {
      const kept = alertsForWebhook(changed, w);
      if (!kept.length) continue;
      const presented = kept.map(presentAlert);
      const format = webhookFormat(w);
      const body = isChatFormat(format)
        ? chatBody(
            format,
            {
              type: type as Extract<ChatEvent, { trigger: unknown }>['type'],
              project: data.project,
              ecosystem: data.ecosystem,
              trigger: data.trigger,
              alerts: presented,
            },
            ctx,
          )
        : alertEventBody({ id: eventId, type, createdAt }, data, presented);
      docs.push(pendingDelivery(eventId, w._id, orgId, type, body, now));
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
    const ctx = await chatContext(
      orgId,
      hooks,
      views.map((v) => v.projectId),
    );
    for (const w of hooks) {
      const kept = alertsForWebhook(views, w);
      if (!kept.length) continue;
      const presented = kept.map(presentAlert);
      const format = webhookFormat(w);
      const body = isChatFormat(format)
        ? chatBody(format, { type: 'analysis.expired', alerts: presented }, ctx)
        : analysisExpiredBody({ id: eventId, type, createdAt }, presented);
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
      const presented = presentScan(scan);
      const ctx = await chatContext(orgId, hooks, [presented.project]);
      // One body per format, built once: every webhook of a format receives the same bytes.
      const bodies = new Map<string, string>();
      const bodyOf = (format: ReturnType<typeof webhookFormat>): string => {
        let body = bodies.get(format);
        if (body === undefined) {
          body = isChatFormat(format)
            ? chatBody(format, { type: type as 'scan.completed' | 'scan.failed', scan: presented }, ctx)
            : eventBody({ id: eventId, type, createdAt, data: { scan: presented } });
          bodies.set(format, body);
        }
        return body;
      };
      const now = new Date();
      const docs = hooks.map((w) => pendingDelivery(eventId, w._id, orgId, type, bodyOf(webhookFormat(w)), now));
      await recordDeliveries(store, docs);
      return {
        deliveries: docs.map((d) => ({ deliveryId: d._id, webhookId: d.webhookId })),
        bytes: [...bodies.values()].reduce((n, b) => n + Buffer.byteLength(b), 0),
      };
    },

    /**
     * One attempt: the webhook (deleted: the delivery fails, not retried), its secret, the destination checked
     * (resolved once, connected to that address), signed with this attempt's time, POSTed; the attempt recorded.
     * A chat webhook: its sealed URL opened, checked the same way, POSTed unsigned (no secret; X-Svc-Event and
     * X-Svc-Delivery are sent all the same).
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
      const chat = isChatFormat(webhookFormat(hook));
      const secret = chat ? null : webhookSecret(box, hook);
      if (!chat && secret === null) throw ApplicationFailure.nonRetryable(`webhook ${hook._id} has no secret`);
      const url = webhookUrl(box, hook);
      const at = new Date();
      const started = performance.now();
      let statusCode: number | null = null;
      let error: string | null = null;
      try {
        const dest = await checkDestination(url, policy);
        const t = Math.floor(Date.now() / 1000);
        const headers =
          chat || secret === null
            ? chatDeliveryHeaders(d.type, id)
            : deliveryHeaders(d.type, id, signatureHeader(secret, d.body, t));
        const res = await postWebhook(dest, d.body, headers, policy, { timeoutMs });
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
