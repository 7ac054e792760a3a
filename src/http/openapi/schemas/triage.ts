// Schemas of triage (src/domain/triage, src/http/triage/routes.ts).
import { RULE_NAME_MAX, VALUES_PER_CONDITION } from '../../../domain/triage/rules';
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
  VexDocument: {
    type: 'object',
    description:
      'A CycloneDX 1.4, 1.5 or 1.6 VEX (bomFormat "CycloneDX", vulnerabilities with analysis and affects) or an OpenVEX 0.2.0 document (@context https://openvex.dev/ns/v0.2.0), valid against its official schema.',
  },
  VexImportResult: {
    type: 'object',
    required: ['importId', 'format', 'specVersion', 'statements', 'applied', 'changed', 'alerts', 'unmatched'],
    properties: {
      importId: { type: 'string', pattern: '^vxi_' },
      format: { type: 'string', enum: ['cyclonedx', 'openvex'] },
      specVersion: { type: 'string', enum: ['1.4', '1.5', '1.6', '0.2.0'] },
      statements: { type: 'integer', minimum: 0, description: 'The statements the document holds.' },
      applied: {
        type: 'integer',
        minimum: 0,
        description: 'Alerts the import decided (their analysis written now, or already the same).',
      },
      changed: { type: 'integer', minimum: 0, description: 'Of those, alerts whose analysis the import changed.' },
      alerts: {
        type: 'array',
        description: 'The alerts decided, by statement (its index in the document, from 0), then alert id.',
        items: {
          type: 'object',
          required: ['alertId', 'statement', 'advisory', 'package', 'state', 'versions', 'changed'],
          properties: {
            alertId: str,
            statement: { type: 'integer', minimum: 0 },
            advisory: str,
            package: str,
            state: { type: 'string', enum: ['in_triage', 'exploitable', 'not_affected', 'false_positive', 'resolved'] },
            versions: { type: ['array', 'null'], items: str },
            changed: { type: 'boolean' },
          },
        },
      },
      unmatched: {
        type: 'array',
        description: 'Statements (or a statement for one alert) that decided nothing, and why.',
        items: {
          type: 'object',
          required: ['statement', 'vulnerability', 'package', 'code', 'reason'],
          properties: {
            statement: { type: 'integer', minimum: 0 },
            vulnerability: strOrNull,
            package: strOrNull,
            code: {
              type: 'string',
              enum: [
                'no_analysis',
                'missing_field',
                'invalid_field',
                'no_package',
                'no_alert',
                'version_not_installed',
                'person_analysis',
                'superseded',
              ],
            },
            reason: str,
          },
        },
      },
    },
  },
  BulkAnalysisResult: {
    type: 'object',
    required: ['bulkId', 'alerts'],
    properties: { bulkId: str, alerts: { type: 'array', items: ref('Alert') } },
  },
};

const stringValues = {
  type: 'array',
  minItems: 1,
  maxItems: VALUES_PER_CONDITION,
  items: { type: 'string', minLength: 1, maxLength: 512 },
} as const;

/** What a rule is made of: created whole, changed in part. */
const ruleFields = {
  name: { type: 'string', minLength: 1, maxLength: RULE_NAME_MAX },
  conditions: ref('RuleConditions'),
  analysis: ref('BulkAnalysisInput'),
  expiresAt: { type: ['string', 'null'], format: 'date-time' },
  mode: { type: 'string', enum: ['enforce', 'dry_run'] },
} as const;

export const triageRuleSchemas = {
  RuleConditions: {
    type: 'object',
    additionalProperties: false,
    description:
      'Every given condition must hold, any listed value within one. teams, modules, contexts and relationship read the attributions of a finding in the introduced view and hold only when every one matches; never for a finding without attributions (v1 snapshots, paged scans).',
    properties: {
      projects: { ...stringValues, description: 'Project ids or slugs (stored as ids).' },
      ecosystems: {
        ...stringValues,
        items: { type: 'string', enum: ['gradle', 'python', 'javascript', 'typescript'] },
      },
      teams: stringValues,
      modules: stringValues,
      contexts: {
        ...stringValues,
        description: 'Dependency contexts (dependencies, devDependencies, runtimeClasspath...).',
      },
      relationship: { type: 'string', enum: ['direct', 'transitive'] },
      packages: {
        ...stringValues,
        description: 'Globs on the package name: * any run, ? one character, case-sensitive.',
      },
      advisories: { ...stringValues, description: 'Any id of the alias group, case-insensitive.' },
      severities: { ...stringValues, items: { type: 'string', enum: ['critical', 'high', 'medium', 'low'] } },
    },
  },
  TriageRuleInput: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'analysis', 'mode'],
    properties: ruleFields,
  },
  TriageRuleUpdate: {
    type: 'object',
    additionalProperties: false,
    description: 'The fields to change; the others stay.',
    properties: ruleFields,
  },
  TriageRule: {
    type: 'object',
    required: [
      'id',
      'name',
      'conditions',
      'analysis',
      'expiresAt',
      'mode',
      'expired',
      'createdAt',
      'createdBy',
      'updatedAt',
    ],
    properties: {
      id: { type: 'string', pattern: '^trl_' },
      name: str,
      conditions: ref('RuleConditions'),
      analysis: ref('Analysis'),
      expiresAt: { type: ['string', 'null'], format: 'date-time' },
      mode: { type: 'string', enum: ['enforce', 'dry_run'] },
      expired: { type: 'boolean' },
      createdAt: timestamp,
      createdBy: { type: 'object', required: ['kind', 'id'], properties: { kind: str, id: str, name: str } },
      updatedAt: timestamp,
    },
  },
  TriageRuleList: {
    type: 'object',
    required: ['rules', 'nextCursor'],
    properties: { rules: { type: 'array', items: ref('TriageRule') }, nextCursor: strOrNull },
  },
  TriageRuleMatches: {
    type: 'object',
    required: ['matches', 'count', 'nextCursor'],
    properties: {
      matches: {
        type: 'array',
        items: {
          type: 'object',
          required: ['alert', 'wouldChange'],
          properties: {
            alert: ref('Alert'),
            wouldChange: {
              type: 'boolean',
              description:
                "Whether enforcing the rule would change the alert's suppression (no own analysis in force, no older rule deciding).",
            },
          },
        },
      },
      count: { type: 'integer', minimum: 0, description: 'Open alerts the rule matches now.' },
      nextCursor: strOrNull,
    },
  },
};
