// What the comparison of scans reads besides their results and inventories (docs/pr-gate.md): the tracked scans of
// each (project, ecosystem), found by base commit or by month, and each scan's snapshot suppressions. Both are
// written when a scan is published, before it is marked completed, and are idempotent; a reader checks the scans'
// status. Every read is by `_id` or top-level equality, which FerretDB pushes down: a compare costs a few round trips
// whatever the project's history.
import { LRUCache } from 'lru-cache';
import type { SnapshotSuppression } from '../shared/types';
import { packPlainJson, unpackPlainJson } from './codec';
import type { TrackedScanDoc } from './documents/compare';
import type { Store } from './mongo';
import { readScanSnapshot } from './scan-snapshot';

export const monthOf = (d: Date): string => d.toISOString().slice(0, 7);

export interface TrackedScan {
  scanId: string;
  pairId: string;
  commit: string | null;
  startedAt: Date;
}

/** Files a tracked scan (idempotent: a retried publish writes the same). */
export async function recordTrackedScan(store: Store, t: TrackedScan): Promise<void> {
  const month = monthOf(t.startedAt);
  await Promise.all([
    store.c.trackedScans.replaceOne(
      { _id: t.scanId },
      { pairId: t.pairId, month, commit: t.commit, startedAt: t.startedAt },
      { upsert: true },
    ),
    store.c.trackedMonths.updateOne({ _id: t.pairId }, { $addToSet: { months: month } }, { upsert: true }),
  ]);
}

const asTracked = (d: TrackedScanDoc): TrackedScan => ({
  scanId: d._id,
  pairId: d.pairId,
  commit: d.commit,
  startedAt: d.startedAt,
});

/** The tracked scans of a pair made from a commit (usually one; re-runs of a commit give several). */
export async function trackedScansOfCommit(store: Store, pairId: string, commit: string): Promise<TrackedScan[]> {
  return (await store.c.trackedScans.find({ pairId, commit }).toArray()).map(asTracked);
}

/**
 * The tracked scans of a pair in the newest month holding any that started before `before`, then month by month
 * back, until `accept` takes one of a month's scans (the caller checks them, e.g. completed): returns the month's
 * scans that `accept` took, newest month first; [] when no month has one.
 */
export async function trackedScansBefore(
  store: Store,
  pairId: string,
  before: Date,
  accept: (scans: TrackedScan[]) => Promise<TrackedScan[]>,
): Promise<TrackedScan[]> {
  const doc = await store.c.trackedMonths.findOne({ _id: pairId });
  const upTo = monthOf(before);
  const months = (doc?.months ?? []).filter((m) => m <= upTo).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  for (const month of months) {
    const scans = (await store.c.trackedScans.find({ pairId, month }).toArray()).map(asTracked);
    const taken = await accept(scans.filter((s) => s.startedAt.getTime() <= before.getTime()));
    if (taken.length) return taken;
  }
  return [];
}

/**
 * Stores a scan's snapshot suppressions, an empty list included: a scan published before this document existed has
 * none, and its suppressions are read from its snapshot instead.
 */
export async function writeScanSuppressions(
  store: Store,
  scanId: string,
  suppressions: SnapshotSuppression[] | undefined,
): Promise<void> {
  await store.c.scanSuppressions.replaceOne(
    { _id: scanId },
    { data: packPlainJson(suppressions ?? []) },
    { upsert: true },
  );
}

// Immutable once published: remembered (a scan's list is small; snapshots carry few suppressions).
const suppressionCache = new LRUCache<string, SnapshotSuppression[]>({ max: 2000 });

/** A completed scan's snapshot suppressions, as its snapshot sent them. */
export async function readScanSuppressions(store: Store, scanId: string): Promise<SnapshotSuppression[]> {
  const known = suppressionCache.get(scanId);
  if (known) return known;
  const doc = await store.c.scanSuppressions.findOne({ _id: scanId });
  const list = doc
    ? unpackPlainJson<SnapshotSuppression[]>(doc.data)
    : ((await readScanSnapshot(store, scanId)).snapshot.suppressions ?? []);
  suppressionCache.set(scanId, list);
  return list;
}
