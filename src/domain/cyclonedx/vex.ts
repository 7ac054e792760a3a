// The CycloneDX 1.6 VEX of a completed scan: one vulnerability per finding, affecting the component
// of its package (bom-ref = the finding's packageRef = the package's inventory id, with the same purl as in the SBOM),
// the components it names included so that every ref resolves within the document.
//
// The analysis (docs/integrations.md#vex; the OpenAPI description says the same): a vulnerability's `analysis` is its
// finding's alert's current triage analysis (docs/triage.md), when it is in force for the finding: not expired at the
// time of the export and covering the finding's installed version. It is written with CycloneDX's own field names and
// values (the service's states, justifications and responses are CycloneDX's), empty fields left out. A finding
// without such an analysis carries no `analysis` at all: the service matched a version against an advisory's ranges,
// which is not a statement about exploitability. A suppression (the snapshot's, or the analysis or triage rule in
// force when the scan was processed) is a fact of the scan, not an analysis: it is said in properties (scanner:
// suppressed, suppressionSource, suppressionReason, suppressionExpires, ruleId).
import { activeSuppressions, type SuppressionIndex } from '../suppressions';
import type { Finding, Severity, Snapshot } from '../../shared/types';
import {
  coversVersion,
  isExpired,
  type Analysis,
  type AnalysisState,
  type Justification,
  type Response,
} from '../triage/analysis';
import { frame, metadata, packageComponent, packageComponents, PROPERTY_PREFIX } from '../../shared/cyclonedx/common';
import type {
  BomScan,
  BomTool,
  CdxBom,
  CdxComponent,
  CdxProperty,
  CdxRating,
  CdxRatingMethod,
  CdxSource,
  CdxVulnerability,
} from '../../shared/cyclonedx/types';

/** The fields of a stored finding the VEX reads (inline and paged scans' findings alike). */
export type VexFinding = Pick<
  Finding,
  | 'id'
  | 'severity'
  | 'cve'
  | 'publishedAt'
  | 'package'
  | 'installedVersion'
  | 'fixedVersion'
  | 'path'
  | 'suppressed'
  | 'suppressionReason'
  | 'summary'
  | 'aliases'
  | 'packageRef'
  | 'alertId'
  | 'suppressionSource'
  | 'ruleId'
>;

/** A vulnerability's analysis: the alert's triage analysis in CycloneDX's field names, empty fields left out. */
export interface VexAnalysis {
  state: AnalysisState;
  justification?: Justification;
  response?: Response[];
  detail?: string;
}

/** A vulnerability of the VEX: `analysis` only when its finding's alert has one in force. */
export type VexVulnerability = Omit<CdxVulnerability, 'analysis'> & { analysis?: VexAnalysis };

/** The VEX document (the shared CycloneDX types, with the vulnerabilities above). */
export type VexBom = Omit<CdxBom, 'vulnerabilities'> & { vulnerabilities: VexVulnerability[] };

/** The current analyses of the scan's project and ecosystem's alerts, by alert id. */
export type AlertAnalyses = ReadonlyMap<string, Analysis>;

/**
 * The analysis a finding's statement carries: its alert's current one (the finding's alertId as stored, as the
 * findings list shows it), when it has not expired at `now` and covers the installed version; else null.
 */
export function analysisInForce(
  f: Pick<VexFinding, 'alertId' | 'installedVersion'>,
  analyses: AlertAnalyses,
  now: Date,
): Analysis | null {
  const a = f.alertId ? analyses.get(f.alertId) : undefined;
  if (!a || isExpired(a, now) || !coversVersion(a, f.installedVersion)) return null;
  return a;
}

/** The OSV `severity` entries of the stored advisories the findings name, by advisory id. */
export type AdvisorySeverities = ReadonlyMap<string, ReadonlyArray<{ type: string; score: string }>>;

/**
 * Scores a CVSS vector the way the scan's severity rules do (src/domain/advisories/severity.ts: its base score and
 * band), or null when it cannot. Passed in: this folder stays free of advisory code, which the CI client must not
 * bundle.
 */
