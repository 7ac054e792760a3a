// Webhooks: create, list, delete (src/http/webhooks/routes.ts). Error codes as that handler throws them.
import { MAX_WEBHOOKS_PER_ORG } from '../../storage/webhooks';
import type { Endpoint } from '../auth/matrix';
import { LIST_ERRORS, OBJECT_BODY_ERRORS, PAGINATION, pathParam, type Operation } from './operation';
import { ref } from './schemas/common';

type WebhookRoute = Extract<Endpoint, 'POST /v1/webhooks' | 'GET /v1/webhooks' | 'DELETE /v1/webhooks/:webhookId'>;

export const webhookOperations: Record<WebhookRoute, Operation> = {
  'POST /v1/webhooks': {
    operationId: 'createWebhook',
    tag: 'webhooks',
    summary: 'Create a webhook (the signing secret is returned once)',
    description:
      'Deliveries of the chosen events are POSTed to the URL, signed with the secret (X-Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>). ' +
      'With format slack or teams, deliveries are a Slack message or a Microsoft Teams Adaptive Card instead, unsigned (secret null), to a URL stored sealed and shown as https://<host>/…; ' +
      'the same destination rules, retries and delivery log apply. ' +
      `An organization has at most ${MAX_WEBHOOKS_PER_ORG} webhooks.`,
    requestBody: {
      description: 'The https URL, the event types and the format (json, slack or teams).',
      required: true,
      schema: ref('WebhookCreate'),
    },
    responses: {
      201: { description: 'The webhook and its secret.', schema: ref('WebhookCreated') },
      ...OBJECT_BODY_ERRORS,
      422: {
        description:
          'missing_parameter (url or events absent or empty), invalid_parameter (the body is not a JSON object; a field of the wrong type; ' +
          'an unknown event type, named; a URL that is not https, malformed, or whose host does not resolve or resolves to a refused address, with the reason; ' +
          `the organization already has ${MAX_WEBHOOKS_PER_ORG} webhooks; format not json, slack or teams; minSeverity not a severity; projects not a non-empty array of at most 100 strings), ` +
          'unknown_project (projects names a project that does not exist).',
        codes: ['invalid_parameter', 'missing_parameter', 'unknown_project'],
      },
    },
    usesDatabase: true,
  },
  'GET /v1/webhooks': {
    operationId: 'listWebhooks',
    tag: 'webhooks',
    summary: 'List webhooks, newest first (deleted ones are not listed; secrets never are)',
    parameters: [...PAGINATION],
    responses: {
      200: { description: 'A page of webhooks.', schema: ref('WebhookList') },
      422: { description: 'invalid_parameter, invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
  'DELETE /v1/webhooks/:webhookId': {
    operationId: 'deleteWebhook',
    tag: 'webhooks',
    summary: 'Delete a webhook: no new deliveries, and retries in flight stop',
    parameters: [pathParam('webhookId', 'The webhook id (whk_...).')],
    responses: {
      204: { description: 'Deleted.' },
      404: { description: 'not_found: no such webhook in the organization, or already deleted.', codes: ['not_found'] },
    },
    usesDatabase: true,
  },
};
