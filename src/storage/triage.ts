// Triage as stored (src/domain/triage): the analyses of alerts as revision documents (`alertAnalyses`, _id =
// `${alertId}:${rev}`: the newest revision of an alert is its analysis in force, a deleted analysis a revision whose
// analysis is null), the history of its revisions in the alerts' history (`alertEvents`, one event per revision under
// a unique id, which serialises writes: the store has no transactions and its updates are no atomic compare-and-set),
// and the organization's triage version moved after each write so that every API process's alert index takes it in
// (src/http/alerts/index-cache.ts). A write only inserts (its revision is a new document) and then deletes the
// revisions it read as superseded: a reader that meets two revisions of an alert takes the newest, so no write order
// can leave an older decision in force, and a bulk decision is a few commands, not one per alert.
import type { Analysis } from '../domain/triage/analysis';
import { pairIdOf, touchOrgTriage } from './alerts';
import { packPlainJson } from './codec';
import type { AlertAnalysisDoc } from './documents/triage';
import { isDuplicateKey, onlyDuplicates, type Store } from './mongo';

/** The newest revision of each alert among some revision documents, by alert id. */
export function newestRevisions<D extends Pick<AlertAnalysisDoc, 'alertId' | 'rev'>>(
  docs: readonly D[],
): Map<string, D> {
  const out = new Map<string, D>();
  for (const d of docs) {
    const had = out.get(d.alertId);
    if (!had || d.rev > had.rev) out.set(d.alertId, d);
  }
  return out;
}

/** Every alert's newest analysis document of an organization (deleted analyses included: their history stays). */
export async function orgAnalyses(store: Store, orgId: string): Promise<Map<string, AlertAnalysisDoc>> {
  return newestRevisions(await store.c.alertAnalyses.find({ orgId }).toArray());
}

/** The analyses in force of one project and ecosystem's alerts, by alert id (a scan's resolution reads them). */
export async function pairAnalyses(store: Store, pairId: string): Promise<Map<string, Analysis>> {
  const docs = newestRevisions(await store.c.alertAnalyses.find({ pairId }).toArray());
  const out = new Map<string, Analysis>();
  for (const [id, d] of docs) if (d.analysis) out.set(id, d.analysis);
  return out;
}

/** Some alerts' newest analysis documents, by alert id. */
export async function analysisDocsOf(
  store: Store,
  alertIds: readonly string[],
): Promise<Map<string, AlertAnalysisDoc>> {
  if (!alertIds.length) return new Map();
  const docs =
    alertIds.length === 1
      ? await store.c.alertAnalyses.find({ alertId: alertIds[0] }).toArray()
      : await store.c.alertAnalyses.find({ alertId: { $in: [...alertIds] } }).toArray();
  return newestRevisions(docs);
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

/** The revision document of one write. */
export function analysisRevisionDoc(w: AnalysisWrite, rev: number): AlertAnalysisDoc {
  return {
    _id: `${w.alertId}:${rev}`,
    alertId: w.alertId,
    orgId: w.orgId,
    projectId: w.projectId,
    pairId: pairIdOf(w.projectId, w.ecosystem),
    rev,
    analysis: w.analysis,
    updatedAt: w.at,
  };
}

/** Inserts revision documents (one already there is the same revision: a retry). */
export async function insertRevisions(store: Store, revisions: readonly AlertAnalysisDoc[]): Promise<void> {
  if (!revisions.length) return;
  try {
    await store.c.alertAnalyses.insertMany([...revisions], { ordered: false });
  } catch (err) {
    if (!onlyDuplicates(err)) throw err;
  }
}

/**
 * Deletes revisions superseded by newer ones already inserted (never before: an alert would read as undecided
 * meanwhile). One left behind (a process gone in between) is harmless: readers take the newest revision, and the next
 * write of its alert deletes it.
 */
export async function deleteSuperseded(store: Store, superseded: readonly string[]): Promise<void> {
  if (superseded.length === 1) await store.c.alertAnalyses.deleteOne({ _id: superseded[0] });
  else if (superseded.length) await store.c.alertAnalyses.deleteMany({ _id: { $in: [...superseded] } });
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
    const [docs, head] = await Promise.all([
      store.c.alertAnalyses.find({ alertId: w.alertId }).toArray(),
      store.c.alertSets.findOne({ _id: pairId }, { projection: { seq: 1 } }),
    ]);
    const doc = newestRevisions(docs).get(w.alertId);
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
    await insertRevisions(store, [analysisRevisionDoc(w, rev)]);
    await deleteSuperseded(
      store,
      docs.map((d) => d._id),
    );
    await touchOrgTriage(store, w.orgId, `analysis:${w.alertId}:${rev}:${Date.now()}`);
    return { before, changed: true };
  }
}

/** Every analysis revision document of one project and ecosystem's alerts, without their history. */
export function pairAnalysisDocs(
  store: Store,
  pairId: string,
): Promise<Array<Pick<AlertAnalysisDoc, '_id' | 'alertId' | 'rev' | 'analysis'>>> {
  return store.c.alertAnalyses.find({ pairId }, { projection: { alertId: 1, rev: 1, analysis: 1 } }).toArray();
}

/**
 * The analyses in force of one project and ecosystem's alerts, by alert id, without their history (only `analysis`
 * is read): what the findings of a scan show as their alert's current analysis (src/http/findings/analyses-cache.ts).
 */
export async function pairAnalysesWithoutHistory(store: Store, pairId: string): Promise<Map<string, Analysis>> {
  const docs = await store.c.alertAnalyses
    .find({ pairId }, { projection: { alertId: 1, rev: 1, analysis: 1 } })
    .toArray();
  const out = new Map<string, Analysis>();
  for (const [id, d] of newestRevisions(docs)) if (d.analysis) out.set(id, d.analysis);
  return out;
}
