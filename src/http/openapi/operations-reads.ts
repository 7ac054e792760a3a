// Module and attribution reads of a scan (platform.md §2), for paged and inline scans alike (src/http/scans/reads.ts).
import type { Endpoint } from '../auth/matrix';
import { PAGINATION, pathParam, type Operation } from './operation';
import { ref } from './schemas/common';

type ReadRoute = Extract<Endpoint, 'GET /v1/scans/:scanId/modules' | `GET /v1/scans/:scanId/findings/:findingId/attributions${string}`>;

const scanId = pathParam('scanId', 'The scan id (scn_...). Unknown or out of the credential\'s reach: 404 not_found.');
const findingId = pathParam('findingId', 'The finding id (fnd_...). Not a finding of this scan: 404 not_found.');

export const readOperations: Record<ReadRoute, Operation> = {
  'GET /v1/scans/:scanId/modules': {
    operationId: 'listScanModules',
    tag: 'scans',
    summary: 'The modules of a scan, in the spec\'s module order, with per-module counts',
    parameters: [scanId, ...PAGINATION],
    responses: { 200: { description: 'A page of modules.', schema: ref('ScanModuleList') } },
    usesDatabase: true,
  },
  'GET /v1/scans/:scanId/findings/:findingId/attributions': {
    operationId: 'listFindingAttributions',
    tag: 'findings',
    summary: 'The attributions of a finding',
    parameters: [scanId, findingId, ...PAGINATION],
    responses: { 200: { description: 'A page of attributions.', schema: ref('AttributionList') } },
    usesDatabase: true,
  },
  'GET /v1/scans/:scanId/findings/:findingId/attributions/:attributionId/path': {
    operationId: 'getAttributionPath',
    tag: 'findings',
    summary: 'The path and origins of one attribution',
    parameters: [scanId, findingId, pathParam('attributionId', 'The attribution id (att_...).')],
    responses: { 200: { description: 'The path.', schema: ref('AttributionPath') } },
    usesDatabase: true,
  },
};
