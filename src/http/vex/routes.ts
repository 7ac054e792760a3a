// VEX import (docs/integrations.md#vex-import): POST /v1/projects/{projectId}/vex, scope findings:triage (a restricted
// key: its projects only; an auditor: 403). The body is a CycloneDX 1.4-1.6 VEX or an OpenVEX 0.2.0 document, told
// apart by its content and validated against its official schema; each statement becomes the analysis of the alerts
// of the project it matches (src/domain/vex-import). Checks, in order, each refusing the whole document before
// anything is written: at most 5 MB (413), JSON (422), a kind this service imports (422), at most 10,000 statements
// (413), its schema (422). A person's analysis is kept unless ?overwrite=true; an analysis an earlier import wrote is
// replaced. The writes are one bulk write (src/storage/triage-bulk.ts: idempotent, so a retried import completes);
// the audit trail has one project.vex_imported event, each alert's history the change with the import's id.
import Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError, invalidParameter, notFound } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { sameDecision, type Actor, type Analysis } from '../../domain/triage/analysis';
import { matchStatements, type MatchAlert } from '../../domain/vex-import/match';
import { cyclonedxStatements, openvexStatements } from '../../domain/vex-import/statements';
import { detectVex, schemaError } from '../../domain/vex-import/validate';
import { recordAudit } from '../../storage/audit';
import { pairIdOf } from '../../storage/alerts';
import { findProject } from '../../storage/projects';
import { newestRevisions, pairAnalysisDocs } from '../../storage/triage';
import { writeAnalysesBulk } from '../../storage/triage-bulk';
import { orgAlertsByRecord } from '../alerts/index-cache';
import { actorOf } from '../audit/actor';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import { canReachProject, type Principal } from '../auth/principal';
import type { AppDeps } from '../deps';
import { readBody } from '../middleware/body';
import { containsNul, pathId } from '../params';
import { Timing } from '../timing';

export const VEX_MAX_BYTES = 5 * 1024 * 1024;
export const VEX_MAX_STATEMENTS = 10_000;

/** Media types a VEX document may be sent as (parameters aside). */
const MEDIA = /^application\/(json|vnd\.cyclonedx\+json|openvex\+json|[a-z0-9.+-]+\+json)$/i;

function importActor(p: Principal): Actor {
  if (p.kind === 'session') return { kind: 'user', id: p.user.id, name: p.user.email };
  if (p.kind === 'api_key') return { kind: 'api_key', id: p.key.id, name: p.key.name };
  throw new ApiError(403, 'insufficient_scope', 'findings:triage: a person or an API key decides');
}

function overwriteOf(ctx: Context): boolean {
  const v = ctx.query.overwrite;
  if (v === undefined) return false;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw invalidParameter('overwrite', 'must be true or false');
}

/** The document, parsed and checked whole (see the file's head for the order). */
async function vexDocument(ctx: Context) {
  const type = String(ctx.get('content-type') ?? '')
    .split(';')[0]
    .trim();
  if (!MEDIA.test(type))
    throw invalidParameter(
      'body',
      'Content-Type must be application/json (or application/vnd.cyclonedx+json, application/openvex+json)',
    );
  const raw = await readBody(ctx, VEX_MAX_BYTES, new ApiError(413, 'invalid_parameter', 'document: at most 5 MB'));
  let doc: unknown;
  try {
    doc = JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalidParameter('document', 'is not valid JSON');
  }
  if (containsNul(doc)) throw invalidParameter('document', 'strings must not contain NUL characters');
  const kind = detectVex(doc);
  if ('error' in kind) throw invalidParameter('document', kind.error);
  const d = doc as Record<string, unknown>;
  const list = kind.format === 'cyclonedx' ? d.vulnerabilities : d.statements;
  const count = Array.isArray(list) ? list.length : 0;
  if (count > VEX_MAX_STATEMENTS)
    throw new ApiError(
      413,
      'invalid_parameter',
      `document: ${count.toLocaleString('en-US')} statements, at most ${VEX_MAX_STATEMENTS.toLocaleString('en-US')}`,
    );
  const invalid = schemaError(kind, doc);
  if (invalid)
    throw invalidParameter(
      'document',
      `is not a valid ${kind.format === 'cyclonedx' ? `CycloneDX ${kind.specVersion}` : 'OpenVEX 0.2.0'} document: ${invalid}`,
    );
  const statements = kind.format === 'cyclonedx' ? cyclonedxStatements(d) : openvexStatements(d);
  return { kind, statements };
}

