// The dashboard's figures as the app reads them (GET /v1/metrics/alerts, GET /v1/metrics/portfolio: their shapes are
// the OpenAPI document's, named as ./types.ts names the others) and what it makes of them: the trend chart's scale,
// date ticks, line styles and summary in words, a project's freshness in words, and where the home page's search box
// goes. Pure: tested in test/browser/dashboard.test.ts.
import type { components } from './api-types.gen';
import { usageSearchToQuery } from './intel';
import { paths } from './paths';
import type { Severity, SeverityCounts } from './types';
import { SEVERITIES } from './types';

type Schemas = components['schemas'];

/** GET /v1/metrics/alerts: one point per UTC day from `from` to `to`, oldest first (90 days by default). */
export type AlertTrend = Schemas['AlertMetrics'];
/** One day: the open alerts by severity (not suppressed), the suppressed ones, and that day's openings and fixes. */
export type AlertTrendPoint = Schemas['AlertMetricsPoint'];
/** GET /v1/metrics/portfolio: live counts of the open, unsuppressed alerts; projects by slug, teams by label. */
export type Portfolio = Schemas['Portfolio'];
export type PortfolioProject = Portfolio['projects'][number];
export type PortfolioTeam = Portfolio['teams'][number];

/** The label the portfolio gives the alerts of no team (not a team the alerts list can filter by). */
export const NO_TEAM = 'unassigned';
/** A project whose last tracked scan is older than this is out of date (the server's `outOfDate`). */
export const OUT_OF_DATE_DAYS = 30;

export const totalOpen = (c: SeverityCounts): number => SEVERITIES.reduce((n, s) => n + c[s], 0);

const DAY_MS = 86_400_000;

/** "out of date: last tracked scan 45 days ago", "up to date", "out of date: no tracked scan yet". */
export function freshnessText(p: Pick<PortfolioProject, 'lastTrackedScanAt' | 'outOfDate'>, now = Date.now()): string {
  if (!p.lastTrackedScanAt) return 'out of date: no tracked scan yet';
  if (!p.outOfDate) return 'up to date';
  const days = Math.floor((now - Date.parse(p.lastTrackedScanAt)) / DAY_MS);
  return `out of date: last tracked scan ${days} days ago`;
}

// ---- the trend chart (components/trend-chart.tsx)

/**
 * Each severity's line, told apart without colour: its dash pattern, the marker at its end, and both in words for
 * the legend. Critical is solid, the less severe the sparser.
 */
export const TREND_STYLES: Record<
  Severity,
  { dash: string; marker: 'circle' | 'square' | 'triangle' | 'diamond'; words: string }
> = {
  critical: { dash: '', marker: 'circle', words: 'solid line, circle' },
  high: { dash: '9 4', marker: 'square', words: 'long dashes, square' },
  medium: { dash: '4 4', marker: 'triangle', words: 'short dashes, triangle' },
  low: { dash: '1 4', marker: 'diamond', words: 'dotted line, diamond' },
};

/** The value axis: from 0 to a round top at or above `max`, with at most `most` + 1 ticks at whole, round steps. */
export function valueTicks(max: number, most = 4): number[] {
  const top = Math.max(1, Math.ceil(max));
  let step = 1;
  for (const mag of [1, 10, 100, 1000, 10_000, 100_000, 1_000_000]) {
    const found = [1, 2, 5].map((m) => m * mag).find((s) => Math.ceil(top / s) <= most);
    if (found) {
      step = found;
      break;
    }
  }
  const ticks: number[] = [];
  for (let v = 0; v < top + step; v += step) ticks.push(v);
  return ticks;
}

/**
 * The points whose dates label the time axis: the first and the last, and evenly spaced ones between, at most
 * `most` in all (as many as the chart's width holds). Indices, ascending.
 */
export function dateTicks(count: number, most: number): number[] {
  if (count <= 0) return [];
  if (count === 1 || most < 2) return [count - 1];
  const n = Math.min(count, most);
  const out = new Set<number>();
  for (let i = 0; i < n; i++) out.add(Math.round((i * (count - 1)) / (n - 1)));
  return [...out];
}

