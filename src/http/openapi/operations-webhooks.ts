// Webhooks (platform.md §8): create, list, delete (src/http/webhooks/routes.ts).
import type { Endpoint } from '../auth/matrix';
import type { Operation } from './operation';

type WebhookRoute = Extract<Endpoint, 'POST /v1/webhooks' | 'GET /v1/webhooks' | 'DELETE /v1/webhooks/:webhookId'>;

export const webhookOperations: Record<WebhookRoute, Operation> = {
  'POST /v1/webhooks': {
    operationId: 'TODO_webhooks_0',
    tag: 'webhooks',
    summary: 'TODO',
    responses: { 200: { description: 'TODO' } },
    usesDatabase: true,
  },
  'GET /v1/webhooks': {
    operationId: 'TODO_webhooks_1',
    tag: 'webhooks',
    summary: 'TODO',
    responses: { 200: { description: 'TODO' } },
    usesDatabase: true,
  },
  'DELETE /v1/webhooks/:webhookId': {
    operationId: 'TODO_webhooks_2',
    tag: 'webhooks',
    summary: 'TODO',
    responses: { 200: { description: 'TODO' } },
    usesDatabase: true,
  },
};
