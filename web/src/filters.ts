// The findings filters as they live in the URL (a reload or a shared link shows the same view). Defaults are left
// out of the URL; the app's default view is "introduced" (the web app starts in the introduced view).
import { SEVERITIES, type Severity } from './types';

export interface FindingFilters {
  attribution: 'introduced' | 'affected';
  module?: string;
  team?: string;
  severity?: Severity;
  severityMode: 'at_least' | 'exact';
  suppressed: 'false' | 'true' | 'all';
  group: 'module' | 'dependency' | 'none';
}

const pick = <T extends string>(v: string | undefined, allowed: readonly T[], fallback: T): T =>
  allowed.includes(v as T) ? (v as T) : fallback;

export function filtersFromQuery(q: Record<string, string | undefined>): FindingFilters {
  return {
    attribution: pick(q.attribution, ['introduced', 'affected'] as const, 'introduced'),
    module: q.module || undefined,
    team: q.team || undefined,
    severity: SEVERITIES.includes(q.severity as Severity) ? (q.severity as Severity) : undefined,
    severityMode: pick(q.severityMode, ['at_least', 'exact'] as const, 'at_least'),
    suppressed: pick(q.suppressed, ['false', 'true', 'all'] as const, 'false'),
    group: pick(q.group, ['module', 'dependency', 'none'] as const, 'module'),
  };
}

/** The URL query of a filter set: only what differs from the defaults. */
export function filtersToQuery(f: FindingFilters): Record<string, string | undefined> {
  return {
    attribution: f.attribution === 'introduced' ? undefined : f.attribution,
    module: f.module,
    team: f.team,
    severity: f.severity,
    severityMode: f.severity && f.severityMode === 'exact' ? 'exact' : undefined,
    suppressed: f.suppressed === 'false' ? undefined : f.suppressed,
    group: f.group === 'module' ? undefined : f.group,
  };
}

/** The API query of the findings list for these filters (the app always sends the view explicitly). */
export function apiQuery(f: FindingFilters): Record<string, string | undefined> {
  return {
    attribution: f.attribution,
    module: f.module,
    team: f.team,
    severity: f.severity,
    severityMode: f.severity ? f.severityMode : undefined,
    suppressed: f.suppressed,
  };
}
