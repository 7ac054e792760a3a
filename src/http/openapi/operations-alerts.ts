// Project alerts across scans (src/http/alerts/routes.ts).
import { ALERT_SORTS, ANALYSIS_STATES } from '../../domain/alerts/query';
import { SEVERITIES } from '../../shared/types';
import type { Endpoint } from '../auth/matrix';
import { LIST_ERRORS, PAGINATION, pathParam, queryEnum, type Operation, type Param } from './operation';
import { ALERT_CSV_COLUMNS } from '../../presenters/alerts-csv';
import { ref } from './schemas/common';

type AlertRoute = Extract<Endpoint, `GET /v1/alerts${string}`>;

const text = (name: string, description: string): Param => ({
  name,
  in: 'query',
  description: `${description} Empty, repeated or over 512 characters: 422 invalid_parameter.`,
  schema: { type: 'string', minLength: 1, maxLength: 512 },
});

/** The list's filters and sort, shared by GET /v1/alerts and its CSV export (src/http/alerts/query.ts). */
const ALERT_FILTERS: Param[] = [
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
];

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
    parameters: [...ALERT_FILTERS, ...PAGINATION],
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
  'GET /v1/alerts/export.csv': {
    operationId: 'exportAlertsCsv',
    tag: 'alerts',
    summary: 'The alerts list as a CSV file',
    description:
      'The alerts GET /v1/alerts selects with the same filters and sort (default risk), every one of them (no pages), as CSV (RFC 4180): a header row, then one record per alert, each ending with CRLF. ' +
      'Columns, in order: ' +
      ALERT_CSV_COLUMNS.map((c) => '`' + c + '`').join(', ') +
      ". Each cell is the Alert resource's value (`project` the project id, `projectSlug` its slug; `cvssScore` and `cvssVector` from `cvss`; `kev` the KEV entry's dateAdded; `epss` the EPSS score; `analysisState`, `analysisJustification` and `analysisDetail` from `analysis`, whether or not it has expired); " +
      'several values (installedVersions, aliases, teams, modules) are joined by `;`; null is an empty cell; `suppressed` is true or false. ' +
      "A cell holding a comma, a double quote, CR or LF is quoted (its double quotes doubled). A cell starting with `=`, `+`, `-`, `@`, tab or carriage return (or the full-width ＝ ＋ － ＠) is prefixed with `'` so that a spreadsheet does not run it as a formula. " +
      'At most 100,000 records, the first ones in the sort: `X-Truncated: true` when more alerts matched (narrow the filters to have the rest), false otherwise. ' +
      'The credential and the query are checked before the first byte: every refusal is the JSON error envelope. A restricted key sees its projects only.',
    parameters: ALERT_FILTERS,
    responses: {
      200: {
        description: 'The CSV file (Content-Type `text/csv; charset=utf-8`), sent as it is written.',
        content: { 'text/csv': { schema: { type: 'string' } } },
        headers: {
          'Content-Disposition': {
            description: 'attachment; filename="alerts-<YYYY-MM-DD>.csv" (the UTC date of the export)',
            schema: { type: 'string' },
          },
          'X-Truncated': {
            description: 'true when more than 100,000 alerts matched and only the first 100,000 are in the file.',
            schema: { type: 'string', enum: ['true', 'false'] },
          },
        },
      },
      422: {
        description: 'invalid_parameter (a filter or the sort, a repeated parameter), unknown_project.',
        codes: ['invalid_parameter', 'unknown_project'],
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
