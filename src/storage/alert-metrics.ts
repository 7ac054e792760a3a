// Alert trends as stored (src/storage/documents/metrics.ts): a document per project and day as written (when a
// tracked scan moves its alerts, and by the daily run: activities/alert-metrics.ts), packed by the daily run into a
// document per project (its teams' per project and month); read whole per organization behind the API's cache
// (src/http/metrics/cache.ts), which an organization version written after every change validates.
import { randomUUID } from 'node:crypto';
import { Binary } from 'mongodb';
import { COUNTS, METRICS_KEPT_DAYS, type Counts, type DayPoint } from '../domain/metrics/points';
import { setVersion } from './alerts';
import { packPlainJson, unpackPlainJson } from './codec';
import { isDuplicateKey, type Store } from './mongo';

const versionId = (orgId: string) => `alertMetricsVersion:${orgId}`;
const DAY_MS = 86_400_000;
const dayNumber = (day: string) => Math.round(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
const dayText = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);
/** Where the days to fix start in the counts: kept in hundredths of a day as int32. */
const TTF_FROM = 7;
const HEADER = 2;
const ABSENT = -1;

/** A project's days as held: day number → counts. */
type Days = Map<number, Counts>;

function unpackDays(bin: Binary | null | undefined): Days {
  const days: Days = new Map();
  if (!bin) return days;
  const b = Buffer.from(bin.buffer.buffer, bin.buffer.byteOffset, bin.buffer.byteLength);
  const first = b.readInt32LE(0);
  const n = b.readInt32LE(4);
  for (let d = 0; d < n; d++) {
    const o = (HEADER + d * COUNTS) * 4;
    if (b.readInt32LE(o) === ABSENT) continue;
    const c = new Float64Array(COUNTS);
    for (let i = 0; i < COUNTS; i++) {
      const v = b.readInt32LE(o + i * 4);
      c[i] = i >= TTF_FROM && (i - TTF_FROM) % 2 === 1 ? v / 100 : v;
    }
    days.set(first + d, c);
  }
  return days;
}

function packDays(days: Days): Binary {
  const numbers = [...days.keys()];
  const first = numbers.length ? Math.min(...numbers) : 0;
  const n = numbers.length ? Math.max(...numbers) - first + 1 : 0;
  const b = Buffer.alloc((HEADER + n * COUNTS) * 4);
  b.writeInt32LE(first, 0);
  b.writeInt32LE(n, 4);
  for (let d = 0; d < n; d++) b.writeInt32LE(ABSENT, (HEADER + d * COUNTS) * 4);
  for (const [day, c] of days) {
    const o = (HEADER + (day - first) * COUNTS) * 4;
    for (let i = 0; i < COUNTS; i++)
      b.writeInt32LE(Math.round(i >= TTF_FROM && (i - TTF_FROM) % 2 === 1 ? c[i] * 100 : c[i]), o + i * 4);
  }
  return new Binary(b);
}

type TeamList = Array<[string, number[]]>;
type TeamMonth = Record<string, TeamList>;

function packCounts(c: Counts): Binary {
  return packDays(new Map([[0, c]]));
}
const unpackCounts = (bin: Binary): Counts => unpackDays(bin).get(0)!;
const teamsJson = (t: DayPoint['t']): TeamList => t.map(([label, c]) => [label, Array.from(c)]);
const teamsOf = (list: TeamList): DayPoint['t'] => list.map(([label, c]) => [label, Float64Array.from(c)]);

/** Writes some days' points of a project (each replaced whole: a retry writes the same), then a new organization version. */
export async function writeDayPoints(
  store: Store,
  orgId: string,
  projectId: string,
  points: ReadonlyArray<[day: string, point: DayPoint]>,
  now = new Date(),
): Promise<void> {
  await Promise.all(
    points.map(async ([day, point]) => {
      const _id = `${projectId}:${day}`;
      const doc = {
        orgId,
        projectId,
        day,
        p: packCounts(point.p),
        t: packPlainJson(teamsJson(point.t)),
        updatedAt: now,
      };
      try {
        await store.c.alertMetricDays.replaceOne({ _id }, doc, { upsert: true });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err; // another writer's insert came first: replace it
        await store.c.alertMetricDays.replaceOne({ _id }, doc);
      }
    }),
  );
  await setVersion(store, versionId(orgId), randomUUID());
}

/**
 * Packs the organization's day documents of days before `before` into its projects' packed documents (days older
 * than the 400 kept dropped) and deletes them. Only the daily run calls it, and days before today are written by it
 * alone: nothing else writes what it reads, changes and deletes.
 */
