// Alert trends (GET /v1/metrics/alerts, docs/dashboard.md "How the trends are counted"): one point per project and UTC
// day, and per team within it, as the alerts stood when the point was written. A point holds:
//   - open: the open alerts by severity that are not suppressed, and `suppressed`: the open ones that are (by the
//     snapshot, an analysis or a rule) — a picture of the moment the point was written (the day's close when the daily
//     run wrote it);
//   - opened and fixed: the alerts first seen or reopened, and fixed, that day (from their history, which does not
//     change), not counting alerts suppressed when the point was written;
//   - the time to fix of that day's fixes by severity (count and sum of days, from the opening — first seen or the
//     latest reopen before the fix — to the fix), so that a mean over any range is exact.
// A day without a point (no scan, no daily run) carries the previous point's open and suppressed counts forward, with
// nothing opened or fixed. Teams past the cap of a project (the most open alerts kept) are counted as "other".
// Counts are flat arrays of COUNTS numbers (layout below): a year of a hundred projects adds up in a few milliseconds.
import { SEVERITIES, type Severity } from '../../shared/types';
import type { AlertView } from '../alerts/query';

/** The counts of one day: open by severity [0..3], suppressed, opened, fixed, then [fixes, days] per severity. */
export type Counts = Float64Array;
export const COUNTS = 15;
const SUPPRESSED = 4;
const OPENED = 5;
const FIXED = 6;
const TTF = 7; // TTF + 2 × severity: fixes; + 1: their days
/** The entries a day without a point carries forward: open by severity and suppressed. */
const CARRIED = 5;

/** A project's point of one day: the project's counts and each team's ([label, counts], label order). */
export interface DayPoint {
  p: Counts;
  t: Array<[string, Counts]>;
}

export const TEAMS_PER_PROJECT = 200;
export const OTHER_TEAM = 'other';
export const NO_TEAM = 'unassigned';
export const METRICS_KEPT_DAYS = 400;
export const DEFAULT_RANGE_DAYS = 90;

const DAY_MS = 86_400_000;

export const emptyCounts = (): Counts => new Float64Array(COUNTS);

/** Counts from their parts (tests, benches): open by severity, suppressed, opened, fixed, [fixes, days] by severity. */
export function countsOf(
  open: readonly number[],
  suppressed = 0,
  opened = 0,
  fixed = 0,
  ttf: ReadonlyArray<readonly [number, number]> = [],
): Counts {
  const c = emptyCounts();
  open.forEach((n, i) => (c[i] = n));
  c[SUPPRESSED] = suppressed;
  c[OPENED] = opened;
  c[FIXED] = fixed;
  ttf.forEach(([n, days], i) => {
    c[TTF + 2 * i] = n;
    c[TTF + 2 * i + 1] = days;
  });
  return c;
}

/** The UTC day (YYYY-MM-DD) of an instant. */
export const dayOf = (t: Date | string | number): string => new Date(t).toISOString().slice(0, 10);

/** The day `n` days after `day` (n may be negative). */
export const addDays = (day: string, n: number): string => dayOf(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS);

/** Days from `a` to `b` (b − a), whole days. */
export const daysBetween = (a: string, b: string): number =>
  Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);

/** Whether `s` is a real calendar day written YYYY-MM-DD. */
export const isDay = (s: string): boolean => /^\d{4}-\d{2}-\d{2}$/.test(s) && dayOf(Date.parse(`${s}T00:00:00Z`)) === s;

/** What an alert (not merged) adds to the counts of `day`: whether open, and that day's openings and fixes. */
function contributionOf(a: AlertView, day: string): { opened: number; fixes: number[] } {
  const c = { opened: 0, fixes: [] as number[] };
  if (a.suppressed) return c; // a suppressed alert's comings and goings are not counted
  // times are ISO 8601 in UTC (…Z): the day is their first ten characters
  const on = (at: string) => at.startsWith(day);
  let openedAt = a.firstSeenAt;
  if (on(openedAt)) c.opened++;
  let fixedSeen = false;
  for (const e of a.history ?? []) {
    if (e.type === 'reopened') {
      openedAt = e.at;
      if (on(e.at)) c.opened++;
    } else if (e.type === 'fixed') {
      fixedSeen = true;
      if (on(e.at)) c.fixes.push(Math.max(0, (Date.parse(e.at) - Date.parse(openedAt)) / DAY_MS));
    }
  }
  // A fix older than the inline history still shows on the record itself.
  if (!fixedSeen && a.status === 'fixed' && a.fixedAt && on(a.fixedAt))
    c.fixes.push(Math.max(0, (Date.parse(a.fixedAt) - Date.parse(openedAt)) / DAY_MS));
  return c;
}

