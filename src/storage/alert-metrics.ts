// Alert trends as stored (src/storage/documents/metrics.ts): a project's daily points by month, written when a tracked
// scan moves its alerts and by the daily run (activities/alert-metrics.ts), read whole per organization behind the
// API's cache (src/http/metrics/cache.ts), which an organization version written after every change validates.
import { randomUUID } from 'node:crypto';
import { Binary } from 'mongodb';
import { COUNTS, type Counts, type DayPoint } from '../domain/metrics/points';
import { setVersion } from './alerts';
import { packPlainJson, unpackPlainJson } from './codec';
import type { AlertMetricsDoc } from './documents/metrics';
import { isDuplicateKey, type Store } from './mongo';

const versionId = (orgId: string) => `alertMetricsVersion:${orgId}`;
const field = (day: string) => `d${day.slice(8, 10)}`;

/** Counts as stored: COUNTS little-endian float64. */
export const packCounts = (c: Counts): Binary => {
  const b = Buffer.alloc(COUNTS * 8);
  for (let i = 0; i < COUNTS; i++) b.writeDoubleLE(c[i], i * 8);
  return new Binary(b);
};
const unpackCounts = (bin: Binary): Counts => {
  const b = Buffer.from(bin.buffer.buffer, bin.buffer.byteOffset, bin.buffer.byteLength);
  const c = new Float64Array(COUNTS);
  for (let i = 0; i < COUNTS; i++) c[i] = b.readDoubleLE(i * 8);
  return c;
};
export const packTeams = (t: DayPoint['t']): Binary => packPlainJson(t.map(([label, c]) => [label, Array.from(c)]));
const unpackTeams = (bin: Binary): DayPoint['t'] =>
  unpackPlainJson<Array<[string, number[]]>>(bin).map(([label, c]) => [label, Float64Array.from(c)]);

async function upsert(store: Store, _id: string, update: object): Promise<void> {
  try {
    await store.c.alertMetrics.updateOne({ _id }, update, { upsert: true });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err; // another writer's insert came first: update it
    await store.c.alertMetrics.updateOne({ _id }, update);
  }
}

/** Writes some days' points of a project (each whole; a retry writes the same), then a new organization version. */
export async function writeDayPoints(
  store: Store,
  orgId: string,
  projectId: string,
  points: ReadonlyArray<[day: string, point: DayPoint]>,
  now = new Date(),
): Promise<void> {
  const months = new Map<string, { project: Record<string, Binary>; teams: Record<string, Binary> }>();
  for (const [day, point] of points) {
    const month = day.slice(0, 7);
    const sets = months.get(month) ?? { project: {}, teams: {} };
    sets.project[`days.${field(day)}`] = packCounts(point.p);
    sets.teams[`days.${field(day)}`] = packTeams(point.t);
    months.set(month, sets);
  }
  await Promise.all(
    [...months].flatMap(([month, sets]) => [
      upsert(store, `${projectId}:${month}`, {
        $set: { ...sets.project, orgId, projectId, month, kind: 'project', updatedAt: now },
      }),
      upsert(store, `${projectId}:${month}:teams`, {
        $set: { ...sets.teams, orgId, projectId, month, kind: 'teams', updatedAt: now },
      }),
    ]),
  );
  await setVersion(store, versionId(orgId), randomUUID());
}

/** Sets the organization's version after points were stored by other means (a bench's bulk insert). */
export const touchOrgMetrics = (store: Store, orgId: string): Promise<void> =>
  setVersion(store, versionId(orgId), randomUUID());

/** The organization's trends version (null before any point): changes after every write. */
export async function orgMetricsVersion(store: Store, orgId: string): Promise<string | null> {
  const doc = await store.c.settings.findOne({ _id: versionId(orgId) });
  return doc ? String(doc.value) : null;
}

/** Each day's entry of some documents, by project: [day (YYYY-MM-DD), stored value]. */
function byProject<T>(docs: AlertMetricsDoc[], decode: (b: Binary) => T): Map<string, Array<[string, T]>> {
  const out = new Map<string, Array<[string, T]>>();
  for (const doc of docs) {
    let days = out.get(doc.projectId);
    if (!days) out.set(doc.projectId, (days = []));
    for (const [f, bin] of Object.entries(doc.days ?? {})) days.push([`${doc.month}-${f.slice(1)}`, decode(bin)]);
  }
  for (const days of out.values()) days.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return out;
}

/** Every stored project count of an organization: by project, [day, counts] ascending by day. */
export async function orgProjectCounts(store: Store, orgId: string): Promise<Map<string, Array<[string, Counts]>>> {
  return byProject(await store.c.alertMetrics.find({ orgId, kind: 'project' }).toArray(), unpackCounts);
}

/** Every stored team point of an organization: by project, [day, teams] ascending by day. */
export async function orgTeamCounts(store: Store, orgId: string): Promise<Map<string, Array<[string, DayPoint['t']]>>> {
  return byProject(await store.c.alertMetrics.find({ orgId, kind: 'teams' }).toArray(), unpackTeams);
}

/** Removes the months wholly before `month` (YYYY-MM): points are kept 400 days. */
export async function deleteMetricsBefore(store: Store, month: string): Promise<number> {
  const r = await store.c.alertMetrics.deleteMany({ month: { $lt: month } });
  return r.deletedCount;
}
