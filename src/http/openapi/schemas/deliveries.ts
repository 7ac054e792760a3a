// Response schemas of the delivery log of a webhook: GET /v1/webhooks/{webhookId}/deliveries
// (src/http/webhooks/deliveries.ts), written from its presenter.
import { WEBHOOK_EVENTS } from '../../../storage/webhooks';
import { listEnvelope, ref, strOrNull, timestamp } from './common';

export const deliverySchemas = {
  WebhookDeliveryAttempt: {
    type: 'object',
    required: ['n', 'at', 'statusCode', 'error', 'durationMs'],
    additionalProperties: false,
    properties: {
      n: {
        type: 'integer',
        minimum: 1,
        description: 'The attempt number, from 1 (a number may be missing when an attempt could not be recorded).',
      },
      at: { ...timestamp, description: 'When the attempt started.' },
      statusCode: {
        type: ['integer', 'null'],
        minimum: 100,
        maximum: 599,
        description: "The answer's status; null when no answer came (see error).",
      },
      error: {
        ...strOrNull,
        description:
          'Null after a 2xx; otherwise "HTTP <status>", or why no answer came (refused destination, connection, TLS, timeout).',
      },
      durationMs: {
        type: 'integer',
        minimum: 0,
        description: 'From the start of the attempt (resolution included) to its answer or error.',
      },
    },
  },
  WebhookDelivery: {
    type: 'object',
    required: ['id', 'eventId', 'type', 'status', 'attempts', 'createdAt', 'updatedAt'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^dlv_', description: 'The X-Svc-Delivery header of every attempt.' },
      eventId: { type: 'string', pattern: '^evt_', description: "The payload's id." },
      type: { type: 'string', enum: [...WEBHOOK_EVENTS] },
      status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
      attempts: { type: 'array', items: ref('WebhookDeliveryAttempt'), description: 'Oldest first.' },
      createdAt: timestamp,
      updatedAt: { ...timestamp, description: 'The last attempt or status change.' },
    },
  },
  WebhookDeliveryList: listEnvelope('deliveries', 'WebhookDelivery'),
};
