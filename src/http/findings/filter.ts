// Findings list filters of GET /v1/scans/{scanId}/findings: counts, module/team views. Pure.
import { attributionInScope, hasScope } from '../../domain/attribution/views';
import { severityRank, type Finding, type Severity, type SeverityCounts } from '../../shared/types';

export interface FindingFilter {
  severity?: Severity;
  severityMode: 'at_least' | 'exact';
  suppressed: 'false' | 'true' | 'all';
  module?: string;
  team?: string;
  attribution: 'affected' | 'introduced';
}

export interface ModuleTeams {
  /** module path → teamName (null when unassigned) */
  teams: Map<string, string | null>;
}

/** The module/team scope: which findings are in it at all (before severity and suppression filters). */
export function inScope(f: Finding, filter: FindingFilter, modules: ModuleTeams): boolean {
  const scope = { view: filter.attribution, module: filter.module, team: filter.team };
  if (!hasScope(scope)) return true;
  const teamOf = (m: string) => modules.teams.get(m);
  return f.attributions.some((a) => attributionInScope(a, scope, teamOf));
}

export function matchesFilters(f: Finding, filter: FindingFilter): boolean {
  if (filter.suppressed === 'false' && f.suppressed) return false;
  if (filter.suppressed === 'true' && !f.suppressed) return false;
  if (filter.severity) {
    const want = severityRank(filter.severity);
    const have = severityRank(f.severity);
    if (filter.severityMode === 'exact' ? have !== want : have > want) return false;
  }
  return true;
}

export function countsOf(findings: Finding[]): SeverityCounts & { suppressed: number } {
  const c = { critical: 0, high: 0, medium: 0, low: 0, suppressed: 0 };
  for (const f of findings) {
    if (f.suppressed) c.suppressed++;
    else c[f.severity]++;
  }
  return c;
}

export function filterKey(f: FindingFilter): string {
  return JSON.stringify([
    f.severity ?? null,
    f.severityMode,
    f.suppressed,
    f.module ?? null,
    f.team ?? null,
    f.attribution,
  ]);
}
