// Idempotency records: _id = `${orgId}:${key}`, claimed with an insert before the scan is stored so that two
// concurrent requests with the same key cannot both create a scan. Expiry is checked on read (no TTL on FerretDB).
import type { IdempotencyDoc } from './documents/scans';
import { isDuplicateKey, type Store } from './mongo';

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

export type Claim = { claimed: true } | { claimed: false; existing: IdempotencyDoc };

export async function claimKey(
  store: Store,
  orgId: string,
  key: string,
  bodyHash: string,
  scanId: string,
  now = new Date(),
): Promise<Claim> {
  const _id = `${orgId}:${key}`;
  const doc: IdempotencyDoc = {
    _id,
    bodyHash,
    scanId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await store.c.idempotency.insertOne(doc);
      return { claimed: true };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const existing = await store.c.idempotency.findOne({ _id });
    if (!existing) continue; // released in between: try again
    if (existing.expiresAt > now) return { claimed: false, existing };
    // Expired: take it over only if nobody else did meanwhile (compare-and-set on the old scan id).
    const r = await store.c.idempotency.replaceOne({ _id, scanId: existing.scanId }, doc);
    if (r.modifiedCount === 1) return { claimed: true };
  }
  throw new Error(`could not claim idempotency key ${_id}`);
}

/** Frees a key: after a failed upload, or when its scan failed with internal_error. */
export async function releaseKey(store: Store, orgId: string, key: string, scanId: string): Promise<void> {
  await store.c.idempotency.deleteOne({ _id: `${orgId}:${key}`, scanId });
}
