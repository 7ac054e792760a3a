// Alert trends (src/domain/metrics/points.ts): a project's point of the day written after each move of its alerts (a
// tracked scan, a re-match), and every project's point of the day that just ended written by the daily run (the
// alert-metrics schedule, workflows/alert-metrics.ts), which also drops points older than 400 days. A point is made
// from the alerts as they stand, with their analyses and the rules in force: written again, it is the same picture.
import type { AlertRecord } from '../src/domain/alerts/move';
import { viewOf, type AlertView } from '../src/domain/alerts/query';
import { addDays, dayOf, dayPoint, METRICS_KEPT_DAYS, type DayPoint } from '../src/domain/metrics/points';
import type { Analysis } from '../src/domain/triage/analysis';
import { compileRule, ruleInForce } from '../src/domain/triage/rules';
import type { Logger } from '../src/logger';
import { deleteMetricsBefore, packDayPoints, writeDayPoints } from '../src/storage/alert-metrics';
import { readStateAlerts } from '../src/storage/alerts';
import type { AlertSetDoc } from '../src/storage/documents/alerts';
import type { Store } from '../src/storage/mongo';
import { orgAnalyses, pairAnalysesWithoutHistory } from '../src/storage/triage';
import { orgRules } from '../src/storage/triage-rules';

/** How many projects the daily run writes at once. */
const DAILY_CONCURRENCY = 4;

/** The analyses of some alerts by id (the newest revision's analysis). */
type Analyses = ReadonlyMap<string, Analysis>;

/** Some heads' alerts as the API presents them now, by project (merged ones left out by dayPoint). */
async function viewsOf(store: Store, orgId: string, heads: readonly AlertSetDoc[], analyses: Analyses, now: Date) {
  const [lists, rules] = await Promise.all([
    Promise.all(heads.map((h) => readStateAlerts(store, h._id, h.seq))),
    orgRules(store, orgId),
  ]);
  const inForce = rules.filter((r) => ruleInForce(r, now)).map(compileRule);
  const byProject = new Map<string, AlertView[]>();
  lists.forEach((list: AlertRecord[], i) => {
    const projectId = heads[i].projectId;
    const views = byProject.get(projectId) ?? [];
    for (const a of list) views.push(viewOf(a, { analysis: analyses.get(a.id) ?? null, rules: inForce, now }));
    byProject.set(projectId, views);
  });
  return byProject;
}

/** Every analysis of an organization (the daily run's one read). */
async function orgAnalysisMap(store: Store, orgId: string): Promise<Analyses> {
  const out = new Map<string, Analysis>();
  for (const [id, d] of await orgAnalyses(store, orgId)) if (d.analysis) out.set(id, d.analysis);
  return out;
}

/**
 * Writes the point of `now`'s day of one project, from its alerts of every ecosystem: its own heads and analyses
 * only (read by project and by pair), not the organization's.
 */
export async function recordProjectMetrics(
  store: Store,
  orgId: string,
  projectId: string,
  now = new Date(),
): Promise<DayPoint> {
  const heads = await store.c.alertSets.find({ projectId }).toArray();
  const analyses = new Map<string, Analysis>();
  for (const m of await Promise.all(heads.map((h) => pairAnalysesWithoutHistory(store, h._id))))
    for (const [id, a] of m) analyses.set(id, a);
  const views = (await viewsOf(store, orgId, heads, analyses, now)).get(projectId) ?? [];
  const point = dayPoint(views, dayOf(now));
  await writeDayPoints(store, orgId, projectId, [[dayOf(now), point]], now);
  return point;
}

/** After a move of a pair's alerts: its project's point of the day (never fails the move: the daily run writes it). */
export async function recordPairMetrics(store: Store, logger: Logger, pairId: string, now = new Date()): Promise<void> {
  try {
    const head = await store.c.alertSets.findOne({ _id: pairId }, { projection: { orgId: 1, projectId: 1 } });
    if (head) await recordProjectMetrics(store, head.orgId, head.projectId, now);
  } catch (err) {
    logger.warn({ err, pairId }, 'alert trends not written; the daily run writes them');
  }
}

export interface DailyMetricsResult {
  day: string;
  orgs: number;
  projects: number;
  /** Day documents packed into the projects' documents. */
  packed: number;
  deletedMonths: number;
}

/**
 * The daily run: every project with alerts gets its point of the day before `now` (run just after midnight UTC: the
 * day's close); then each organization's points of the days before today are packed (src/storage/alert-metrics.ts),
 * and teams' months wholly older than 400 days go.
 */
export async function recordDailyMetrics(store: Store, now = new Date()): Promise<DailyMetricsResult> {
  const today = dayOf(now);
  const day = addDays(today, -1);
  const heads = await store.c.alertSets.find({}).toArray();
  const byOrg = new Map<string, AlertSetDoc[]>();
  for (const h of heads) byOrg.set(h.orgId, [...(byOrg.get(h.orgId) ?? []), h]);
  let projects = 0;
  for (const [orgId, orgHeads] of byOrg) {
    const views = [...(await viewsOf(store, orgId, orgHeads, await orgAnalysisMap(store, orgId), now))];
    for (let i = 0; i < views.length; i += DAILY_CONCURRENCY)
      await Promise.all(
        views
          .slice(i, i + DAILY_CONCURRENCY)
          .map(([projectId, v]) => writeDayPoints(store, orgId, projectId, [[day, dayPoint(v, day)]], now)),
      );
    projects += views.length;
  }
  // every organization with day documents (one whose alerts are gone too)
  const orgs = new Set([...byOrg.keys(), ...(await store.c.alertMetricDays.distinct('orgId'))]);
  let packed = 0;
  for (const orgId of orgs) packed += await packDayPoints(store, orgId, today, now);
  const deletedMonths = await deleteMetricsBefore(store, addDays(today, -METRICS_KEPT_DAYS).slice(0, 7));
  return { day, orgs: byOrg.size, projects, packed, deletedMonths };
}
