// Response schemas of webhooks: create, list, delete (src/http/webhooks/routes.ts), written from its
// presenter, and the request body that route reads by hand (these schemas state the same rules for clients).
import { MAX_URL_LENGTH } from '../../../infra/webhooks/destination';
import { WEBHOOK_EVENTS } from '../../../storage/webhooks';
import { listEnvelope, ref, strOrNull, timestamp } from './common';

const events = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: [...WEBHOOK_EVENTS] },
} as const;

export const webhookSchemas = {
  Webhook: {
    type: 'object',
    required: ['id', 'url', 'events', 'createdBy', 'createdAt'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^whk_' },
      url: {
        type: 'string',
        pattern: '^https://',
        maxLength: MAX_URL_LENGTH,
        description:
          'The URL as the WHATWG URL standard serializes it (lowercase scheme and host, a path of at least "/").',
      },
      events: { ...events, description: 'The event types delivered to it, duplicates of the request folded.' },
      createdBy: { ...strOrNull, description: 'The member id (mem_...) of who created it.' },
      createdAt: timestamp,
    },
  },
  WebhookList: listEnvelope('webhooks', 'Webhook'),
  WebhookCreate: {
    type: 'object',
    required: ['url', 'events'],
    properties: {
      url: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_URL_LENGTH,
        description:
          'An https URL without credentials. Its host is resolved at creation: an address in a loopback, private, link-local, CGNAT, unique local or IPv4-mapped range is refused unless WEBHOOKS_ALLOWED_CIDRS allows it (169.254.0.0/16 and fe80::/10 never).',
      },
      events: {
        type: 'array',
        minItems: 1,
        items: { type: 'string', enum: [...WEBHOOK_EVENTS] },
        description: 'Duplicates are folded.',
      },
    },
  },
  WebhookCreated: {
    type: 'object',
    required: ['webhook', 'secret'],
    additionalProperties: false,
    properties: {
      webhook: ref('Webhook'),
      secret: {
        type: 'string',
        pattern: '^svc_whs_[0-9A-Za-z]{40}$',
        description: 'The signing secret of X-Svc-Signature (HMAC-SHA256). Returned once only; stored encrypted.',
      },
    },
  },
};
