// Scan documents stay small (no module metadata or results inside), and what lists do not filter on is packed (see
// StoredScanDoc; the codec is ./scan-document.ts). Every other module sees the plain ScanDoc.
// Every write to a scan document goes through this module, which moves the list tokens of the scan's groups after
// it (storage/scan-list-cache.ts): a write elsewhere would leave lists showing the scan as it was.
import type { Filter } from 'mongodb';
import type { FailureReason, SeverityCounts } from '../shared/types';
import type { ScanDoc, StoredScanDoc } from './documents/scans';
import { outcomeFields, pack, unpack } from './scan-document';
import { isDuplicateKey, type Store } from './mongo';
import {
  cachedGroup,
  groupTokens,
  keepGroup,
  keptAtAll,
  packedGroups,
  repackWhenQuiet,
  storePack,
  touchScanGroups,
  writePack,
} from './scan-list-cache';
import { fileScanGroups, knownNewestGroup, newestGroup, orgScope, projectScope, type ListScope } from './scan-regions';
import { GROUP_TARGET, newestFirst, type ListKey } from '../domain/scan-list/regions';

/** What a scan's list groups are known by. */
const GROUPS = { orgId: 1, projectId: 1, orgBucket: 1, projectBucket: 1 } as const;

export async function getScan(store: Store, scanId: string): Promise<ScanDoc | null> {
  const d = await store.c.scans.findOne({ _id: scanId });
  return d ? unpack(d) : null;
}

/** A scan before it is filed in its lists: the list groups are decided by insertScan. */
export type NewScan = Omit<ScanDoc, 'orgBucket' | 'projectBucket'>;
export type ScanGroups = Pick<ScanDoc, 'orgBucket' | 'projectBucket'>;

/**
 * Stores a new scan, filed in its organization's and its project's lists by its startedAt (storage/scan-regions.ts).
 * `filed`: the groups fileScanGroups already gave for this scan (a caller that files it while writing something else);
 * otherwise they are decided here. Returns the scan as stored.
 */
export async function insertScan(store: Store, scan: NewScan, filed?: ScanGroups): Promise<ScanDoc> {
  const doc: ScanDoc = {
    ...scan,
    ...(filed ?? (await fileScanGroups(store, scan.orgId, scan.projectId, scan.startedAt.getTime(), scan._id))),
  };
  await store.c.scans.insertOne(pack(doc));
  await touchScanGroups(store, doc);
  return doc;
}

/** Removes a scan still queued (an upload withdrawn before it was answered); false when it was not (or no longer) queued. */
export async function deleteQueuedScan(store: Store, scanId: string): Promise<boolean> {
  const d = await store.c.scans.findOneAndDelete({ _id: scanId, status: 'queued' });
  if (d) await touchScanGroups(store, d);
  return d !== null;
}

/*
 * GET /v1/scans lists newest first by startedAt, ties by id descending, and touches a bounded number
 * of documents on any backend, whatever the organization's history. Every scan is filed, by its startedAt, in a group
 * of its organization's and of its project's time partition (storage/scan-regions.ts); groups follow startedAt order
 * by construction and hold about BUCKET_SIZE scans each. A page reads the newest groups by top-level equality until
 * it is full, sorts each by (startedAt, id), and continues from a cursor that holds the last key shown. FerretDB
 * pushes that equality down, so a page decodes about the groups it shows instead of the organization's whole history
 * (docs/configuration.md); on MongoDB the indexes on (orgId, orgBucket, startedAt, _id) and (orgId, projectId,
 * projectBucket, startedAt, _id) do the same. Groups read whole are kept by the API process while their token stays
 * put (storage/scan-list-cache.ts); a status filter over a group not kept reads only its matches.
 */
/** About how many scans a group holds. */
export const BUCKET_SIZE = GROUP_TARGET;
/**
 * Groups one list request may read. A page needs about limit / BUCKET_SIZE of them; lists filtered by status or
 * over a restricted key's projects skip groups without a match, and past this many the page ends early (possibly
 * empty) with a cursor to where it stopped, rather than read on through years of history.
 */
export const MAX_BUCKETS_PER_PAGE = 32;

