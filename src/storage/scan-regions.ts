// Where a scan is filed for GET /v1/scans: the region of its scope's time partition that holds its startedAt
// (domain/scan-list/regions.ts), and the group number of that region, which the scan carries as orgBucket or
// projectBucket. Regions are created by inserting a document whose _id names the scope and the region number: the
// one uniqueness guarantee every MongoDB-wire backend gives (FerretDB's updates are read-then-write, so neither a
// counter nor a compare-and-set would do), so concurrent API processes agree on every region without a lock.
// Regions never change once inserted: each process keeps those it has seen, and a scan whose startedAt falls in a
// known region is filed without a database round trip.
import { LRUCache } from 'lru-cache';
import { MongoServerError, type Db, type Filter } from 'mongodb';
import { firstRegion, holds, nextRegion, type Region } from '../domain/scan-list/regions';
import type { ScanRegionDoc, StoredScanDoc } from './documents/scans';
import type { Store } from './mongo';

/** An organization's or a project's list: the scans it holds and the field that carries their group. */
export interface ListScope {
  key: string;
  field: 'orgBucket' | 'projectBucket';
  filter: Filter<StoredScanDoc>;
}

export const orgScope = (orgId: string): ListScope => ({ key: `o:${orgId}`, field: 'orgBucket', filter: { orgId } });
export const projectScope = (orgId: string, projectId: string): ListScope => ({
  key: `p:${projectId}`,
  field: 'projectBucket',
  filter: { orgId, projectId },
});

export const regionId = (scope: string, n: number): string => `${scope}|${n}`;
/** Best-effort pointer to the newest region (counters collection), so that a fresh process need not probe from 0. */
export const newestHintId = (scope: string): string => `regions:${scope}`;

interface ScopeState {
  regions: Map<number, Region>;
  /** The highest region number known to exist; -1 when none is known. */
  newest: number;
  /** Region insertions in flight from this process, one per region number. */
  claiming: Map<number, Promise<Region>>;
  /** Scans this process filed in its newest groups (inserted or still on their way): a count with no lag. */
  filed: Map<number, Set<string>>;
}

/** Regions kept per scope beside the newest (a stalled upload walks down a few), and scopes kept per process. */
const KEPT_PER_SCOPE = 64;
const SCOPES_KEPT = 2_000;
const states = new WeakMap<Db, LRUCache<string, ScopeState>>();

function stateOf(store: Store, scope: string): ScopeState {
  let perDb = states.get(store.db);
  if (!perDb) states.set(store.db, (perDb = new LRUCache<string, ScopeState>({ max: SCOPES_KEPT })));
  let st = perDb.get(scope);
  if (!st) perDb.set(scope, (st = { regions: new Map(), newest: -1, claiming: new Map(), filed: new Map() }));
  return st;
}

function remember(st: ScopeState, r: Region): Region {
  st.regions.set(r.n, r);
  if (r.n > st.newest) st.newest = r.n;
  if (st.regions.size > 2 * KEPT_PER_SCOPE) {
    for (const n of st.regions.keys()) if (n < st.newest - KEPT_PER_SCOPE) st.regions.delete(n);
  }
  return r;
}

const regionOfDoc = (d: ScanRegionDoc): Region => ({ n: d.n, start: d.start, end: d.end, g: d.group, since: d.since });
export const regionDoc = (scope: string, r: Region): ScanRegionDoc => ({
  _id: regionId(scope, r.n),
  scope,
  n: r.n,
  start: r.start,
  end: r.end,
  group: r.g,
  since: r.since,
});
const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

async function region(store: Store, scope: string, st: ScopeState, n: number): Promise<Region | null> {
  const known = st.regions.get(n);
  if (known) return known;
  const d = await store.c.scanRegions.findOne({ _id: regionId(scope, n) });
  return d ? remember(st, regionOfDoc(d)) : null;
}

