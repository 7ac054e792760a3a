// CycloneDX exports of a scan (platform.md §8): GET /v1/scans/{scanId}/sbom and /vex (src/http/scans/exports.ts).
import type { Endpoint } from '../auth/matrix';
import type { Operation } from './operation';

type ExportRoute = Extract<Endpoint, 'GET /v1/scans/:scanId/sbom' | 'GET /v1/scans/:scanId/vex'>;

export const exportOperations: Record<ExportRoute, Operation> = {
  'GET /v1/scans/:scanId/sbom': {
    operationId: 'TODO_exports_0',
    tag: 'exports',
    summary: 'TODO',
    responses: { 200: { description: 'TODO' } },
    usesDatabase: true,
  },
  'GET /v1/scans/:scanId/vex': {
    operationId: 'TODO_exports_1',
    tag: 'exports',
    summary: 'TODO',
    responses: { 200: { description: 'TODO' } },
    usesDatabase: true,
  },
};
