// GET /v1/alerts, GET /v1/alerts/export.csv, GET /v1/alerts/{alertId}, GET /v1/alerts/{alertId}/history: a project's
// vulnerabilities across scans (src/domain/alerts). A restricted key reads its projects' alerts only; an alert out of
// reach is 404.
import Router from '@koa/router';
import type { Context } from 'koa';
import { historyInline, historyOf, inlineEvents, queryKey } from '../../domain/alerts/query';
import { notFound } from '../../domain/errors';
import { presentAlert, presentAlertEvent } from '../../presenters/alerts';
import { alertEvents } from '../../storage/alerts';
import { anyMarked } from '../../storage/triage-marks';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import { canReachProject } from '../auth/principal';
import type { AppDeps } from '../deps';
import { offsetOf } from '../findings/routes';
import { cursorQuery, parseLimit } from '../pagination';
import { pathId } from '../params';
import { alertCsvExport } from './export-csv';
import { orgAlertIndex, orgAlerts } from './index-cache';
import { alertQuery } from './query';

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

  // before /v1/alerts/:alertId, which would take `export.csv` for an alert id
  r.get('/v1/alerts/export.csv', access(deps, 'GET /v1/alerts/export.csv'), alertCsvExport(deps));

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
