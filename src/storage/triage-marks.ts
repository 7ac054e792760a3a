// Triage in the background as stored (activities/triage-reconcile.ts). Per alert, marks (`alertTriageMarks`):
// immutable revisions, `_id` = `${alertId}:${rev}`, of what its history says of rules and expiries. Per organization,
// the rules as last reconciled (`triageReconciles`, _id = org id) and the announcements of expired analyses not yet
// done (`triageAnnouncements`). The store has no transactions and its updates are no atomic compare-and-set, so every
// write that must not land twice is an insert under a unique id: a mark's next revision, a history event (its id
// derives from what it tells: the mark revision it comes with, or the analysis that expired). A retried or concurrent
// reconciliation finds what was done and adds nothing twice.
import type { AlertEvent } from '../domain/alerts/move';
import type { Analysis } from '../domain/triage/analysis';
import type { RuleState } from '../domain/triage/reconcile';
import type { TriageRule } from '../domain/triage/rules';
import { packPlainJson, unpackPlainJson } from './codec';
import type { AlertTriageMarkDoc, TriageAnnouncementDoc, TriageReconcileDoc } from './documents/triage-marks';
import { isDuplicateKey, type Store } from './mongo';
import { analysisDocsOf, newestRevisions } from './triage';

type Dated = AlertEvent & { seq: number };

/** The id of a rule event: the mark revision it comes with (one event per revision at most). */
export const ruleEventId = (alertId: string, rev: number) => `${alertId}:rule:${rev}`;
/** The id of an expiry event: the analysis that expired (one event per analysis). */
export const expiryEventId = (alertId: string, analysisUpdatedAt: string) =>
  `${alertId}:analysis_expired:${analysisUpdatedAt}`;

const markId = (alertId: string, rev: number) => `${alertId}:${rev}`;

/** The highest revision of each alert's mark. */
function latest(docs: readonly AlertTriageMarkDoc[]): Map<string, AlertTriageMarkDoc> {
  const out = new Map<string, AlertTriageMarkDoc>();
  for (const d of docs) {
    const m = out.get(d.alertId);
    if (!m || d.rev > m.rev) out.set(d.alertId, d);
  }
  return out;
}

/** The marks of an organization's alerts (each alert's highest revision). */
export async function orgMarks(store: Store, orgId: string): Promise<Map<string, AlertTriageMarkDoc>> {
  return latest(await store.c.alertTriageMarks.find({ orgId }).toArray());
}

/** An alert's mark as it is now (its highest revision), or null. */
export async function currentMark(store: Store, alertId: string): Promise<AlertTriageMarkDoc | null> {
  return latest(await store.c.alertTriageMarks.find({ alertId }).toArray()).get(alertId) ?? null;
}

/** Whether any of some alerts has a mark (then its history holds events written in the background). */
export async function anyMarked(store: Store, alertIds: readonly string[]): Promise<boolean> {
  if (!alertIds.length) return false;
  const one = await store.c.alertTriageMarks.findOne({ alertId: { $in: [...alertIds] } }, { projection: { _id: 1 } });
  return one !== null;
}

export interface MarkWrite {
  orgId: string;
  rule: RuleState;
  expiredAnalysis: string | null;
  expiryBatch: string | null;
  eventId: string | null;
}

/**
 * Stores the revision after `prev` (null: the alert has none) of an alert's mark; false when another writer stored
 * that revision first (read it again and decide again). The revisions before are deleted once it lands.
 */