export async function packDayPoints(store: Store, orgId: string, before: string, now = new Date()): Promise<number> {
  const keepFrom = dayNumber(now.toISOString().slice(0, 10)) - (METRICS_KEPT_DAYS - 1);
  const docs = (await store.c.alertMetricDays.find({ orgId }).toArray()).filter((d) => d.day < before);
  const byProject = new Map<string, typeof docs>();
  for (const d of docs) byProject.set(d.projectId, [...(byProject.get(d.projectId) ?? []), d]);
  for (const [projectId, list] of byProject) {
    const packed = await store.c.alertMetrics.findOne({ _id: projectId });
    const days = unpackDays(packed?.data);
    for (const d of list) days.set(dayNumber(d.day), unpackCounts(d.p));
    for (const n of days.keys()) if (n < keepFrom) days.delete(n);
    await store.c.alertMetrics.replaceOne(
      { _id: projectId },
      { orgId, data: packDays(days), updatedAt: now },
      { upsert: true },
    );
    const months = new Map<string, typeof docs>();
    for (const d of list) months.set(d.day.slice(0, 7), [...(months.get(d.day.slice(0, 7)) ?? []), d]);
    for (const [month, inMonth] of months) {
      const _id = `${projectId}:${month}`;
      const held = await store.c.alertTeamMetrics.findOne({ _id });
      const teams: TeamMonth = held ? unpackPlainJson<TeamMonth>(held.data) : {};
      for (const d of inMonth) teams[d.day.slice(8)] = unpackPlainJson<TeamList>(d.t);
      await store.c.alertTeamMetrics.replaceOne(
        { _id },
        { orgId, projectId, month, data: packPlainJson(teams), updatedAt: now },
        { upsert: true },
      );
    }
  }
  if (docs.length) await store.c.alertMetricDays.deleteMany({ _id: { $in: docs.map((d) => d._id) } });
  await setVersion(store, versionId(orgId), randomUUID());
  return docs.length;
}

/** A project's packed counts made whole at once (a bench's bulk load; the service writes with writeDayPoints). */
export const projectCountsDoc = (orgId: string, projectId: string, points: ReadonlyArray<[string, Counts]>) => ({
  _id: projectId,
  orgId,
  data: packDays(new Map(points.map(([day, c]) => [dayNumber(day), c]))),
  updatedAt: new Date(),
});

/** A project's packed teams of a month made whole at once (a bench's bulk load). */
export const teamMonthDoc = (
  orgId: string,
  projectId: string,
  month: string,
  points: ReadonlyArray<[string, DayPoint['t']]>,
) => ({
  _id: `${projectId}:${month}`,
  orgId,
  projectId,
  month,
  data: packPlainJson(Object.fromEntries(points.map(([day, t]) => [day.slice(8), teamsJson(t)]))),
  updatedAt: new Date(),
});

/** Sets the organization's version after points were stored by other means (a bench's bulk load). */
export const touchOrgMetrics = (store: Store, orgId: string): Promise<void> =>
  setVersion(store, versionId(orgId), randomUUID());

/** The organization's trends version (null before any point): changes after every write. */
export async function orgMetricsVersion(store: Store, orgId: string): Promise<string | null> {
  const doc = await store.c.settings.findOne({ _id: versionId(orgId) });
  return doc ? String(doc.value) : null;
}

const byDay = <T>(a: [string, T], b: [string, T]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** Every stored project count of an organization: by project, [day, counts] ascending by day. */
export async function orgProjectCounts(store: Store, orgId: string): Promise<Map<string, Array<[string, Counts]>>> {
  // the day documents after the packed ones: a day in both (packed, then written again) is the day document's
  const [packed, days] = await Promise.all([
    store.c.alertMetrics.find({ orgId }).toArray(),
    store.c.alertMetricDays.find({ orgId }, { projection: { t: 0 } }).toArray(),
  ]);
  const held = new Map<string, Map<string, Counts>>();
  const of = (projectId: string) => held.get(projectId) ?? held.set(projectId, new Map()).get(projectId)!;
  for (const doc of packed) for (const [n, c] of unpackDays(doc.data)) of(doc._id).set(dayText(n), c);
  for (const doc of days) of(doc.projectId).set(doc.day, unpackCounts(doc.p));
  return new Map([...held].map(([id, m]) => [id, [...m].sort(byDay)]));
}

/** Every stored team point of an organization: by project, [day, teams] ascending by day. */
export async function orgTeamCounts(store: Store, orgId: string): Promise<Map<string, Array<[string, DayPoint['t']]>>> {
  const [packed, days] = await Promise.all([
    store.c.alertTeamMetrics.find({ orgId }).toArray(),
    store.c.alertMetricDays.find({ orgId }, { projection: { p: 0 } }).toArray(),
  ]);
  const held = new Map<string, Map<string, DayPoint['t']>>();
  const of = (projectId: string) => held.get(projectId) ?? held.set(projectId, new Map()).get(projectId)!;
  for (const doc of packed)
    for (const [dd, list] of Object.entries(unpackPlainJson<TeamMonth>(doc.data)))
      of(doc.projectId).set(`${doc.month}-${dd}`, teamsOf(list));
  for (const doc of days) of(doc.projectId).set(doc.day, teamsOf(unpackPlainJson<TeamList>(doc.t)));
  return new Map([...held].map(([id, m]) => [id, [...m].sort(byDay)]));
}

/** Removes the teams' months wholly before `month` (YYYY-MM): points are kept 400 days (a project's are trimmed as packed). */
export async function deleteMetricsBefore(store: Store, month: string): Promise<number> {
  return (await store.c.alertTeamMetrics.deleteMany({ month: { $lt: month } })).deletedCount;
}
