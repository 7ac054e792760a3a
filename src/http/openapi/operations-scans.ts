// Scans and findings: POST /v1/scans/dependency-snapshots (src/http/scans/inline-upload.ts), GET /v1/scans,
// GET /v1/scans/{scanId} (src/http/scans/routes.ts), GET /v1/scans/{scanId}/findings (src/http/findings/routes.ts).
import { SEVERITIES } from '../../shared/types';
import { LIST_ERRORS, PAGINATION, pathParam, queryEnum, serverTiming, type Operation } from './operation';
import { ref } from './schemas/common';

const scanId = pathParam('scanId', "The scan id (scn_...). Unknown or out of the credential's reach: 404 not_found.");

export const scanOperations = {
  'POST /v1/scans/dependency-snapshots': {
    operationId: 'uploadDependencySnapshot',
    tag: 'scans',
    summary: 'Upload a dependency snapshot and queue a scan',
    description:
      'The body is a snapshot v1 or v2, chosen by schemaVersion, validated by the schema below and then by the cross-reference rules (422 invalid_snapshot). ' +
      'Limits (10 MB, 10,000 nodes, 1,000 modules and roots, 100,000 vertices, 500,000 edges, 256 hops, attribution work) answer 413 snapshot_too_large. ' +
      'A new project slug creates the project, unless the key has a project restriction.',
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        description:
          'Client token, at most 128 characters (more: 422 invalid_idempotency_key). The same key with an identical body within 24 hours returns the original scan with 200; with a different body, 409 idempotency_conflict.',
        schema: { type: 'string', maxLength: 128 },
      },
    ],
    requestBody: { description: 'A dependency snapshot (application/json).', required: true, schema: ref('Snapshot') },
    responses: {
      201: {
        description: 'The scan, queued (modules empty).',
        schema: ref('Scan'),
        headers: serverTiming('auth, body, validate, project, idempotency, recheck, store'),
      },
      200: { description: 'An idempotent replay: the original scan.', schema: ref('Scan') },
      400: { description: 'bad_request: the body ended before its Content-Length.', codes: ['bad_request'] },
      409: {
        description:
          'idempotency_conflict: the Idempotency-Key was used with a different body, or a concurrent request holds it.',
        codes: ['idempotency_conflict'],
      },
      413: {
        description: 'snapshot_too_large: over the body size or a single-document graph limit.',
        codes: ['snapshot_too_large'],
      },
      422: {
        description:
          "invalid_snapshot (not JSON, wrong Content-Type, unknown schemaVersion, structural or cross-reference violation; the message is a JSON pointer and what is wrong), unknown_project (outside the key's project restriction), invalid_idempotency_key.",
        codes: ['invalid_snapshot', 'unknown_project', 'invalid_idempotency_key'],
      },
      503: {
        description:
          'service_unavailable: too many large uploads in flight, or the database is unreachable. Retry after Retry-After seconds.',
        codes: ['service_unavailable'],
      },
    },
    usesDatabase: true,
  },
  'GET /v1/scans': {
    operationId: 'listScans',
    tag: 'scans',
    summary: 'List scans, newest first',
    description:
      "A page may end early (even empty) with a nextCursor where reading stopped. Keys with a project restriction see only their projects' scans.",
    parameters: [
      {
        name: 'project',
        in: 'query',
        description:
          'Project id or slug; omitted: every scan of the organization. Unknown or out of reach: 422 unknown_project.',
        schema: { type: 'string' },
      },
      queryEnum('status', ['queued', 'running', 'completed', 'failed'], 'Only scans in this status.'),
      ...PAGINATION,
    ],
    responses: {
      200: { description: 'A page of scans.', schema: ref('ScanList') },
      422: {
        description: 'invalid_parameter (limit, status, a repeated parameter), invalid_cursor, unknown_project.',
        codes: [...LIST_ERRORS, 'unknown_project'],
      },
    },
    usesDatabase: true,
  },
  'GET /v1/scans/:scanId': {
    operationId: 'getScan',
    tag: 'scans',
    summary: 'Get a scan, optionally held until it is done',
    parameters: [
      scanId,
      {
        name: 'wait',
        in: 'query',
        description:
          'Whole seconds, 0 to 60 (default 0): the answer is held until the scan is completed or failed or this many seconds pass, then the scan as it is. Otherwise 422 invalid_parameter.',
        schema: { type: 'integer', minimum: 0, maximum: 60, default: 0 },
      },
    ],
    responses: {
      200: { description: 'The scan.', schema: ref('Scan') },
      404: { description: "not_found: no such scan, or out of the credential's reach.", codes: ['not_found'] },
      422: { description: 'invalid_parameter: wait is not a whole number from 0 to 60.', codes: ['invalid_parameter'] },
    },
    usesDatabase: true,
  },
  'GET /v1/scans/:scanId/findings': {
    operationId: 'listFindings',
    tag: 'findings',
    summary: 'List the findings of a scan, severity descending then id',
    description:
      'Filters apply before pagination. Unknown module or team labels give an empty list. A scan not yet completed gives an empty list with counts null.',
    parameters: [
      scanId,
      queryEnum('severity', SEVERITIES, 'At-or-above filter (or exactly this severity with severityMode=exact).'),
      queryEnum('severityMode', ['at_least', 'exact'], 'How severity selects.', 'at_least'),
      queryEnum(
        'suppressed',
        ['false', 'true', 'all'],
        'false hides suppressed findings, true shows only them, all shows both.',
        'false',
      ),
      { name: 'module', in: 'query', description: 'Module path (module-aware scans).', schema: { type: 'string' } },
      {
        name: 'team',
        in: 'query',
        description: 'Team label (module-aware scans); must match the same module as module when both are given.',
        schema: { type: 'string' },
      },
      queryEnum(
        'attribution',
        ['affected', 'introduced'],
        'affected: consuming modules; introduced: the modules declaring an introducing dependency.',
        'affected',
      ),
      queryEnum(
        'details',
        ['summary'],
        'summary: the light shape on any scan, each finding with `attributions: []` and `attributionCount` (its attributions in the view and module/team scope; read them with GET .../findings/{findingId}/attributions). Paged scans always answer this shape. Another value: 422 invalid_parameter.',
      ),
      ...PAGINATION,
    ],
    responses: {
      200: { description: "A page of findings, with the scope's counts.", schema: ref('FindingList') },
      404: { description: "not_found: no such scan, or out of the credential's reach.", codes: ['not_found'] },
      422: {
        description: 'invalid_parameter (a filter value, limit, a repeated parameter), invalid_cursor.',
        codes: LIST_ERRORS,
      },
    },
    usesDatabase: true,
  },
} satisfies Record<string, Operation>;