export interface ScanListPosition {
  bucket: number;
  /** Continue with the scans of `bucket` listed after this key (startedAt in ms, then id); null: the whole bucket. */
  at: number | null;
  id: string | null;
}

export interface ScanListQuery {
  orgId: string;
  projectIds?: string[]; // undefined = every project of the org
  status?: string;
  /** Keyset: continue after this position. */
  after?: ScanListPosition;
  limit: number;
}

/** Scans of a group listed after `key`: older, or as old with a smaller id. */
function olderThan(key: ListKey): Filter<StoredScanDoc> {
  const at = new Date(key.at);
  return { $or: [{ startedAt: { $lt: at } }, { startedAt: at, _id: { $lt: key.id } }] };
}

/**
 * One page, newest first, and the position the next page starts from (null: nothing older). At most one probe of the
 * newest region, a token query per 8 groups and MAX_BUCKETS_PER_PAGE group reads: about limit + 2 * BUCKET_SIZE scan
 * documents in all when groups hold BUCKET_SIZE scans, none for groups kept unchanged.
 */
export async function listScans(
  store: Store,
  q: ScanListQuery,
): Promise<{ scans: ScanDoc[]; next: ScanListPosition | null }> {
  const single = q.projectIds?.length === 1 ? q.projectIds[0] : undefined;
  const scope = single ? projectScope(q.orgId, single) : orgScope(q.orgId);
  const base: Filter<StoredScanDoc> = { ...scope.filter };
  if (!single && q.projectIds) base.projectId = { $in: q.projectIds };
  if (q.status) base.status = q.status as StoredScanDoc['status'];
  const shows = (s: ScanDoc) =>
    (!q.status || s.status === q.status) &&
    (single !== undefined || !q.projectIds || q.projectIds.includes(s.projectId));
  const want = q.limit + 1; // one more than shown tells whether a next page exists
  // The groups a full page needs are read at once (the newest may be nearly empty, hence one more).
  const groupsFrom = (top: number, need: number, budget: number) =>
    Array.from({ length: Math.min(Math.ceil(need / BUCKET_SIZE) + 1, budget, top + 1) }, (_, i) => top - i);
  let group: number;
  let early: { groups: number[]; tokens: Promise<Map<number, number | null>> } | undefined;
  if (q.after) group = q.after.bucket;
  else {
    // The first page asks the database for the newest region; meanwhile the tokens of the groups this process
    // expects are read, and used when the newest group is the one expected.
    const expected = knownNewestGroup(store, scope.key);
    if (expected >= 0) {
      const groups = groupsFrom(expected, want, MAX_BUCKETS_PER_PAGE);
      early = { groups, tokens: groupTokens(store, scope.key, groups) };
      early.tokens.catch(() => undefined); // awaited below, or dropped
    }
    group = await newestGroup(store, scope.key);
    if (group !== expected) early = undefined;
  }
  let after: ListKey | null =
    q.after && q.after.at !== null && q.after.id !== null ? { at: q.after.at, id: q.after.id } : null;

  /** The group's scans the page shows, newest first, after `below`, at most `n`; `kept`: the group read whole. */
  const read = async (
    g: number,
    kept: ScanDoc[] | undefined,
    token: number | null,
    below: ListKey | null,
    n: number,
  ) => {
    let whole = kept;
    if (!whole && !q.status) {
      whole = await readGroup(store, scope, g);
      keepGroup(store, scope.key, g, token, whole);
      // The newest group changes with every upload: its pack would rarely be read before the next write. The
      // worker packs it once it goes quiet (repackWhenSettled).
      if (g < knownNewestGroup(store, scope.key)) storePack(store, scope.key, g, token, whole);
    }
    if (whole)
      return whole
        .filter((s) => shows(s) && (!below || newestFirst(keyOf(s), below) > 0))
        .sort(byKey)
        .slice(0, n);
    // A status filter and a group not kept: only its matches, so that a rare status never decodes whole groups.
    const filter = { ...base, [scope.field]: g, ...(below ? olderThan(below) : {}) } as Filter<StoredScanDoc>;
    return (await store.c.scans.find(filter).sort({ startedAt: -1, _id: -1 }).limit(n).toArray())
      .map(unpack)
      .sort(byKey);
  };

  const found: Array<{ scan: ScanDoc; group: number }> = [];
  let budget = MAX_BUCKETS_PER_PAGE;
  while (group >= 0 && found.length < want && budget > 0) {
    // Their tokens first (storage/scan-list-cache.ts).
    const need = want - found.length;
    const groups = early?.groups ?? groupsFrom(group, need, budget);
    const count = groups.length;
    const tokens = await (early?.tokens ?? groupTokens(store, scope.key, groups));
    early = undefined;
    // Groups kept by this process, then the packs of the others (one query), then the scans of those left.
    const kept = new Map<number, ScanDoc[]>();
    for (const g of groups) {
      const scans = cachedGroup(store, scope.key, g, tokens.get(g) ?? null);
      if (scans) kept.set(g, scans);
    }
    // The newest group changes with every upload: when this process keeps it under an older token, it is being
    // written to, and its pack (written by the worker only once it goes quiet) is not looked for.
    const newest = knownNewestGroup(store, scope.key);
    const unkept = groups
      .filter((g) => !kept.has(g) && !(g === newest && keptAtAll(store, scope.key, g)))
      .map((g) => ({ g, token: tokens.get(g) ?? null }));
    for (const [g, scans] of await packedGroups(store, scope.key, unkept)) kept.set(g, scans);
    const lists = await Promise.all(
      groups.map((g, i) => read(g, kept.get(g), tokens.get(g) ?? null, i === 0 ? after : null, need)),
    );
    for (let i = 0; i < count && found.length < want; i++) {
      for (const scan of lists[i].slice(0, want - found.length)) found.push({ scan, group: groups[i] });
    }
    group -= count;
    budget -= count;
    after = null;
  }
  const shown = found.slice(0, q.limit);
  // A group read short of its limit was read whole, so with the page not full every group before `group` is done.
  let next: ScanListPosition | null = null;
  if (found.length > q.limit) {
    const last = shown[shown.length - 1];
    next = { bucket: last.group, ...keyOf(last.scan) };
  } else if (group >= 0) next = { bucket: group, at: null, id: null };
  return { scans: shown.map((f) => f.scan), next };
}

