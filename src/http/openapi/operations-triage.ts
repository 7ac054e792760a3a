// Analyses of alerts (src/http/triage/routes.ts).
import type { Endpoint } from '../auth/matrix';
import { LIST_ERRORS, OBJECT_BODY_ERRORS, PAGINATION, pathParam, type Operation } from './operation';
import { ref } from './schemas/common';
import { alertId, alertNotFound } from './operations-alerts';

type TriageRoute = Extract<Endpoint, `${string} /v1/alerts/${string}analysis`>;

const bodyErrors = {
  ...OBJECT_BODY_ERRORS,
  422: {
    description:
      'invalid_parameter or missing_parameter naming the field: an unknown field, a state, justification or response out of its list, a justification missing for not_affected, a detail missing (not_affected, false_positive, resolved) or over 2,000 characters, expiresAt not in the future or over a year ahead, versions not installed versions of the alert, ticketUrl not https.',
    codes: ['invalid_parameter' as const, 'missing_parameter' as const],
  },
};

export const triageOperations: Record<TriageRoute, Operation> = {
  'PUT /v1/alerts/:alertId/analysis': {
    operationId: 'setAlertAnalysis',
    tag: 'alerts',
    summary: "Set an alert's analysis (findings:triage)",
    description:
      'not_affected, false_positive and resolved suppress the alert while every installed version it has is covered and the analysis has not expired: findings of scans processed after the decision are suppressed (suppressionSource analysis) and leave counts, gate and events. The alert history and the audit trail (alert.analysis_changed) record the change with its actor, before and after. Two analyses at once: the later wins, the history holds both.',
    parameters: [alertId],
    requestBody: { description: 'The analysis.', required: true, schema: ref('AnalysisInput') },
    responses: { 200: { description: 'The alert.', schema: ref('Alert') }, 404: alertNotFound, ...bodyErrors },
    usesDatabase: true,
  },
  'DELETE /v1/alerts/:alertId/analysis': {
    operationId: 'deleteAlertAnalysis',
    tag: 'alerts',
    summary: "Remove an alert's analysis (findings:triage)",
    description: 'The history keeps the removal (analysis_changed, after: null); audited as alert.analysis_deleted.',
    parameters: [alertId],
    responses: { 204: { description: 'Removed (or there was none).' }, 404: alertNotFound },
    usesDatabase: true,
  },
  'POST /v1/alerts/analysis': {
    operationId: 'bulkAlertAnalysis',
    tag: 'alerts',
    summary: 'One analysis for up to 500 alerts (findings:triage)',
    description:
      "Every id is checked first (404 for any unknown or out of reach, nothing written); then the analysis (no versions: each alert's every version) is applied to each alert under one bulk id. Idempotent: an alert already holding the same decision is left as it is, so a retried request completes what a failed one started.",
    requestBody: { description: 'The alerts and the analysis.', required: true, schema: ref('BulkAnalysis') },
    responses: {
      200: { description: 'The alerts as they now read.', schema: ref('BulkAnalysisResult') },
      404: { description: 'not_found: an id names no alert in reach.', codes: ['not_found'] },
      ...bodyErrors,
    },
    usesDatabase: true,
  },
};

type VexRoute = Extract<Endpoint, `${string} /v1/projects/${string}/vex`>;

export const vexOperations: Record<VexRoute, Operation> = {
  'POST /v1/projects/:projectId/vex': {
    operationId: 'importVex',
    tag: 'alerts',
    summary: "Import a VEX document's decisions as the project's alert analyses (findings:triage)",
    description:
      "A CycloneDX 1.4-1.6 VEX or an OpenVEX 0.2.0 document, told apart by its content and validated against its official schema (Content-Type application/json, application/vnd.cyclonedx+json or application/openvex+json). Each statement becomes the analysis of the project's alerts it matches: advisory by any alias, package by its purl mapped to the ecosystem's name (npm scope, PEP 503, Maven group:artifact); a purl version becomes versions. Statements missing what an analysis requires (a justification for not_affected; a detail for not_affected, false_positive and resolved), matching no alert, or superseded by a later statement are reported in unmatched with a code and reason. A person's analysis is kept unless overwrite=true; one an earlier import wrote is replaced. Nothing is written for a refused document. Audited as project.vex_imported; each alert's history has the change with the importId.",
    parameters: [
      pathParam(
        'projectId',
        "The project id (prj_...) or slug. Unknown, of another organization or out of a restricted key's reach: 404 not_found.",
      ),
      {
        name: 'overwrite',
        in: 'query',
        description: 'true: replace analyses people made too. Default false. Another value: 422 invalid_parameter.',
        schema: { type: 'string', enum: ['true', 'false'], default: 'false' },
      },
    ],
    requestBody: { description: 'The VEX document.', required: true, schema: ref('VexDocument') },
    responses: {
      200: { description: 'What the import decided.', schema: ref('VexImportResult') },
      400: {
        description: 'The request body was aborted before its end (code invalid_parameter).',
        codes: ['invalid_parameter'],
      },
      404: { description: 'not_found: no such project in reach.', codes: ['not_found'] },
      413: {
        description: 'invalid_parameter: the document is over 5 MB or holds over 10,000 statements.',
        codes: ['invalid_parameter'],
      },
      422: {
        description:
          'invalid_parameter: another Content-Type, not JSON, neither CycloneDX 1.4-1.6 nor OpenVEX 0.2.0, invalid against its schema (the message names the JSON pointer), or overwrite neither true nor false.',
        codes: ['invalid_parameter'],
      },
    },
    usesDatabase: true,
  },
};

