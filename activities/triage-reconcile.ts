// Triage in the background (docs/triage.md): one organization's reconciliation, run after each rule change and
// hourly (workflows/triage-reconcile.ts). Alerts read rules and expiries live; this brings their histories up to date:
// an `analysis_changed` event (details.source "rule") on each alert whose suppressing rule changed, and one
// `analysis_expired` event per analysis that reached its expiry, with one `analysis.expired` webhook event listing the
// open ones. Idempotent, and safe when two run at once: every history event and every mark revision is an insert under
// a unique id (a repeat finds it stored and goes on from it), and an announcement of expiries is recorded before its
// alerts' marks claim it and its webhook event starts (once, by its id), so that a crash anywhere re-does only what is
// missing and never tells anything twice.
import { randomBytes } from 'node:crypto';
import type { AlertRecord } from '../src/domain/alerts/move';
import { viewOf, type AlertView } from '../src/domain/alerts/query';
import { isExpired, type Analysis } from '../src/domain/triage/analysis';
import {
  expiryEventDetails,
  planReconcile,
  ruleChange,
  ruleEventDetails,
  ruleStateOfEvent,
  sameRuleState,
  type Mark,
} from '../src/domain/triage/reconcile';
import { compileRule, ruleInForce, type CompiledRule } from '../src/domain/triage/rules';
import { MAX_EVENT_ALERTS } from '../src/domain/webhooks/alert-events';
import type { Logger } from '../src/logger';
import { orgAlertSets, pairIdOf, readStateAlerts } from '../src/storage/alerts';
import type { ExpiryItem, TriageAnnouncementDoc } from '../src/storage/documents/triage-marks';
import type { Store } from '../src/storage/mongo';
import {
  advanceMark,
  analysesOf,
  announcementDone,
  currentMark,
  dropTriageEvent,
  expiryEventId,
  getReconcile,
  insertBaseline,
  markRuleState,
  orgAnalysesInForce,
  orgMarks,
  pendingAnnouncements,
  recordAnnouncement,
  ruleEventId,
  setBaseline,
  storeTriageEvent,
} from '../src/storage/triage-marks';
import { analysisEventSeq } from '../src/storage/triage';
import { orgRules } from '../src/storage/triage-rules';
import type { ScanEvents } from '../src/temporal/events';
import type { TriagePass } from '../src/temporal/triage-reconcile-workflow-contract';

export interface TriageReconcileDeps {
  store: Store;
  logger: Logger;
  /** Starts the analysis.expired webhook events; none are sent without it (the history events are written). */
  events?: ScanEvents;
}

/** Attempts on one alert's mark when other writers take its revisions first. */
const MARK_ATTEMPTS = 5;