/** A group's scans, read whole. */
async function readGroup(store: Store, scope: ListScope, g: number): Promise<ScanDoc[]> {
  return (await store.c.scans.find({ ...scope.filter, [scope.field]: g } as Filter<StoredScanDoc>).toArray()).map(
    unpack,
  );
}

/**
 * After scans of these groups reached a final status: their packs are written again once the groups have been quiet
 * for a moment, so that lists in any process read one document per group (storage/scan-list-cache.ts).
 */
function repackWhenSettled(store: Store, s: Pick<ScanDoc, 'orgId' | 'projectId' | 'orgBucket' | 'projectBucket'>) {
  const groups: Array<[ListScope, number]> = [
    [orgScope(s.orgId), s.orgBucket],
    [projectScope(s.orgId, s.projectId), s.projectBucket],
  ];
  for (const [scope, g] of groups)
    repackWhenQuiet(store, scope.key, g, async () => {
      const token = (await groupTokens(store, scope.key, [g])).get(g) ?? null;
      await writePack(store, scope.key, g, token, await readGroup(store, scope, g));
    });
}

const keyOf = (s: ScanDoc): ListKey => ({ at: s.startedAt.getTime(), id: s._id });
const byKey = (a: ScanDoc, b: ScanDoc) => newestFirst(keyOf(a), keyOf(b));

/**
 * Moves a scan from one of `from` to `status` with this outcome: one update, conditional on the current status, so
 * that a retried activity or a replayed workflow (the move already happened) changes nothing.
 */
async function transition(
  store: Store,
  scanId: string,
  from: ScanDoc['status'][],
  status: ScanDoc['status'],
  outcome: Partial<ScanDoc>,
): Promise<boolean> {
  const filter: Filter<StoredScanDoc> = { _id: scanId, status: from.length === 1 ? from[0] : { $in: from } };
  // (No projection: FerretDB does not implement one for findAndModify.)
  const moved = await store.c.scans.findOneAndUpdate(filter, { $set: { status, ...outcomeFields(outcome) } });
  // Lists see the move once the groups' tokens move (storage/scan-list-cache.ts). Also when this call moved nothing:
  // a retry after a crash between the move and its tokens.
  const groups = moved ?? (await store.c.scans.findOne({ _id: scanId }, { projection: GROUPS }));
  if (groups) {
    await touchScanGroups(store, groups);
    if (status === 'completed' || status === 'failed') repackWhenSettled(store, groups);
  }
  return moved !== null;
}

