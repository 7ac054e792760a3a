// Triage as stored (src/domain/triage): one document per alert with an analysis (`alertAnalyses`, _id = alert id),
// written by compare-and-set on its revision, its events also appended to the alerts' history (`alertEvents`), and the
// organization's alerts version moved after each write so that every API process's alert index is rebuilt
// (src/http/alerts/index-cache.ts).
import type { AlertEvent } from '../domain/alerts/move';
import { eventId } from '../domain/alerts/query';
import type { Analysis } from '../domain/triage/analysis';
import { pairIdOf, touchOrgAlerts } from './alerts';
import { packPlainJson } from './codec';
import type { AlertAnalysisDoc } from './documents/triage';
import { isDuplicateKey, type Store } from './mongo';

/** Analysis events kept in the analysis document (the whole history is in alertEvents). */
export const ANALYSIS_INLINE_EVENTS = 100;

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
  /**
   * Skip the write when the analysis in force already says the same (a retried bulk decision changes nothing);
   * `same` decides.
   */
  unlessSame?: (before: Analysis | null, after: Analysis | null) => boolean;
}

/**
 * Sets (or deletes) an alert's analysis and records the change in its history. Two writes at once: each lands on the
 * revision it read or reads again, so the later one wins and both are in the history. Returns the analysis before
 * and whether anything changed.
 */
export async function writeAnalysis(
  store: Store,
  w: AnalysisWrite,
): Promise<{ before: Analysis | null; changed: boolean }> {
  const pairId = pairIdOf(w.projectId, w.ecosystem);
  for (;;) {
    const doc = await store.c.alertAnalyses.findOne({ _id: w.alertId });
    const before = doc?.analysis ?? null;
    if (w.unlessSame?.(before, w.analysis)) return { before, changed: false };
    if (!doc && w.analysis === null) return { before: null, changed: false };
    const rev = (doc?.rev ?? 0) + 1;
    // The event's place in the alert's history: after the pair's latest move (its seq), by time among the others.
    const head = await store.c.alertSets.findOne({ _id: pairId }, { projection: { seq: 1 } });
    const event: AlertEvent & { seq: number } = {
      alertId: w.alertId,
      type: 'analysis_changed',
      at: w.at.toISOString(),
      details: { before, after: w.analysis, ...w.details },
      seq: head?.seq ?? 0,
    };
    const events = [...(doc?.events ?? []), event].slice(-ANALYSIS_INLINE_EVENTS);
    const next: AlertAnalysisDoc = {
      _id: w.alertId,
      orgId: w.orgId,
      projectId: w.projectId,
      pairId,
      rev,
      analysis: w.analysis,
      events,
      eventCount: (doc?.eventCount ?? 0) + 1,
      updatedAt: w.at,
    };
    let landed: boolean;
    if (!doc) {
      try {
        await store.c.alertAnalyses.insertOne(next);
        landed = true;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        landed = false;
      }
    } else {
      const { _id, ...rest } = next;
      landed = (await store.c.alertAnalyses.replaceOne({ _id, rev: doc.rev }, rest)).matchedCount === 1;
    }
    if (!landed) continue; // another write landed first: read again, apply on top of it
    await store.c.alertEvents.insertOne({
      _id: eventId(w.alertId, event.seq, `analysis_changed:${rev}`),
      alertId: w.alertId,
      orgId: w.orgId,
      seq: event.seq,
      type: event.type,
      at: w.at,
      details: packPlainJson(event.details),
    });
    await touchOrgAlerts(store, w.orgId, `analysis:${w.alertId}:${rev}:${Date.now()}`);
    return { before, changed: true };
  }
}
