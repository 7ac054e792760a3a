// Module and attribution reads of a scan, for paged and inline scans alike (src/http/scans/reads.ts).
import type { Endpoint } from '../auth/matrix';
import { LIST_ERRORS, PAGINATION, pathParam, queryEnum, type Operation } from './operation';
import { ref } from './schemas/common';

type ReadRoute = Extract<
  Endpoint,
  'GET /v1/scans/:scanId/modules' | `GET /v1/scans/:scanId/findings/:findingId/attributions${string}`
>;

const scanId = pathParam('scanId', "The scan id (scn_...). Unknown or out of the credential's reach: 404 not_found.");
const findingId = pathParam(
  'findingId',
  'The finding id (fnd_...). Not a finding of this completed scan: 404 not_found.',
);
const scanNotFound = {
  description: "not_found: no such scan, or out of the credential's reach; or no such finding of the scan.",
  codes: ['not_found' as const],
};

export const readOperations: Record<ReadRoute, Operation> = {
  'GET /v1/scans/:scanId/modules': {
    operationId: 'listScanModules',
    tag: 'scans',
    summary: "The modules of a scan, in the scan's module order, with per-module counts",
    description:
      'Every module of a completed v2 scan (inline or paged), dependencies before consumers (the order of Scan.modules). ' +
      '`counts`, in the affected view: per module, the unsuppressed severity totals and the suppressed total of the findings whose attributions include that module (each finding once). ' +
      'v1 scans and scans not completed yet: an empty list.',
    parameters: [scanId, ...PAGINATION],
    responses: {
      200: { description: 'A page of modules.', schema: ref('ScanModuleList') },
      404: { description: "not_found: no such scan, or out of the credential's reach.", codes: ['not_found'] },
      422: { description: 'invalid_parameter (limit, a repeated parameter), invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
  'GET /v1/scans/:scanId/findings/:findingId/attributions': {
    operationId: 'listFindingAttributions',
    tag: 'findings',
    summary: 'The attributions of a finding, without their paths',
    description:
      "In attribution order (the scan's module order, then context). `id`s (att_...) are deterministic: the same graph gives the same ids, uploaded inline or in parts. " +
      "affected view: `module`/`team` select the attribution's module; introduced view: the attributions with at least one origin in the selected modules, listed with all their origins. " +
      'Unknown module or team labels give an empty list. v1 findings have none. A scan not completed yet: an empty list whatever the finding id.',
    parameters: [
      scanId,
      findingId,
      queryEnum('attribution', ['affected', 'introduced'], 'The view module and team select in.', 'affected'),
      { name: 'module', in: 'query', description: 'Module path.', schema: { type: 'string' } },
      {
        name: 'team',
        in: 'query',
        description: 'Team label; with module, the module must carry it.',
        schema: { type: 'string' },
      },
      ...PAGINATION,
    ],
    responses: {
      200: { description: 'A page of attributions.', schema: ref('AttributionList') },
      404: scanNotFound,
      422: {
        description: 'invalid_parameter (attribution, limit, a repeated parameter), invalid_cursor.',
        codes: LIST_ERRORS,
      },
    },
    usesDatabase: true,
  },
  'GET /v1/scans/:scanId/findings/:findingId/attributions/:attributionId/path': {
    operationId: 'getAttributionPath',
    tag: 'findings',
    summary: 'The path and origins of one attribution',
    description:
      'Exactly what the inline attribution holds: its path (module paths then package ids) and its origins with their paths. A scan not completed yet has no attributions: 404 not_found.',
    parameters: [
      scanId,
      findingId,
      pathParam('attributionId', 'The attribution id (att_...) from the attributions list. Unknown: 404 not_found.'),
    ],
    responses: {
      200: { description: 'The path.', schema: ref('AttributionPath') },
      404: { description: 'not_found: no such scan (or out of reach), finding or attribution.', codes: ['not_found'] },
    },
    usesDatabase: true,
  },
};
