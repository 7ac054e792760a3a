// Exports of a scan: GET /v1/scans/{scanId}/sbom (CycloneDX) and /vex (CycloneDX, or OpenVEX with format=openvex)
// (src/http/scans/exports.ts).
import { CYCLONEDX_MEDIA_TYPE } from '../../shared/cyclonedx/types';
import type { Endpoint } from '../auth/matrix';
import { OPENVEX_MEDIA_TYPE, VEX_FORMATS } from '../../domain/openvex/openvex';
import { pathParam, queryEnum, type Operation, type Param, type Resp } from './operation';
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
const vexEtag = {
  ETag: {
    description:
      "Strong validator: changes with the format, the scan's status, the project's slug, this service's version, the analyses of the project's alerts in the scan's ecosystem (written, changed, removed or expired) and, for OpenVEX, the organization's name (the snapshot and results never change).",
    schema: { type: 'string' },
  },
};
const disposition = (file: string) => ({
  'Content-Disposition': {
    description: `attachment; filename="<scan id>.${file}"`,
    schema: { type: 'string' },
  },
});
const notModified: Resp = { description: 'Not modified: If-None-Match named the current ETag.', headers: etag };
const vexNotModified: Resp = { description: 'Not modified: If-None-Match named the current ETag.', headers: vexEtag };
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
const format = queryEnum(
  'format',
  VEX_FORMATS,
  'The document format: cyclonedx (CycloneDX 1.6 VEX, `' +
    CYCLONEDX_MEDIA_TYPE +
    '`) or openvex (OpenVEX 0.2.0, `' +
    OPENVEX_MEDIA_TYPE +
    '`). Another value, or the parameter given twice: 422 invalid_parameter naming format.',
  'cyclonedx',
);

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
      200: {
        description: 'The SBOM.',
        content: { [CYCLONEDX_MEDIA_TYPE]: { schema: ref('CycloneDxSbom') } },
        headers: { ...etag, ...disposition('sbom.cdx.json') },
      },
      304: notModified,
      404: notFound,
      503: busy,
    },
    usesDatabase: true,
  },
  'GET /v1/scans/:scanId/vex': {
    operationId: 'getScanVex',
    tag: 'exports',
    summary: "The VEX of a completed scan's findings: CycloneDX 1.6, or OpenVEX 0.2.0 with format=openvex",
    description:
      "The triage analyses of the findings' alerts (PUT /v1/alerts/{alertId}/analysis), as the findings list shows them: a finding's analysis is its alert's current one when it has not expired and covers the finding's installed version. " +
      'A finding without such an analysis carries none: the service states nothing about whether it is exploitable. ' +
      "CycloneDX (default, format=cyclonedx): one vulnerability per finding (suppressed ones included): id = Finding.cve, the alias group's other ids as references, ratings (the finding's severity, then every CVSS vector of the group's " +
      'stored advisories, scored), `affects` the component of its package (bom-ref = packageRef, the same bom-ref and purl as in the SBOM; the affected components are included), ' +
      "recommendation = the fixed version, and `analysis` {state, justification, response, detail} (CycloneDX's names and values, empty fields left out) only when the finding has an analysis. " +
      "A suppression is not an analysis: a suppressed finding has the properties scanner:suppressed, scanner:suppressionSource (snapshot, analysis or rule: what suppressed it when the scan was processed), scanner:suppressionReason, scanner:suppressionExpires (a snapshot suppression's date), scanner:ruleId. " +
      'Content-Type `' +
      CYCLONEDX_MEDIA_TYPE +
      '`; valid against the official CycloneDX 1.6 schema. ' +
      "OpenVEX (format=openvex): one statement per (advisory, package) of the findings that have an analysis, the product being the project (urn:supply-chain-scanner:project:<project id>) with the package's purl as its subcomponent; " +
      'status: not_affected → not_affected (justification mapped: code_not_present → vulnerable_code_not_present, code_not_reachable → vulnerable_code_not_in_execute_path, requires_configuration, requires_dependency and requires_environment → vulnerable_code_cannot_be_controlled_by_adversary, protected_* → inline_mitigations_already_exist; impact_statement = detail), ' +
      "false_positive → not_affected with vulnerable_code_not_present and impact_statement = detail, exploitable → affected (action_statement = detail, else the responses in words), resolved → fixed, in_triage → under_investigation; status_notes keeps the analysis in CycloneDX's words. " +
      "author: the organization's name; timestamp: the scan's finishedAt (last_updated: the latest analysis when later). Content-Type `" +
      OPENVEX_MEDIA_TYPE +
      '`; valid against the official OpenVEX 0.2.0 schema, which wants at least one statement: a scan none of whose findings has an analysis has no OpenVEX document (409 invalid_state). ' +
      'A scan not completed yet (queued, running or failed) has no findings: 409 invalid_state, since an empty VEX would read as "no vulnerabilities".' +
      BUSY,
    parameters: [scanId, format, ifNoneMatch],
    responses: {
      200: {
        description: 'The VEX, in the format asked for.',
        content: {
          [CYCLONEDX_MEDIA_TYPE]: { schema: ref('CycloneDxVex') },
          [OPENVEX_MEDIA_TYPE]: { schema: ref('OpenVex') },
        },
        headers: {
          ...vexEtag,
          'Content-Disposition': {
            description:
              'attachment; filename="<scan id>.vex.cdx.json" (CycloneDX) or "<scan id>.openvex.json" (OpenVEX)',
            schema: { type: 'string' },
          },
        },
      },
      304: vexNotModified,
      404: notFound,
      409: {
        description:
          'invalid_state: the scan has not completed (queued, running or failed); for format=openvex also: none of its findings has an analysis.',
        codes: ['invalid_state'],
      },
      422: {
        description: 'invalid_parameter: format is not cyclonedx or openvex, or is given twice.',
        codes: ['invalid_parameter'],
      },
      503: busy,
    },
    usesDatabase: true,
  },
};