function addAlert(to: Counts, a: AlertView, c: { opened: number; fixes: number[] }): void {
  const s = SEVERITIES.indexOf(a.severity);
  if (a.status === 'open') to[a.suppressed ? SUPPRESSED : s]++;
  to[OPENED] += c.opened;
  to[FIXED] += c.fixes.length;
  for (const d of c.fixes) {
    to[TTF + 2 * s]++;
    to[TTF + 2 * s + 1] += d;
  }
}

const openTotal = (c: Counts) => c[0] + c[1] + c[2] + c[3] + c[SUPPRESSED];
const byLabel = (x: [string, unknown], y: [string, unknown]) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0);

/** Adds `b` into `a` (at `offset` of `a`); `carried`: only what a day without a point carries. */
export function addCounts(a: Float64Array, b: Counts, offset = 0, carried = false): void {
  const n = carried ? CARRIED : COUNTS;
  for (let i = 0; i < n; i++) a[offset + i] += b[i];
}

/**
 * One project's point for `day` from its alerts as they stand (views of every ecosystem; merged ones are skipped).
 * Teams: each alert counts for every team it has ("unassigned" without one); past `cap` teams, those with the fewest
 * open alerts (then by label) are added up as "other".
 */
export function dayPoint(views: Iterable<AlertView>, day: string, cap = TEAMS_PER_PROJECT): DayPoint {
  const p = emptyCounts();
  const teams = new Map<string, Counts>();
  for (const a of views) {
    if (a.status === 'merged') continue;
    const c = contributionOf(a, day);
    if (a.status !== 'open' && !c.opened && !c.fixes.length) continue;
    addAlert(p, a, c);
    for (const team of a.teams.length ? a.teams : [NO_TEAM]) {
      let t = teams.get(team);
      if (!t) teams.set(team, (t = emptyCounts()));
      addAlert(t, a, c);
    }
  }
  let t = [...teams];
  if (t.length > cap) {
    t.sort((x, y) => openTotal(y[1]) - openTotal(x[1]) || byLabel(x, y));
    const kept: Array<[string, Counts]> = [];
    const rest = emptyCounts(); // a team really named "other" joins the rest
    for (const [label, c] of t)
      if (label !== OTHER_TEAM && kept.length < cap - 1) kept.push([label, c]);
      else addCounts(rest, c);
    t = [...kept, [OTHER_TEAM, rest]];
  }
  return { p, t: t.sort(byLabel) };
}

/** The counts a point holds for a team (the project's when `team` is undefined), or null when it has none. */
export function teamCounts(point: DayPoint, team?: string): Counts | null {
  if (team === undefined) return point.p;
  for (const [label, c] of point.t) if (label === team) return c;
  return null;
}

/** One day's stored counts of a project, by day index (days since some day 0), ascending. */
export interface IndexedCounts {
  at: number;
  counts: Counts;
}

/**
 * Adds one project's counts for each of `days` days from day index `from` into `into` (COUNTS per day): a day with a
 * point adds it whole; a day without carries the latest earlier point's open and suppressed counts (even one before
 * `from`); days before its first point add nothing. `points` ascending by `at`.
 */
export function addSeries(into: Float64Array, points: readonly IndexedCounts[], from: number, days: number): void {
  let k = 0;
  let last: Counts | null = null;
  while (k < points.length && points[k].at < from) last = points[k++].counts;
  for (let i = 0; i < days; i++) {
    const at = from + i;
    if (k < points.length && points[k].at === at) {
      last = points[k++].counts;
      addCounts(into, last, i * COUNTS);
    } else if (last) addCounts(into, last, i * COUNTS, true);
  }
}

export interface MetricsSeries {
  points: Array<{
    date: string;
    open: Record<Severity, number>;
    suppressed: number;
    opened: number;
    fixed: number;
  }>;
  meanTimeToFixDays: Record<Severity, number | null>;
}

/** The answer's series from dense counts (COUNTS per day from `from`), with the mean time to fix over the range. */
export function presentSeries(from: string, dense: Float64Array): MetricsSeries {
  const days = dense.length / COUNTS;
  const ttf = new Float64Array(8);
  const points: MetricsSeries['points'] = new Array(days);
  for (let i = 0; i < days; i++) {
    const o = i * COUNTS;
    for (let j = 0; j < 8; j++) ttf[j] += dense[o + TTF + j];
    points[i] = {
      date: addDays(from, i),
      open: { critical: dense[o], high: dense[o + 1], medium: dense[o + 2], low: dense[o + 3] },
      suppressed: dense[o + SUPPRESSED],
      opened: dense[o + OPENED],
      fixed: dense[o + FIXED],
    };
  }
  const mean = (s: number) => (ttf[2 * s] ? Math.round((ttf[2 * s + 1] / ttf[2 * s]) * 10) / 10 : null);
  return {
    points,
    meanTimeToFixDays: { critical: mean(0), high: mean(1), medium: mean(2), low: mean(3) },
  };
}
