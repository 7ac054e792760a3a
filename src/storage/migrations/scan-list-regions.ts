// Scans stored by versions before the scan list's time partition (storage/scan-regions.ts) carry buckets numbered by
// arrival from a counter per scope. Run once at start by runMigrations (./index.ts), before a process serves: each such scope gets regions
// whose groups are its old buckets (domain/scan-list/regions.ts legacyRegions), and the few scans whose startedAt lies
// outside their bucket's region (those that arrived out of startedAt order) move to the group that holds them.
//
// Safe to run in several processes at once: what it writes follows from the old scans alone, region 0 of a scope is
// inserted last and says that the scope is done, and a process serves (files new scans) only once every scope is.
// API processes of an earlier version must be stopped first: scans they store afterwards would not be filed.
import { legacyRegions, regionAt, type Region } from '../../domain/scan-list/regions';
import { isDuplicateKey, type Store } from '../mongo';
import { newestHintId, regionDoc, regionId } from '../scan-regions';

export const REFILED_SETTING = 'scanListRegions';

interface Filed {
  field: 'orgBucket' | 'projectBucket';
  scans: Array<{ id: string; bucket: number; at: number }>;
}

async function insertRegion(store: Store, scope: string, r: Region): Promise<void> {
  // A concurrent upgrade inserts the very same document: its duplicate is as good as ours.
  await store.c.scanRegions.insertOne(regionDoc(scope, r)).catch((err: { code?: number }) => {
    if (err?.code !== 11000) throw err;
  });
}

async function inChunks<T>(items: T[], size: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

/**
 * Files the scans of every scope that has no region yet. `force` runs it even when a previous run finished (tests
 * that store scans the way earlier versions did). Returns how many scopes were filed and how many scans moved.
 */
export async function refileLegacyScans(
  store: Store,
  opts: { force?: boolean } = {},
): Promise<{ scopes: number; moved: number }> {
  if (!opts.force && (await store.c.settings.findOne({ _id: REFILED_SETTING }))) return { scopes: 0, moved: 0 };
  const projection = { _id: 1, orgId: 1, projectId: 1, orgBucket: 1, projectBucket: 1, startedAt: 1 };
  const scopes = new Map<string, Filed>();
  const add = (scope: string, field: Filed['field'], id: string, bucket: number | undefined, at: Date) => {
    let f = scopes.get(scope);
    if (!f) scopes.set(scope, (f = { field, scans: [] }));
    f.scans.push({ id, bucket: Math.max(0, bucket ?? 0), at: at.getTime() });
  };
  for (const d of await store.c.scans.find({}, { projection }).toArray()) {
    add(`o:${d.orgId}`, 'orgBucket', d._id, d.orgBucket, d.startedAt);
    add(`p:${d.projectId}`, 'projectBucket', d._id, d.projectBucket, d.startedAt);
  }
  let filed = 0;
  let moved = 0;
  for (const [scope, { field, scans }] of scopes) {
    if (await store.c.scanRegions.findOne({ _id: regionId(scope, 0) })) continue; // filed already
    const regions = legacyRegions(scans);
    await inChunks(regions.slice(1), 20, (r) => insertRegion(store, scope, r));
    const moves = scans.flatMap((s) => {
      const g = regionAt(regions, s.at)!.g;
      return g === s.bucket ? [] : [{ id: s.id, g }];
    });
    await inChunks(moves, 20, (m) => store.c.scans.updateOne({ _id: m.id }, { $set: { [field]: m.g } }));
    await insertRegion(store, scope, regions[0]);
    await store.c.counters
      .updateOne({ _id: newestHintId(scope) }, { $max: { seq: regions.length - 1 } }, { upsert: true })
      .catch(() => undefined);
    filed++;
    moved += moves.length;
  }
  // Two processes starting on one database (npm start's API and worker) both get here: an upsert racing another
  // upsert of the same _id may fail with a duplicate key (MongoDB and FerretDB alike); the other one said it.
  await store.c.settings
    .updateOne({ _id: REFILED_SETTING }, { $set: { value: { at: new Date().toISOString() } } }, { upsert: true })
    .catch((err: unknown) => {
      if (!isDuplicateKey(err)) throw err;
    });
  return { scopes: filed, moved };
}