export type ScoreCvss = (type: string, vector: string) => { score: number; severity: Severity } | null;

export interface VexInput {
  /** finishedAt: when the findings were made (the document's timestamp). */
  scan: BomScan & { finishedAt: string };
  snapshot: Snapshot;
  tool: BomTool;
  /** In the findings list order (severity descending, then id). */
  findings: readonly VexFinding[];
  advisories: AdvisorySeverities;
  score: ScoreCvss;
  /** The current analyses of the alerts of the scan's project and ecosystem, by alert id. */
  analyses: AlertAnalyses;
  /** When the export is made: an analysis that has expired by then is not in force. */
  now: Date;
}

/**
 * Where an advisory id is published. Names as Dependency-Track's vulnerability sources spell them (NVD, GITHUB,
 * OSV), so that an import there resolves the vulnerability; ids of other databases (PYSEC, MAL, ...) are all on OSV.
 */
export function sourceOf(id: string): CdxSource {
  const path = encodeURIComponent(id);
  if (/^CVE-\d{4}-\d+$/.test(id)) return { name: 'NVD', url: `https://nvd.nist.gov/vuln/detail/${path}` };
  if (id.startsWith('GHSA-')) return { name: 'GITHUB', url: `https://github.com/advisories/${path}` };
  return { name: 'OSV', url: `https://osv.dev/vulnerability/${path}` };
}

/** CycloneDX's scoring method of an OSV severity entry, read as the severity rules read it; null for non-CVSS types. */
export function methodOf(type: string, vector: string): CdxRatingMethod | null {
  const v = vector.trim();
  if (type === 'CVSS_V4' || v.startsWith('CVSS:4.0/')) return 'CVSSv4';
  if (v.startsWith('CVSS:3.1/')) return 'CVSSv31';
  if (v.startsWith('CVSS:3.0/')) return 'CVSSv3';
  if (type === 'CVSS_V2') return 'CVSSv2';
  return null;
}

/**
 * The finding's own severity first (what its scan counted and gated on: the rule over the whole alias
 * group, the database's severity when no vector scores), then every CVSS vector the group's stored advisories carry,
 * scored, once per source and vector.
 */
