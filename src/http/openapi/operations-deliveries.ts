// The delivery log of a webhook: GET /v1/webhooks/{webhookId}/deliveries (src/http/webhooks/deliveries.ts).
import type { Endpoint } from '../auth/matrix';
import { LIST_ERRORS, PAGINATION, pathParam, type Operation } from './operation';
import { ref } from './schemas/common';

type DeliveryRoute = Extract<Endpoint, 'GET /v1/webhooks/:webhookId/deliveries'>;

export const deliveryOperations: Record<DeliveryRoute, Operation> = {
  'GET /v1/webhooks/:webhookId/deliveries': {
    operationId: 'listWebhookDeliveries',
    tag: 'webhooks',
    summary: 'The delivery log of a webhook, newest first: each delivery with its attempts, status codes and times',
    description:
      'One delivery per event sent to this webhook (its id is the X-Svc-Delivery header, the same on every attempt). ' +
      'A delivery is `pending` while it is retried (exponential backoff, for up to 24 hours by default), `succeeded` after a 2xx answer, ' +
      "`failed` when the retry window ended without one. Each attempt has its number, start time, duration, and the answer's status code or the error that stopped it.",
    parameters: [pathParam('webhookId', 'The webhook id (whk_...).'), ...PAGINATION],
    responses: {
      200: { description: 'A page of deliveries.', schema: ref('WebhookDeliveryList') },
      404: { description: 'not_found: no such webhook in the organization, or deleted.', codes: ['not_found'] },
      422: { description: 'invalid_parameter (limit, a repeated parameter), invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
};