export async function advanceMark(
  store: Store,
  alertId: string,
  prev: Pick<AlertTriageMarkDoc, 'rev'> | null,
  w: MarkWrite,
  now = new Date(),
): Promise<boolean> {
  const rev = (prev?.rev ?? 0) + 1;
  try {
    await store.c.alertTriageMarks.insertOne({
      _id: markId(alertId, rev),
      alertId,
      orgId: w.orgId,
      rev,
      ruleId: w.rule.ruleId,
      ruleSuppressed: w.rule.suppressed,
      expiredAnalysis: w.expiredAnalysis,
      expiryBatch: w.expiryBatch,
      eventId: w.eventId,
      at: now,
    });
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
  await store.c.alertTriageMarks.deleteMany({ alertId, rev: { $lt: rev } });
  return true;
}

/** The rule state a mark holds. */
export const markRuleState = (m: Pick<AlertTriageMarkDoc, 'ruleId' | 'ruleSuppressed'>): RuleState => ({
  ruleId: m.ruleId,
  suppressed: m.ruleSuppressed,
});

/**
 * Stores a history event under its id unless one is there already (a retry, or another reconciliation that got there
 * first). Returns the event the history holds, and whether this call stored it.
 */
export async function storeTriageEvent(
  store: Store,
  orgId: string,
  id: string,
  e: Dated,
): Promise<{ event: Dated; stored: boolean }> {
  try {
    await store.c.alertEvents.insertOne({
      _id: id,
      alertId: e.alertId,
      orgId,
      seq: e.seq,
      type: e.type,
      at: new Date(e.at),
      details: packPlainJson(e.details),
    });
    return { event: e, stored: true };
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
  const d = await store.c.alertEvents.findOne({ _id: id });
  if (!d) throw new Error(`history event ${id} is neither new nor stored`);
  return {
    event: {
      alertId: d.alertId,
      type: d.type as AlertEvent['type'],
      at: d.at.toISOString(),
      details: unpackPlainJson<Record<string, unknown>>(d.details),
      seq: d.seq,
    },
    stored: false,
  };
}

/** Deletes a history event this reconciliation stored for a mark revision another writer took without it. */
export async function dropTriageEvent(store: Store, id: string): Promise<void> {
  await store.c.alertEvents.deleteOne({ _id: id });
}

// ---------------------------------------------------------------------------------------- announcements --

export async function recordAnnouncement(store: Store, doc: TriageAnnouncementDoc): Promise<void> {
  await store.c.triageAnnouncements.insertOne(doc);
}

/** The organization's announcements not yet done (a reconciliation stopped before it finished them). */
export function pendingAnnouncements(store: Store, orgId: string): Promise<TriageAnnouncementDoc[]> {
  return store.c.triageAnnouncements.find({ orgId }).toArray();
}

export async function announcementDone(store: Store, id: string): Promise<void> {
  await store.c.triageAnnouncements.deleteOne({ _id: id });
}

// ------------------------------------------------------------------------------------------ organization --

export function getReconcile(store: Store, orgId: string): Promise<TriageReconcileDoc | null> {
  return store.c.triageReconciles.findOne({ _id: orgId });
}

/** Keeps `rules` as the organization's last reconciled ones unless some are kept already; whether it did. */
export async function insertBaseline(store: Store, orgId: string, rules: TriageRule[], at: Date): Promise<boolean> {
  try {
    await store.c.triageReconciles.insertOne({ _id: orgId, rules, at });
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

/** The rules as reconciled now. */
export async function setBaseline(store: Store, orgId: string, rules: TriageRule[], at: Date): Promise<void> {
  await store.c.triageReconciles.updateOne({ _id: orgId }, { $set: { rules, at } });
}

/**
 * Before the organization's rules change, when none are kept as last reconciled (the first change since triage runs
 * in the background): the rules as they are, so that the reconciliation after the change tells what it changed. One
 * read by _id when they are kept already; `rules` is read only when they are not.
 */
export async function ensureBaseline(store: Store, orgId: string, rules: () => Promise<TriageRule[]>): Promise<void> {
  if (await store.c.triageReconciles.findOne({ _id: orgId }, { projection: { _id: 1 } })) return;
  await insertBaseline(store, orgId, await rules(), new Date());
}

/** Every organization with analyses or rules, or reconciled before (the hourly reconciliation goes over them). */
export async function triageOrgIds(store: Store): Promise<string[]> {
  const [analyses, rules, reconciled] = await Promise.all([
    store.c.alertAnalyses.distinct('orgId', {}),
    store.c.triageRules.distinct('orgId', {}),
    store.c.triageReconciles.find({}, { projection: { _id: 1 } }).toArray(),
  ]);
  return [...new Set([...analyses, ...rules, ...reconciled.map((d) => d._id)].map(String))].sort();
}

// ------------------------------------------------------------------------------------------------ reads --

/** The analyses in force of an organization's alerts, with their revisions, by alert id (the history not read). */
export async function orgAnalysesInForce(
  store: Store,
  orgId: string,
): Promise<Map<string, { analysis: Analysis; rev: number }>> {
  const docs = await store.c.alertAnalyses
    .find({ orgId }, { projection: { alertId: 1, analysis: 1, rev: 1 } })
    .toArray();
  const out = new Map<string, { analysis: Analysis; rev: number }>();
  for (const [id, d] of newestRevisions(docs)) if (d.analysis) out.set(id, { analysis: d.analysis, rev: d.rev });
  return out;
}

/** Some alerts' analyses in force and their (project, ecosystem), by alert id (reads by _id). */
export async function analysesOf(
  store: Store,
  alertIds: readonly string[],
): Promise<Map<string, { pairId: string; orgId: string; analysis: Analysis | null }>> {
  const docs = await analysisDocsOf(store, alertIds);
  return new Map([...docs].map(([id, d]) => [id, { pairId: d.pairId, orgId: d.orgId, analysis: d.analysis ?? null }]));
}