export function vexRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.post('/v1/projects/:projectId/vex', access(deps, 'POST /v1/projects/:projectId/vex'), async (ctx) => {
    const p = principalOf(ctx);
    const timing = new Timing(ctx.state.startedAt);
    const project = await findProject(deps.store, p.orgId!, pathId(ctx, 'projectId', 'project'));
    if (!project || !canReachProject(p, project._id)) throw notFound(`project ${ctx.params.projectId}`);
    const overwrite = overwriteOf(ctx);
    const actor = importActor(p);
    const { kind, statements } = await vexDocument(ctx);
    timing.mark('parse');
    const index = await orgAlertsByRecord(deps.store, p.orgId!);
    const alerts = index.all.filter((a) => a.projectId === project._id && a.status !== 'merged');
    const byId = new Map(alerts.map((a) => [a.id, a]));
    // Their analyses now (the index may hold an older triage: it is kept while the heads stay), read once: the
    // bulk write below takes the same documents.
    const docs = (
      await Promise.all(
        [...new Set(alerts.map((a) => a.ecosystem))].map((eco) =>
          pairAnalysisDocs(deps.store, pairIdOf(project._id, eco)),
        ),
      )
    ).flat();
    const analyses = new Map<string, Analysis>();
    for (const [id, d] of newestRevisions(docs)) if (d.analysis) analyses.set(id, d.analysis);
    const match = matchStatements(
      statements,
      alerts.map((a): MatchAlert => ({
        id: a.id,
        ecosystem: a.ecosystem,
        key: a.key,
        package: a.package,
        advisory: a.advisory,
        aliases: a.aliases,
        installedVersions: a.installedVersions,
        analysis: analyses.get(a.id) ?? null,
      })),
      { overwrite },
    );
    timing.mark('match');
    await recheck(deps, p);
    const importId = newId('vxi');
    const now = new Date();
    const at = now.toISOString();
    const writes = match.applied.map((m) => {
      const alert = byId.get(m.alertId)!;
      const analysis: Analysis = {
        ...m.decision,
        response: [...m.decision.response],
        expiresAt: null,
        versions: m.versions,
        ticketUrl: null,
        updatedAt: at,
        updatedBy: actor,
        importId,
      };
      return {
        orgId: p.orgId!,
        projectId: alert.projectId,
        ecosystem: alert.ecosystem,
        alertId: alert.id,
        analysis,
        details: { actor, importId },
        at: now,
        unlessSame: sameDecision,
      };
    });
    // (the superseded revisions are deleted after the answer: the import's largest command, and harmless if left)
    const results = await writeAnalysesBulk(deps.store, p.orgId!, writes, undefined, {
      docs,
      deferDeletes: true,
      onDeferredError: (err) => deps.logger.warn({ err, importId }, 'superseded analyses not deleted (harmless)'),
    });
    timing.mark('write');
    const changed = results.filter((x) => x.changed).length;
    await recordAudit(deps.store, {
      orgId: p.orgId!,
      type: 'project.vex_imported',
      actor: actorOf(p),
      target: {
        kind: 'project',
        id: project._id,
        name: project.slug,
        importId,
        format: kind.format,
        specVersion: kind.specVersion,
        statements: statements.length,
        applied: match.applied.length,
        changed,
        unmatched: match.unmatched.length,
        overwrite,
      },
      requestId: ctx.state.requestId,
    });
    timing.write(ctx);
    ctx.body = {
      importId,
      format: kind.format,
      specVersion: kind.specVersion,
      statements: statements.length,
      applied: match.applied.length,
      changed,
      alerts: match.applied.map((m, i) => {
        const a = byId.get(m.alertId)!;
        return {
          alertId: a.id,
          statement: m.statement,
          advisory: a.advisory,
          package: a.package,
          state: m.decision.state,
          versions: m.versions,
          changed: results[i].changed,
        };
      }),
      unmatched: match.unmatched,
    };
  });

  return r;
}
