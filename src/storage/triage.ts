// Triage as stored (src/domain/triage): one small document per alert with an analysis (`alertAnalyses`, _id = alert
// id: the analysis in force and its revision), the history of its revisions in the alerts' history (`alertEvents`,
// one event per revision under a unique id, which serialises writes: the store has no transactions and its updates
// are no atomic compare-and-set), and the organization's alerts version moved after each write so that every API
// process's alert index is rebuilt (src/http/alerts/index-cache.ts).
import type { Analysis } from '../domain/triage/analysis';
import { pairIdOf, touchOrgAlerts } from './alerts';
import { packPlainJson, unpackPlainJson } from './codec';
import type { AlertAnalysisDoc } from './documents/triage';
import { isDuplicateKey, type Store } from './mongo';

/** Every analysis document of an organization (deleted analyses included: their history stays). */
export async function orgAnalyses(store: Store, orgId: string): Promise<Map<string, AlertAnalysisDoc>> {
  const docs = await store.c.alertAnalyses.find({ orgId }).toArray();
  return new Map(docs.map((d) => [d._id, d]));
}

/** The analyses in force of one project and ecosystem's alerts, by alert id (a scan's resolution reads them). */
export async function pairAnalyses(store: Store, pairId: string): Promise<Map<string, Analysis>> {
  const docs = await store.c.alertAnalyses.find({ pairId }).toArray();
  return new Map(docs.filter((d) => d.analysis !== null).map((d) => [d._id, d.analysis!]));
}

export interface AnalysisWrite {
  orgId: string;
  projectId: string;
  ecosystem: string;
  alertId: string;
  /** The new analysis; null deletes it. */
  analysis: Analysis | null;
  /** What the history event says besides before and after (actor, bulk id). */
  details: Record<string, unknown>;
  at: Date;
  /** Skip the write when the analysis in force already says the same (a retried bulk decision changes nothing). */
  unlessSame?: (before: Analysis | null, after: Analysis | null) => boolean;
}

/** The history event of an alert's analysis revision: its _id is unique per revision (the store's compare-and-set). */
export const analysisEventId = (alertId: string, rev: number) => `${alertId}:analysis:${rev}`;
const revOf = (eventDocId: string) => Number(eventDocId.slice(eventDocId.lastIndexOf(':') + 1));

/**
 * An analysis event's place in the alert's history: after the pair's latest move (its seq), then by revision, so that
 * the newest event is always the decision in force.
 */
export const analysisEventSeq = (headSeq: number, rev: number) => headSeq + rev / 1e6;

/** The history event document of one revision. */
export function analysisEventDoc(w: AnalysisWrite, rev: number, headSeq: number, before: Analysis | null) {
  return {
    _id: analysisEventId(w.alertId, rev),
    alertId: w.alertId,
    orgId: w.orgId,
    seq: analysisEventSeq(headSeq, rev),
    type: 'analysis_changed',
    at: w.at,
    details: packPlainJson({ before, after: w.analysis, ...w.details }),
  };
}

/** Raises an analysis document to a revision (never lowers it); a higher one already there wins. */
export async function raiseAnalysis(store: Store, w: AnalysisWrite, rev: number, analysis: Analysis | null) {
  try {
    await store.c.alertAnalyses.updateOne(
      { _id: w.alertId, rev: { $lt: rev } },
      {
        $set: {
          orgId: w.orgId,
          projectId: w.projectId,
          pairId: pairIdOf(w.projectId, w.ecosystem),
          rev,
          analysis,
          updatedAt: w.at,
        },
      },
      { upsert: true },
    );
  } catch (err) {
    if (!isDuplicateKey(err)) throw err; // the document is at a higher revision already
  }
}

/**
 * After writes: each alert's document is at its highest revision (the store's update is not an atomic
 * compare-and-set, so a write of a lower revision may land after a higher one; the events, unique per revision, say
 * which is highest and what it decided).
 */
export async function repairAnalyses(store: Store, writes: readonly AnalysisWrite[]): Promise<void> {
  const ids = [...new Set(writes.map((w) => w.alertId))];
  const [docs, events] = await Promise.all([
    store.c.alertAnalyses.find({ _id: { $in: ids } }, { projection: { rev: 1 } }).toArray(),
    store.c.alertEvents.find({ alertId: { $in: ids }, type: 'analysis_changed' }).toArray(),
  ]);
  const rev = new Map(docs.map((d) => [d._id, d.rev]));
  const highest = new Map<string, (typeof events)[number]>();
  for (const e of events) {
    // rule events of triage in the background (src/storage/triage-marks.ts) are analysis_changed too: not revisions
    if (e._id.startsWith(`${e.alertId}:rule:`)) continue;
    const h = highest.get(e.alertId);
    if (!h || revOf(e._id) > revOf(h._id)) highest.set(e.alertId, e);
  }
  for (const w of writes) {
    const e = highest.get(w.alertId);
    if (!e || revOf(e._id) <= (rev.get(w.alertId) ?? 0)) continue;
    const after = unpackPlainJson<{ after: Analysis | null }>(e.details).after;
    await raiseAnalysis(store, w, revOf(e._id), after);
  }
}

/**
 * Sets (or deletes) an alert's analysis and records the change in its history. The history event is written first
 * under the next revision's unique id: of two writes at once only one takes a revision, the other takes the next, so
 * the later one wins and both are in the history. Returns the analysis before and whether anything changed.
 */
export async function writeAnalysis(
  store: Store,
  w: AnalysisWrite,
): Promise<{ before: Analysis | null; changed: boolean }> {
  const pairId = pairIdOf(w.projectId, w.ecosystem);
  let floor = 0;
  for (;;) {
    const [doc, head] = await Promise.all([
      store.c.alertAnalyses.findOne({ _id: w.alertId }),
      store.c.alertSets.findOne({ _id: pairId }, { projection: { seq: 1 } }),
    ]);
    const before = doc?.analysis ?? null;
    if (w.unlessSame?.(before, w.analysis)) return { before, changed: false };
    if (!doc && w.analysis === null) return { before: null, changed: false };
    const rev = Math.max(doc?.rev ?? 0, floor) + 1;
    try {
      await store.c.alertEvents.insertOne(analysisEventDoc(w, rev, head?.seq ?? 0, before));
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      floor = rev; // another write took this revision: the next one
      continue;
    }
    await raiseAnalysis(store, w, rev, w.analysis);
    await repairAnalyses(store, [w]);
    await touchOrgAlerts(store, w.orgId, `analysis:${w.alertId}:${rev}:${Date.now()}`);
    return { before, changed: true };
  }
}

/**
 * The analyses in force of one project and ecosystem's alerts, by alert id, without their history (only `analysis`
 * is read): what the findings of a scan show as their alert's current analysis (src/http/findings/analyses-cache.ts).
 */
export async function pairAnalysesWithoutHistory(store: Store, pairId: string): Promise<Map<string, Analysis>> {
  const docs = await store.c.alertAnalyses.find({ pairId }, { projection: { analysis: 1 } }).toArray();
  const out = new Map<string, Analysis>();
  for (const d of docs) if (d.analysis) out.set(d._id, d.analysis);
  return out;
}
