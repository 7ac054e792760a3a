// The part of CycloneDX 1.6 (JSON) the exports write: the SBOM of a scan's snapshot and the VEX of its findings.
// The official schema (bom-1.6.schema.json) is what tests validate real documents against; these types only
// keep the builders honest about field names.

export const SPEC_VERSION = '1.6';
/** The media type of both documents, as CycloneDX registers it. */
export const CYCLONEDX_MEDIA_TYPE = 'application/vnd.cyclonedx+json; version=1.6';

export interface CdxProperty {
  name: string;
  value: string;
}

export interface CdxComponent {
  type: 'application' | 'library';
  'bom-ref': string;
  group?: string;
  name: string;
  version?: string;
  purl?: string;
  properties?: CdxProperty[];
  components?: CdxComponent[];
}

export interface CdxTool {
  type: 'application';
  name: string;
  version: string;
}

export interface CdxMetadata {
  timestamp: string;
  tools: { components: CdxTool[] };
  component: CdxComponent;
  properties: CdxProperty[];
}

export interface CdxDependency {
  ref: string;
  dependsOn?: string[];
}

export interface CdxSource {
  name: string;
  url: string;
}

export type CdxRatingMethod = 'CVSSv2' | 'CVSSv3' | 'CVSSv31' | 'CVSSv4' | 'other';

export interface CdxRating {
  source: CdxSource | { name: string };
  score?: number;
  severity: 'critical' | 'high' | 'medium' | 'low';
  method: CdxRatingMethod;
  vector?: string;
  justification?: string;
}

export interface CdxAnalysis {
  state: 'in_triage' | 'not_affected';
  response?: Array<'update'>;
  detail?: string;
}

export interface CdxVulnerability {
  'bom-ref': string;
  id: string;
  source: CdxSource;
  references?: Array<{ id: string; source: CdxSource }>;
  ratings: CdxRating[];
  description?: string;
  recommendation?: string;
  published?: string;
  analysis: CdxAnalysis;
  affects: Array<{ ref: string; versions?: Array<{ version: string; status: 'affected' }> }>;
  properties: CdxProperty[];
}

export interface CdxBom {
  $schema: string;
  bomFormat: 'CycloneDX';
  specVersion: typeof SPEC_VERSION;
  serialNumber: string;
  version: 1;
  metadata: CdxMetadata;
  components: CdxComponent[];
  dependencies?: CdxDependency[];
  vulnerabilities?: CdxVulnerability[];
}

/** The scan a document describes, as both the service (its scan document) and the client (the Scan it was answered) know it. */
export interface BomScan {
  /** scn_... */
  id: string;
  /** The project's id (prj_...): bom-refs are derived from it, as the inventory's dep_ ids are. */
  projectId: string;
  /** The project's slug (Scan.target): the metadata component's name. */
  project: string;
  /** Scan.startedAt as served (ISO 8601): the SBOM's timestamp. */
  startedAt: string;
}

/** This service's name in metadata.tools (package.json's name; the service and the CI client write the same). */
export const TOOL_NAME = 'supply-chain-scanner';

/** This service, as metadata.tools names it. */
export interface BomTool {
  name: string;
  version: string;
}
