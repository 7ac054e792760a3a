// One workflow per webhook event, id scan-event-<scanId>-<type>, on the scan task queue. Its first
// activity builds the body once and records one delivery per webhook subscribed then; each delivery is then one
// activity, all at once, retried by Temporal with exponential backoff until a 2xx or the end of the retry window
// (the policy comes in the input: workflow code cannot read the environment). Deterministic code only.
import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  log,
  proxyActivities,
  setCurrentDetails,
} from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks';
import {
  WEBHOOK_DELETED,
  deliveryActivityOptions,
  type WebhookEventInput,
  type WebhookEventResult,
} from '../src/temporal/webhook-workflow-contract';

type Activities = ReturnType<typeof createWebhookActivities>;
type State = 'retrying' | 'succeeded' | 'failed' | 'stopped (webhook deleted)';

/** A duration for people: 24 h, 90 s, 1500 ms. */
function human(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/**
 * How a delivery activity ended without a 2xx: its webhook deleted (the activity marked it failed), its retry window
 * over (a TimeoutFailure, or Temporal declining a retry past the window: retry state TIMEOUT), or a failure no retry
 * can mend. `last` is the last attempt's failure.
 */
function outcome(err: unknown): { kind: 'deleted' | 'window' | 'fatal'; last: string } {
  let cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure && cause.type === WEBHOOK_DELETED)
    return { kind: 'deleted', last: cause.message };
  let kind: 'window' | 'fatal' = err instanceof ActivityFailure && err.retryState === 'TIMEOUT' ? 'window' : 'fatal';
  if (cause instanceof TimeoutFailure) {
    kind = 'window';
    if (cause.cause) cause = cause.cause;
  }
  return { kind, last: cause instanceof Error ? cause.message : String(cause) };
}

export async function webhookEventWorkflow(input: WebhookEventInput): Promise<WebhookEventResult> {
  const { eventId, type, scanId, orgId, createdAt, retry } = input;
  // What the event is about, for the details shown in the Temporal UI.
  const subject = input.expired ? `${input.expired.alerts.length} alerts` : scanId;
  // Bookkeeping (recording the event, ending a delivery) retries quickly, within the same window.
  const book = proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    scheduleToCloseTimeout: retry.windowMs,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  const deliver = proxyActivities<Activities>(deliveryActivityOptions(retry));

  setCurrentDetails(
    `${type} of ${subject} (${eventId}): building the body and recording a delivery per subscribed webhook`,
  );
  const { deliveries } = await book.recordWebhookEvent({
    eventId,
    type,
    scanId,
    orgId,
    createdAt,
    ...(input.alerts ? { alerts: input.alerts } : {}),
    ...(input.expired ? { expired: input.expired } : {}),
  });
  const states = new Map<string, State>(deliveries.map((d) => [d.deliveryId, 'retrying']));
  const show = () =>
    setCurrentDetails(
      deliveries.length === 0
        ? `${type} of ${subject} (${eventId}): no webhook subscribed any more, nothing to deliver`
        : `${type} of ${subject} (${eventId}), retried for up to ${human(retry.windowMs)} from ${human(retry.initialMs)}, at most ${human(retry.maxIntervalMs)} apart:\n` +
            deliveries.map((d) => `- ${d.deliveryId} to ${d.webhookId}: ${states.get(d.deliveryId)}`).join('\n'),
    );
  show();

  let succeeded = 0;
  let failed = 0;
  await Promise.all(
    deliveries.map(async (d) => {
      try {
        await deliver.deliverWebhook({ deliveryId: d.deliveryId, timeoutMs: retry.attemptTimeoutMs });
        succeeded++;
        states.set(d.deliveryId, 'succeeded');
      } catch (err) {
        failed++;
        const o = outcome(err);
        if (o.kind === 'deleted') states.set(d.deliveryId, 'stopped (webhook deleted)');
        else {
          states.set(d.deliveryId, 'failed');
          log.warn('webhook delivery failed for good', {
            deliveryId: d.deliveryId,
            webhookId: d.webhookId,
            kind: o.kind,
            last: o.last,
          });
          const error =
            o.kind === 'window'
              ? `no 2xx answer within the retry window of ${human(retry.windowMs)}; last: ${o.last}`
              : o.last;
          await book.failWebhookDelivery({ deliveryId: d.deliveryId, error });
        }
      }
      show();
    }),
  );
  return { eventId, deliveries: deliveries.length, succeeded, failed };
}
