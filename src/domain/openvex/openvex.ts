// The OpenVEX 0.2.0 document of a completed scan (GET /v1/scans/{id}/vex?format=openvex; docs/integrations.md#openvex):
// the triage analyses in force on its findings' alerts, as OpenVEX statements. Only findings whose alert has an
// analysis in force (not expired, covering the installed version: analysisInForce, as the CycloneDX VEX reads it)
// make a statement; a finding without one says nothing.
//
// - One statement per (advisory, package): vulnerability.name = the finding's advisory id (Finding.cve), its alias
//   group's other ids as aliases; the product is the project (a triage analysis is a project's decision about its use
//   of the package, not a claim about the package everywhere), the package (its purl) the subcomponent, as OpenVEX
//   writes a product's dependencies.
// - The status and justification mapping is below (STATUS, JUSTIFICATION); what it loses (CycloneDX's finer
//   justification, false_positive, the responses) is kept in words in status_notes.
// - `author` is the organization whose members (or API keys) made the analyses; `tooling` this service and version.
// - Deterministic for a given set of analyses: statements in the findings list order, timestamps from the scan and
//   the analyses, the document id derived from the scan id.
//
// The official JSON schema (openvex_json_schema_0.2.0.json) is what tests validate documents against; it wants at
// least one statement, so a scan none of whose findings has an analysis has no OpenVEX document (the route says so).
import { purlOf, encodePurlComponent } from '../../shared/cyclonedx/purl';
import type { BomScan, BomTool } from '../../shared/cyclonedx/types';
import { analysisInForce, type AlertAnalyses, type VexFinding } from '../cyclonedx/vex';
import type { Analysis, AnalysisState, Justification, Response } from '../triage/analysis';

export const OPENVEX_CONTEXT = 'https://openvex.dev/ns/v0.2.0';

/** The VEX export's formats (GET /v1/scans/{id}/vex?format=), the first the default. */
export const VEX_FORMATS = ['cyclonedx', 'openvex'] as const;
export type VexFormat = (typeof VEX_FORMATS)[number];

/** OpenVEX has no registered media type: the document is served as plain JSON. */
export const OPENVEX_MEDIA_TYPE = 'application/json';

export type OpenVexStatus = 'not_affected' | 'affected' | 'fixed' | 'under_investigation';
export type OpenVexJustification =
  | 'component_not_present'
  | 'vulnerable_code_not_present'
  | 'vulnerable_code_not_in_execute_path'
  | 'vulnerable_code_cannot_be_controlled_by_adversary'
  | 'inline_mitigations_already_exist';

export interface OpenVexSubcomponent {
  '@id': string;
}

export interface OpenVexProduct {
  '@id': string;
  subcomponents: OpenVexSubcomponent[];
}

export interface OpenVexStatement {
  vulnerability: { name: string; aliases?: string[] };
  timestamp: string;
  products: OpenVexProduct[];
  status: OpenVexStatus;
  justification?: OpenVexJustification;
  impact_statement?: string;
  action_statement?: string;
  action_statement_timestamp?: string;
  status_notes: string;
}

export interface OpenVexDocument {
  '@context': typeof OPENVEX_CONTEXT;
  '@id': string;
  author: string;
  timestamp: string;
  last_updated?: string;
  version: 1;
  tooling: string;
  statements: OpenVexStatement[];
}

/** The analysis state → the OpenVEX status. false_positive has none of its own: not_affected (see JUSTIFICATION). */
export const STATUS: Readonly<Record<AnalysisState, OpenVexStatus>> = {
  not_affected: 'not_affected',
  false_positive: 'not_affected',
  exploitable: 'affected',
  resolved: 'fixed',
  in_triage: 'under_investigation',
};

/**
 * CycloneDX's justification → OpenVEX's (for not_affected). OpenVEX has five, CycloneDX nine:
 * - requires_configuration, requires_environment: the vulnerable code is there but cannot be triggered as the
 *   product is configured or deployed: vulnerable_code_cannot_be_controlled_by_adversary.
 * - requires_dependency: what exploitation needs (another component) is not in the product; the vulnerable package
 *   itself is, so not component_not_present: vulnerable_code_cannot_be_controlled_by_adversary as well.
 * - the four protected_* justifications: inline_mitigations_already_exist.
 */
export const JUSTIFICATION: Readonly<Record<Justification, OpenVexJustification>> = {
  code_not_present: 'vulnerable_code_not_present',
  code_not_reachable: 'vulnerable_code_not_in_execute_path',
  requires_configuration: 'vulnerable_code_cannot_be_controlled_by_adversary',
  requires_dependency: 'vulnerable_code_cannot_be_controlled_by_adversary',
  requires_environment: 'vulnerable_code_cannot_be_controlled_by_adversary',
  protected_by_compiler: 'inline_mitigations_already_exist',
  protected_at_runtime: 'inline_mitigations_already_exist',
  protected_at_perimeter: 'inline_mitigations_already_exist',
  protected_by_mitigating_control: 'inline_mitigations_already_exist',
};

/** A false positive: the advisory's vulnerable code is not what is installed. */
export const FALSE_POSITIVE_JUSTIFICATION: OpenVexJustification = 'vulnerable_code_not_present';

/** The CycloneDX responses in words: an affected statement's action when the analysis has no detail. */
export const RESPONSE_WORDS: Readonly<Record<Response, string>> = {
  update: 'Update the package to a version without the vulnerability.',
  rollback: 'Roll the package back to a version without the vulnerability.',
  workaround_available: 'A workaround is available.',
  will_not_fix: 'The vulnerability will not be fixed.',
  can_not_fix: 'The vulnerability cannot be fixed.',
};

