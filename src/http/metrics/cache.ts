// What the trend and portfolio reads use, kept per API process. An organization's stored points, by project and day
// index (days since the oldest day kept when read), validated on every read by its trends version (one query:
// src/storage/alert-metrics.ts), with the organization's dense total over the days kept made once (what the
// dashboard asks for: a slice of it); the teams' points read only when a team's trend is asked for. Today is made
// live from the organization's alert index (src/http/alerts/index-cache.ts), kept with the index it came from (an
// index is replaced whenever its alerts, triage or intelligence change).
import { LRUCache } from 'lru-cache';
import type { AlertIndex } from '../../domain/alerts/index';
import type { AlertView } from '../../domain/alerts/query';
import {
  addDays,
  addSeries,
  COUNTS,
  dayPoint,
  daysBetween,
  METRICS_KEPT_DAYS,
  type DayPoint,
  type IndexedCounts,
} from '../../domain/metrics/points';
import { portfolioOf, type Portfolio } from '../../domain/metrics/portfolio';
import { orgMetricsVersion, orgProjectCounts, orgTeamCounts } from '../../storage/alert-metrics';
import { orgAlertSets } from '../../storage/alerts';
import type { Store } from '../../storage/mongo';

export interface OrgTrends {
  /** Day index 0: the oldest day kept when the points were read. */
  day0: string;
  /** Each project's stored counts by day index, ascending. */
  projects: Map<string, IndexedCounts[]>;
  /** The organization's counts over day indexes [0, METRICS_KEPT_DAYS), carried forward (made on first use). */
  total?: Float64Array;
  /** Team → project → stored counts by day index (read on first use). */
  teams?: Promise<Map<string, Map<string, IndexedCounts[]>>>;
}

interface Kept {
  version: string;
  trends: OrgTrends;
}

const kept = new LRUCache<string, Kept>({ max: 64 });
const reading = new Map<string, Promise<Kept>>();
const EMPTY_VERSION = '';

/** The organization's stored trends, read again only when its trends version or the day changed. */
export async function orgTrends(store: Store, orgId: string, today: string): Promise<OrgTrends> {
  const version = (await orgMetricsVersion(store, orgId)) ?? EMPTY_VERSION;
  const day0 = addDays(today, -(METRICS_KEPT_DAYS - 1));
  const k = kept.get(orgId);
  if (k?.version === version && k.trends.day0 === day0) return k.trends;
  // One read per organization, version and day at a time: the version is read before the points (a later write
  // changes it, and the next request reads again).
  const key = `${orgId}\n${version}\n${day0}`;
  let p = reading.get(key);
  if (!p) {
    p = (async () => {
      const projects = new Map<string, IndexedCounts[]>();
      if (version !== EMPTY_VERSION)
        for (const [id, days] of await orgProjectCounts(store, orgId))
          projects.set(
            id,
            days.map(([day, counts]) => ({ at: daysBetween(day0, day), counts })),
          );
      const entry = { version, trends: { day0, projects } };
      kept.set(orgId, entry);
      return entry;
    })();
    reading.set(key, p);
    void p.finally(() => reading.delete(key)).catch(() => undefined);
  }
  return (await p).trends;
}

/** The organization's dense total over the days kept (every project's stored counts, carried forward). */
export function orgTotal(t: OrgTrends): Float64Array {
  if (!t.total) {
    const total = new Float64Array(METRICS_KEPT_DAYS * COUNTS);
    for (const points of t.projects.values()) addSeries(total, points, 0, METRICS_KEPT_DAYS);
    t.total = total;
  }
  return t.total;
}

/**
 * Team → project → stored counts by day index, read on first use (after the project counts: a point written between
 * the two reads shows in the teams' a read earlier; the next version reads both again).
 */
export function orgTeams(
  store: Store,
  orgId: string,
  t: OrgTrends,
): Promise<Map<string, Map<string, IndexedCounts[]>>> {
  t.teams ??= orgTeamCounts(store, orgId).then((byProject) => {
    const teams = new Map<string, Map<string, IndexedCounts[]>>();
    for (const [projectId, days] of byProject)
      for (const [day, list] of days)
        for (const [label, counts] of list) {
          let projects = teams.get(label);
          if (!projects) teams.set(label, (projects = new Map()));
          let points = projects.get(projectId);
          if (!points) projects.set(projectId, (points = []));
          points.push({ at: daysBetween(t.day0, day), counts });
        }
    return teams;
  });
  return t.teams;
}

/** The alerts of an index grouped by project (merged ones left out). */
const byProject = new WeakMap<AlertIndex, Map<string, AlertView[]>>();
export function viewsByProject(index: AlertIndex): Map<string, AlertView[]> {
  let m = byProject.get(index);
  if (!m) {
    m = new Map();
    for (const v of index.all) {
      if (v.status === 'merged') continue;
      const list = m.get(v.projectId);
      if (list) list.push(v);
      else m.set(v.projectId, [v]);
    }
    byProject.set(index, m);
  }
  return m;
}

/** Today's live point of each project, made from the index once per index and day. */
const live = new WeakMap<AlertIndex, { day: string; points: Map<string, DayPoint> }>();
export function livePoints(index: AlertIndex, day: string): Map<string, DayPoint> {
  const k = live.get(index);
  if (k?.day === day) return k.points;
  const points = new Map<string, DayPoint>();
  for (const [projectId, views] of viewsByProject(index)) points.set(projectId, dayPoint(views, day));
  live.set(index, { day, points });
  return points;
}

/** When each project's newest tracked scan started (the heads of its alerts). */
export async function lastTrackedScans(store: Store, orgId: string): Promise<Map<string, Date>> {
  const last = new Map<string, Date>();
  for (const h of await orgAlertSets(store, orgId)) {
    const t = last.get(h.projectId);
    if (!t || h.startedAt > t) last.set(h.projectId, h.startedAt);
  }
  return last;
}

/**
 * The portfolio of some projects, kept with the index it was made from (the heads change only with the alerts, whose
 * every change makes a new index) and the projects it was asked for, within the hour (projects go out of date).
 */
const portfolios = new WeakMap<AlertIndex, { heads: Promise<Map<string, Date>>; made: LRUCache<string, Portfolio> }>();
export async function portfolioOfIndex(
  index: AlertIndex,
  projects: ReadonlyArray<{ _id: string; slug: string }>,
  heads: () => Promise<Map<string, Date>>,
  now = new Date(),
): Promise<Portfolio> {
  let k = portfolios.get(index);
  if (!k) {
    const read = heads();
    read.catch(() => portfolios.delete(index)); // a failed read is not kept: the next request reads again
    portfolios.set(index, (k = { heads: read, made: new LRUCache({ max: 16 }) }));
  }
  const key = `${now.toISOString().slice(0, 13)}\n${projects.map((x) => `${x._id} ${x.slug}`).join('\n')}`;
  let made = k.made.get(key);
  if (!made) {
    const last = await k.heads;
    made = portfolioOf(
      projects.map((x) => ({ id: x._id, slug: x.slug, lastTrackedScanAt: last.get(x._id) ?? null })),
      viewsByProject(index),
      now,
    );
    k.made.set(key, made);
  }
  return made;
}
