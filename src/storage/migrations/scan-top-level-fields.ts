// Scans stored by versions before the top-level fields (LegacyStoredScanDoc: everything but the list fields packed in
// `v` and `r`) are rewritten in today's form (StoredScanDoc), so that a query on status, failure reason, target,
// ecosystem, times or counts sees every scan. Run at start by runMigrations (./index.ts), before a process serves.
//
// Safe to run in several processes at once and to repeat: each rewrite is conditional on the document still being in
// the old form with the status it was read with, and what it writes follows from that document alone. Processes of
// an earlier version must be stopped first: a scan they moved afterwards would be written in the old form (this
// version still reads such a scan, and the next start rewrites it).
import type { Filter } from 'mongodb';
import type { LegacyStoredScanDoc } from '../documents/scans';
import type { Store } from '../mongo';
import { upgradeLegacy } from '../scan-document';

const BATCH = 200;

export async function moveScanFieldsToTopLevel(store: Store): Promise<{ rewritten: number }> {
  const legacy = store.db.collection<LegacyStoredScanDoc>('scans');
  const old: Filter<LegacyStoredScanDoc> = { v: { $exists: true } };
  let rewritten = 0;
  let after = '';
  for (;;) {
    // In _id order, a batch at a time: a document rewritten meanwhile by another process no longer matches.
    const batch = await legacy
      .find({ ...old, _id: { $gt: after } })
      .sort({ _id: 1 })
      .limit(BATCH)
      .toArray();
    if (batch.length === 0) break;
    after = batch[batch.length - 1]._id;
    const results = await Promise.all(
      batch.map(async (d) => {
        const { _id, ...now } = upgradeLegacy(d);
        // (typed as the old form: the update turns the document into the new one)
        const r = await legacy.updateOne(
          { _id, status: d.status, v: { $exists: true } },
          { $set: now as Partial<LegacyStoredScanDoc>, $unset: { v: '', r: '' } },
        );
        return r.modifiedCount;
      }),
    );
    rewritten += results.reduce((a, b) => a + b, 0);
  }
  return { rewritten };
}
