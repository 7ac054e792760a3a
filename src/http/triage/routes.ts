// Analyses of alerts (docs/triage.md): PUT and DELETE /v1/alerts/{alertId}/analysis, and the bulk decision POST
// /v1/alerts/analysis. Scope findings:triage (a restricted key: its projects only; an auditor: 403). Ids out of reach
// are 404 before any other check; a bulk decision checks every id first, then applies to each alert idempotently
// (an alert already holding the same decision is left as it is), so a retried request completes what a failed one
// started. Every change is in the alert's history and the audit trail, with its actor, before and after.
import Router from '@koa/router';
import type { Context } from 'koa';
import type { AlertIndex } from '../../domain/alerts/index';
import { recordOf, viewOf, type AlertView } from '../../domain/alerts/query';
import { ApiError, invalidParameter, notFound } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { parseAnalysis, sameDecision, type Actor, type Analysis } from '../../domain/triage/analysis';
import { presentAlert } from '../../presenters/alerts';
import { recordAudit, recordAudits } from '../../storage/audit';
import { writeAnalysesBulk, type BulkResult } from '../../storage/triage-bulk';
import { writeAnalysis } from '../../storage/triage';
import { actorOf } from '../audit/actor';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import { canReachProject, type Principal } from '../auth/principal';
import type { AppDeps } from '../deps';
import { objectBody } from '../json-body';
import { pathId } from '../params';
import { orgAlertsByRecord } from '../alerts/index-cache';
import { Timing } from '../timing';

export const BULK_MAX = 500;

function analysisActor(p: Principal): Actor {
  if (p.kind === 'session') return { kind: 'user', id: p.user.id, name: p.user.email };
  if (p.kind === 'api_key') return { kind: 'api_key', id: p.key.id, name: p.key.name };
  throw new ApiError(403, 'insufficient_scope', 'findings:triage: a person or an API key decides');
}

/**
 * The alert an id names in the credential's reach (a merged id: its survivor), or 404. Its record is what a decision
 * needs (project, ecosystem, installed versions), not its triage of the moment.
 */
function reachable(ctx: Context, alerts: AlertIndex, id: string): AlertView {
  const alert = id.startsWith('alr_') ? alerts.get(id) : undefined;
  if (!alert || !canReachProject(principalOf(ctx), alert.projectId)) throw notFound(`alert ${id}`);
  return alert;
}

/** Writes one alert's analysis (null: deletes it), its history event and audit event; the alert as it now reads. A
 * bulk decision writes through writeAnalysesBulk instead. */
async function decide(deps: AppDeps, ctx: Context, alert: AlertView, analysis: Analysis | null): Promise<AlertView> {
  const p = principalOf(ctx);
  const at = analysis ? new Date(analysis.updatedAt) : new Date();
  const { before, changed } = await writeAnalysis(deps.store, {
    orgId: p.orgId!,
    projectId: alert.projectId,
    ecosystem: alert.ecosystem,
    alertId: alert.id,
    analysis,
    details: { actor: analysis?.updatedBy ?? analysisActor(p) },
    at,
  });
  if (changed)
    await recordAudit(deps.store, {
      orgId: p.orgId!,
      type: analysis ? 'alert.analysis_changed' : 'alert.analysis_deleted',
      actor: actorOf(p),
      target: { kind: 'alert', id: alert.id, project: alert.projectId, before, after: analysis },
      requestId: ctx.state.requestId,
    });
  return viewOf(recordOf(alert), { analysis: changed ? analysis : before, known: alert });
}