/** The scope's newest region as the database has it now; null when the scope has none yet. */
export async function newestRegion(store: Store, scope: string): Promise<Region | null> {
  const st = stateOf(store, scope);
  let n = st.newest;
  if (n < 0) n = (await store.c.counters.findOne({ _id: newestHintId(scope) }))?.seq ?? -1;
  // Regions are dense (n + 1 is only ever created after n), so the first one missing ends the search. A warm process
  // usually asks once; from a stale hint, several at a time.
  for (let batch = st.newest >= 0 ? 1 : 4; ; batch = 4) {
    const found = await Promise.all(Array.from({ length: batch }, (_, i) => region(store, scope, st, n + 1 + i)));
    const missing = found.indexOf(null);
    n += missing < 0 ? batch : missing;
    if (missing >= 0) break;
  }
  return n < 0 ? null : region(store, scope, st, n);
}

/** The group of the newest region this process knows of (-1: none), without asking the database. */
export function knownNewestGroup(store: Store, scope: string): number {
  const st = stateOf(store, scope);
  return st.newest >= 0 ? (st.regions.get(st.newest)?.g ?? -1) : -1;
}

/** The group of a scope's newest region (-1: no scan filed yet): where a list starts. */
export async function newestGroup(store: Store, scope: string): Promise<number> {
  return (await newestRegion(store, scope))?.g ?? -1;
}

/** Region n, created from `make` unless it exists (made by another upload or process): the one inserted first wins. */
function claim(store: Store, scope: string, st: ScopeState, n: number, make: () => Promise<Region>): Promise<Region> {
  const known = st.regions.get(n);
  if (known) return Promise.resolve(known);
  let p = st.claiming.get(n);
  if (!p) {
    p = (async () => {
      const r = await make();
      try {
        await store.c.scanRegions.insertOne(regionDoc(scope, r));
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const winner = await region(store, scope, st, n);
        if (!winner) throw err;
        return winner;
      }
      void store.c.counters
        .updateOne({ _id: newestHintId(scope) }, { $max: { seq: n } }, { upsert: true })
        .catch(() => undefined);
      return remember(st, r);
    })().finally(() => st.claiming.delete(n));
    st.claiming.set(n, p);
  }
  return p;
}

/**
 * The group a scan started at `at` (ms) is filed in, in this scope: that of the region holding `at`, created when
 * `at` lies past the newest region. A stalled upload whose startedAt is older than the newest region goes back down
 * to the region that holds it (region 0 starts at 0, so one does).
 */
export async function fileScan(store: Store, scope: ListScope, at: number, scanId?: string): Promise<number> {
  const g = await groupAt(store, scope, at);
  if (scanId) {
    const st = stateOf(store, scope.key);
    let ids = st.filed.get(g);
    if (!ids) st.filed.set(g, (ids = new Set()));
    ids.add(scanId);
    for (const old of st.filed.keys()) if (old < g - 2) st.filed.delete(old);
  }
  return g;
}

async function groupAt(store: Store, scope: ListScope, at: number): Promise<number> {
  const st = stateOf(store, scope.key);
  let top = st.newest >= 0 ? (st.regions.get(st.newest) ?? null) : null;
  top ??= await newestRegion(store, scope.key);
  for (;;) {
    if (!top) {
      top = await claim(store, scope.key, st, 0, async () => firstRegion(at));
    } else if (at >= top.end) {
      const prev = top;
      // Scans in the group: those stored, or those this process filed if more (their inserts may still be on the way).
      const count = async () =>
        Math.max(
          await store.c.scans.countDocuments({ ...scope.filter, [scope.field]: prev.g } as Filter<StoredScanDoc>),
          st.filed.get(prev.g)?.size ?? 0,
        );
      top = await claim(store, scope.key, st, prev.n + 1, async () => nextRegion(prev, at, await count()));
    } else break;
  }
  for (let r: Region | null = top; r; r = r.n > 0 ? await region(store, scope.key, st, r.n - 1) : null) {
    if (holds(r, at)) return r.g;
  }
  throw new Error(`scan list: no region of ${scope.key} holds ${at}`);
}

/** Both groups of a scan: in its organization's list and in its project's. */
export async function fileScanGroups(
  store: Store,
  orgId: string,
  projectId: string,
  at: number,
  scanId?: string,
): Promise<{ orgBucket: number; projectBucket: number }> {
  const [orgBucket, projectBucket] = await Promise.all([
    fileScan(store, orgScope(orgId), at, scanId),
    fileScan(store, projectScope(orgId, projectId), at, scanId),
  ]);
  return { orgBucket, projectBucket };
}
