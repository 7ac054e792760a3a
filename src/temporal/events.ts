// Scan events: when a scan becomes completed or failed, one webhook event workflow is started per
// (scan, event type), and only when the organization has a webhook subscribed to that type. The workflow id is
// the pair (webhook-workflow-contract.ts eventWorkflowId) with REJECT_DUPLICATE: every path that ends a scan may emit, a retried
// activity may emit again, and the event is still made (its evt_ id, its createdAt) by the first start only.
import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { envInt } from '../config';
import { newId } from '../domain/ids';
import type { Logger } from '../logger';
import type { Store } from '../storage/mongo';
import { hasSubscriber } from '../storage/webhook-deliveries';
import type { AlertWebhookEvent, WebhookEvent } from '../storage/webhooks';
import { SA } from './scan-workflow-contract';
import {
  DEFAULT_DELIVERY_RETRY,
  WEBHOOK_EVENT_WORKFLOW,
  alertEventWorkflowId,
  analysisExpiredWorkflowId,
  eventWorkflowId,
  type DeliveryRetry,
  type WebhookEventInput,
} from './webhook-workflow-contract';

export interface ScanEvents {
  /** Whether the organization has a live webhook subscribed to the type (one indexed query). */
  subscribed(orgId: string, type: WebhookEvent): Promise<boolean>;
  /**
   * Starts the event's workflow when the organization is subscribed (`subscribed`: that answer, asked earlier so that
   * its round trip overlapped other work; asked here otherwise). True when this call started it; false when nobody is
   * subscribed or it had been started before (by any process).
   */
  emit(scanId: string, orgId: string, type: WebhookEvent, subscribed?: Promise<boolean>): Promise<boolean>;
  /**
   * Starts an alert event's workflow (one per alert move and type) when the organization is subscribed; true when this
   * call started it.
   */
  emitAlerts(
    scanId: string,
    orgId: string,
    type: AlertWebhookEvent,
    alerts: { pairId: string; seq: number },
  ): Promise<boolean>;
  /**
   * Starts the analysis.expired event of an announcement of expired analyses (one workflow per announcement, id from
   * its batch id) when the organization is subscribed; true when this call started it. Optional: emitters made for
   * scans alone leave it out.
   */
  emitAnalysisExpired?(orgId: string, expired: NonNullable<WebhookEventInput['expired']>): Promise<boolean>;
  /** Whether this process emitted (or found nothing to emit for) the pair already: a retry may skip its reads. */
  emitted(scanId: string, type: WebhookEvent): boolean;
  /** Closes the Temporal connection this emitter opened, if any. */
  close(): Promise<void>;
}

/**
 * The delivery retry policy from the environment (defaults: webhook-workflow-contract.ts DEFAULT_DELIVERY_RETRY):
 * WEBHOOKS_RETRY_INITIAL_MS, WEBHOOKS_RETRY_MAX_INTERVAL_MS, WEBHOOKS_RETRY_WINDOW_MS, WEBHOOKS_ATTEMPT_TIMEOUT_MS.
 * Read by the emitter, which passes it in the workflow's input (workflow code cannot read the environment).
 */
export function deliveryRetryFromEnv(env: NodeJS.ProcessEnv = process.env): DeliveryRetry {
  const d = DEFAULT_DELIVERY_RETRY;
  return {
    initialMs: envInt('WEBHOOKS_RETRY_INITIAL_MS', d.initialMs, { min: 1, env }),
    backoffCoefficient: d.backoffCoefficient,
    maxIntervalMs: envInt('WEBHOOKS_RETRY_MAX_INTERVAL_MS', d.maxIntervalMs, { min: 1, env }),
    windowMs: envInt('WEBHOOKS_RETRY_WINDOW_MS', d.windowMs, { min: 1, env }),
    attemptTimeoutMs: envInt('WEBHOOKS_ATTEMPT_TIMEOUT_MS', d.attemptTimeoutMs, { min: 1, env }),
  };
}

/** A Temporal client connected on first use (a worker whose organizations have no webhooks never opens it). */
export function lazyClient(address: string, namespace: string): { get(): Promise<Client>; close(): Promise<void> } {
  let client: Promise<Client> | undefined;
  return {
    get() {
      if (!client) {
        client = Connection.connect({ address, connectTimeout: '5s' }).then(
          (connection) => new Client({ connection, namespace }),
        );
        client.catch(() => (client = undefined)); // the next emission tries again
      }
      return client;
    },
    async close() {
      const c = await client?.catch(() => undefined);
      client = undefined;
      await c?.connection.close();
    },
  };
}

