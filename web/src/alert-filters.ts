// The organization's Alerts view's filters: a project's (alerts.ts) and every other filter of GET /v1/alerts (the
// project, the ecosystem, an exact package name, an advisory by any alias, whether a fix is known), as they live in
// the URL (defaults left out) and as the API query they make (the CSV export's too). Pure: tested in
// test/browser/org-alerts.test.ts.
import { alertApiQuery, alertFiltersFromQuery, alertFiltersToQuery, alertsNarrowed, type AlertFilters } from './alerts';
import { ECOSYSTEMS } from './intel';
import type { Ecosystem } from './types';

export interface OrgAlertFilters extends AlertFilters {
  /** A project's id or slug (the URL keeps what it was given; the view offers slugs). */
  project?: string;
  ecosystem?: Ecosystem;
  /** A package name, exactly (as its ecosystem compares names). */
  package?: string;
  /** An advisory, by any id of its alias group, in any case. */
  advisory?: string;
  /** Only alerts with a fixed version known (`true`), or only those without (`false`). */
  fixable?: 'true' | 'false';
}

const text = (v: string | undefined) => v?.trim() || undefined;

export function orgAlertFiltersFromQuery(q: Record<string, string | undefined>): OrgAlertFilters {
  return {
    ...alertFiltersFromQuery(q),
    project: text(q.project),
    ecosystem: (ECOSYSTEMS as readonly string[]).includes(q.ecosystem ?? '') ? (q.ecosystem as Ecosystem) : undefined,
    package: text(q.package),
    advisory: text(q.advisory),
    fixable: q.fixable === 'true' || q.fixable === 'false' ? q.fixable : undefined,
  };
}

/** The URL query of a filter set: only what differs from the defaults, the project first. */
export function orgAlertFiltersToQuery(f: OrgAlertFilters): Record<string, string | undefined> {
  return {
    project: f.project,
    ecosystem: f.ecosystem,
    ...alertFiltersToQuery(f),
    package: f.package,
    advisory: f.advisory,
    fixable: f.fixable,
  };
}

/** The query of GET /v1/alerts (and of GET /v1/alerts/export.csv) under these filters. */
export function orgAlertApiQuery(f: OrgAlertFilters): Record<string, string | undefined> {
  return {
    ...alertApiQuery(f.project ?? '', f),
    project: f.project,
    ecosystem: f.ecosystem,
    package: f.package,
    advisory: f.advisory,
    fixable: f.fixable,
  };
}

/** Whether the filters narrow the list beyond its default (every project's open, unsuppressed alerts). */
export function orgAlertsNarrowed(f: OrgAlertFilters): boolean {
  return alertsNarrowed(f) || !!(f.project || f.ecosystem || f.package || f.advisory || f.fixable);
}