function ratings(f: VexFinding, input: VexInput): CdxRating[] {
  const out: CdxRating[] = [
    {
      source: { name: input.tool.name },
      severity: f.severity,
      method: 'other',
      justification:
        "The severity of the finding in its scan: from the highest CVSS version among the advisory group's vectors and its highest base score, else the advisory database's severity, else medium.",
    },
  ];
  const seen = new Set<string>();
  for (const id of f.aliases) {
    for (const s of input.advisories.get(id) ?? []) {
      if (typeof s?.score !== 'string' || typeof s.type !== 'string') continue;
      const method = methodOf(s.type, s.score);
      const scored = method ? input.score(s.type, s.score) : null;
      if (!method || !scored || !Number.isFinite(scored.score)) continue;
      const source = sourceOf(id);
      const vector = s.score.trim();
      const key = `${source.name}\0${method}\0${vector}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ source, score: scored.score, severity: scored.severity, method, vector });
    }
  }
  return out;
}

/**
 * The suppression behind a suppressed finding: the first in snapshot order whose id is one of the group's, whose glob
 * matches and whose reason is the finding's (the scan applied that rule on its processing day; expiry is not checked
 * again here, so a suppression that has expired since still explains the stored finding).
 */
function suppressionOf(
  f: VexFinding,
  index: SuppressionIndex,
  snapshot: Snapshot,
): { reason: string; expires?: string } | null {
  let best: number | null = null;
  for (const key of new Set(f.aliases.map((id) => id.toUpperCase()))) {
    for (const s of index.byId.get(key) ?? []) {
      if ((best === null || s.order < best) && s.reason === f.suppressionReason && s.test(f.package)) best = s.order;
    }
  }
  if (best === null) return f.suppressionReason === null ? null : { reason: f.suppressionReason };
  const s = snapshot.suppressions![best];
  return { reason: s.reason, ...(typeof s.expires === 'string' ? { expires: s.expires } : {}) };
}

/** CycloneDX's analysis object of an analysis in force: its state and what it says, empty fields left out. */
export function cdxAnalysis(a: Analysis): VexAnalysis {
  return {
    state: a.state,
    ...(a.justification ? { justification: a.justification } : {}),
    ...(a.response.length ? { response: [...a.response] } : {}),
    ...(a.detail ? { detail: a.detail } : {}),
  };
}

const prop = (name: string, value: string): CdxProperty => ({ name: PROPERTY_PREFIX + name, value });

/**
 * The finding's path, then, for a suppressed finding, what suppressed it when the scan was processed: its source
 * (snapshot, analysis or rule; findings stored before sources: the snapshot), its reason, the snapshot suppression's
 * expiry date, the rule's id.
 */
function properties(f: VexFinding, index: SuppressionIndex, snapshot: Snapshot): CdxProperty[] {
  const out = [prop('path', JSON.stringify(f.path))];
  if (!f.suppressed) return out;
  const source = f.suppressionSource ?? 'snapshot';
  out.push(prop('suppressed', 'true'), prop('suppressionSource', source));
  if (source === 'snapshot') {
    const s = suppressionOf(f, index, snapshot);
    if (s) out.push(prop('suppressionReason', s.reason));
    if (s?.expires) out.push(prop('suppressionExpires', s.expires));
  } else if (f.suppressionReason) {
    out.push(prop('suppressionReason', f.suppressionReason));
  }
  if (source === 'rule' && f.ruleId) out.push(prop('ruleId', f.ruleId));
  return out;
}

/** The schema caps an affected version at 1024 characters; a longer one leaves the ref alone (the purl has it). */
const MAX_VERSION = 1024;

function vulnerability(f: VexFinding, input: VexInput, index: SuppressionIndex): VexVulnerability {
  const a = analysisInForce(f, input.analyses, input.now);
  const references = f.aliases.filter((a) => a !== f.cve).map((id) => ({ id, source: sourceOf(id) }));
  return {
    'bom-ref': f.id,
    id: f.cve,
    source: sourceOf(f.cve),
    ...(references.length ? { references } : {}),
    ratings: ratings(f, input),
    ...(f.summary ? { description: f.summary } : {}),
    ...(f.fixedVersion !== null ? { recommendation: `Upgrade ${f.package} to ${f.fixedVersion}.` } : {}),
    ...(f.publishedAt ? { published: f.publishedAt } : {}),
    ...(a ? { analysis: cdxAnalysis(a) } : {}),
    affects: [
      {
        ref: f.packageRef,
        ...(f.installedVersion.length <= MAX_VERSION
          ? { versions: [{ version: f.installedVersion, status: 'affected' as const }] }
          : {}),
      },
    ],
    properties: properties(f, index, input.snapshot),
  };
}

export function buildVex(input: VexInput): VexBom {
  const { scan, snapshot, findings } = input;
  // Every suppression, expired or not (the day is before all of them): see suppressionOf.
  const index = activeSuppressions(snapshot.suppressions, snapshot.ecosystem, '');
  const packages = packageComponents(snapshot, scan.projectId);
  const used = new Set(findings.map((f) => f.packageRef));
  const components: CdxComponent[] = packages.list.filter((c) => used.has(c['bom-ref']));
  // A finding whose package the snapshot does not hold (never, for a scan made from it) still gets its component.
  const missing = findings.filter((f) => !packages.byRef.has(f.packageRef));
  const extra = new Map(
    missing.map((f) => [
      f.packageRef,
      packageComponent(snapshot.ecosystem, f.packageRef, f.package, f.installedVersion),
    ]),
  );
  components.push(...[...extra.keys()].sort().map((ref) => extra.get(ref)!));
  return {
    ...frame(
      scan,
      'vex',
      metadata(scan, snapshot, input.tool, scan.finishedAt, {
        type: 'application',
        'bom-ref': scan.projectId,
        name: scan.project,
      }),
    ),
    components,
    vulnerabilities: findings.map((f) => vulnerability(f, input, index)),
  };
}
