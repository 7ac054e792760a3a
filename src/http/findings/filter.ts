// Findings list filters (spec: GET /v1/scans/{scanId}/findings; decisions.md: counts, module/team views). Pure.
import { severityRank, type Finding, type Severity, type SeverityCounts } from '../../domain/types';

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

/** Modules through which a finding is seen in the chosen view. */
function modulesOf(f: Finding, view: FindingFilter['attribution']): string[] {
  return view === 'affected' ? f.attributions.map((a) => a.module) : f.attributions.flatMap((a) => a.origins.map((o) => o.module));
}

/** The module/team scope: which findings are in it at all (before severity and suppression filters). */
export function inScope(f: Finding, filter: FindingFilter, modules: ModuleTeams): boolean {
  if (filter.module === undefined && filter.team === undefined) return true;
  const through = modulesOf(f, filter.attribution);
  return through.some((m) => {
    if (filter.module !== undefined && m !== filter.module) return false;
    if (filter.team !== undefined && (modules.teams.get(m) ?? null) !== filter.team) return false;
    return true;
  });
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
  return JSON.stringify([f.severity ?? null, f.severityMode, f.suppressed, f.module ?? null, f.team ?? null, f.attribution]);
}
