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
import { SEVERITIES, type Severity } from '../../shared/types';
import type { AlertView } from '../alerts/query';

/** Counts of one day, project or team. `o`: open by severity (critical, high, medium, low); `s`: suppressed open. */
export interface DayCounts {
  o: [number, number, number, number];
  s: number;
  op: number;
  fx: number;
  /** Per severity, [fixes, sum of their days to fix]. */
  ttf: [[number, number], [number, number], [number, number], [number, number]];
}

/** A project's point of one day: the project's counts and each team's ([label, counts], label order). */
export interface DayPoint {
  p: DayCounts;
  t: Array<[string, DayCounts]>;
}

export const TEAMS_PER_PROJECT = 200;
export const OTHER_TEAM = 'other';
export const NO_TEAM = 'unassigned';
export const METRICS_KEPT_DAYS = 400;
export const DEFAULT_RANGE_DAYS = 90;

const DAY_MS = 86_400_000;

export const emptyCounts = (): DayCounts => ({
  o: [0, 0, 0, 0],
  s: 0,
  op: 0,
  fx: 0,
  ttf: [
    [0, 0],
    [0, 0],
    [0, 0],
    [0, 0],
  ],
});

/** The UTC day (YYYY-MM-DD) of an instant. */
export const dayOf = (t: Date | string | number): string => new Date(t).toISOString().slice(0, 10);

/** The day `n` days after `day` (n may be negative). */
export const addDays = (day: string, n: number): string => dayOf(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS);

/** Days from `a` to `b` (b − a), whole days. */
export const daysBetween = (a: string, b: string): number =>
  Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);

/** Whether `s` is a real calendar day written YYYY-MM-DD. */
export const isDay = (s: string): boolean => /^\d{4}-\d{2}-\d{2}$/.test(s) && dayOf(Date.parse(`${s}T00:00:00Z`)) === s;

const sev = (s: Severity): number => SEVERITIES.indexOf(s);

/** What one alert adds to its day's counts. */
interface Contribution {
  open: boolean;
  suppressed: boolean;
  severity: number;
  opened: number;
  /** Days to fix of each fix that day. */
  fixes: number[];
}

/** What an alert (not merged) adds to the counts of `day`. */
function contributionOf(a: AlertView, day: string): Contribution {
  const c: Contribution = {
    open: a.status === 'open',
    suppressed: a.suppressed,
    severity: sev(a.severity),
    opened: 0,
    fixes: [],
  };
  if (a.suppressed) return c; // a suppressed alert's comings and goings are not counted
  let openedAt = a.firstSeenAt;
  if (dayOf(openedAt) === day) c.opened++;
  for (const e of a.history ?? []) {
    if (e.type === 'reopened') {
      openedAt = e.at;
      if (dayOf(e.at) === day) c.opened++;
    } else if (e.type === 'fixed' && dayOf(e.at) === day) {
      c.fixes.push(Math.max(0, (Date.parse(e.at) - Date.parse(openedAt)) / DAY_MS));
    }
  }
  // A fix older than the inline history still shows on the record itself.
  if (
    a.status === 'fixed' &&
    a.fixedAt &&
    dayOf(a.fixedAt) === day &&
    !(a.history ?? []).some((e) => e.type === 'fixed')
  )
    c.fixes.push(Math.max(0, (Date.parse(a.fixedAt) - Date.parse(openedAt)) / DAY_MS));
  return c;
}

function add(to: DayCounts, c: Contribution): void {
  if (c.open) {
    if (c.suppressed) to.s++;
    else to.o[c.severity]++;
  }
  to.op += c.opened;
  to.fx += c.fixes.length;
  for (const d of c.fixes) {
    to.ttf[c.severity][0]++;
    to.ttf[c.severity][1] += d;
  }
}

const openTotal = (c: DayCounts) => c.o[0] + c.o[1] + c.o[2] + c.o[3] + c.s;

/** Adds `b` into `a`. */
export function addCounts(a: DayCounts, b: DayCounts): DayCounts {
  for (let i = 0; i < 4; i++) {
    a.o[i] += b.o[i];
    a.ttf[i][0] += b.ttf[i][0];
    a.ttf[i][1] += b.ttf[i][1];
  }
  a.s += b.s;
  a.op += b.op;
  a.fx += b.fx;
  return a;
}

