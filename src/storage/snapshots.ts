// The uploaded body, compressed, keyed by scan id. Temporal never carries it (claim check).
import { Binary } from 'mongodb';
import { packBytes, unpackBytes } from './codec';
import type { Store } from './mongo';

export async function putSnapshot(store: Store, scanId: string, orgId: string, body: Buffer): Promise<void> {
  await store.c.snapshots.insertOne({
    _id: scanId,
    orgId,
    encoding: 'gzip',
    bytes: body.length,
    data: await packBytes(body),
  });
}

/** Stores a body already gzip-compressed (by the upload thread pool). */
export async function putCompressedSnapshot(
  store: Store,
  scanId: string,
  orgId: string,
  gzipped: Uint8Array,
  bytes: number,
): Promise<void> {
  await store.c.snapshots.insertOne({ _id: scanId, orgId, encoding: 'gzip', bytes, data: new Binary(gzipped) });
}

export async function getSnapshotBytes(store: Store, scanId: string): Promise<Buffer | null> {
  const doc = await store.c.snapshots.findOne({ _id: scanId });
  return doc ? unpackBytes(doc.data) : null;
}

export async function deleteSnapshot(store: Store, scanId: string): Promise<void> {
  await store.c.snapshots.deleteOne({ _id: scanId });
}
