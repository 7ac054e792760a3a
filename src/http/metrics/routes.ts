// GET /v1/metrics/alerts (trends: daily points of open, suppressed, opened and fixed alerts, mean time to fix) and
// GET /v1/metrics/portfolio (the organization's open alerts by project and team, as they stand): the web app's
// dashboard (docs/dashboard.md). Stored points (src/storage/alert-metrics.ts) give the past days; today is made live
// from the alert index. A restricted key counts its projects only.
import Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError, invalidParameter } from '../../domain/errors';
import {
  addCounts,
  addDays,
  addSeries,
  COUNTS,
  dayOf,
  daysBetween,
  DEFAULT_RANGE_DAYS,
  isDay,
  METRICS_KEPT_DAYS,
  presentSeries,
  teamCounts,
  type IndexedCounts,
} from '../../domain/metrics/points';
import { findProject } from '../../storage/projects';
import { orgAlertIndex } from '../alerts/index-cache';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import { canReachProject, projectRestriction } from '../auth/principal';
import type { AppDeps } from '../deps';
import { singleQuery } from '../pagination';
import { lastTrackedScans, livePoints, orgTeams, orgTotal, orgTrends, portfolioOfIndex } from './cache';

const MAX_TEXT = 512;

function dayQuery(ctx: Context, name: string): string | undefined {
  const v = singleQuery(ctx, name);
  if (v === undefined) return undefined;
  if (!isDay(v)) throw invalidParameter(name, 'must be a date written YYYY-MM-DD (a UTC day)');
  return v;
}

export function metricsRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.get('/v1/metrics/alerts', access(deps, 'GET /v1/metrics/alerts'), async (ctx) => {
    const p = principalOf(ctx);
    const today = dayOf(new Date());
    const oldest = addDays(today, -(METRICS_KEPT_DAYS - 1));
    const to = dayQuery(ctx, 'to') ?? today;
    if (to > today) throw invalidParameter('to', `must not be after today (${today}, UTC)`);
    const fallback = addDays(to, -(DEFAULT_RANGE_DAYS - 1)); // the 90 days up to `to`, within the days kept
    const from = dayQuery(ctx, 'from') ?? (fallback < oldest ? oldest : fallback);
    if (from > to) throw invalidParameter('from', 'must not be after `to`');
    if (from < oldest)
      throw invalidParameter('from', `must be within the ${METRICS_KEPT_DAYS} days kept (${oldest} or later)`);
    const team = singleQuery(ctx, 'team');
    if (team !== undefined && (team === '' || team.length > MAX_TEXT))
      throw invalidParameter('team', `must be 1 to ${MAX_TEXT} characters`);
    const projectRef = singleQuery(ctx, 'project');
    let projectIds: string[] | null = projectRestriction(p);
    let projectId: string | null = null;
    if (projectRef !== undefined) {
      const project = projectRef.length <= MAX_TEXT ? await findProject(deps.store, p.orgId, projectRef) : null;
      if (!project || !canReachProject(p, project._id))
        throw new ApiError(422, 'unknown_project', `project: "${projectRef}" does not exist or is out of reach`);
      projectIds = [project._id];
      projectId = project._id;
    }
    const [trends, index] = await Promise.all([
      orgTrends(deps.store, p.orgId, today),
      to === today ? orgAlertIndex(deps.store, p.orgId) : null,
    ]);
    const f = daysBetween(trends.day0, from);
    const days = daysBetween(from, to) + 1;
    let dense: Float64Array;
    if (!projectIds && team === undefined) dense = orgTotal(trends).slice(f * COUNTS, (f + days) * COUNTS);
    else {
      dense = new Float64Array(days * COUNTS);
      const source: Map<string, IndexedCounts[]> =
        team === undefined ? trends.projects : ((await orgTeams(deps.store, p.orgId, trends)).get(team) ?? new Map());
      for (const id of projectIds ?? source.keys()) {
        const points = source.get(id);
        if (points) addSeries(dense, points, f, days);
      }
    }
    if (index) {
      // today as the alerts stand now, in place of what the stored points carried
      const last = (days - 1) * COUNTS;
      dense.fill(0, last);
      const live = livePoints(index, today);
      for (const id of projectIds ?? live.keys()) {
        const point = live.get(id);
        const counts = point && teamCounts(point, team);
        if (counts) addCounts(dense, counts, last);
      }
    }
    await recheck(deps, p);
    ctx.body = { from, to, project: projectId, team: team ?? null, ...presentSeries(from, dense) };
  });

  r.get('/v1/metrics/portfolio', access(deps, 'GET /v1/metrics/portfolio'), async (ctx) => {
    const p = principalOf(ctx);
    const restriction = projectRestriction(p);
    const [projects, index] = await Promise.all([
      deps.store.c.projects
        .find(restriction ? { orgId: p.orgId, _id: { $in: restriction } } : { orgId: p.orgId }, {
          projection: { _id: 1, slug: 1 },
        })
        .toArray(),
      orgAlertIndex(deps.store, p.orgId),
    ]);
    const reach = projects.filter((x) => canReachProject(p, x._id));
    const body = await portfolioOfIndex(index, reach, () => lastTrackedScans(deps.store, p.orgId));
    await recheck(deps, p);
    ctx.body = body;
  });

  return r;
}
