// A bulk decision's writes (POST /v1/alerts/analysis, up to 500 alerts) in a few round trips instead of several per
// alert: the analysis documents and the pairs' heads read at once, every revision's history event inserted in one
// unordered insert (its unique id is the revision: an alert whose revision another write took meanwhile is written
// again alone, src/storage/triage.ts), the documents raised in one unordered bulk, checked against the events once, and
// one move of the organization's alerts version.
import type { Analysis } from '../domain/triage/analysis';
import { pairIdOf, touchOrgAlerts } from './alerts';
import { isDuplicateKey, onlyDuplicates, type Store } from './mongo';
import { analysisEventDoc, repairAnalyses, writeAnalysis, type AnalysisWrite } from './triage';

/** Items by a key, in their order. */
function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

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
    // New documents in one insert, existing ones replaced by id; a lower revision that lands late is raised again by
    // the repair below.
    const set = ({ w, rev }: (typeof won)[number]) => ({
      orgId,
      projectId: w.projectId,
      pairId: pairIdOf(w.projectId, w.ecosystem),
      rev,
      analysis: w.analysis,
      updatedAt: w.at,
    });
    const fresh = won.filter((n) => !byId.has(n.w.alertId));
    const known = won.filter((n) => byId.has(n.w.alertId));
    try {
      await Promise.all([
        fresh.length
          ? store.c.alertAnalyses.insertMany(
              fresh.map((n) => ({ _id: n.w.alertId, ...set(n) })),
              { ordered: false },
            )
          : undefined,
        // Existing documents by revision: one update of every document at the revision read (a bulk decision sets the
        // same analysis on each; FerretDB stalls on one update command of hundreds of statements, not on one of many
        // documents); one another write moved meanwhile is left to the repair below.
        ...[...groupBy(known, (n) => n.rev)].map(([rev, group]) =>
          store.c.alertAnalyses.updateMany(
            { _id: { $in: group.map((n) => n.w.alertId) }, rev: rev - 1 },
            {
              $set: { rev, analysis: group[0].w.analysis, updatedAt: group[0].w.at },
            },
          ),
        ),
      ]);
    } catch (err) {
      if (!onlyDuplicates(err)) throw err; // a document another write made meanwhile: the repair below decides
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
