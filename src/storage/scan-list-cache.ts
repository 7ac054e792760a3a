// List groups (storage/scan-regions.ts) kept in each API process and re-used while they are unchanged. Every write to
// a scan, in storage/scans.ts, is followed by a fresh random token for the scan's two groups (organization and
// project); a list reads the tokens of the groups it needs, one small query for up to TOKEN_BATCH groups, and decodes
// again only the groups whose token moved. On FerretDB, which decodes every field of every document a query
// returns (docs/configuration.md), a repeated page costs a token query instead of some 70 scan documents.
//
// Why a token read before the documents validates them: a write applied after the documents were read moves the
// token after it is applied, so after it the token differs from the one read before (tokens are random and never
// written twice; FerretDB may lose one of two concurrent token writes, but either leaves a fresh value). A write not
// yet followed by its token is still in flight: its caller has not been answered (the upload's 201 and the worker's
// activity result come after the token), as if it had reached the database a moment later.
//
// The same holds for the packs: a group read whole is also written, with the token read before it, as one document
// holding the group's scans in one Binary value (ScanListPackDoc), and a process that does not keep the group reads
// the pack instead of the group's scan documents while the token has not moved: on FerretDB one document instead of
// some 16 with all their fields (a new process, another API process, or older pages read for the first time). Packs
// are written by the lists that read a group whole, and by the process that moved a group's scans to a final status,
// once the group has been quiet for a moment (storage/scans.ts). A pack written late with an older token is never
// used, and the next whole read replaces it.
import { randomInt } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { MongoBulkWriteError, MongoServerError, type Db } from 'mongodb';
import type { ScanDoc } from './documents/scans';
import type { Store } from './mongo';
import { packGroup, unpackGroup } from './scan-document';
import { orgScope, projectScope } from './scan-regions';

export const TOKEN_BATCH = 8;
/** Scans kept per process, in all groups together (a few MB). */
const SCANS_KEPT = 20_000;

type Token = number | null; // null: no write since tokens exist (a group filed by an upgrade)
interface Entry {
  token: Token;
  scans: ScanDoc[];
}

const caches = new WeakMap<Db, LRUCache<string, Entry>>();
function cacheOf(store: Store): LRUCache<string, Entry> {
  let c = caches.get(store.db);
  if (!c)
    caches.set(
      store.db,
      (c = new LRUCache<string, Entry>({ maxSize: SCANS_KEPT, sizeCalculation: (e) => e.scans.length + 1 })),
    );
  return c;
}

const tokenId = (scope: string, g: number) => `${scope}|${g}`;
/** A duplicate key, alone or as every failure of a bulk write. */
const isDuplicateKey = (err: unknown): boolean =>
  (err instanceof MongoServerError && err.code === 11000) ||
  (err instanceof MongoBulkWriteError && [err.writeErrors].flat().every((e) => e.code === 11000));

/** After a write to a scan (insert, status move, removal): its groups in both lists have changed. */
export async function touchScanGroups(
  store: Store,
  s: { orgId: string; projectId: string; orgBucket: number; projectBucket: number },
): Promise<void> {
  const groups: Array<[string, number]> = [
    [orgScope(s.orgId).key, s.orgBucket],
    [projectScope(s.orgId, s.projectId).key, s.projectBucket],
  ];
  // Both tokens in one command (one round trip): independent upserts, each applied whatever the other does. Two
  // first upserts of one token can race to insert it (FerretDB does not retry them): the loser writes again.
  for (let attempt = 0; ; attempt++) {
    const ops = groups.map(([scope, g]) => ({
      updateOne: {
        filter: { _id: tokenId(scope, g) },
        update: { $set: { scope, batch: Math.floor(g / TOKEN_BATCH), token: randomInt(2 ** 47) } },
        upsert: true,
      },
    }));
    try {
      await store.c.scanListTokens.bulkWrite(ops, { ordered: false });
      return;
    } catch (err) {
      if (!isDuplicateKey(err) || attempt >= 3) throw err;
    }
  }
}

/** The current tokens of these groups of a scope (read them before the groups' documents). */
export async function groupTokens(store: Store, scope: string, groups: number[]): Promise<Map<number, Token>> {
  const batches = [...new Set(groups.map((g) => Math.floor(g / TOKEN_BATCH)))];
  const docs = (
    await Promise.all(batches.map((b) => store.c.scanListTokens.find({ scope, batch: b }).toArray()))
  ).flat();
  const byId = new Map(docs.map((d) => [d._id, d.token]));
  return new Map(groups.map((g) => [g, byId.get(tokenId(scope, g)) ?? null]));
}

/** The group's scans as last read, if its token has not moved since (copies: callers may attach fields). */
export function cachedGroup(store: Store, scope: string, g: number, token: Token): ScanDoc[] | undefined {
  const e = cacheOf(store).get(tokenId(scope, g));
  return e && e.token === token ? e.scans.map((s) => ({ ...s })) : undefined;
}

