// The delivery log of a webhook (platform.md §8): GET /v1/webhooks/{webhookId}/deliveries (src/http/webhooks/deliveries.ts).
import type { Endpoint } from '../auth/matrix';
import type { Operation } from './operation';

type DeliveryRoute = Extract<Endpoint, 'GET /v1/webhooks/:webhookId/deliveries'>;

export const deliveryOperations: Record<DeliveryRoute, Operation> = {
  'GET /v1/webhooks/:webhookId/deliveries': {
    operationId: 'TODO_deliveries_0',
    tag: 'deliveries',
    summary: 'TODO',
    responses: { 200: { description: 'TODO' } },
    usesDatabase: true,
  },
};