/**
 * The first of several racing writers decides, by inserting a document whose _id names the decision: the one
 * uniqueness guarantee every MongoDB-wire backend gives. A conditional update alone is not enough on FerretDB,
 * which evaluates the filter and writes in two steps (15 of 32 concurrent compare-and-sets on one document all
 * succeeded there); on MongoDB the conditional update in transition() alone would do. Returns the winning value; a
 * writer that lost must not write. A retry of the winner finds its own value and proceeds (idempotent).
 */
async function claim(store: Store, id: string, value: string): Promise<string> {
  try {
    await store.c.claims.insertOne({ _id: id, value, at: new Date() });
    return value;
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const doc = await store.c.claims.findOne({ _id: id });
    return doc ? doc.value : value;
  }
}

/** queued → running, pinning the advisory generation the scan will use (the first attempt's, on a retry). */
export async function markRunning(store: Store, scanId: string, advisoryGeneration: string | null): Promise<void> {
  const won = await claim(store, `${scanId}:running`, JSON.stringify(advisoryGeneration));
  await transition(store, scanId, ['queued'], 'running', { advisoryGeneration: JSON.parse(won) as string | null });
}

/** Completed and failed are terminal: the first one claimed is the only one ever written. */
async function terminal(
  store: Store,
  scanId: string,
  status: 'completed' | 'failed',
  outcome: Partial<ScanDoc>,
  claimed?: Promise<string>,
  takeOver = false,
): Promise<boolean> {
  const won = await (claimed ?? claim(store, `${scanId}:final`, status));
  if (won !== status) {
    // A completion was claimed but never landed (its publish failed for good; the workflow fails a scan only after
    // that, with takeOver): the failure takes the claim over, so that no scan stays running with a dead claim.
    if (!takeOver || status !== 'failed' || (await getScan(store, scanId))?.status === 'completed') return false;
    await store.c.claims.updateOne(
      { _id: `${scanId}:final`, value: won },
      { $set: { value: 'failed', at: new Date() } },
    );
  }
  return transition(store, scanId, ['queued', 'running'], status, outcome);
}

export interface Completion {
  findings: SeverityCounts;
  suppressed: number;
  advisoryGeneration: string | null;
  unmatchedVersions: number;
  resultChunks: number;
  findingCount: number;
  /** v2: modules in the metadata document written beside the results. */
  moduleCount?: number;
}

/** The single-document update that publishes a scan's results: readers see all of them or none. */
/** Claims completion ahead of markCompleted, so that the claim's round trip overlaps the writing of the results. */
export function claimCompletion(store: Store, scanId: string): Promise<string> {
  return claim(store, `${scanId}:final`, 'completed');
}

export async function markCompleted(
  store: Store,
  scanId: string,
  c: Completion,
  now = new Date(),
  claimed?: Promise<string>,
): Promise<void> {
  await terminal(store, scanId, 'completed', { finishedAt: now, ...c }, claimed);
}

/**
 * → failed. `takeOver`: the caller knows no completion is in flight any more (the workflow, after publishing failed
 * for good), so a completion claimed but never written is overridden. True when this call failed the scan.
 */
export async function markFailed(
  store: Store,
  scanId: string,
  reason: FailureReason,
  message: string,
  now = new Date(),
  takeOver = false,
): Promise<boolean> {
  return terminal(
    store,
    scanId,
    'failed',
    { finishedAt: now, failureReason: reason, failureMessage: message.slice(0, 500) },
    undefined,
    takeOver,
  );
}

/** Scans accepted but possibly never handed to Temporal (the sweeper's work list). */
export async function queuedScans(store: Store, olderThan: Date, limit = 100): Promise<ScanDoc[]> {
  const docs = await store.c.scans
    .find({ status: 'queued' })
    .limit(limit * 4)
    .toArray();
  return docs
    .filter((d) => d.startedAt < olderThan)
    .slice(0, limit)
    .map(unpack);
}