export function triageRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.put('/v1/alerts/:alertId/analysis', access(deps, 'PUT /v1/alerts/:alertId/analysis'), async (ctx) => {
    const p = principalOf(ctx);
    const alerts = await orgAlertsByRecord(deps.store, p.orgId!);
    const alert = reachable(ctx, alerts, pathId(ctx, 'alertId', 'alert'));
    const body = await objectBody(ctx);
    const analysis = parseAnalysis(body, {
      now: new Date(),
      installedVersions: alert.installedVersions,
      actor: analysisActor(p),
    });
    await recheck(deps, p);
    ctx.body = presentAlert(await decide(deps, ctx, alert, analysis));
  });

  r.delete('/v1/alerts/:alertId/analysis', access(deps, 'DELETE /v1/alerts/:alertId/analysis'), async (ctx) => {
    const p = principalOf(ctx);
    const alerts = await orgAlertsByRecord(deps.store, p.orgId!);
    const alert = reachable(ctx, alerts, pathId(ctx, 'alertId', 'alert'));
    await recheck(deps, p);
    await decide(deps, ctx, alert, null);
    ctx.status = 204;
  });

  r.post('/v1/alerts/analysis', access(deps, 'POST /v1/alerts/analysis'), async (ctx) => {
    const p = principalOf(ctx);
    const timing = new Timing(ctx.state.startedAt);
    const body = await objectBody(ctx);
    for (const k of Object.keys(body))
      if (k !== 'alertIds' && k !== 'analysis')
        throw invalidParameter(k, 'is not a field of a bulk decision (alertIds, analysis)');
    const ids = body.alertIds;
    if (ids === undefined || ids === null) throw new ApiError(422, 'missing_parameter', 'alertIds: is required');
    if (!Array.isArray(ids) || ids.length < 1 || ids.length > BULK_MAX || ids.some((x) => typeof x !== 'string'))
      throw invalidParameter('alertIds', `must be an array of 1 to ${BULK_MAX} alert ids`);
    // Every id first: one out of reach refuses the whole decision before anything is written.
    const alerts = await orgAlertsByRecord(deps.store, p.orgId!);
    timing.mark('index');
    const targets = new Map<string, AlertView>();
    for (const id of ids as string[]) {
      const a = reachable(ctx, alerts, id);
      targets.set(a.id, a);
    }
    const raw = body.analysis;
    if (raw === undefined || raw === null) throw new ApiError(422, 'missing_parameter', 'analysis: is required');
    if (typeof raw !== 'object' || Array.isArray(raw)) throw invalidParameter('analysis', 'must be an object');
    const bulkId = newId('blk');
    const analysis = parseAnalysis(
      raw as Record<string, unknown>,
      { now: new Date(), installedVersions: null, actor: analysisActor(p), bulkId },
      'analysis.',
    );
    await recheck(deps, p);
    const list = [...targets.values()];
    const at = new Date(analysis.updatedAt);
    // One write of every alert's analysis (idempotent: an alert holding the same decision is left as it is); once the
    // decisions are in force, one audit event per alert changed.
    const audits = (results: BulkResult) =>
      recordAudits(
        deps.store,
        results
          .map((r, i) => ({ r, alert: list[i] }))
          .filter(({ r }) => r.changed)
          .map(({ r, alert }) => ({
            orgId: p.orgId!,
            type: 'alert.analysis_changed',
            actor: actorOf(p),
            target: {
              kind: 'alert',
              id: alert.id,
              project: alert.projectId,
              before: r.before,
              after: analysis,
              bulkId,
            },
            requestId: ctx.state.requestId,
          })),
      );
    const results = await writeAnalysesBulk(
      deps.store,
      p.orgId!,
      list.map((alert) => ({
        orgId: p.orgId!,
        projectId: alert.projectId,
        ecosystem: alert.ecosystem,
        alertId: alert.id,
        analysis,
        details: { actor: analysis.updatedBy, bulkId },
        at,
        unlessSame: sameDecision,
      })),
      audits,
    );
    timing.mark('write');
    timing.write(ctx);
    ctx.body = {
      bulkId,
      alerts: list.map((alert, i) =>
        presentAlert(
          viewOf(recordOf(alert), { analysis: results[i].changed ? analysis : results[i].before, known: alert }),
        ),
      ),
    };
  });

  return r;
}
