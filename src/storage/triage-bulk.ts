// A bulk decision's writes (POST /v1/alerts/analysis, up to 500 alerts) in a few commands whatever their number: the
// alerts' newest revisions and the pairs' heads read at once, every revision's history event inserted in one
// unordered insert (its unique id is the revision: an alert whose revision another write took meanwhile is written
// again alone, src/storage/triage.ts), the new revision documents in one insert, the superseded ones deleted in one
// command, and one move of the organization's triage version. No command is per alert (the store runs an update
// of several documents as one transaction per document).
import type { Analysis } from '../domain/triage/analysis';
import { pairIdOf, touchOrgTriage } from './alerts';
import type { AlertAnalysisDoc } from './documents/triage';
import { isDuplicateKey, onlyDuplicates, type Store } from './mongo';
import {
  analysisEventDoc,
  analysisRevisionDoc,
  newestRevisions,
  deleteSuperseded,
  insertRevisions,
  writeAnalysis,
  type AnalysisWrite,
} from './triage';

export type BulkResult = Array<{ alertId: string; before: Analysis | null; changed: boolean }>;

export interface BulkOptions {
  /**
   * The written alerts' analysis documents (every revision, at least _id, alertId, rev, analysis) as the caller just
   * read them: not read again. A revision another write took meanwhile is still caught by its history event's id.
   */
  docs?: ReadonlyArray<Pick<AlertAnalysisDoc, '_id' | 'alertId' | 'rev' | 'analysis'>>;
  /**
   * Delete the superseded revisions after returning instead of before (a large write answers sooner; one left
   * behind is harmless, see deleteSuperseded). A failure is passed to `onDeferredError`.
   */
  deferDeletes?: boolean;
  onDeferredError?: (err: unknown) => void;
}

/**
 * Writes a bulk decision; `alongside` (the audit trail's write) runs once the decisions are in force, beside the
 * deletion of the revisions they superseded, and before the organization's triage version moves.
 */
export async function writeAnalysesBulk(
  store: Store,
  orgId: string,
  writes: AnalysisWrite[],
  alongside: (results: BulkResult) => Promise<unknown> = async () => undefined,
  opts: BulkOptions = {},
): Promise<BulkResult> {
  if (!writes.length) return [];
  const ids = writes.map((w) => w.alertId);
  const pairs = [...new Set(writes.map((w) => pairIdOf(w.projectId, w.ecosystem)))];
  const wanted = new Set(ids);
  const [docs, heads] = await Promise.all([
    opts.docs
      ? opts.docs.filter((d) => wanted.has(d.alertId))
      : store.c.alertAnalyses.find({ orgId, alertId: { $in: ids } }).toArray(),
    store.c.alertSets.find({ _id: { $in: pairs } }, { projection: { seq: 1 } }).toArray(),
  ]);
  const newest = newestRevisions(docs);
  const seqOf = new Map(heads.map((h) => [h._id, h.seq]));
  const out = new Map<string, { alertId: string; before: Analysis | null; changed: boolean }>();
  const next: Array<{ w: AnalysisWrite; rev: number; before: Analysis | null }> = [];
  for (const w of writes) {
    const doc = newest.get(w.alertId);
    const before = doc?.analysis ?? null;
    if (w.unlessSame?.(before, w.analysis) || (!doc && w.analysis === null)) {
      out.set(w.alertId, { alertId: w.alertId, before, changed: false });
      continue;
    }
    next.push({ w, rev: (doc?.rev ?? 0) + 1, before });
  }
  // The events first: an id another write took is a revision this bulk lost.
  const lost = new Set<string>();
  if (next.length)
    try {
      await store.c.alertEvents.insertMany(
        next.map(({ w, rev, before }) =>
          analysisEventDoc(w, rev, seqOf.get(pairIdOf(w.projectId, w.ecosystem)) ?? 0, before),
        ),
        { ordered: false },
      );
    } catch (err) {
      if (!onlyDuplicates(err)) throw err;
      const dup = (err as { writeErrors?: Array<{ index: number }> | { index: number } }).writeErrors;
      for (const e of Array.isArray(dup) ? dup : dup ? [dup] : []) lost.add(next[e.index].w.alertId);
      if (!dup && isDuplicateKey(err)) for (const n of next) lost.add(n.w.alertId); // unknown which: all again
    }
  const won = next.filter((n) => !lost.has(n.w.alertId));
  await insertRevisions(
    store,
    won.map((n) => analysisRevisionDoc(n.w, n.rev)),
  );
  for (const n of won) out.set(n.w.alertId, { alertId: n.w.alertId, before: n.before, changed: true });
  // A revision another write took: again alone, on top of what is there now.
  for (const n of next.filter((x) => lost.has(x.w.alertId)))
    out.set(n.w.alertId, { alertId: n.w.alertId, ...(await writeAnalysis(store, n.w)) });
  const results = ids.map((id) => out.get(id)!);
  const kept = new Set(won.map((n) => n.w.alertId));
  const superseded = docs.filter((d) => kept.has(d.alertId)).map((d) => d._id);
  if (opts.deferDeletes) {
    await alongside(results);
    if (won.length) await touchOrgTriage(store, orgId, `analyses:${won[0].w.alertId}:${won.length}:${Date.now()}`);
    deleteSuperseded(store, superseded).catch((err) => opts.onDeferredError?.(err));
    return results;
  }
  await Promise.all([deleteSuperseded(store, superseded), alongside(results)]);
  if (won.length) await touchOrgTriage(store, orgId, `analyses:${won[0].w.alertId}:${won.length}:${Date.now()}`);
  return results;
}
