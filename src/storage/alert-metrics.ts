// Alert trends as stored (src/storage/documents/metrics.ts): a project's daily points by month, written when a tracked
// scan moves its alerts and by the daily run (activities/alert-metrics.ts), read whole per organization behind the
// API's cache (src/http/metrics/cache.ts), which an organization version written after every change validates.
import { randomUUID } from 'node:crypto';
import type { DayPoint } from '../domain/metrics/points';
import { setVersion } from './alerts';
import { packPlainJson, unpackPlainJson } from './codec';
import { isDuplicateKey, type Store } from './mongo';

const versionId = (orgId: string) => `alertMetricsVersion:${orgId}`;
const field = (day: string) => `d${day.slice(8, 10)}`;

/** Writes some days' points of a project (each whole; a retry writes the same), then a new organization version. */
export async function writeDayPoints(
  store: Store,
  orgId: string,
  projectId: string,
  points: ReadonlyArray<[day: string, point: DayPoint]>,
  now = new Date(),
): Promise<void> {
  const months = new Map<string, Record<string, unknown>>();
  for (const [day, point] of points) {
    const month = day.slice(0, 7);
    const set = months.get(month) ?? {};
    set[`days.${field(day)}`] = packPlainJson(point);
    months.set(month, set);
  }
  await Promise.all(
    [...months].map(async ([month, set]) => {
      const update = { $set: { ...set, orgId, projectId, month, updatedAt: now } };
      const _id = `${projectId}:${month}`;
      try {
        await store.c.alertMetrics.updateOne({ _id }, update, { upsert: true });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err; // another writer's insert came first: update it
        await store.c.alertMetrics.updateOne({ _id }, update);
      }
    }),
  );
  await setVersion(store, versionId(orgId), randomUUID());
}

/** The organization's trends version (null before any point): changes after every write. */
export async function orgMetricsVersion(store: Store, orgId: string): Promise<string | null> {
  const doc = await store.c.settings.findOne({ _id: versionId(orgId) });
  return doc ? String(doc.value) : null;
}

/** Every stored point of an organization: by project, by day (YYYY-MM-DD). */
export async function orgDayPoints(store: Store, orgId: string): Promise<Map<string, Map<string, DayPoint>>> {
  const out = new Map<string, Map<string, DayPoint>>();
  for (const doc of await store.c.alertMetrics.find({ orgId }).toArray()) {
    let days = out.get(doc.projectId);
    if (!days) out.set(doc.projectId, (days = new Map()));
    for (const [f, bin] of Object.entries(doc.days ?? {}))
      days.set(`${doc.month}-${f.slice(1)}`, unpackPlainJson<DayPoint>(bin));
  }
  return out;
}

/** Removes the months wholly before `month` (YYYY-MM): points are kept 400 days. */
export async function deleteMetricsBefore(store: Store, month: string): Promise<number> {
  const r = await store.c.alertMetrics.deleteMany({ month: { $lt: month } });
  return r.deletedCount;
}
