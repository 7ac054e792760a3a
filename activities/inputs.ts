// Loads what a scan's activities work on: the scan document and its parsed snapshot (cached per worker).
import type { Snapshot } from '../src/shared/types';
import type { Logger } from '../src/logger';
import type { ScanDoc } from '../src/storage/documents/scans';
import type { Store } from '../src/storage/mongo';
import { getScan } from '../src/storage/scans';
import { readScanSnapshot, type ParsedSnapshot } from '../src/storage/scan-snapshot';
import { envInt } from '../src/config';
import { byteBoundedCache } from '../src/storage/results';

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

/**
 * Parsed snapshots of the scans in flight on this worker, bounded by the bytes of their bodies
 * (WORKER_SNAPSHOT_CACHE_BYTES, 64 MiB: six of the largest bodies; a parsed graph takes a few times its JSON).
 */
export const WORKER_SNAPSHOT_CACHE_BYTES = 64 * 1024 * 1024;
const snapshots = byteBoundedCache<ParsedSnapshot, Store>(
  envInt('WORKER_SNAPSHOT_CACHE_BYTES', WORKER_SNAPSHOT_CACHE_BYTES),
  async (scanId, store) => {
    const parsed = await readScanSnapshot(store, scanId);
    return { value: parsed, bytes: parsed.bytes };
  },
);

/** The parsed snapshot of a scan (read and parsed once per worker while the scan is in flight). */
export function loadSnapshot(deps: ScanEngineDeps, scanId: string): Promise<ParsedSnapshot> {
  return snapshots.get(scanId, deps.store);
}

export async function loadScan(deps: ScanEngineDeps, scanId: string): Promise<ScanDoc> {
  const scan = await getScan(deps.store, scanId);
  if (!scan) throw new Error(`scan ${scanId} not found`);
  return scan;
}

export async function loadScanInputs(deps: ScanEngineDeps, scanId: string): Promise<ScanInputs> {
  const [scan, parsed] = await Promise.all([loadScan(deps, scanId), loadSnapshot(deps, scanId)]);
  return { scan, snapshot: parsed.snapshot, bytes: parsed.bytes };
}

export function forgetScan(scanId: string): void {
  snapshots.delete(scanId);
}
