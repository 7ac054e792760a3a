// A bulk decision's writes (POST /v1/alerts/analysis, up to 500 alerts) in a few round trips instead of several per
// alert: the analysis documents and the pairs' heads read at once, every revision's history event inserted in one
// unordered insert (its unique id is the revision: an alert whose revision another write took meanwhile is written
// again alone, src/storage/triage.ts), the documents raised in one unordered bulk, checked against the events once, and
// one move of the organization's alerts version.
import type { Analysis } from '../domain/triage/analysis';
import { pairIdOf, touchOrgAlerts } from './alerts';
import { isDuplicateKey, onlyDuplicates, type Store } from './mongo';
import { analysisEventDoc, repairAnalyses, writeAnalysis, type AnalysisWrite } from './triage';

export async function writeAnalysesBulk(
  store: Store,
  orgId: string,
  writes: AnalysisWrite[],
): Promise<Array<{ alertId: string; before: Analysis | null; changed: boolean }>> {
  if (!writes.length) return [];
  const ids = writes.map((w) => w.alertId);
  const pairs = [...new Set(writes.map((w) => pairIdOf(w.projectId, w.ecosystem)))];
  const [docs, heads] = await Promise.all([
    store.c.alertAnalyses.find({ _id: { $in: ids } }).toArray(),
    store.c.alertSets.find({ _id: { $in: pairs } }, { projection: { seq: 1 } }).toArray(),
  ]);
  const byId = new Map(docs.map((d) => [d._id, d]));
  const seqOf = new Map(heads.map((h) => [h._id, h.seq]));
  const out = new Map<string, { alertId: string; before: Analysis | null; changed: boolean }>();
  const next: Array<{ w: AnalysisWrite; rev: number; before: Analysis | null }> = [];
  for (const w of writes) {
    const doc = byId.get(w.alertId);
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
  if (won.length) {
    try {
      await store.c.alertAnalyses.bulkWrite(
        won.map(({ w, rev }) => ({
          updateOne: {
            filter: { _id: w.alertId, rev: { $lt: rev } },
            update: {
              $set: {
                orgId,
                projectId: w.projectId,
                pairId: pairIdOf(w.projectId, w.ecosystem),
                rev,
                analysis: w.analysis,
                updatedAt: w.at,
              },
            },
            upsert: true,
          },
        })),
        { ordered: false },
      );
    } catch (err) {
      if (!onlyDuplicates(err)) throw err; // a document at a higher revision already
    }
    await repairAnalyses(
      store,
      won.map((n) => n.w),
    );
    for (const n of won) out.set(n.w.alertId, { alertId: n.w.alertId, before: n.before, changed: true });
    await touchOrgAlerts(store, orgId, `analyses:${won[0].w.alertId}:${won.length}:${Date.now()}`);
  }
  // A revision another write took: again alone, on top of what is there now.
  for (const n of next.filter((x) => lost.has(x.w.alertId)))
    out.set(n.w.alertId, { alertId: n.w.alertId, ...(await writeAnalysis(store, n.w)) });
  return ids.map((id) => out.get(id)!);
}