/**
 * One project's point for `day` from its alerts as they stand (views of every ecosystem; merged ones are skipped).
 * Teams: each alert counts for every team it has ("unassigned" without one); past `cap` teams, those with the fewest
 * open alerts (then by label) are added up as "other".
 */
export function dayPoint(views: Iterable<AlertView>, day: string, cap = TEAMS_PER_PROJECT): DayPoint {
  const p = emptyCounts();
  const teams = new Map<string, DayCounts>();
  for (const a of views) {
    if (a.status === 'merged') continue;
    const c = contributionOf(a, day);
    if (!c.open && !c.opened && !c.fixes.length) continue;
    add(p, c);
    for (const team of a.teams.length ? a.teams : [NO_TEAM]) {
      let t = teams.get(team);
      if (!t) teams.set(team, (t = emptyCounts()));
      add(t, c);
    }
  }
  let t = [...teams];
  if (t.length > cap) {
    t.sort((x, y) => openTotal(y[1]) - openTotal(x[1]) || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    const kept: Array<[string, DayCounts]> = [];
    const rest = emptyCounts(); // a team really named "other" joins the rest
    for (const [label, c] of t)
      if (label !== OTHER_TEAM && kept.length < cap - 1) kept.push([label, c]);
      else addCounts(rest, c);
    t = [...kept, [OTHER_TEAM, rest]];
  }
  t.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  return { p, t };
}

/** The counts a point holds for a team (the project's when `team` is undefined), or null when it has none. */
export function countsOf(point: DayPoint, team?: string): DayCounts | null {
  if (team === undefined) return point.p;
  for (const [label, c] of point.t) if (label === team) return c;
  return null;
}

/** A point carried to a day without one: its open and suppressed counts, nothing opened or fixed. */
const carried = (c: DayCounts): DayCounts => ({ ...emptyCounts(), o: [...c.o], s: c.s });

/**
 * One project's counts for each day of [from, to] (ascending), from its stored points by day: a day without a point
 * carries the latest earlier point (even one before `from`) forward; days before its first point count nothing.
 * `team` selects a team's counts (a point without that team counts nothing that day, and carries nothing).
 */
export function projectSeries(
  points: ReadonlyMap<string, DayPoint>,
  from: string,
  to: string,
  team?: string,
  /** A point that stands for its day instead of the stored one (today's, made live). */
  over?: [day: string, point: DayPoint],
): DayCounts[] {
  const at = (day: string) => (over && over[0] === day ? over[1] : points.get(day));
  const days = daysBetween(from, to) + 1;
  const out: DayCounts[] = new Array(days);
  // The latest point before `from`.
  let last: DayCounts | null = null;
  let lastDay = '';
  for (const [day, point] of points)
    if (day < from && day > lastDay) {
      lastDay = day;
      last = countsOf(point, team) ?? emptyCounts();
    }
  for (let i = 0; i < days; i++) {
    const point = at(addDays(from, i));
    if (point) {
      const c = countsOf(point, team) ?? emptyCounts();
      out[i] = c;
      last = c;
    } else out[i] = last ? carried(last) : emptyCounts();
  }
  return out;
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

/** The answer's series: the projects' day counts added up, and the mean time to fix per severity over the range. */
export function sumSeries(from: string, series: readonly DayCounts[][], days: number): MetricsSeries {
  const total = Array.from({ length: days }, emptyCounts);
  for (const s of series) for (let i = 0; i < days; i++) addCounts(total[i], s[i]);
  const ttf = total.reduce((acc, c) => addCounts(acc, { ...emptyCounts(), ttf: c.ttf }), emptyCounts()).ttf;
  const bySeverity = <T>(f: (i: number) => T) =>
    Object.fromEntries(SEVERITIES.map((s, i) => [s, f(i)])) as Record<Severity, T>;
  return {
    points: total.map((c, i) => ({
      date: addDays(from, i),
      open: bySeverity((j) => c.o[j]),
      suppressed: c.s,
      opened: c.op,
      fixed: c.fx,
    })),
    meanTimeToFixDays: bySeverity((j) => (ttf[j][0] ? Math.round((ttf[j][1] / ttf[j][0]) * 10) / 10 : null)),
  };
}
