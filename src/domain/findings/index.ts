// Findings of a scan from its matches and paths: deterministic ids, suppressions applied, list order (severity
// descending, then id), unsuppressed severity counts and the suppressed total, and each finding's packageRef.
import type { Match } from '../matching';
import { sha256Hex } from '../ids';
import { dependencyId } from '../../shared/inventory-ids';
import { activeSuppressions, findSuppression } from '../suppressions';
import {
  severityRank,
  type Finding,
  type FindingAttribution,
  type SeverityCounts,
  type Snapshot,
} from '../../shared/types';

/** fnd_ + a hash of (scan, alias group, package, version): a retried or resumed scan produces the same ids. */
export function findingId(scanId: string, groupKey: string, name: string, version: string): string {
  return 'fnd_' + sha256Hex(`${scanId}\0${groupKey}\0${name}\0${version}`).slice(0, 24);
}

export interface BuildInput {
  scanId: string;
  /** The scan's project (prj_...): findings name their package's inventory id (packageRef). */
  projectId: string;
  snapshot: Pick<Snapshot, 'ecosystem' | 'suppressions'>;
  matches: Match[];
  /** nodeId → display path (v1) */
  paths: Map<string, string[]>;
  /** nodeId → attributions (v2); absent for v1. */
  attributions?: Map<string, FindingAttribution[]>;
  /** YYYY-MM-DD (UTC) the scan is processed on: suppressions expiring before it are ignored. */
  processingDay: string;
}

export interface BuiltFindings {
  findings: Finding[];
  counts: SeverityCounts;
  suppressed: number;
}

const shorter = (a: string[], b: string[]) =>
  a.length < b.length || (a.length === b.length && a.join('\0') < b.join('\0'));

export function buildFindings(input: BuildInput): BuiltFindings {
  const active = activeSuppressions(input.snapshot.suppressions, input.snapshot.ecosystem, input.processingDay);
  const byId = new Map<string, Finding>();
  for (const m of input.matches) {
    const id = findingId(input.scanId, m.group.key, m.name, m.version);
    const path = input.paths.get(m.nodeId) ?? [m.nodeId];
    const existing = byId.get(id);
    // v1 ids are used as sent, so one name@version may sit on two nodes: one finding, the shorter path.
    if (existing) {
      if (shorter(path, existing.path)) existing.path = path;
      continue;
    }
    const suppression = findSuppression(active, m.group.ids, m.name);
    byId.set(id, {
      id,
      scanId: input.scanId,
      severity: m.group.severity,
      cve: m.group.cve,
      publishedAt: m.group.publishedAt,
      package: m.name,
      installedVersion: m.version,
      fixedVersion: m.fixedVersion,
      path,
      suppressed: suppression !== null,
      suppressionReason: suppression?.reason ?? null,
      attributions: input.attributions?.get(m.nodeId) ?? [],
      summary: m.group.summary,
      aliases: m.group.ids,
      packageRef: dependencyId(input.projectId, input.snapshot.ecosystem, m.name, m.version),
      cvss: m.group.cvss,
    });
  }
  const findings = [...byId.values()].sort(
    (a, b) => severityRank(a.severity) - severityRank(b.severity) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  return { findings, ...countFindings(findings) };
}

/** Unsuppressed findings by severity, and the suppressed total. */
export function countFindings(findings: readonly Finding[]): { counts: SeverityCounts; suppressed: number } {
  const counts: SeverityCounts = { critical: 0, high: 0, medium: 0, low: 0 };
  let suppressed = 0;
  for (const f of findings) {
    if (f.suppressed) suppressed++;
    else counts[f.severity]++;
  }
  return { counts, suppressed };
}
