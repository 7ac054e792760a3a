// Response schemas of webhooks: create, list, delete (src/http/webhooks/routes.ts), written from its
// presenter, and the request body that route reads by hand (these schemas state the same rules for clients).
import { CHAT_MAX_ALERTS, WEBHOOK_FORMATS } from '../../../domain/webhooks/chat';
import { MAX_URL_LENGTH } from '../../../infra/webhooks/destination';
import { WEBHOOK_EVENTS } from '../../../storage/webhooks';
import { SEVERITIES } from '../../../shared/types';
import { listEnvelope, ref, strOrNull, timestamp } from './common';

const events = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: [...WEBHOOK_EVENTS] },
} as const;

const format = { type: 'string', enum: [...WEBHOOK_FORMATS] } as const;
const FORMATS =
  'json: the event as JSON, signed with X-Svc-Signature. slack: a Slack incoming-webhook message (text and Block Kit blocks); ' +
  'teams: a Microsoft Teams Workflows webhook message with an Adaptive Card 1.4. A chat message lists at most ' +
  `${CHAT_MAX_ALERTS} alerts, then "and N more", with every value escaped for its markup; chat deliveries are not signed ` +
  '(they have no secret), and their URL is a credential: stored sealed, shown as https://<host>/… and never audited in full. ' +
  'Shapes and setup: docs/integrations.md, "Slack and Microsoft Teams".';

const minSeverity = { type: ['string', 'null'], enum: [...SEVERITIES, null] } as const;
const projects = { type: ['array', 'null'], minItems: 1, maxItems: 100, items: { type: 'string' } } as const;

export const webhookSchemas = {
  Webhook: {
    type: 'object',
    required: ['id', 'url', 'format', 'events', 'createdBy', 'createdAt', 'minSeverity', 'projects'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^whk_' },
      url: {
        type: 'string',
        pattern: '^https://',
        maxLength: MAX_URL_LENGTH,
        description:
          'The URL as the WHATWG URL standard serializes it (lowercase scheme and host, a path of at least "/"). ' +
          'A chat webhook (slack, teams) shows only its origin, https://<host>/… (its URL is a credential).',
        examples: ['https://hooks.example.com/scanner', 'https://hooks.slack.com/…'],
      },
      format: { ...format, description: `How deliveries are shaped. ${FORMATS}` },
      events: { ...events, description: 'The event types delivered to it, duplicates of the request folded.' },
      createdBy: { ...strOrNull, description: 'The member id (mem_...) of who created it.' },
      createdAt: timestamp,
      minSeverity: {
        ...minSeverity,
        description: 'Alert events: only alerts at least this severe (null: every alert).',
      },
      projects: { ...projects, description: 'Alert events: only alerts of these projects (ids; null: every project).' },
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
          'An https URL without credentials. Its host is resolved at creation: an address in a loopback, private, link-local, CGNAT, unique local or IPv4-mapped range is refused unless WEBHOOKS_ALLOWED_CIDRS allows it (169.254.0.0/16 and fe80::/10 never). ' +
          "Slack: the incoming webhook's https://hooks.slack.com/services/… URL; Teams: the Workflows trigger's URL.",
      },
      format: {
        ...format,
        default: 'json',
        description: `Default json; anything else is 422 invalid_parameter naming format. ${FORMATS}`,
      },
      events: {
        type: 'array',
        minItems: 1,
        items: { type: 'string', enum: [...WEBHOOK_EVENTS] },
        description:
          "Duplicates are folded. alert.opened, alert.fixed, alert.reopened: one event per tracked scan or re-match after an advisory import that changed alerts that way (none on a project's first tracked scan), data {project, ecosystem, scanId, trigger: scan|rematch, generation, alerts (Alert resources, most severe first, at most 500), truncated}. analysis.expired: once per analysis that reached its expiresAt, within the hour (several at once in one event), data {alerts (the open alerts whose analysis expired, as Alert resources now: analysis.expired true), truncated}.",
      },
      minSeverity: {
        ...minSeverity,
        description:
          "Alert events: send only alerts at least this severe; a webhook whose filters keep none of an event's alerts receives nothing.",
      },
      projects: {
        ...projects,
        description:
          'Alert events: send only alerts of these projects (ids or slugs, stored as ids). Unknown: 422 unknown_project.',
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
        type: ['string', 'null'],
        pattern: '^svc_whs_[0-9A-Za-z]{40}$',
        description:
          'The signing secret of X-Svc-Signature (HMAC-SHA256). Returned once only; stored encrypted. Null for a chat webhook (slack, teams): its deliveries are not signed.',
      },
    },
  },
};
