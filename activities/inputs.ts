// Loads what a scan's activities work on: the scan document and its parsed snapshot (cached per worker).
import type { Snapshot } from '../src/domain/types';
import type { Logger } from '../src/logger';
import type { ScanDoc } from '../src/storage/documents';
import type { Store } from '../src/storage/mongo';
import { getScan } from '../src/storage/scans';
import { getSnapshotBytes } from '../src/storage/snapshots';
import { getUpload, readUploadBodies } from '../src/storage/uploads';
import { mergeUpload } from '../src/domain/snapshot/parts-merge';
import type { PartBody, UploadHeader } from '../src/domain/snapshot/parts';
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
const snapshots = byteBoundedCache<{ snapshot: Snapshot; bytes: number }, Store>(envInt('WORKER_SNAPSHOT_CACHE_BYTES', WORKER_SNAPSHOT_CACHE_BYTES), async (scanId, store) => {
  const raw = await getSnapshotBytes(store, scanId);
  if (!raw) {
    const paged = await pagedSnapshot(store, scanId);
    if (paged) return { value: paged, bytes: paged.bytes };
    throw new Error(`snapshot of ${scanId} not found`);
  }
  return { value: { snapshot: JSON.parse(raw.toString('utf8')) as Snapshot, bytes: raw.length }, bytes: raw.length };
});

/**
 * A multipart scan's snapshot (platform.md §2): its upload's create body and parts, parsed one by one and merged in
 * part order (the parts' items are not copied); null for a scan without an upload. `bytes` is the parts' raw size.
 */
async function pagedSnapshot(store: Store, scanId: string): Promise<{ snapshot: Snapshot; bytes: number } | null> {
  const scan = await getScan(store, scanId);
  if (!scan?.uploadId) return null;
  const upload = await getUpload(store, scan.uploadId);
  if (!upload) throw new Error(`upload ${scan.uploadId} of ${scanId} not found`);
  const bodies = await readUploadBodies(store, upload._id, upload.parts);
  return { snapshot: mergeUpload(bodies.header as UploadHeader, bodies.parts as PartBody[]).snapshot, bytes: bodies.bytes };
}

/** The parsed snapshot of a scan (read and parsed once per worker while the scan is in flight). */
export function loadSnapshot(deps: ScanEngineDeps, scanId: string): Promise<{ snapshot: Snapshot; bytes: number }> {
  return snapshots.get(scanId, deps.store);
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
