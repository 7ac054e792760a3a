// Triage rules (docs/triage.md): /v1/triage-rules. Read by any member of the organization (sessions only), written
// by owners and admins; every change audited with before and after. A rule takes effect at once on the alerts as
// read (the alert index reads the rules live) and on the findings of every scan processed after it; after the audit
// event, the organization's reconciliation is asked for (deps.triage), which tells the alerts' histories in the
// background where the change moved their suppression (docs/triage.md). `GET /v1/triage-rules/{id}/matches` lists the
// open alerts it matches now and whether enforcing it would change each.
import Router from '@koa/router';
import type { Context } from 'koa';
import { rememberedSubjectOf, subjectOf, type AlertView } from '../../domain/alerts/query';
import { ApiError, invalidParameter, notFound } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { isExpired, SUPPRESSING_STATES } from '../../domain/triage/analysis';
import {
  byAge,
  compileRule,
  parseRule,
  ruleFor,
  ruleInForce,
  RULES_PER_ORG,
  type RuleInput,
  type TriageRule,
} from '../../domain/triage/rules';
import { presentAlert } from '../../presenters/alerts';
import { recordAudit } from '../../storage/audit';
import { findProject } from '../../storage/projects';
import { countRules, deleteRule, getRule, insertRule, orgRules, replaceRule } from '../../storage/triage-rules';
import { orgAlerts } from '../alerts/index-cache';
import { actorOf } from '../audit/actor';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { Principal } from '../auth/principal';
import type { AppDeps } from '../deps';
import { Timing } from '../timing';
import { offsetOf } from '../findings/routes';
import { objectBody } from '../json-body';
import { cursorQuery, parseLimit } from '../pagination';
import { pathId } from '../params';

const RULE_ID = /^trl_[A-Za-z0-9_-]{1,64}$/;

const sessionActor = (p: Principal) =>
  p.kind === 'session'
    ? { kind: 'user' as const, id: p.user.id, name: p.user.email }
    : { kind: 'user' as const, id: '' };

/** The rule as served. */
export const presentRule = (r: TriageRule) => ({
  id: r.id,
  name: r.name,
  conditions: r.conditions,
  analysis: r.analysis,
  expiresAt: r.expiresAt,
  mode: r.mode,
  expired: r.expiresAt !== null && Date.now() >= Date.parse(r.expiresAt),
  createdAt: r.createdAt,
  createdBy: r.createdBy,
  updatedAt: r.updatedAt,
});

/** The conditions' projects (ids or slugs) as project ids of the organization, else 422 unknown_project. */
async function resolveProjects(deps: AppDeps, orgId: string, input: RuleInput): Promise<RuleInput> {
  const refs = input.conditions.projects;
  if (!refs) return input;
  const ids: string[] = [];
  for (const ref of refs) {
    const project = await findProject(deps.store, orgId, ref);
    if (!project)
      throw new ApiError(422, 'unknown_project', `conditions.projects: "${ref.slice(0, 200)}" does not exist`);
    ids.push(project._id);
  }
  return { ...input, conditions: { ...input.conditions, projects: [...new Set(ids)] } };
}

async function reachableRule(deps: AppDeps, ctx: Context): Promise<TriageRule> {
  const id = pathId(ctx, 'ruleId', 'triage rule');
  const rule = RULE_ID.test(id) ? await getRule(deps.store, principalOf(ctx).orgId!, id) : null;
  if (!rule) throw notFound(`triage rule ${id}`);
  return rule;
}

/**
 * The change reaches the alerts' histories in the background: the organization's reconciliation is started, or
 * signalled to pass again. A failure to reach Temporal fails nothing (the change is stored and audited): the hourly
 * reconciliation tells it then.
 */
async function reconcileLater(deps: AppDeps, orgId: string): Promise<void> {
  if (!deps.triage) return;
  try {
    await deps.triage.reconcile(orgId);
  } catch (err) {
    deps.logger.warn({ err, orgId }, 'triage reconciliation not asked for; the hourly one will tell the change');
  }
}

const audit = (deps: AppDeps, ctx: Context, type: string, id: string, before: unknown, after: unknown) =>
  recordAudit(deps.store, {
    orgId: principalOf(ctx).orgId!,
    type,
    actor: actorOf(principalOf(ctx)),
    target: { kind: 'triage_rule', id, before, after },
    requestId: ctx.state.requestId,
  });

