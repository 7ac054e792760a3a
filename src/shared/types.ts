// Plain data shapes shared by the domain, storage, HTTP and workflow layers. No behaviour here.

export type Ecosystem = 'gradle' | 'python' | 'javascript' | 'typescript';
export const ECOSYSTEMS: readonly Ecosystem[] = ['gradle', 'python', 'javascript', 'typescript'];

export type Severity = 'critical' | 'high' | 'medium' | 'low';
/** Highest first: the findings list order. */
export const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low'];
export const severityRank = (s: Severity): number => SEVERITIES.indexOf(s); // 0 = critical

// ---------------------------------------------------------------- snapshot (upload body) --

export interface SnapshotNode {
  id: string;
  name: string;
  version: string;
  relationship: 'direct' | 'transitive';
  dependencies: string[];
  attributions?: unknown; // v2 compatibility view; never used for ownership
}

export interface SnapshotVertex {
  id: string;
  module?: string | null;
  node?: string | null;
  dependencies: string[];
}

export interface SnapshotResolution {
  root: string;
  vertices: SnapshotVertex[];
}

export interface SnapshotRoot {
  module: string;
  manifest?: string;
  context: string;
  dependencies: string[];
  resolution?: SnapshotResolution; // v2 only
}

export interface SnapshotModule {
  path: string;
  dependencies?: string[];
  teamName?: string | null;
  attributes?: Record<string, string>;
}

export interface SnapshotSuppression {
  cve: string;
  reason: string;
  package?: string;
  expires?: string; // YYYY-MM-DD
}

export interface Snapshot {
  schemaVersion: 1 | 2;
  project: string;
  ecosystem: Ecosystem;
  manifests?: string[];
  modules?: SnapshotModule[]; // v2 only
  roots: SnapshotRoot[];
  nodes: SnapshotNode[];
  suppressions?: SnapshotSuppression[];
  metadata?: SnapshotMetadata;
}

/** Where a snapshot comes from, echoed on its Scan. */
export interface SnapshotMetadata {
  commit?: string;
  ref?: string;
  runUrl?: string;
  /** On a change under review (pull request, merge request, merge queue): the branch it goes into. */
  baseRef?: string;
  /** On a change under review: the commit of the base branch it is compared with. */
  baseCommit?: string;
}

/** The known fields of a snapshot's metadata, or null when it has none: what a Scan stores and shows. */
export function scanMetadata(m: SnapshotMetadata | undefined): SnapshotMetadata | null {
  if (!m) return null;
  const out: SnapshotMetadata = {};
  for (const k of ['commit', 'ref', 'runUrl', 'baseRef', 'baseCommit'] as const) if (m[k] !== undefined) out[k] = m[k];
  return out;
}

/** Counted sizes of a snapshot, known after validation (used for limits, search attributes and logs). */
export interface SnapshotStats {
  nodes: number;
  roots: number;
  modules: number;
  vertices: number;
  edges: number;
}

// ---------------------------------------------------------------- advisories --

export interface OsvEvent {
  introduced?: string;
  fixed?: string;
  last_affected?: string;
  limit?: string;
}

export interface OsvRange {
  type: string; // ECOSYSTEM | SEMVER | GIT
  events: OsvEvent[];
}

export interface OsvAffected {
  package?: { ecosystem: string; name: string; purl?: string };
  ranges?: OsvRange[];
  versions?: string[];
  database_specific?: unknown;
  ecosystem_specific?: unknown;
}

export interface OsvSeverity {
  type: string; // CVSS_V2 | CVSS_V3 | CVSS_V4 | Ubuntu ...
  score: string;
}

/** An OSV advisory as imported (only the fields the service reads are typed). */
export interface OsvAdvisory {
  id: string;
  modified?: string;
  published?: string;
  withdrawn?: string;
  aliases?: string[];
  related?: string[];
  summary?: string;
  details?: string;
  severity?: OsvSeverity[];
  affected?: OsvAffected[];
  database_specific?: { severity?: string; [k: string]: unknown };
}

// ---------------------------------------------------------------- findings --

export interface FindingOrigin {
  module: string;
  dependency: string;
  path: string[];
}

export interface FindingAttribution {
  module: string;
  context: string;
  relationship: 'direct' | 'transitive';
  path: string[];
  origins: FindingOrigin[];
}

/** A finding as the API serves it (the Finding resource). */
export interface Finding {
  id: string;
  scanId: string;
  severity: Severity;
  cve: string;
  publishedAt: string | null;
  package: string;
  installedVersion: string;
  fixedVersion: string | null;
  path: string[];
  suppressed: boolean;
  suppressionReason: string | null;
  attributions: FindingAttribution[];
  summary: string;
  /** Every id of the advisory's alias group (additive field). */
  aliases: string[];
  /** The dep_ id of the package's inventory item: the same derivation, on every scan. */
  packageRef: string;
  /** The advisory's CVSS vector that decided the severity (additive; absent on findings of older scans). */
  cvss?: Cvss | null;
  /** The project alert the finding belongs to (additive; null: none, as on a branch-only finding; absent on older scans). */
  alertId?: string | null;
  /** When the project first saw the alert (its firstSeenAt); null without an alert. */
  firstSeenAt?: string | null;
  /**
   * Where the suppression comes from (additive): the snapshot, the alert's analysis, or a triage rule; absent on
   * findings stored before triage (then the snapshot's when suppressed).
   */
  suppressionSource?: 'snapshot' | 'analysis' | 'rule' | null;
  /** The triage rule that suppressed the finding (suppressionSource rule). */
  ruleId?: string | null;
  /** KEV and EPSS of the alias group when the finding was read (served, never stored; docs/intelligence.md). */
  kev?: KevEntry | null;
  epss?: EpssEntry | null;
}

/** A CISA KEV catalog entry, as findings and alerts carry it. */
export interface KevEntry {
  /** YYYY-MM-DD */
  dateAdded: string;
  /** YYYY-MM-DD */
  dueDate: string;
  /** "Known" or "Unknown" as CISA writes it. */
  knownRansomwareCampaignUse: string;
}

/** An EPSS score of one CVE: probability of exploitation in the next 30 days and its percentile, of `date`. */
export interface EpssEntry {
  score: number;
  percentile: number;
  /** The score date (YYYY-MM-DD) of the file it came from. */
  date: string;
}

/** A CVSS vector with its version and base score. */
export interface Cvss {
  version: '2.0' | '3.0' | '3.1' | '4.0';
  vector: string;
  score: number;
}

export type ScanStatus = 'queued' | 'running' | 'completed' | 'failed';
export type FailureReason = 'unsupported_ecosystem' | 'attribution_limit_exceeded' | 'internal_error';

export interface SeverityCounts {
  critical: number;
  high: number;
  medium: number;
  low: number;
}
