// Project alerts across scans (src/http/alerts/routes.ts).
import { ALERT_SORTS, ANALYSIS_STATES } from '../../domain/alerts/query';
import { SEVERITIES } from '../../shared/types';
import type { Endpoint } from '../auth/matrix';
import { LIST_ERRORS, PAGINATION, pathParam, queryEnum, type Operation, type Param } from './operation';
import { ref } from './schemas/common';

type AlertRoute = Extract<Endpoint, `GET /v1/alerts${string}`>;

const text = (name: string, description: string): Param => ({
  name,
  in: 'query',
  description: `${description} Empty, repeated or over 512 characters: 422 invalid_parameter.`,
  schema: { type: 'string', minLength: 1, maxLength: 512 },
});

export const alertId = pathParam(
  'alertId',
  "The alert id (alr_...). A merged alert's id answers the alert it was merged into. Unknown or out of the credential's reach: 404 not_found.",
);
export const alertNotFound = {
  description: "not_found: no such alert, or its project is out of the credential's reach.",
  codes: ['not_found' as const],
};

export const alertOperations: Record<AlertRoute, Operation> = {
  'GET /v1/alerts': {
    operationId: 'listAlerts',
    tag: 'alerts',
    summary: "The organization's alerts: each vulnerability of a project, across its tracked scans",
    description:
      'An alert is one advisory alias group affecting one package of one project and ecosystem, kept across the tracked scans (the default branch) of that project: open while the latest tracked scan has it, fixed when a later one no longer does, open again when it comes back. ' +
      'Filters combine (AND). A restricted key sees its projects only. The cursor binds the filters and the sort: a cursor of another query is 422 invalid_cursor. ' +
      '`kev` and `epssMin` select on the intelligence feeds; until those are imported no alert carries KEV or EPSS (kev=true and epssMin select nothing), and `risk` orders as `severity`.',
    parameters: [
      text('project', 'Project id (prj_...) or slug. Unknown or out of reach: 422 unknown_project.'),
      queryEnum('ecosystem', ['gradle', 'python', 'javascript', 'typescript'], 'Only alerts of this ecosystem.'),
      queryEnum('status', ['open', 'fixed', 'all'], 'Alert status (merged alerts are never listed).', 'open'),
      queryEnum('severity', SEVERITIES, 'With severityMode: at least (default) or exactly this severity.'),
      queryEnum('severityMode', ['at_least', 'exact'], 'How severity selects.', 'at_least'),
      queryEnum('analysis', [...ANALYSIS_STATES, 'none'], "The alert's analysis state, or none."),
      queryEnum('suppressed', ['false', 'true', 'all'], 'Suppressed alerts (every finding suppressed).', 'false'),
      text('team', 'Team label of an introducing module.'),
      text('module', 'An introducing module path (v2).'),
      text('package', 'Exact package name, as the ecosystem compares names.'),
      text('advisory', 'Any id of the alias group (GHSA, CVE, PYSEC...), case-insensitive.'),
      queryEnum('fixable', ['true', 'false'], 'Whether a fixed version exists.'),
      queryEnum('kev', ['true', 'false'], "Whether the advisory is in CISA's KEV catalog."),
      {
        name: 'epssMin',
        in: 'query',
        description: 'Lowest EPSS score (0 to 1). Anything else: 422 invalid_parameter.',
        schema: { type: 'number', minimum: 0, maximum: 1 },
      },
      text('q', 'Prefix of the package name or of any advisory id, case-insensitive.'),
      queryEnum(
        'sort',
        ALERT_SORTS,
        'risk (the default): KEV first, then severity, then highest EPSS score (none last), then highest CVSS score, then newest firstSeenAt, then id. severity: most severe, then highest CVSS score, then newest firstSeenAt, then id. firstSeen, lastSeen: newest first.',
        'risk',
      ),
      ...PAGINATION,
    ],
    responses: {
      200: { description: 'A page of alerts.', schema: ref('AlertList') },
      422: {
        description:
          'invalid_parameter (a filter, sort, limit, a repeated parameter), invalid_cursor, unknown_project.',
        codes: [...LIST_ERRORS, 'unknown_project'],
      },
    },
    usesDatabase: true,
  },
  'GET /v1/alerts/:alertId': {
    operationId: 'getAlert',
    tag: 'alerts',
    summary: 'One alert',
    description: "A merged alert's id answers the alert it was merged into (its `id` says which).",
    parameters: [alertId],
    responses: { 200: { description: 'The alert.', schema: ref('Alert') }, 404: alertNotFound },
    usesDatabase: true,
  },
  'GET /v1/alerts/:alertId/history': {
    operationId: 'listAlertHistory',
    tag: 'alerts',
    summary: "An alert's history, newest first",
    description:
      'Every event of the alert and of the alerts merged into it: opened (the scan and advisory generation that first had it), versions_changed, fixed, reopened, merged.',
    parameters: [alertId, ...PAGINATION],
    responses: {
      200: { description: 'A page of events.', schema: ref('AlertHistory') },
      404: alertNotFound,
      422: { description: 'invalid_parameter (limit, a repeated parameter), invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
};
