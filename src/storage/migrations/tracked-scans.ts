// Completed tracked scans stored before the comparison of scans existed are filed as tracked (storage/tracked-scans.ts),
// so that `baseline=auto` finds them: a pull request opened the day after the upgrade compares with the main branch's
// scans made before it. Tracked by today's default branch of their project. Run at start by runMigrations
// (./index.ts); idempotent (a filing is an upsert by scan id) and safe in several processes at once.
import { isTracked } from '../../domain/alerts/tracked';
import { pairIdOf } from '../alerts';
import type { Store } from '../mongo';
import { unpack } from '../scan-document';
import { recordTrackedScan } from '../tracked-scans';

const BATCH = 200;

export async function fileTrackedScans(store: Store): Promise<{ filed: number }> {
  const branches = new Map<string, string | undefined>();
  const branchOf = async (projectId: string) => {
    if (!branches.has(projectId)) {
      const p = await store.c.projects.findOne({ _id: projectId }, { projection: { defaultBranch: 1 } });
      branches.set(projectId, p?.defaultBranch);
    }
    return branches.get(projectId);
  };
  let filed = 0;
  let after = '';
  for (;;) {
    const batch = await store.c.scans
      .find({ status: 'completed', _id: { $gt: after } })
      .sort({ _id: 1 })
      .limit(BATCH)
      .toArray();
    if (batch.length === 0) break;
    after = batch[batch.length - 1]._id;
    for (const doc of batch) {
      const scan = unpack(doc);
      if (!isTracked(scan.metadata?.ref, await branchOf(scan.projectId))) continue;
      await recordTrackedScan(store, {
        scanId: scan._id,
        pairId: pairIdOf(scan.projectId, scan.ecosystem),
        commit: scan.metadata?.commit ?? null,
        startedAt: scan.startedAt,
      });
      filed++;
    }
  }
  return { filed };
}