export interface ScanEventsOptions {
  store: Store;
  logger: Logger;
  /** The scan task queue: event workflows run beside the scans. */
  taskQueue: string;
  client: Client | { get(): Promise<Client>; close(): Promise<void> };
  /** Default: deliveryRetryFromEnv(), read once here. */
  retry?: DeliveryRetry;
  now?: () => Date;
}

/** How many (scan, type) pairs a process remembers having emitted. */
const REMEMBERED = 1000;

export function scanEvents(o: ScanEventsOptions): ScanEvents {
  const retry = o.retry ?? deliveryRetryFromEnv();
  const now = o.now ?? (() => new Date());
  const client = (): Promise<Client> => (o.client instanceof Client ? Promise.resolve(o.client) : o.client.get());
  const done = new Set<string>();
  const remember = (key: string) => {
    done.add(key);
    if (done.size > REMEMBERED) done.delete(done.values().next().value as string);
  };

  async function start(
    scanId: string,
    orgId: string,
    type: WebhookEvent,
    alerts?: { pairId: string; seq: number },
  ): Promise<boolean> {
    const at = now();
    const input: WebhookEventInput = {
      eventId: newId('evt', at.getTime()),
      type,
      scanId,
      orgId,
      createdAt: at.toISOString(),
      retry,
      ...(alerts ? { alerts } : {}),
    };
    try {
      await (
        await client()
      ).workflow.start(WEBHOOK_EVENT_WORKFLOW, {
        taskQueue: o.taskQueue,
        workflowId: alerts ? alertEventWorkflowId(alerts.pairId, alerts.seq, type) : eventWorkflowId(scanId, type),
        args: [input],
        // One event per (scan, type), ever: a closed workflow is not started again either.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          { key: SA.scanId, value: scanId },
          { key: SA.orgId, value: orgId },
        ],
        staticSummary: alerts
          ? `Webhook event ${type} of the alerts of ${alerts.pairId} (move ${alerts.seq}, scan ${scanId}; ${input.eventId})`
          : `Webhook event ${type} of scan ${scanId} (${input.eventId})`,
        staticDetails: `org ${orgId} · retried up to ${Math.round(retry.windowMs / 60_000)} min from ${Math.round(retry.initialMs / 1000)} s, at most ${Math.round(retry.maxIntervalMs / 60_000)} min apart`,
      });
      o.logger.info({ scanId, type, eventId: input.eventId }, 'webhook event started');
      return true;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw err;
    }
  }

  return {
    subscribed: (orgId, type) => hasSubscriber(o.store, orgId, type),
    async emit(scanId, orgId, type, subscribed) {
      const key = `${scanId} ${type}`;
      if (done.has(key)) return false;
      const started = (await (subscribed ?? hasSubscriber(o.store, orgId, type)))
        ? await start(scanId, orgId, type)
        : false;
      remember(key);
      return started;
    },
    emitted: (scanId, type) => done.has(`${scanId} ${type}`),
    async emitAnalysisExpired(orgId, expired) {
      const type = 'analysis.expired' as const;
      const key = `${expired.batchId} ${type}`;
      if (done.has(key)) return false;
      let started = false;
      if (await hasSubscriber(o.store, orgId, type)) {
        const at = now();
        const input: WebhookEventInput = {
          eventId: newId('evt', at.getTime()),
          type,
          scanId: '',
          orgId,
          createdAt: at.toISOString(),
          retry,
          expired,
        };
        try {
          await (
            await client()
          ).workflow.start(WEBHOOK_EVENT_WORKFLOW, {
            taskQueue: o.taskQueue,
            workflowId: analysisExpiredWorkflowId(expired.batchId),
            args: [input],
            // One event per announcement, ever: a closed workflow is not started again either.
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            typedSearchAttributes: [{ key: SA.orgId, value: orgId }],
            staticSummary: `Webhook event ${type}: ${expired.alerts.length} alerts whose analysis expired (${input.eventId})`,
            staticDetails: `org ${orgId} · retried up to ${Math.round(retry.windowMs / 60_000)} min from ${Math.round(retry.initialMs / 1000)} s, at most ${Math.round(retry.maxIntervalMs / 60_000)} min apart`,
          });
          o.logger.info(
            { orgId, type, eventId: input.eventId, alerts: expired.alerts.length },
            'webhook event started',
          );
          started = true;
        } catch (err) {
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        }
      }
      remember(key);
      return started;
    },
    async emitAlerts(scanId, orgId, type, alerts) {
      const key = `${alerts.pairId}:${alerts.seq} ${type}`;
      if (done.has(key)) return false;
      const started = (await hasSubscriber(o.store, orgId, type)) ? await start(scanId, orgId, type, alerts) : false;
      remember(key);
      return started;
    },
    close: () => (o.client instanceof Client ? Promise.resolve() : o.client.close()),
  };
}