/** Reconciles one organization's alerts' histories with its triage at `now`. */
export async function reconcileOrg(deps: TriageReconcileDeps, orgId: string, now = new Date()): Promise<TriagePass> {
  const { store } = deps;
  const out: TriagePass = { ruleEvents: 0, quiet: 0, expired: 0, announced: 0 };
  let baseline = await getReconcile(store, orgId);
  if (!baseline) {
    // The first reconciliation with no rule change before it: the rules as they are become the ones last reconciled,
    // so that it tells nothing of changes it cannot date.
    const rules = await orgRules(store, orgId);
    if (await insertBaseline(store, orgId, rules, now)) baseline = { _id: orgId, rules, at: now };
    else baseline = (await getReconcile(store, orgId))!; // kept meanwhile, before a rule change: that one
  }
  // Announcements recorded by a reconciliation that stopped before it finished them: finished first.
  for (const a of await pendingAnnouncements(store, orgId)) out.announced += await announce(deps, a, now);

  const [rules, analyses, marks] = await Promise.all([
    orgRules(store, orgId),
    orgAnalysesInForce(store, orgId),
    orgMarks(store, orgId),
  ]);
  // Nothing a rule or an expiry could tell: no rule now or before, no alert a rule decided, no expiry to tell.
  const toTell = [...analyses].some(
    ([id, a]) => isExpired(a.analysis, now) && marks.get(id)?.expiredAnalysis !== a.analysis.updatedAt,
  );
  const ruled = [...marks.values()].some((m) => m.ruleId !== null);
  if (!rules.length && !baseline.rules.length && !ruled && !toTell) return out;

  const heads = await orgAlertSets(store, orgId);
  const headSeq = new Map(heads.map((h) => [h._id, h.seq]));
  const alerts = (await Promise.all(heads.map((h) => readStateAlerts(store, h._id, h.seq)))).flat();
  const compiled = rules.map(compileRule);
  const inForce = compiled.filter((r) => ruleInForce(r.rule, now));
  const plans = planReconcile({
    alerts,
    analyses: new Map([...analyses].map(([id, a]) => [id, a.analysis])),
    rules: compiled,
    baseline: { rules: baseline.rules.map(compileRule), at: baseline.at },
    marks: new Map(
      [...marks].map(([id, m]): [string, Mark] => [id, { ...markRuleState(m), expiredAnalysis: m.expiredAnalysis }]),
    ),
    now,
  });
  // An event's place in the alert's history: after the pair's latest move and the analysis revision in force.
  const seqOf = (a: AlertRecord) =>
    analysisEventSeq(headSeq.get(pairIdOf(a.projectId, a.ecosystem)) ?? 0, (analyses.get(a.id)?.rev ?? 0) + 0.5);

  // Expired analyses: their history events, then the announcement recorded, then done (marks, webhook event).
  const expiring = plans.filter((p) => p.expired);
  for (let i = 0; i < expiring.length; i += MAX_EVENT_ALERTS) {
    const items: ExpiryItem[] = [];
    for (const p of expiring.slice(i, i + MAX_EVENT_ALERTS)) {
      const analysis = p.expired!;
      const eventId = expiryEventId(p.alert.id, analysis.updatedAt);
      await storeTriageEvent(store, orgId, eventId, {
        alertId: p.alert.id,
        type: 'analysis_expired',
        at: now.toISOString(),
        details: expiryEventDetails(analysis, viewOf(p.alert, { analysis, rules: inForce, now })),
        seq: seqOf(p.alert),
      });
      items.push({
        alertId: p.alert.id,
        analysisUpdatedAt: analysis.updatedAt,
        eventId,
        ruleId: p.before.ruleId,
        ruleSuppressed: p.before.suppressed,
        announce: p.alert.status === 'open',
      });
    }
    const a: TriageAnnouncementDoc = { _id: announcementId(orgId, now), orgId, items, createdAt: now };
    await recordAnnouncement(store, a);
    out.announced += await announce(deps, a, now);
    out.expired += a.items.length;
  }

  // Rule states: an event where the suppressing rule changed and the rules decide the alert; the mark in any case.
  for (const p of plans) {
    if (!ruleChange(p.before, p.after, p.decide).write) continue;
    for (let attempt = 1; attempt <= MARK_ATTEMPTS; attempt++) {
      const mark = await currentMark(store, p.alert.id);
      const before = mark ? markRuleState(mark) : p.before;
      const change = ruleChange(before, p.after, p.decide);
      if (!change.write) break;
      const rev = (mark?.rev ?? 0) + 1;
      let state = p.after;
      let event: { id: string; stored: boolean } | null = null;
      if (change.event) {
        const id = ruleEventId(p.alert.id, rev);
        const e = await storeTriageEvent(store, orgId, id, {
          alertId: p.alert.id,
          type: 'analysis_changed',
          at: now.toISOString(),
          details: ruleEventDetails(before, p.after),
          seq: seqOf(p.alert),
        });
        // What the history holds (a reconciliation stopped after storing this revision's event stored it first).
        state = ruleStateOfEvent(e.event.details);
        event = { id, stored: e.stored };
      }
      const w = {
        orgId,
        rule: state,
        expiredAnalysis: mark?.expiredAnalysis ?? null,
        expiryBatch: mark?.expiryBatch ?? null,
        eventId: event?.id ?? null,
      };
      if (!(await advanceMark(store, p.alert.id, mark, w, now))) {
        // Another writer took the revision; one without this event leaves it told of nothing: withdrawn.
        const taken = await currentMark(store, p.alert.id);
        if (event?.stored && taken?.rev === rev && taken.eventId !== event.id) await dropTriageEvent(store, event.id);
        continue;
      }
      if (event) out.ruleEvents++;
      else out.quiet++;
      if (sameRuleState(state, p.after)) break;
    }
  }

  // The rules as reconciled now (read at the start: a change since asks for another pass).
  await setBaseline(store, orgId, rules, now);
  return out;
}