export function triageRuleRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.post('/v1/triage-rules', access(deps, 'POST /v1/triage-rules'), async (ctx) => {
    const p = principalOf(ctx);
    const now = new Date();
    const input = await resolveProjects(
      deps,
      p.orgId!,
      parseRule(await objectBody(ctx), { now, actor: sessionActor(p) }),
    );
    if ((await countRules(deps.store, p.orgId!)) >= RULES_PER_ORG)
      throw invalidParameter('rules', `at most ${RULES_PER_ORG} per organization`);
    await recheck(deps, p);
    const rule: TriageRule = {
      id: newId('trl', now.getTime()),
      ...input,
      createdAt: now.toISOString(),
      createdBy: sessionActor(p),
      updatedAt: now.toISOString(),
    };
    await insertRule(deps.store, p.orgId!, rule);
    await audit(deps, ctx, 'triage_rule.created', rule.id, null, presentRule(rule));
    await reconcileLater(deps, p.orgId!);
    ctx.status = 201;
    ctx.body = presentRule(rule);
  });

  r.get('/v1/triage-rules', access(deps, 'GET /v1/triage-rules'), async (ctx) => {
    const p = principalOf(ctx);
    const limit = parseLimit(ctx);
    const listing = `triage-rules:${p.orgId}`;
    const offset = offsetOf(deps, listing, cursorQuery(ctx));
    const rules = await orgRules(deps.store, p.orgId!);
    await recheck(deps, p);
    ctx.body = {
      rules: rules.slice(offset, offset + limit).map(presentRule),
      nextCursor: offset + limit < rules.length ? deps.cursors.encode(listing, offset + limit) : null,
    };
  });

  r.get('/v1/triage-rules/:ruleId', access(deps, 'GET /v1/triage-rules/:ruleId'), async (ctx) => {
    const rule = await reachableRule(deps, ctx);
    await recheck(deps, principalOf(ctx));
    ctx.body = presentRule(rule);
  });

  r.patch('/v1/triage-rules/:ruleId', access(deps, 'PATCH /v1/triage-rules/:ruleId'), async (ctx) => {
    const p = principalOf(ctx);
    const current = await reachableRule(deps, ctx);
    const now = new Date();
    const input = await resolveProjects(
      deps,
      p.orgId!,
      parseRule(await objectBody(ctx), { now, actor: sessionActor(p), current }),
    );
    await recheck(deps, p);
    const rule: TriageRule = { ...current, ...input, updatedAt: now.toISOString() };
    if (!(await replaceRule(deps.store, p.orgId!, rule))) throw notFound(`triage rule ${current.id}`);
    await audit(deps, ctx, 'triage_rule.updated', rule.id, presentRule(current), presentRule(rule));
    await reconcileLater(deps, p.orgId!);
    ctx.body = presentRule(rule);
  });

  r.delete('/v1/triage-rules/:ruleId', access(deps, 'DELETE /v1/triage-rules/:ruleId'), async (ctx) => {
    const p = principalOf(ctx);
    const current = await reachableRule(deps, ctx);
    await recheck(deps, p);
    if (await deleteRule(deps.store, p.orgId!, current.id)) {
      await audit(deps, ctx, 'triage_rule.deleted', current.id, presentRule(current), null);
      await reconcileLater(deps, p.orgId!);
    }
    ctx.status = 204;
  });

  r.get('/v1/triage-rules/:ruleId/matches', access(deps, 'GET /v1/triage-rules/:ruleId/matches'), async (ctx) => {
    const p = principalOf(ctx);
    const timing = new Timing(ctx.state.startedAt);
    const limit = parseLimit(ctx);
    const rule = await reachableRule(deps, ctx);
    const listing = `triage-rule-matches:${rule.id}:${rule.updatedAt}`;
    const offset = offsetOf(deps, listing, cursorQuery(ctx));
    const now = new Date();
    const { index } = await orgAlerts(deps.store, p.orgId!, now);
    timing.mark('index');
    const candidate = compileRule(rule);
    // The other rules in force, older than this one, decide first (precedence): enforcing this one changes an alert
    // only when neither its own analysis nor an older rule decides, and it would suppress what is not suppressed.
    const older = (await orgRules(deps.store, p.orgId!))
      .filter((o) => ruleInForce(o, now) && byAge(o, rule) < 0)
      .map(compileRule);
    const enforcedSuppresses = SUPPRESSING_STATES.includes(rule.analysis.state);
    const wouldChange = (a: AlertView): boolean => {
      if (a.ruleId === rule.id) return false; // in force already
      if (a.suppressionSource === 'snapshot') return false;
      if (a.analysis && !isExpired(a.analysis, now)) return false;
      if (ruleFor(older, subjectOf(a), now)) return false;
      return a.suppressed !== enforcedSuppresses;
    };
    const matches: AlertView[] = [];
    for (const a of index.sorted('severity'))
      if (a.status === 'open' && candidate.test(rememberedSubjectOf(a))) matches.push(a);
    timing.mark('match');
    await recheck(deps, p);
    timing.mark('recheck');
    timing.write(ctx);
    ctx.body = {
      matches: matches
        .slice(offset, offset + limit)
        .map((a) => ({ alert: presentAlert(a), wouldChange: wouldChange(a) })),
      count: matches.length,
      nextCursor: offset + limit < matches.length ? deps.cursors.encode(listing, offset + limit) : null,
    };
  });

  return r;
}
