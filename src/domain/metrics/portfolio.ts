// The portfolio (GET /v1/metrics/portfolio, docs/dashboard.md): the organization's open alerts that are not suppressed
// as they stand, by severity, with the KEV count, per project (with its last tracked scan, out of date past 30 days)
// and per team (alerts without a team under "unassigned"; an alert counts for each of its teams).
import { SEVERITIES, type Severity } from '../../shared/types';
import type { AlertView } from '../alerts/query';
import { NO_TEAM } from './points';

export const OUT_OF_DATE_DAYS = 30;

type Open = Record<Severity, number>;
const noneOpen = (): Open => ({ critical: 0, high: 0, medium: 0, low: 0 });

export interface PortfolioProject {
  id: string;
  slug: string;
  lastTrackedScanAt: Date | null;
}

export interface Portfolio {
  open: Open;
  suppressed: number;
  kev: number;
  projects: Array<{
    project: string;
    slug: string;
    open: Open;
    kev: number;
    lastTrackedScanAt: string | null;
    outOfDate: boolean;
  }>;
  teams: Array<{ team: string; open: Open; kev: number; projects: number }>;
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The portfolio of some projects (ordered by slug), from the alerts of each (by project id). */
export function portfolioOf(
  projects: readonly PortfolioProject[],
  views: ReadonlyMap<string, readonly AlertView[]>,
  now: Date,
): Portfolio {
  const out: Portfolio = { open: noneOpen(), suppressed: 0, kev: 0, projects: [], teams: [] };
  const teams = new Map<string, { open: Open; kev: number; projects: Set<string> }>();
  const staleBefore = now.getTime() - OUT_OF_DATE_DAYS * 86_400_000;
  for (const p of [...projects].sort((a, b) => byCodePoint(a.slug, b.slug))) {
    const row = { open: noneOpen(), kev: 0 };
    for (const a of views.get(p.id) ?? []) {
      if (a.status !== 'open') continue;
      if (a.suppressed) {
        out.suppressed++;
        continue;
      }
      row.open[a.severity]++;
      if (a.kev) row.kev++;
      for (const label of a.teams.length ? a.teams : [NO_TEAM]) {
        let t = teams.get(label);
        if (!t) teams.set(label, (t = { open: noneOpen(), kev: 0, projects: new Set() }));
        t.open[a.severity]++;
        if (a.kev) t.kev++;
        t.projects.add(p.id);
      }
    }
    for (const s of SEVERITIES) out.open[s] += row.open[s];
    out.kev += row.kev;
    out.projects.push({
      project: p.id,
      slug: p.slug,
      ...row,
      lastTrackedScanAt: p.lastTrackedScanAt?.toISOString() ?? null,
      outOfDate: !p.lastTrackedScanAt || p.lastTrackedScanAt.getTime() < staleBefore,
    });
  }
  out.teams = [...teams]
    .sort((a, b) => byCodePoint(a[0], b[0]))
    .map(([team, t]) => ({ team, open: t.open, kev: t.kev, projects: t.projects.size }));
  return out;
}
