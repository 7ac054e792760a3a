// CycloneDX exports of a scan: GET /v1/scans/{scanId}/sbom and /vex (src/http/scans/exports.ts).
import { CYCLONEDX_MEDIA_TYPE } from '../../shared/cyclonedx/types';
import type { Endpoint } from '../auth/matrix';
import { pathParam, type Operation, type Param, type Resp } from './operation';
import { ref } from './schemas/common';

type ExportRoute = Extract<Endpoint, 'GET /v1/scans/:scanId/sbom' | 'GET /v1/scans/:scanId/vex'>;

const scanId = pathParam('scanId', "The scan id (scn_...). Unknown or out of the credential's reach: 404 not_found.");
const ifNoneMatch: Param = {
  name: 'If-None-Match',
  in: 'header',
  description: 'The ETag of a copy already held: 304 when it is still this answer.',
  schema: { type: 'string' },
};
const etag = {
  ETag: {
    description:
      "Strong validator: changes with the scan's status, the project's slug and this service's version (the snapshot and results never change).",
    schema: { type: 'string' },
  },
};
const notModified: Resp = { description: 'Not modified: If-None-Match named the current ETag.', headers: etag };
const notFound: Resp = {
  description: "not_found: no such scan, or out of the credential's reach.",
  codes: ['not_found'],
};
const BUSY =
  " Each export holds the scan's parsed snapshot (a paged scan's too) and the document it builds, so an API process builds at most EXPORTS_MAX_IN_FLIGHT (default 2) at once; past it, 503 service_unavailable with Retry-After, at once.";
const busy: Resp = {
  description: 'service_unavailable: EXPORTS_MAX_IN_FLIGHT exports are being built by this server.',
  codes: ['service_unavailable'],
};
const document = (schema: string, description: string): Resp => ({
  description,
  content: { [CYCLONEDX_MEDIA_TYPE]: { schema: ref(schema) } },
  headers: etag,
});

export const exportOperations: Record<ExportRoute, Operation> = {
  'GET /v1/scans/:scanId/sbom': {
    operationId: 'getScanSbom',
    tag: 'exports',
    summary: "The CycloneDX 1.6 SBOM of a scan's snapshot",
    description:
      "Every package of the snapshot as a library component with its purl, `bom-ref` = the package's inventory id (dep_..., a finding's packageRef); the first-party modules (v2 modules; " +
      "v1 the manifests its paths start from) as the project's sub-components (metadata.component.components, mod_... refs); the dependency graph. v1, inline v2 and paged scans alike, " +
      "whatever the scan's status (the snapshot is stored at upload). Deterministic: the same scan gives the same bytes (serialNumber derived from the scan id, timestamp its startedAt, sorted arrays); " +
      '`scanner scan --format cyclonedx` writes the same document for the scan it made. Content-Type `' +
      CYCLONEDX_MEDIA_TYPE +
      '`; valid against the official CycloneDX 1.6 schema.' +
      BUSY,
    parameters: [scanId, ifNoneMatch],
    responses: {
      200: document('CycloneDxSbom', 'The SBOM.'),
      304: notModified,
      404: notFound,
      503: busy,
    },
    usesDatabase: true,
  },
  'GET /v1/scans/:scanId/vex': {
    operationId: 'getScanVex',
    tag: 'exports',
    summary: "The CycloneDX 1.6 VEX of a completed scan's findings",
    description:
      "One vulnerability per finding (suppressed ones included): id = Finding.cve, the alias group's other ids as references, ratings (the finding's severity, then every CVSS vector of the group's " +
      'stored advisories, scored), `affects` the component of its package (bom-ref = packageRef, the same bom-ref and purl as in the SBOM; the affected components are included), ' +
      "recommendation = the fixed version. Analysis state: an unsuppressed finding is `in_triage` (the installed version is in the advisory's ranges; whether it is exploitable where it runs " +
      'is not known), with response ["update"] when a fixed version exists; a suppressed finding is `not_affected` (the project\'s own statement, sent with the snapshot), `detail` carrying ' +
      'the suppression\'s reason and expiry date. A scan not completed yet (queued, running or failed) has no findings: 409 invalid_state, since an empty VEX would read as "no vulnerabilities". ' +
      'Content-Type `' +
      CYCLONEDX_MEDIA_TYPE +
      '`; valid against the official CycloneDX 1.6 schema.' +
      BUSY,
    parameters: [scanId, ifNoneMatch],
    responses: {
      200: document('CycloneDxVex', 'The VEX.'),
      304: notModified,
      404: notFound,
      409: {
        description: 'invalid_state: the scan has not completed (queued, running or failed).',
        codes: ['invalid_state'],
      },
      503: busy,
    },
    usesDatabase: true,
  },
};