export interface OpenVexInput {
  /** finishedAt: when the findings were made (the document's timestamp). */
  scan: BomScan & { finishedAt: string };
  /** The snapshot's ecosystem: the packages' purl type. */
  ecosystem: string;
  /** Who makes the statements: the organization's name. */
  author: string;
  tool: BomTool;
  /** In the findings list order (severity descending, then id). */
  findings: readonly VexFinding[];
  analyses: AlertAnalyses;
  /** When the export is made: an analysis that has expired by then is not in force. */
  now: Date;
}

/** The document's id: stable for the scan, distinct from the CycloneDX documents' serial numbers. */
export const documentId = (tool: BomTool, scanId: string): string =>
  `urn:${tool.name}:scan:${encodePurlComponent(scanId)}:openvex`;

/** The product every statement is about: the project, by its id. */
export const productId = (tool: BomTool, projectId: string): string =>
  `urn:${tool.name}:project:${encodePurlComponent(projectId)}`;

/** The package's purl; pkg:generic for an ecosystem the purl types do not cover (none the service scans). */
export function packagePurl(ecosystem: string, name: string, version: string): string {
  return (
    purlOf(ecosystem, name, version) ??
    `pkg:generic/${encodePurlComponent(name)}${version === '' ? '' : `@${encodePurlComponent(version)}`}`
  );
}

/** What the analysis said in CycloneDX's words, for status_notes: nothing the mapping loses is lost. */
function notes(a: Analysis, extra: string | null): string {
  const parts = [`state ${a.state}`];
  if (a.justification) parts.push(`justification ${a.justification}`);
  if (a.response.length) parts.push(`response ${a.response.join(', ')}`);
  const said = `Triage analysis (CycloneDX): ${parts.join('; ')}.`;
  return extra ? `${extra}\n${said}` : said;
}

/** What an affected statement says to do: the detail, else the responses in words, else the fixed version. */
function action(a: Analysis, f: VexFinding): string {
  if (a.detail) return a.detail;
  if (a.response.length) return a.response.map((r) => RESPONSE_WORDS[r]).join(' ');
  return f.fixedVersion !== null
    ? `Upgrade ${f.package} to ${f.fixedVersion}.`
    : 'No remediation has been decided yet: no fixed version is known.';
}

export function statementOf(a: Analysis, f: VexFinding, input: Pick<OpenVexInput, 'scan' | 'ecosystem' | 'tool'>) {
  const aliases = [...new Set(f.aliases)].filter((id) => id !== f.cve);
  const status = STATUS[a.state];
  const base = {
    vulnerability: { name: f.cve, ...(aliases.length ? { aliases } : {}) },
    timestamp: a.updatedAt,
    products: [
      {
        '@id': productId(input.tool, input.scan.projectId),
        subcomponents: [{ '@id': packagePurl(input.ecosystem, f.package, f.installedVersion) }],
      },
    ],
    status,
  };
  switch (a.state) {
    case 'not_affected':
    case 'false_positive': {
      // (an analysis of either state always has a detail, and not_affected a justification: parseAnalysis)
      const justification =
        a.state === 'false_positive'
          ? FALSE_POSITIVE_JUSTIFICATION
          : a.justification
            ? JUSTIFICATION[a.justification]
            : null;
      return {
        ...base,
        ...(justification ? { justification } : {}),
        impact_statement: a.detail ?? 'Not affected (no detail was given).',
        status_notes: notes(a, null),
      } satisfies OpenVexStatement;
    }
    case 'exploitable':
      return {
        ...base,
        action_statement: action(a, f),
        action_statement_timestamp: a.updatedAt,
        status_notes: notes(a, null),
      } satisfies OpenVexStatement;
    default:
      // fixed, under_investigation: OpenVEX has no field of their own for the detail
      return { ...base, status_notes: notes(a, a.detail) } satisfies OpenVexStatement;
  }
}

/**
 * The document: one statement per (advisory id, package purl) among the findings whose alert has an analysis in
 * force, the first finding's in list order (two findings share one only when the inventory merges two names of one
 * package). `statements` is empty when no finding has one: not a valid OpenVEX document, which the caller refuses.
 */
export function buildOpenVex(input: OpenVexInput): OpenVexDocument {
  const statements: OpenVexStatement[] = [];
  const seen = new Set<string>();
  for (const f of input.findings) {
    const a = analysisInForce(f, input.analyses, input.now);
    if (!a) continue;
    const key = `${f.cve}\0${packagePurl(input.ecosystem, f.package, f.installedVersion)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    statements.push(statementOf(a, f, input));
  }
  const latest = statements.reduce<string | null>(
    (m, s) => (m === null || Date.parse(s.timestamp) > Date.parse(m) ? s.timestamp : m),
    null,
  );
  const timestamp = input.scan.finishedAt;
  return {
    '@context': OPENVEX_CONTEXT,
    '@id': documentId(input.tool, input.scan.id),
    author: input.author,
    timestamp,
    // the statements made after the scan (analyses decided or changed since) update the document
    ...(latest !== null && Date.parse(latest) > Date.parse(timestamp) ? { last_updated: latest } : {}),
    version: 1,
    tooling: `${input.tool.name} ${input.tool.version}`,
    statements,
  };
}
