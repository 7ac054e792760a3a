// Schemas of triage (src/domain/triage, src/http/triage/routes.ts).
import {
  ANALYSIS_STATES,
  DETAIL_MAX,
  JUSTIFICATIONS,
  RESPONSES,
  TICKET_URL_MAX,
} from '../../../domain/triage/analysis';
import { ref, str, strOrNull, timestamp } from './common';

const fields = {
  state: { type: 'string', enum: [...ANALYSIS_STATES] },
  justification: {
    type: ['string', 'null'],
    enum: [...JUSTIFICATIONS, null],
    description: "CycloneDX's justification; required when state is not_affected.",
  },
  response: {
    type: 'array',
    items: { type: 'string', enum: [...RESPONSES] },
    uniqueItems: true,
    description: "CycloneDX's responses (a subset).",
  },
  detail: {
    type: ['string', 'null'],
    minLength: 1,
    maxLength: DETAIL_MAX,
    description: 'Required for not_affected, false_positive and resolved.',
  },
  expiresAt: {
    type: ['string', 'null'],
    format: 'date-time',
    description: 'In the future, at most one year ahead. From then on the analysis no longer suppresses.',
  },
  ticketUrl: { type: ['string', 'null'], maxLength: TICKET_URL_MAX, description: 'An https URL.' },
} as const;

const versions = {
  type: ['array', 'null'],
  items: str,
  minItems: 1,
  description:
    'Installed versions of the alert the analysis covers (a subset of installedVersions); omitted or null: every version.',
} as const;

export const triageSchemas = {
  AnalysisInput: {
    type: 'object',
    required: ['state'],
    additionalProperties: false,
    properties: { ...fields, versions },
  },
  BulkAnalysisInput: {
    type: 'object',
    required: ['state'],
    additionalProperties: false,
    properties: fields,
  },
  BulkAnalysis: {
    type: 'object',
    required: ['alertIds', 'analysis'],
    additionalProperties: false,
    properties: {
      alertIds: { type: 'array', minItems: 1, maxItems: 500, items: { type: 'string', pattern: '^alr_' } },
      analysis: ref('BulkAnalysisInput'),
    },
  },
  Analysis: {
    type: 'object',
    required: [
      'state',
      'justification',
      'response',
      'detail',
      'expiresAt',
      'versions',
      'ticketUrl',
      'updatedAt',
      'updatedBy',
      'expired',
    ],
    properties: {
      ...fields,
      versions,
      updatedAt: timestamp,
      updatedBy: {
        type: 'object',
        required: ['kind', 'id'],
        properties: { kind: { type: 'string', enum: ['user', 'api_key'] }, id: str, name: str },
      },
      bulkId: { ...strOrNull, description: 'The bulk decision that wrote it.' },
      expired: { type: 'boolean', description: 'Whether expiresAt has passed (the analysis no longer suppresses).' },
    },
  },
  BulkAnalysisResult: {
    type: 'object',
    required: ['bulkId', 'alerts'],
    properties: { bulkId: str, alerts: { type: 'array', items: ref('Alert') } },
  },
};
