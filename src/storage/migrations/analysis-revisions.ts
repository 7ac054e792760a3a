// Alerts' analyses stored before they were revision documents (one document per alert, _id = the alert id, no
// `alertId` field) become revisions: the same document under `${alertId}:${rev}` with its `alertId`, then the old one
// deleted (src/storage/triage.ts). Run at start by runMigrations (./index.ts), before the process serves; idempotent
// (an insert of a revision already there is skipped) and safe in several processes at once. The organizations' triage
// versions are set, so that the caches of analyses (src/http/alerts/index-cache.ts) take them in.
import { touchOrgTriage } from '../alerts';
import type { AlertAnalysisDoc } from '../documents/triage';
import { onlyDuplicates, type Store } from '../mongo';

const BATCH = 500;

export async function analysesAsRevisions(store: Store): Promise<{ moved: number }> {
  let moved = 0;
  const orgs = new Set<string>();
  for (;;) {
    // the old form has no alertId
    const batch = (await store.c.alertAnalyses
      .find({ alertId: { $exists: false } })
      .limit(BATCH)
      .toArray()) as Array<Omit<AlertAnalysisDoc, 'alertId'>>;
    if (!batch.length) break;
    for (const d of batch) orgs.add(d.orgId);
    try {
      await store.c.alertAnalyses.insertMany(
        batch.map((d) => ({ ...d, _id: `${d._id}:${d.rev}`, alertId: d._id })),
        { ordered: false },
      );
    } catch (err) {
      if (!onlyDuplicates(err)) throw err;
    }
    await store.c.alertAnalyses.deleteMany({ _id: { $in: batch.map((d) => d._id) } });
    moved += batch.length;
  }
  // Their organizations' triage versions (new with this form): the caches of analyses read them.
  for (const orgId of orgs) await touchOrgTriage(store, orgId, `migration:analysis-revisions:${Date.now()}`);
  return { moved };
}
