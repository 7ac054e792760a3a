// Loads what a scan's activities work on: the scan document and its parsed snapshot (cached per worker).
import type { Snapshot } from '../src/domain/types';
import type { Logger } from '../src/logger';
import type { ScanDoc } from '../src/storage/documents';
import type { Store } from '../src/storage/mongo';
import { getScan } from '../src/storage/scans';
import { getSnapshotBytes } from '../src/storage/snapshots';
import { Lru } from './cache';

export interface ScanEngineDeps {
  store: Store;
  logger: Logger;
}

export interface ScanInputs {
  scan: ScanDoc;
  snapshot: Snapshot;
  /** Size of the uploaded body in bytes. */
  bytes: number;
}

const snapshots = new Lru<string, { snapshot: Snapshot; bytes: number }>(8);

/** The parsed snapshot of a scan (read and parsed once per worker while the scan is in flight). */
export function loadSnapshot(deps: ScanEngineDeps, scanId: string): Promise<{ snapshot: Snapshot; bytes: number }> {
  return snapshots.getOrCreate(scanId, async () => {
    const raw = await getSnapshotBytes(deps.store, scanId);
    if (!raw) throw new Error(`snapshot of ${scanId} not found`);
    return { snapshot: JSON.parse(raw.toString('utf8')) as Snapshot, bytes: raw.length };
  });
}

export async function loadScan(deps: ScanEngineDeps, scanId: string): Promise<ScanDoc> {
  const scan = await getScan(deps.store, scanId);
  if (!scan) throw new Error(`scan ${scanId} not found`);
  return scan;
}

export async function loadScanInputs(deps: ScanEngineDeps, scanId: string): Promise<ScanInputs> {
  const [scan, parsed] = await Promise.all([loadScan(deps, scanId), loadSnapshot(deps, scanId)]);
  return { scan, ...parsed };
}

export function forgetScan(scanId: string): void {
  snapshots.delete(scanId);
}