/**
 * Positions of labels wanted at `ys` (each line's end), moved apart so that no two are nearer than `gap`, within
 * [lo, hi]: each stays as near its own line as the others allow, and the order of the lines is kept.
 */
export function spreadLabels(ys: readonly number[], gap: number, lo: number, hi: number): number[] {
  const order = ys.map((y, i) => ({ y, i })).sort((a, b) => a.y - b.y || a.i - b.i);
  const placed = order.map((o) => Math.min(hi, Math.max(lo, o.y)));
  for (let k = 1; k < placed.length; k++) placed[k] = Math.max(placed[k], placed[k - 1] + gap);
  // pushed past the bottom: back up from there
  if (placed.length && placed[placed.length - 1] > hi) {
    placed[placed.length - 1] = hi;
    for (let k = placed.length - 2; k >= 0; k--) placed[k] = Math.min(placed[k], placed[k + 1] - gap);
  }
  const out = new Array<number>(ys.length);
  order.forEach((o, k) => (out[o.i] = placed[k]));
  return out;
}

/** "Aug 7": a day of the time axis (UTC, as the API counts days). */
export function shortDate(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(d.getTime())
    ? day
    : d.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

const countsText = (c: SeverityCounts) => SEVERITIES.map((s) => `${c[s]} ${s}`).join(', ');

/**
 * The chart in words (its accessible name): the range, the last day's open alerts by severity, the most open on one
 * day, and what was opened and fixed over the range.
 */
export function trendSummary(t: Pick<AlertTrend, 'from' | 'to' | 'points'>): string {
  const last = t.points[t.points.length - 1];
  if (!last) return `Open alerts by severity, per day from ${t.from} to ${t.to}: no data.`;
  let peak = last;
  for (const p of t.points) if (totalOpen(p.open) > totalOpen(peak.open)) peak = p;
  const opened = t.points.reduce((n, p) => n + p.opened, 0);
  const fixed = t.points.reduce((n, p) => n + p.fixed, 0);
  return (
    `Open alerts by severity, per day from ${t.from} to ${t.to}. On ${last.date}: ${countsText(last.open)}. ` +
    `Most open on one day: ${totalOpen(peak.open)}, on ${peak.date}. Over the ${t.points.length} days: ${opened} opened, ${fixed} fixed.`
  );
}

/** A mean time to fix in words: "3.5 days", "less than a day", "none fixed" (no fix in the range). */
export function daysText(days: number | null): string {
  if (days === null) return 'none fixed';
  if (days < 1) return 'less than a day';
  const r = Math.round(days * 10) / 10;
  return `${r} ${r === 1 ? 'day' : 'days'}`;
}

// ---- the home page's search box

/**
 * Advisory ids as OSV writes them: GitHub's (GHSA-xxxx-xxxx-xxxx), CVE, PyPI's (PYSEC-), and OSV's other databases'
 * (malicious packages MAL-, Go's GO-, RustSec's RUSTSEC-, OSV-), each with its year and number. Any case: the advisory
 * page finds an id in any case.
 */
const ADVISORY_ID = /^(GHSA(-[0-9a-z]{4}){3}|CVE-\d{4}-\d{4,}|(PYSEC|MAL|GO|RUSTSEC|OSV)-\d{4}-\d+)$/i;

export interface SearchTarget {
  kind: 'advisory' | 'project' | 'package';
  href: string;
}

/**
 * Where the search box goes with `value`: an advisory id to its advisory's page; a project's slug (exactly, or in
 * another case when only one project has it so) to the project; anything else to where a package of that name is
 * used. Null for an empty value.
 */
export function searchTarget(
  value: string,
  projects: readonly Pick<PortfolioProject, 'project' | 'slug'>[],
): SearchTarget | null {
  const v = value.trim();
  if (!v) return null;
  if (ADVISORY_ID.test(v)) return { kind: 'advisory', href: paths.advisory(v) };
  const exact = projects.find((p) => p.slug === v);
  const folded = projects.filter((p) => p.slug.toLowerCase() === v.toLowerCase());
  const project = exact ?? (folded.length === 1 ? folded[0] : undefined);
  if (project) return { kind: 'project', href: paths.project(project.project) };
  return { kind: 'package', href: paths.whereUsed(usageSearchToQuery({ name: v })) };
}
