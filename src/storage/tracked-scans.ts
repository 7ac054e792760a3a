// What the comparison of scans reads besides their results (docs/pr-gate.md): the tracked scans of each (project,
// ecosystem), found by base commit or by month, and each scan's snapshot suppressions and packages. Both are
// written when a scan is published, before it is marked completed, and are idempotent; a reader checks the scans'
// status. Every read is by `_id` or top-level equality, which FerretDB pushes down: a compare costs a few round trips
// whatever the project's history.
import { LRUCache } from 'lru-cache';
import type { SnapshotSuppression } from '../shared/types';
import { packJsonText, packPlainJson, unpackJson, unpackPlainJson } from './codec';
import type { TrackedScanDoc } from './documents/compare';
import type { Store } from './mongo';

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

/** A scan's packages as a comparison reads them: aligned lists of names as sent, versions and compared names. */
export interface ScanPackages {
  names: string[];
  versions: string[];
  keys: string[];
}

export interface CompareInputs {
  suppressions: SnapshotSuppression[];
  packages: ScanPackages;
}

/** Stores what a comparison reads of a scan (idempotent: a retried publish writes the same). */
export async function writeCompareInputs(store: Store, scanId: string, inputs: CompareInputs): Promise<void> {
  const { names, versions, keys } = inputs.packages;
  // Compared names are usually the names as sent (npm, Maven): then they are not stored twice.
  const sameKeys = keys.every((k, i) => k === names[i]);
  await store.c.scanCompareInputs.replaceOne(
    { _id: scanId },
    {
      suppressions: packPlainJson(inputs.suppressions),
      packages: await packJsonText(JSON.stringify([names, versions, sameKeys ? null : keys])),
    },
    { upsert: true },
  );
}

// Immutable once published: remembered, bounded by the packages held (a 10,000-package scan is about 10,000).
const inputsCache = new LRUCache<string, CompareInputs>({
  maxSize: 2_000_000,
  sizeCalculation: (v) => v.packages.names.length + v.suppressions.length + 1,
});

/**
 * A completed scan's comparison inputs. A scan published before they were stored: its suppressions from its snapshot
 * and its packages from its dependency inventory (`fallback`), read once and remembered like the others.
 */
export async function readCompareInputs(
  store: Store,
  scanId: string,
  fallback: () => Promise<CompareInputs>,
): Promise<CompareInputs> {
  const known = inputsCache.get(scanId);
  if (known) return known;
  const doc = await store.c.scanCompareInputs.findOne({ _id: scanId });
  let inputs: CompareInputs;
  if (doc) {
    const [names, versions, keys] = await unpackJson<[string[], string[], string[] | null]>(doc.packages);
    inputs = {
      suppressions: unpackPlainJson<SnapshotSuppression[]>(doc.suppressions),
      packages: { names, versions, keys: keys ?? names },
    };
  } else inputs = await fallback();
  inputsCache.set(scanId, inputs);
  return inputs;
}