/** An announcement's id: unique, readable in the Temporal UI (the webhook event's workflow is named after it). */
const announcementId = (orgId: string, now: Date) =>
  `${orgId}-${now.getTime().toString(36)}-${randomBytes(4).toString('hex')}`;

/**
 * Finishes an announcement: each alert's mark claims it (says its analysis's expiry was told, by this announcement;
 * one another announcement claimed first is left to that one), then its webhook event starts with the open alerts it
 * claimed (once: the event's workflow id is the announcement's), then it is done. Whether the event started.
 */
async function announce(deps: TriageReconcileDeps, a: TriageAnnouncementDoc, now: Date): Promise<number> {
  const claimed: ExpiryItem[] = [];
  for (const item of a.items) {
    for (let attempt = 1; attempt <= MARK_ATTEMPTS; attempt++) {
      const mark = await currentMark(deps.store, item.alertId);
      if (mark?.expiredAnalysis === item.analysisUpdatedAt) {
        if (mark.expiryBatch === a._id) claimed.push(item);
        break;
      }
      const w = {
        orgId: a.orgId,
        rule: mark ? markRuleState(mark) : { ruleId: item.ruleId, suppressed: item.ruleSuppressed },
        expiredAnalysis: item.analysisUpdatedAt,
        expiryBatch: a._id,
        eventId: item.eventId,
      };
      if (await advanceMark(deps.store, item.alertId, mark, w, now)) {
        claimed.push(item);
        break;
      }
    }
  }
  const alerts = claimed
    .filter((i) => i.announce)
    .map((i) => ({ alertId: i.alertId, analysisUpdatedAt: i.analysisUpdatedAt }));
  let started = 0;
  if (alerts.length && deps.events?.emitAnalysisExpired)
    started = (await deps.events.emitAnalysisExpired(a.orgId, { batchId: a._id, alerts })) ? 1 : 0;
  else if (alerts.length)
    deps.logger.warn({ orgId: a.orgId, announcement: a._id }, 'analysis.expired not sent: no emitter');
  await announcementDone(deps.store, a._id);
  return started;
}

/**
 * Some alerts as the API presents them now (their analysis, the rules in force), read by _id: the alerts of an
 * analysis.expired event. Alerts gone or merged since are left out.
 */
export async function alertViewsOf(
  store: Store,
  orgId: string,
  alertIds: readonly string[],
  now = new Date(),
): Promise<AlertView[]> {
  const analyses = await analysesOf(store, alertIds);
  const pairs = [...new Set([...analyses.values()].filter((a) => a.orgId === orgId).map((a) => a.pairId))];
  const [heads, rules] = await Promise.all([
    store.c.alertSets.find({ _id: { $in: pairs } }, { projection: { seq: 1 } }).toArray(),
    orgRules(store, orgId),
  ]);
  const records = new Map<string, AlertRecord>();
  for (const list of await Promise.all(heads.map((h) => readStateAlerts(store, h._id, h.seq))))
    for (const a of list) records.set(a.id, a);
  const inForce: CompiledRule[] = rules.filter((r) => ruleInForce(r, now)).map(compileRule);
  const out: AlertView[] = [];
  for (const id of alertIds) {
    const a = records.get(id);
    const analysis: Analysis | null = analyses.get(id)?.analysis ?? null;
    if (a && a.status !== 'merged') out.push(viewOf(a, { analysis, rules: inForce, now }));
  }
  return out;
}
