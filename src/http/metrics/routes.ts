// GET /v1/metrics/alerts (trends: daily points of open, suppressed, opened and fixed alerts, mean time to fix) and
// GET /v1/metrics/portfolio (the organization's open alerts by project and team, as they stand): the web app's
// dashboard (docs/dashboard.md). Stored points (src/storage/alert-metrics.ts) give the past days; today is made live
// from the alert index. A restricted key counts its projects only.
import Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError, invalidParameter } from '../../domain/errors';
import {
  addDays,
  dayOf,
  DEFAULT_RANGE_DAYS,
  isDay,
  METRICS_KEPT_DAYS,
  projectSeries,
  sumSeries,
} from '../../domain/metrics/points';
import { portfolioOf } from '../../domain/metrics/portfolio';
import { orgAlertSets } from '../../storage/alerts';
import { findProject } from '../../storage/projects';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import { canReachProject, projectRestriction } from '../auth/principal';
import type { AppDeps } from '../deps';
import { orgAlertIndex } from '../alerts/index-cache';
import { singleQuery } from '../pagination';
import { livePoints, storedPoints, viewsByProject } from './cache';

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
    const now = new Date();
    const today = dayOf(now);
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
    const [points, index] = await Promise.all([storedPoints(deps.store, p.orgId), orgAlertIndex(deps.store, p.orgId)]);
    const todays = to === today ? livePoints(index, today) : new Map();
    const ids = projectIds ?? [...new Set([...points.keys(), ...todays.keys()])];
    const days = Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1;
    const series = ids.map((id) => {
      const t = todays.get(id);
      return projectSeries(points.get(id) ?? new Map(), from, to, team, t ? [today, t] : undefined);
    });
    await recheck(deps, p);
    ctx.body = { from, to, project: projectId, team: team ?? null, ...sumSeries(from, series, days) };
  });

  r.get('/v1/metrics/portfolio', access(deps, 'GET /v1/metrics/portfolio'), async (ctx) => {
    const p = principalOf(ctx);
    const restriction = projectRestriction(p);
    const [projects, heads, index] = await Promise.all([
      deps.store.c.projects
        .find(restriction ? { orgId: p.orgId, _id: { $in: restriction } } : { orgId: p.orgId }, {
          projection: { _id: 1, slug: 1 },
        })
        .toArray(),
      orgAlertSets(deps.store, p.orgId),
      orgAlertIndex(deps.store, p.orgId),
    ]);
    const last = new Map<string, Date>();
    for (const h of heads) {
      const t = last.get(h.projectId);
      if (!t || h.startedAt > t) last.set(h.projectId, h.startedAt);
    }
    const reach = projects.filter((x) => canReachProject(p, x._id));
    const body = portfolioOf(
      reach.map((x) => ({ id: x._id, slug: x.slug, lastTrackedScanAt: last.get(x._id) ?? null })),
      viewsByProject(index),
      new Date(),
    );
    await recheck(deps, p);
    ctx.body = body;
  });

  return r;
}
