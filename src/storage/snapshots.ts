// The uploaded body, compressed, keyed by scan id. Temporal never carries it (claim check).
import { Binary } from 'mongodb';
import { sha256Hex } from '../domain/ids';
import { packBytes, unpackBytes } from './codec';
import type { Store } from './mongo';

export async function putSnapshot(store: Store, scanId: string, orgId: string, body: Buffer): Promise<void> {
  await store.c.snapshots.insertOne({
    _id: scanId,
    orgId,
    encoding: 'gzip',
    bytes: body.length,
    data: await packBytes(body),
    sha256: sha256Hex(body),
  });
}

/** Stores a body already gzip-compressed (by the upload thread pool), with the SHA-256 of the body it validated. */
export async function putCompressedSnapshot(
  store: Store,
  scanId: string,
  orgId: string,
  gzipped: Uint8Array,
  bytes: number,
  sha256: string,
): Promise<void> {
  await store.c.snapshots.insertOne({ _id: scanId, orgId, encoding: 'gzip', bytes, data: new Binary(gzipped), sha256 });
}

/**
 * The stored body, and whether it is byte for byte the body validated at upload: true when its SHA-256 matches the
 * one stored with it, false when it differs, null when none was stored (an earlier version's snapshot).
 */
export async function getSnapshotBytes(
  store: Store,
  scanId: string,
): Promise<{ raw: Buffer; asValidated: boolean | null } | null> {
  const doc = await store.c.snapshots.findOne({ _id: scanId });
  if (!doc) return null;
  const raw = await unpackBytes(doc.data);
  return { raw, asValidated: doc.sha256 === undefined ? null : sha256Hex(raw) === doc.sha256 };
}

export async function deleteSnapshot(store: Store, scanId: string): Promise<void> {
  await store.c.snapshots.deleteOne({ _id: scanId });
}