/** Whether this process keeps the group at all, under whatever token. */
export function keptAtAll(store: Store, scope: string, g: number): boolean {
  return cacheOf(store).has(tokenId(scope, g));
}

/** Keeps a group read whole after reading `token`. */
export function keepGroup(store: Store, scope: string, g: number, token: Token, scans: ScanDoc[]): void {
  cacheOf(store).set(tokenId(scope, g), { token, scans: scans.map((s) => ({ ...s })) });
}

/** Pack writes in flight and repacks waiting, per database (so that tests can wait for them). */
const inFlight = new WeakMap<Db, Set<Promise<void>>>();
const waiting = new WeakMap<Db, Map<string, NodeJS.Timeout>>();
const repacking = new WeakMap<Db, Promise<unknown>>();

/** The groups among these whose pack is valid for their token, kept in this process too: one query. */
export async function packedGroups(
  store: Store,
  scope: string,
  groups: Array<{ g: number; token: Token }>,
): Promise<Map<number, ScanDoc[]>> {
  const found = new Map<number, ScanDoc[]>();
  if (!groups.length) return found;
  const tokens = new Map(groups.map((x) => [x.g, x.token]));
  // By top-level equality on (scope, batch), as the tokens are read: FerretDB pushes equality down to its backend,
  // where an $in on _id would make it decode every pack of the collection.
  const batches = [...new Set(groups.map((x) => Math.floor(x.g / TOKEN_BATCH)))];
  const docs = (
    await Promise.all(batches.map((batch) => store.c.scanListPacks.find({ scope, batch }).toArray()))
  ).flat();
  for (const d of docs) {
    if (!tokens.has(d.group) || tokens.get(d.group) !== d.token) continue;
    const scans = unpackGroup(d.scans);
    keepGroup(store, scope, d.group, d.token, scans);
    found.set(d.group, scans);
  }
  return found;
}

/** Runs `work` without waiting for it, tracked per database; a failure only costs speed (the next read packs). */
function background(store: Store, work: () => Promise<unknown>): void {
  let set = inFlight.get(store.db);
  if (!set) inFlight.set(store.db, (set = new Set()));
  const p: Promise<void> = work()
    .then(
      () => undefined,
      () => undefined, // a racing first upsert, or the store closing
    )
    .finally(() => set.delete(p));
  set.add(p);
}

/** Writes a group read whole after reading `token` as its pack. */
export async function writePack(store: Store, scope: string, g: number, token: Token, scans: ScanDoc[]): Promise<void> {
  const doc = { scope, batch: Math.floor(g / TOKEN_BATCH), group: g, token, scans: packGroup(scans) };
  await store.c.scanListPacks.replaceOne({ _id: tokenId(scope, g) }, doc, { upsert: true });
}

/** The same, without waiting. */
export function storePack(store: Store, scope: string, g: number, token: Token, scans: ScanDoc[]): void {
  background(store, () => writePack(store, scope, g, token, scans));
}

/** Runs `repack` once the group has had no call for `quietMs` (each call starts the wait again). */
export function repackWhenQuiet(
  store: Store,
  scope: string,
  g: number,
  repack: () => Promise<void>,
  quietMs = 1_000,
): void {
  let timers = waiting.get(store.db);
  if (!timers) waiting.set(store.db, (timers = new Map()));
  const id = tokenId(scope, g);
  clearTimeout(timers.get(id));
  const timer = setTimeout(() => {
    timers.delete(id);
    // One repack at a time per process: a burst of completions over many groups (a backlog drained) repacks them
    // one after the other instead of all at once, which would take the database from the requests meanwhile.
    const previous = repacking.get(store.db) ?? Promise.resolve();
    const next = previous.then(repack).catch(() => undefined);
    repacking.set(store.db, next);
    background(store, () => next);
  }, quietMs);
  timer.unref();
  timers.set(id, timer);
}

/** Once the pack writes and repacks in flight have landed (repacks still waiting for quiet are not awaited). */
export async function packWritesDone(store: Store): Promise<void> {
  for (let set = inFlight.get(store.db); set?.size;) await Promise.all([...set]);
}

/**
 * Forgets every group kept for this database (tests that count what a cold list reads): in this process, and unless
 * `packs` is 'keep', as packs too (repacks waiting are dropped, and writes in flight land before the packs go).
 */
export async function forgetListGroups(store: Store, packs: 'drop' | 'keep' = 'drop'): Promise<void> {
  if (packs === 'drop') {
    for (const timer of waiting.get(store.db)?.values() ?? []) clearTimeout(timer);
    waiting.delete(store.db);
    await packWritesDone(store);
    await store.c.scanListPacks.deleteMany({});
  }
  caches.delete(store.db);
}
