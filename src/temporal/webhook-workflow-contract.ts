// Names, input and retry policy of the webhook event workflow (workflows/webhook.ts), shared by the emitter
// (src/temporal/events.ts), the worker and the workflow. Imported by workflow code: @temporalio/common only, and no
// environment (the emitter reads it and passes the policy in the workflow's input).
import type { ActivityOptions } from '@temporalio/common';

export const WEBHOOK_EVENT_WORKFLOW = 'webhookEventWorkflow';

/** One workflow per (scan, event type): a second start of the same id is rejected, so an event is never sent twice. */
export const eventWorkflowId = (scanId: string, type: string): string => `scan-event-${scanId}-${type}`;

/** One workflow per (alert move, event type): the move is a state of its pair's chain. */
export const alertEventWorkflowId = (pairId: string, seq: number, type: string): string =>
  `alert-event-${pairId}-${seq}-${type}`;

/** One workflow per announcement of expired analyses (src/storage/documents/triage-marks.ts ExpiryBatch). */
export const analysisExpiredWorkflowId = (batchId: string): string => `analysis-expired-${batchId}`;

/** How a delivery is retried: exponential backoff from `initialMs`, at most `maxIntervalMs` apart, for `windowMs`. */
export interface DeliveryRetry {
  initialMs: number;
  backoffCoefficient: number;
  maxIntervalMs: number;
  /** From the delivery's first attempt: past it the delivery is marked failed. */
  windowMs: number;
  /** One POST (connect, TLS, answer): past it the attempt fails and is retried. */
  attemptTimeoutMs: number;
}

/** Production: 30 s, 1 min, 2 min, ... at most 1 h apart, for 24 hours (about 30 attempts); 10 s per POST. */
export const DEFAULT_DELIVERY_RETRY: DeliveryRetry = {
  initialMs: 30_000,
  backoffCoefficient: 2,
  maxIntervalMs: 60 * 60_000,
  windowMs: 24 * 60 * 60_000,
  attemptTimeoutMs: 10_000,
};

/** Beyond the POST's own timeout, an attempt reads the delivery and webhook and records itself. */
const ATTEMPT_MARGIN_MS = 30_000;

/** The delivery activity's options: the retry policy above, one attempt bounded, the whole within the window. */
export function deliveryActivityOptions(r: DeliveryRetry): ActivityOptions {
  return {
    startToCloseTimeout: r.attemptTimeoutMs + ATTEMPT_MARGIN_MS,
    scheduleToCloseTimeout: r.windowMs,
    retry: {
      initialInterval: r.initialMs,
      backoffCoefficient: r.backoffCoefficient,
      maximumInterval: r.maxIntervalMs,
      // maximumAttempts unset: unlimited within scheduleToCloseTimeout.
      nonRetryableErrorTypes: [WEBHOOK_DELETED],
    },
  };
}

/** The failure type of a delivery whose webhook was deleted: it stops at once. */
export const WEBHOOK_DELETED = 'webhook_deleted';

export interface WebhookEventInput {
  eventId: string; // evt_..., made once by the start that created the workflow
  type: 'scan.completed' | 'scan.failed' | 'alert.opened' | 'alert.fixed' | 'alert.reopened' | 'analysis.expired';
  /** A scan event's scan; an alert event's tracked scan (the one the move or re-match came from); '' otherwise. */
  scanId: string;
  /** Alert events: the state of the (project, ecosystem) whose move the event announces (src/storage/alerts.ts). */
  alerts?: { pairId: string; seq: number };
  /** analysis.expired: the alerts whose analyses expired, each with the analysis (its updatedAt). */
  expired?: { batchId: string; alerts: Array<{ alertId: string; analysisUpdatedAt: string }> };
  orgId: string;
  createdAt: string; // ISO 8601: the payload's createdAt
  retry: DeliveryRetry;
}

export interface WebhookEventResult {
  eventId: string;
  deliveries: number;
  succeeded: number;
  failed: number;
}
