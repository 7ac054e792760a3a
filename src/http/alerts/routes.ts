// GET /v1/alerts, GET /v1/alerts/{alertId}, GET /v1/alerts/{alertId}/history: a project's vulnerabilities across
// scans (src/domain/alerts). A restricted key reads its projects' alerts only; an alert out of reach is 404.
import Router from '@koa/router';
import type { Context } from 'koa';
import {
  ALERT_SORTS,
  ANALYSIS_STATES,
  historyInline,
  historyOf,
  inlineEvents,
  queryKey,
  type AlertQuery,
} from '../../domain/alerts/query';
import { ApiError, invalidParameter, notFound } from '../../domain/errors';
import { presentAlert, presentAlertEvent } from '../../presenters/alerts';
import { SEVERITIES } from '../../shared/types';
import { alertEvents } from '../../storage/alerts';
import { findProject } from '../../storage/projects';
import { anyMarked } from '../../storage/triage-marks';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import { canReachProject, projectRestriction } from '../auth/principal';
import type { AppDeps } from '../deps';
import { offsetOf } from '../findings/routes';
import { cursorQuery, enumQuery, parseLimit, singleQuery } from '../pagination';
import { pathId } from '../params';
import { orgAlertIndex, orgAlerts } from './index-cache';

const ECOSYSTEMS = ['gradle', 'python', 'javascript', 'typescript'] as const;
const MAX_TEXT = 512;

function textQuery(ctx: Context, name: string): string | undefined {
  const v = singleQuery(ctx, name);
  if (v === undefined) return undefined;
  if (v === '') throw invalidParameter(name, 'must not be empty');
  if (v.length > MAX_TEXT) throw invalidParameter(name, `must be at most ${MAX_TEXT} characters`);
  return v;
}

function boolQuery(ctx: Context, name: string): boolean | undefined {
  const v = enumQuery(ctx, name, ['true', 'false'] as const);
  return v === undefined ? undefined : v === 'true';
}

function epssQuery(ctx: Context): number | undefined {
  const v = singleQuery(ctx, 'epssMin');
  if (v === undefined) return undefined;
  const n = /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw invalidParameter('epssMin', 'must be a number between 0 and 1');
  return n;
}

/** The query of GET /v1/alerts, checked whole (422 invalid_parameter naming the first bad one). */
async function alertQuery(deps: AppDeps, ctx: Context): Promise<AlertQuery> {
  const p = principalOf(ctx);
  const restriction = projectRestriction(p);
  const q: AlertQuery = {
    ecosystem: enumQuery(ctx, 'ecosystem', ECOSYSTEMS),
    status: enumQuery(ctx, 'status', ['open', 'fixed', 'all'] as const) ?? 'open',
    severity: enumQuery(ctx, 'severity', SEVERITIES),
    severityMode: enumQuery(ctx, 'severityMode', ['at_least', 'exact'] as const) ?? 'at_least',
    analysis: enumQuery(ctx, 'analysis', [...ANALYSIS_STATES, 'none'] as const),
    suppressed: enumQuery(ctx, 'suppressed', ['false', 'true', 'all'] as const) ?? 'false',
    team: textQuery(ctx, 'team'),
    module: textQuery(ctx, 'module'),
    package: textQuery(ctx, 'package'),
    advisory: textQuery(ctx, 'advisory'),
    fixable: boolQuery(ctx, 'fixable'),
    kev: boolQuery(ctx, 'kev'),
    epssMin: epssQuery(ctx),
    q: textQuery(ctx, 'q'),
    sort: enumQuery(ctx, 'sort', ALERT_SORTS) ?? 'risk',
    ...(restriction ? { projectIds: restriction } : {}),
  };
  const projectRef = textQuery(ctx, 'project');
  if (projectRef !== undefined) {
    const project = await findProject(deps.store, p.orgId, projectRef);
    if (!project || !canReachProject(p, project._id))
      throw new ApiError(422, 'unknown_project', `project: "${projectRef}" does not exist or is out of reach`);
    q.projectIds = [project._id];
  }
  return q;
}

/** An alert in reach of the credential (a merged id answers its survivor), or 404. */
async function reachableAlert(deps: AppDeps, ctx: Context) {
  const p = principalOf(ctx);
  const id = pathId(ctx, 'alertId', 'alert');
  const { index, analyses } = await orgAlerts(deps.store, p.orgId);
  const alert = id.startsWith('alr_') ? index.get(id) : undefined;
  if (!alert || !canReachProject(p, alert.projectId)) throw notFound(`alert ${id}`);
  return { alert, index, analyses };
}

export function alertRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.get('/v1/alerts', access(deps, 'GET /v1/alerts'), async (ctx) => {
    const p = principalOf(ctx);
    const limit = parseLimit(ctx);
    const q = await alertQuery(deps, ctx);
    const listing = `alerts:${p.orgId}:${queryKey(q)}`;
    const offset = offsetOf(deps, listing, cursorQuery(ctx));
    const index = await orgAlertIndex(deps.store, p.orgId);
    const { alerts, more } = index.page(q, offset, limit);
    await recheck(deps, p); // after the load, just before the answer
    ctx.body = {
      alerts: alerts.map(presentAlert),
      nextCursor: more ? deps.cursors.encode(listing, offset + limit) : null,
    };
  });

  r.get('/v1/alerts/:alertId', access(deps, 'GET /v1/alerts/:alertId'), async (ctx) => {
    const { alert } = await reachableAlert(deps, ctx);
    await recheck(deps, principalOf(ctx));
    ctx.body = presentAlert(alert);
  });

  r.get('/v1/alerts/:alertId/history', access(deps, 'GET /v1/alerts/:alertId/history'), async (ctx) => {
    const limit = parseLimit(ctx);
    const { alert, index, analyses } = await reachableAlert(deps, ctx);
    const listing = `alert-history:${alert.id}`;
    const offset = offsetOf(deps, listing, cursorQuery(ctx));
    const records = [alert, ...index.mergedInto(alert.id).map((id) => index.record(id)!)];
    // The newest events are kept in the alerts themselves; a longer history, or that of a triaged alert (its analysis
    // revisions are events of their own, and so are the rule and expiry events triage writes in the background, which
    // its marks say: one read by alert id, never cached), is read from the events stored apart.
    const inline =
      historyInline(records) &&
      !records.some((a) => analyses.has(a.id)) &&
      !(await anyMarked(
        deps.store,
        records.map((a) => a.id),
      ));
    const events = historyOf(
      alert,
      inline
        ? inlineEvents(records)
        : await alertEvents(
            deps.store,
            records.map((a) => a.id),
          ),
    );
    await recheck(deps, principalOf(ctx));
    ctx.body = {
      events: events.slice(offset, offset + limit).map(presentAlertEvent),
      nextCursor: offset + limit < events.length ? deps.cursors.encode(listing, offset + limit) : null,
    };
  });

  return r;
}
