// The retry policy of webhook deliveries: in production, exponential backoff from 30 s, at most 1 h
// apart, for 24 hours; the settings that shorten it (tests, operators) are read by the emitter, never by the workflow.
import { deliveryRetryFromEnv } from '../../../src/temporal/events';
import {
  DEFAULT_DELIVERY_RETRY,
  WEBHOOK_DELETED,
  deliveryActivityOptions,
  eventWorkflowId,
} from '../../../src/temporal/webhook-workflow-contract';

test('production: 30 s initial, coefficient 2, at most 1 h apart, the whole within 24 hours, one attempt bounded', () => {
  const retry = deliveryRetryFromEnv({});
  expect(retry).toEqual(DEFAULT_DELIVERY_RETRY);
  const o = deliveryActivityOptions(retry);
  expect(o.scheduleToCloseTimeout).toBe(24 * 60 * 60 * 1000);
  expect(o.retry).toEqual({
    initialInterval: 30_000,
    backoffCoefficient: 2,
    maximumInterval: 60 * 60 * 1000,
    nonRetryableErrorTypes: [WEBHOOK_DELETED],
  });
  expect(o.retry?.maximumAttempts).toBeUndefined(); // unlimited within the window
  expect(o.startToCloseTimeout).toBeGreaterThan(retry.attemptTimeoutMs);
  expect(o.startToCloseTimeout).toBeLessThanOrEqual(60_000);
});

test('the settings shorten it', () => {
  const retry = deliveryRetryFromEnv({
    WEBHOOKS_RETRY_INITIAL_MS: '200',
    WEBHOOKS_RETRY_MAX_INTERVAL_MS: '400',
    WEBHOOKS_RETRY_WINDOW_MS: '5000',
    WEBHOOKS_ATTEMPT_TIMEOUT_MS: '2000',
  });
  expect(retry).toEqual({
    initialMs: 200,
    backoffCoefficient: 2,
    maxIntervalMs: 400,
    windowMs: 5000,
    attemptTimeoutMs: 2000,
  });
  expect(deliveryActivityOptions(retry)).toMatchObject({
    scheduleToCloseTimeout: 5000,
    retry: { initialInterval: 200, maximumInterval: 400 },
  });
});

test.each([
  ['WEBHOOKS_RETRY_WINDOW_MS', '0'],
  ['WEBHOOKS_RETRY_INITIAL_MS', '1.5'],
  ['WEBHOOKS_RETRY_MAX_INTERVAL_MS', '1h'],
  ['WEBHOOKS_ATTEMPT_TIMEOUT_MS', '-1'],
])('%s=%p is refused, naming the setting', (name, value) => {
  expect(() => deliveryRetryFromEnv({ [name]: value })).toThrow(name);
});

test('one workflow id per scan and event type', () => {
  expect(eventWorkflowId('scn_1', 'scan.completed')).toBe('scan-event-scn_1-scan.completed');
  expect(eventWorkflowId('scn_1', 'scan.failed')).not.toBe(eventWorkflowId('scn_1', 'scan.completed'));
});
