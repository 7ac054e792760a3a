// First-writer-wins decisions of hosts and gateways (a token's use, a machine's next host, a host's next credential,
// an approval, a revocation), made by inserting a claim whose _id names the decision: on FerretDB two concurrent
// compare-and-set updates may both succeed (README "Local database caveat"), a duplicate _id never does.
import type { Store } from './mongo';
import { isDuplicateKey } from './mongo';

/** How old a claim whose decision never landed must be before another request may take it over. */
export const STALE_CLAIM_MS = 60_000;

/**
 * Inserts the claim `id`; true when this call holds it. `landed(value)` says whether the holder's decision was
 * written: a claim that is older than STALE_CLAIM_MS and never landed (its request died between the claim and its
 * write) is taken over, so that a machine or a host can never be stuck behind it.
 */
export async function claimDecision(
  store: Store,
  id: string,
  value: string,
  landed?: (value: string) => Promise<boolean>,
  now = new Date(),
): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await store.c.claims.insertOne({ _id: id, value, at: now });
      return true;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const held = await store.c.claims.findOne({ _id: id });
    if (!held) continue; // given back meanwhile
    if (!landed || now.getTime() - held.at.getTime() < STALE_CLAIM_MS || (await landed(held.value))) return false;
    await store.c.claims.deleteOne({ _id: id, value: held.value, at: held.at });
  }
  return false;
}

/** Gives a claim back (only when this holder still has it): its request decided nothing after all. */
export async function releaseDecision(store: Store, id: string, value: string): Promise<void> {
  await store.c.claims.deleteOne({ _id: id, value });
}

/**
 * A revocation, decided once: true for the request that revoked; the losers write revokedAt too, so that a winner
 * that died between its claim and its write leaves nothing half-revoked.
 */
export async function revokeOnce(
  store: Store,
  claimId: string,
  orgId: string,
  write: () => Promise<unknown>,
  now = new Date(),
): Promise<boolean> {
  let won = true;
  try {
    await store.c.claims.insertOne({ _id: claimId, value: orgId, at: now });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    won = false;
  }
  await write();
  return won;
}
