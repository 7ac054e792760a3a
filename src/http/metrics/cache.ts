// What the trend and portfolio reads use, kept per API process: an organization's stored points (validated on every
// read by its trends version, one query: src/storage/alert-metrics.ts), and the live point of today and the portfolio
// counts made from the organization's alert index (src/http/alerts/index-cache.ts), kept with the index they came
// from (an index is replaced whenever its alerts, triage or intelligence change).
import { LRUCache } from 'lru-cache';
import type { AlertIndex } from '../../domain/alerts/index';
import type { AlertView } from '../../domain/alerts/query';
import { dayPoint, type DayPoint } from '../../domain/metrics/points';
import { orgDayPoints, orgMetricsVersion } from '../../storage/alert-metrics';
import type { Store } from '../../storage/mongo';

interface Stored {
  version: string | null;
  points: Map<string, Map<string, DayPoint>>;
}

const stored = new LRUCache<string, Stored>({ max: 64 });
const building = new Map<string, Promise<Stored>>();

/** The organization's stored points by project and day, read again only when its trends version changed. */
export async function storedPoints(store: Store, orgId: string): Promise<Map<string, Map<string, DayPoint>>> {
  const version = await orgMetricsVersion(store, orgId);
  if (version === null) return new Map();
  const kept = stored.get(orgId);
  if (kept?.version === version) return kept.points;
  // One read per organization and version at a time: the version is read before the points (a later write changes
  // it, and the next request reads again).
  const key = `${orgId}\n${version}`;
  let p = building.get(key);
  if (!p) {
    p = orgDayPoints(store, orgId).then((points) => {
      const s = { version, points };
      stored.set(orgId, s);
      return s;
    });
    building.set(key, p);
    void p.finally(() => building.delete(key)).catch(() => undefined);
  }
  return (await p).points;
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
  const kept = live.get(index);
  if (kept?.day === day) return kept.points;
  const points = new Map<string, DayPoint>();
  for (const [projectId, views] of viewsByProject(index)) points.set(projectId, dayPoint(views, day));
  live.set(index, { day, points });
  return points;
}
