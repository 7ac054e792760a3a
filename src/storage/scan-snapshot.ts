// The snapshot a scan was made from, parsed: the single upload's stored body, or for a multipart (paged) scan its
// upload's create body and parts, parsed one by one and merged in part order. Read by the worker
// (activities/inputs.ts, cached there) and by the exports (src/http/scans/exports.ts).
import type { Snapshot } from '../shared/types';
import { mergeUpload } from '../domain/snapshot/parts-merge';
import type { PartBody, UploadHeader } from '../domain/snapshot/parts';
import type { Store } from './mongo';
import { getScan } from './scans';
import { getSnapshotBytes } from './snapshots';
import { getUpload, readUploadBodies } from './uploads';

export interface ParsedSnapshot {
  snapshot: Snapshot;
  /** The raw size of the body (of the parts, for a multipart scan). */
  bytes: number;
  /**
   * A single upload's body: true when it is byte for byte the body validated at upload (its stored SHA-256), false
   * when it differs, null when that is not known (earlier versions' snapshots; multipart scans).
   */
  asValidated: boolean | null;
}

/** The parsed snapshot of a scan; throws when it is not stored (an unknown scan, or data lost). */
export async function readScanSnapshot(store: Store, scanId: string): Promise<ParsedSnapshot> {
  const stored = await getSnapshotBytes(store, scanId);
  if (stored) {
    const { raw, asValidated } = stored;
    return { snapshot: JSON.parse(raw.toString('utf8')) as Snapshot, bytes: raw.length, asValidated };
  }
  const paged = await pagedSnapshot(store, scanId);
  if (paged) return paged;
  throw new Error(`snapshot of ${scanId} not found`);
}

async function pagedSnapshot(store: Store, scanId: string): Promise<ParsedSnapshot | null> {
  const scan = await getScan(store, scanId);
  if (!scan?.uploadId) return null;
  const upload = await getUpload(store, scan.uploadId);
  if (!upload) throw new Error(`upload ${scan.uploadId} of ${scanId} not found`);
  const bodies = await readUploadBodies(store, upload._id, upload.parts);
  return {
    snapshot: mergeUpload(bodies.header as UploadHeader, bodies.parts as PartBody[]).snapshot,
    bytes: bodies.bytes,
    asValidated: null,
  };
}