type RuleRoute = Extract<Endpoint, `${string} /v1/triage-rules${string}`>;

const ruleId = pathParam('ruleId', 'The triage rule id (trl_...). Unknown or of another organization: 404 not_found.');
const ruleNotFound = { description: 'not_found: no such rule in the organization.', codes: ['not_found' as const] };
const ruleErrors = {
  ...OBJECT_BODY_ERRORS,
  422: {
    description:
      "invalid_parameter or missing_parameter naming the field (name, conditions.<condition> with at most 100 values, analysis.<field> as an analysis's, expiresAt, mode; rules: at most 200 per organization), unknown_project (conditions.projects).",
    codes: ['invalid_parameter' as const, 'missing_parameter' as const, 'unknown_project' as const],
  },
};

export const triageRuleOperations: Record<RuleRoute, Operation> = {
  'POST /v1/triage-rules': {
    operationId: 'createTriageRule',
    tag: 'alerts',
    summary: 'Create a triage rule (owners and admins)',
    description:
      "An analysis applied to every alert and finding meeting the conditions: on alerts at once, on the findings of every scan processed after it. Precedence: an alert's own analysis, then the oldest enforce rule that matches. dry_run rules change nothing (their matches say what they would). Audited (triage_rule.created).",
    requestBody: { description: 'The rule.', required: true, schema: ref('TriageRuleInput') },
    responses: { 201: { description: 'The rule.', schema: ref('TriageRule') }, ...ruleErrors },
    usesDatabase: true,
  },
  'GET /v1/triage-rules': {
    operationId: 'listTriageRules',
    tag: 'alerts',
    summary: "The organization's triage rules, oldest first (any member)",
    parameters: [...PAGINATION],
    responses: {
      200: { description: 'A page of rules.', schema: ref('TriageRuleList') },
      422: { description: 'invalid_parameter (limit, a repeated parameter), invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
  'GET /v1/triage-rules/:ruleId': {
    operationId: 'getTriageRule',
    tag: 'alerts',
    summary: 'One triage rule',
    parameters: [ruleId],
    responses: { 200: { description: 'The rule.', schema: ref('TriageRule') }, 404: ruleNotFound },
    usesDatabase: true,
  },
  'PATCH /v1/triage-rules/:ruleId': {
    operationId: 'updateTriageRule',
    tag: 'alerts',
    summary: 'Change a triage rule (owners and admins)',
    description: 'Audited (triage_rule.updated) with before and after.',
    parameters: [ruleId],
    requestBody: { description: 'The fields to change.', required: true, schema: ref('TriageRuleUpdate') },
    responses: { 200: { description: 'The rule.', schema: ref('TriageRule') }, 404: ruleNotFound, ...ruleErrors },
    usesDatabase: true,
  },
  'DELETE /v1/triage-rules/:ruleId': {
    operationId: 'deleteTriageRule',
    tag: 'alerts',
    summary: 'Delete a triage rule (owners and admins)',
    description: 'Alerts it suppressed read unsuppressed at once. Audited (triage_rule.deleted).',
    parameters: [ruleId],
    responses: { 204: { description: 'Deleted.' }, 404: ruleNotFound },
    usesDatabase: true,
  },
  'GET /v1/triage-rules/:ruleId/matches': {
    operationId: 'listTriageRuleMatches',
    tag: 'alerts',
    summary: 'The open alerts a rule matches now (the preview of a dry_run rule)',
    parameters: [ruleId, ...PAGINATION],
    responses: {
      200: { description: 'A page of matches.', schema: ref('TriageRuleMatches') },
      404: ruleNotFound,
      422: { description: 'invalid_parameter (limit, a repeated parameter), invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
};
