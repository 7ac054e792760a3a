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
}

const snapshots = new Lru<string, Snapshot>(8);

export async function loadScanInputs(deps: ScanEngineDeps, scanId: string): Promise<ScanInputs> {
  const scan = await getScan(deps.store, scanId);
  if (!scan) throw new Error(`scan ${scanId} not found`);
  const snapshot = await snapshots.getOrCreate(scanId, async () => {
    const bytes = await getSnapshotBytes(deps.store, scanId);
    if (!bytes) throw new Error(`snapshot of ${scanId} not found`);
    return JSON.parse(bytes.toString('utf8')) as Snapshot;
  });
  return { scan, snapshot };
}

export function forgetScan(scanId: string): void {
  snapshots.delete(scanId);
}
