// The writes of MCP scan processing: scan status, inventory servers, tool pins and placements. Every
// write is keyed by a deterministic _id and replaces (never appends), so a retried activity duplicates nothing; and
// none relies on a unique secondary index (FerretDB does not enforce them reliably): two workers racing on one
// server, pin or placement collide on its _id, and the loser's duplicate-key error is handled.
import { createHash } from 'node:crypto';
import type {
  McpIssueCode,
  McpIssueDoc,
  McpPlacementDoc,
  McpPlacementResultDoc,
  McpScanDoc,
  McpServerDoc,
  McpToolPinDoc,
} from './documents/mcp';
import { isDuplicateKey, onlyDuplicates, type Store } from './mongo';

/**
 * Runs `fn` over ITEMS, at most `limit` at a time. One update per document rather than a bulkWrite: on FerretDB a
 * bulk of upserts over existing documents stalls for seconds from about 50 operations on (measured), single updates
 * do not.
 */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

/** Concurrent single writes of one step. */
const WRITE_CONCURRENCY = 8;

const sha256 = (parts: readonly unknown[]) => createHash('sha256').update(JSON.stringify(parts), 'utf8').digest('hex');

/** The inventory server of an identity: one per organization and identity, whoever writes it first. */
export const mcpServerId = (orgId: string, identity: string): string =>
  `mcp_${sha256(['mcp-server', orgId, identity]).slice(0, 26)}`;
/** A tool pin: per organization, identity, version and tool name. */
export const mcpToolPinId = (orgId: string, identity: string, version: string | null, tool: string): string =>
  sha256(['mcp-pin', orgId, identity, version, tool]);
/** A placement: per organization, host, client, config path and server name. */
export const mcpPlacementId = (
  orgId: string,
  hostKey: string,
  client: string,
  configPath: string,
  name: string,
): string => sha256(['mcp-placement', orgId, hostKey, client, configPath, name]);

/** The host key of placements: the host's id, else `name:<reportedHostname>`. */
export const mcpHostKey = (scan: Pick<McpScanDoc, 'hostId' | 'reportedHostname'>): string =>
  scan.hostId ?? `name:${scan.reportedHostname ?? ''}`;

export const getMcpScan = (store: Store, scanId: string) => store.c.mcpScans.findOne({ _id: scanId });

/** queued → running; anything else stays as it is. The scan as it is now (null: no such scan). */
export async function markMcpRunning(store: Store, scanId: string): Promise<McpScanDoc | null> {
  await store.c.mcpScans.updateOne({ _id: scanId, status: 'queued' }, { $set: { status: 'running' } });
  return getMcpScan(store, scanId);
}

/** running (or queued) → completed with the counts; a terminal scan is left as it is. True when this call wrote. */
export async function completeMcpScan(
  store: Store,
  scanId: string,
  servers: number,
  issues: Partial<Record<McpIssueCode, number>>,
  now = new Date(),
): Promise<boolean> {
  const r = await store.c.mcpScans.updateOne(
    { _id: scanId, status: { $in: ['queued', 'running'] } },
    { $set: { status: 'completed', finishedAt: now, servers, issues, failureReason: null } },
  );
  return r.modifiedCount > 0;
}

/** queued or running → failed with a reason; a completed scan keeps its outcome. True when this call wrote. */
export async function failMcpScan(store: Store, scanId: string, reason: string, now = new Date()): Promise<boolean> {
  const r = await store.c.mcpScans.updateOne(
    { _id: scanId, status: { $in: ['queued', 'running'] } },
    { $set: { status: 'failed', finishedAt: now, failureReason: reason } },
  );
  return r.modifiedCount > 0;
}

/** MCP scans still queued that were received before `before` (their workflow start was lost), oldest first. */
export function queuedMcpScans(store: Store, before: Date, limit = 100) {
  return store.c.mcpScans
    .find({ status: 'queued', receivedAt: { $lt: before } })
    .sort({ receivedAt: 1 })
    .limit(limit)
    .toArray();
}

/** MCP scans running since before `before` (by reception), for the sweeper's check of their workflow. */
export function staleRunningMcpScans(store: Store, before: Date, limit = 100) {
  return store.c.mcpScans
    .find({ status: 'running', receivedAt: { $lt: before } }, { projection: { _id: 1 } })
    .limit(limit)
    .toArray();
}

export interface SeenServer {
  identity: string;
  kind: McpServerDoc['kind'];
  transport: McpServerDoc['transport'];
  name: string;
  version: string | null;
}

/**
 * Upserts the inventory servers of SEEN (several entries may share an identity): names and versions added, first
 * and last sight widened to `seenAt` (the scan's reception, so an older scan processed late never moves lastSeenAt
 * back). Kind and transport are those of the first sight. Returns the server id of each identity.
 */
export async function upsertMcpServers(
  store: Store,
  orgId: string,
  seen: readonly SeenServer[],
  seenAt: Date,
): Promise<Map<string, string>> {
  const byIdentity = new Map<string, { first: SeenServer; names: Set<string>; versions: Set<string> }>();
  for (const s of seen) {
    let e = byIdentity.get(s.identity);
    if (!e) byIdentity.set(s.identity, (e = { first: s, names: new Set(), versions: new Set() }));
    e.names.add(s.name);
    if (s.version !== null) e.versions.add(s.version);
  }
  const ids = new Map<string, string>();
  for (const identity of byIdentity.keys()) ids.set(identity, mcpServerId(orgId, identity));
  await eachLimited([...byIdentity], WRITE_CONCURRENCY, async ([identity, e]) => {
    const _id = ids.get(identity)!;
    const update = {
      $setOnInsert: { orgId, identity, kind: e.first.kind, transport: e.first.transport },
      $addToSet: { names: { $each: [...e.names].sort() }, versions: { $each: [...e.versions].sort() } },
      $min: { firstSeenAt: seenAt },
      $max: { lastSeenAt: seenAt },
    };
    // Two scans upserting a new identity at once: one insert wins, the other fails on the _id and, every operator
    // being idempotent ($addToSet, $min, $max), simply updates the winner's document.
    for (let attempt = 0; ; attempt++) {
      try {
        await store.c.mcpServers.updateOne({ _id }, update, { upsert: true });
        return;
      } catch (err) {
        if (!isDuplicateKey(err) || attempt >= 3) throw err;
      }
    }
  });
  return ids;
}

export interface PinCandidate {
  identity: string;
  version: string | null;
  tool: string;
  hash: string;
}

/**
 * Pins each tool at first sight (insert-if-absent on its deterministic _id: the first writer wins, a later or
 * concurrent one keeps the stored pin) and returns the pins as stored now, by pin id.
 */
export async function pinMcpTools(
  store: Store,
  orgId: string,
  scanId: string,
  candidates: readonly PinCandidate[],
  firstSeenAt: Date,
): Promise<Map<string, McpToolPinDoc>> {
  const docs = new Map<string, McpToolPinDoc>();
  for (const c of candidates) {
    const _id = mcpToolPinId(orgId, c.identity, c.version, c.tool);
    if (!docs.has(_id))
      docs.set(_id, {
        _id,
        orgId,
        identity: c.identity,
        version: c.version,
        tool: c.tool,
        hash: c.hash,
        firstSeenAt,
        scanId,
      });
  }
  if (docs.size === 0) return new Map();
  const ids = [...docs.keys()];
  // Only the pins missing are inserted (usually none after an identity's first scan).
  const stored = await store.c.mcpToolPins.find({ _id: { $in: ids } }).toArray();
  const have = new Set(stored.map((p) => p._id));
  const missing = ids.filter((id) => !have.has(id)).map((id) => docs.get(id)!);
  if (missing.length > 0) {
    try {
      await store.c.mcpToolPins.insertMany(missing, { ordered: false });
    } catch (err) {
      if (!onlyDuplicates(err)) throw err;
    }
  }
  const pins = missing.length > 0 ? await store.c.mcpToolPins.find({ _id: { $in: ids } }).toArray() : stored;
  return new Map(pins.map((p) => [p._id, p]));
}

export interface PlacementGroup {
  client: string;
  configPath: string;
  placements: Array<{
    name: string;
    serverId: string;
    identity: string;
    version: string | null;
    issues: McpIssueDoc[];
  }>;
}

const groupKey = (client: string, configPath: string) => JSON.stringify([client, configPath]);

/** The bound of converge rounds for one group; reached only under a storm of newer scans of the same path. */
const CONVERGE_ROUNDS = 20;

/**
 * Writes the placements of the scan's host for each (client, config path) of GROUPS. The scan's result is stored first
 * (mcpPlacementResults, written once); then the groups converge on the result of their owner, for each group the
 * newest scan of the host (received later; on a tie, the greater id) whose stored result covers it (this scan, or a
 * newer one): the owner's placements written, any other placement of the group deleted, then owners and placements
 * read again, until both are unchanged. So a server removed from a config path leaves the host, a late older scan
 * changes nothing, and two scans of one path processed at the same time leave the newer one's placements whatever the
 * interleaving of their writes. Only the outcome of the last round counts, which is what makes this safe on
 * databases whose conditional updates are not atomic (FerretDB reads, then writes): a round whose writes were
 * overtaken is followed by another. Results that a newer one covers whole are deleted at the end. Returns the groups
 * this scan owns (written) and those a newer scan owns (skipped).
 */
export async function replaceMcpPlacements(
  store: Store,
  scan: McpScanDoc,
  computed: readonly PlacementGroup[],
): Promise<{ written: number; skipped: number }> {
  const json = JSON.stringify(computed);
  // The placements as any scan reads them back from the stored result (no undefined fields), so they compare equal.
  const groups = JSON.parse(json) as PlacementGroup[];
  const hostKey = mcpHostKey(scan);
  const keys = new Set(groups.map((g) => groupKey(g.client, g.configPath)));
  const result: McpPlacementResultDoc = {
    _id: scan._id,
    orgId: scan.orgId,
    hostKey,
    hostId: scan.hostId,
    reportedHostname: scan.reportedHostname,
    receivedAt: scan.receivedAt,
    groups: [...keys],
    placements: json,
  };
  try {
    await store.c.mcpPlacementResults.insertOne(result);
  } catch (err) {
    // A retried activity: the same scan computed its result again; the newest computation stands.
    if (!isDuplicateKey(err)) throw err;
    await store.c.mcpPlacementResults.replaceOne({ _id: scan._id }, result);
  }
  const current = async () => {
    const docs = await store.c.mcpPlacements.find({ orgId: scan.orgId, hostKey }).toArray();
    return new Map(docs.filter((d) => keys.has(groupKey(d.client, d.configPath))).map((d) => [d._id, d]));
  };
  let [owners, have] = await Promise.all([groupOwners(store, scan, groups), current()]);
  for (let round = 0; round < CONVERGE_ROUNDS; round++) {
    const want = new Map([...owners.byGroup.values()].flatMap((o) => o.docs).map((d) => [d._id, d]));
    const stale = [...want.values()].filter((d) => {
      const h = have.get(d._id);
      return !h || content(h) !== content(d);
    });
    const extra = [...have.keys()].filter((id) => !want.has(id));
    if (round > 0 && stale.length === 0 && extra.length === 0) {
      const written = [...owners.byGroup.values()].filter((o) => o.id === scan._id).length;
      if (written === groups.length && owners.covered.length)
        await store.c.mcpPlacementResults.deleteMany({ _id: { $in: owners.covered } });
      return { written, skipped: groups.length - written };
    }
    // New placements in one insert, changed ones replaced one by one (a bulk of upserts stalls on FerretDB). Two
    // writers inserting one placement at once: the next round reads what won and corrects it if needed.
    const fresh = stale.filter((d) => !have.has(d._id));
    if (fresh.length) {
      try {
        await store.c.mcpPlacements.insertMany(fresh, { ordered: false });
      } catch (err) {
        if (!onlyDuplicates(err)) throw err;
      }
    }
    await eachLimited(
      stale.filter((d) => have.has(d._id)),
      WRITE_CONCURRENCY,
      async (d) => {
        try {
          await store.c.mcpPlacements.replaceOne({ _id: d._id }, d, { upsert: true });
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
      },
    );
    if (extra.length) await store.c.mcpPlacements.deleteMany({ _id: { $in: extra } });
    [owners, have] = await Promise.all([groupOwners(store, scan, groups), current()]);
  }
  throw new Error(`MCP scan ${scan._id}: its host's placements did not settle in ${CONVERGE_ROUNDS} rounds`);
}

/** The placement documents of a group as a scan's result gives them (none when its result does not list the group). */
function placementDocs(
  scan: Pick<McpScanDoc, '_id' | 'orgId' | 'hostId' | 'reportedHostname' | 'receivedAt'>,
  groups: readonly PlacementGroup[],
  key: string,
): McpPlacementDoc[] {
  const hostKey = mcpHostKey(scan);
  const g = groups.find((x) => groupKey(x.client, x.configPath) === key);
  return (g?.placements ?? []).map((p) => ({
    _id: mcpPlacementId(scan.orgId, hostKey, g!.client, g!.configPath, p.name),
    orgId: scan.orgId,
    hostKey,
    hostId: scan.hostId,
    reportedHostname: scan.reportedHostname,
    client: g!.client,
    configPath: g!.configPath,
    name: p.name,
    serverId: p.serverId,
    identity: p.identity,
    version: p.version,
    scanId: scan._id,
    seenAt: scan.receivedAt,
    issues: p.issues,
  }));
}

const newestFirst = (a: { _id: string; receivedAt: Date }, b: { _id: string; receivedAt: Date }) =>
  b.receivedAt.getTime() - a.receivedAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);

/**
 * The owner of each of the scan's groups (by group key): the newest stored result of the host covering it, and that
 * result's placements for the group. Also the older results of the host that this scan's groups cover whole (to
 * delete once this scan owns all its groups).
 */
async function groupOwners(
  store: Store,
  scan: McpScanDoc,
  groups: readonly PlacementGroup[],
): Promise<{ byGroup: Map<string, { id: string; docs: McpPlacementDoc[] }>; covered: string[] }> {
  const hostKey = mcpHostKey(scan);
  const results = (
    await store.c.mcpPlacementResults.find({ orgId: scan.orgId, hostKey }, { projection: { placements: 0 } }).toArray()
  ).sort(newestFirst);
  const byGroup = new Map<string, { id: string; docs: McpPlacementDoc[] }>();
  const open = new Set(groups.map((g) => groupKey(g.client, g.configPath)));
  const covered: string[] = [];
  let older = false;
  for (const r of results) {
    if (r._id === scan._id) {
      for (const key of open) byGroup.set(key, { id: scan._id, docs: placementDocs(scan, groups, key) });
      open.clear();
      older = true;
      continue;
    }
    if (older) {
      if (r.groups.every((key) => byGroup.get(key)?.id === scan._id)) covered.push(r._id);
      continue;
    }
    const mine = r.groups.filter((key) => open.has(key));
    if (mine.length === 0) continue;
    const full = await store.c.mcpPlacementResults.findOne({ _id: r._id });
    if (!full) continue; // deleted meanwhile: a newer result covers it, and is listed on the next read
    const theirs = JSON.parse(full.placements) as PlacementGroup[];
    for (const key of mine) {
      byGroup.set(key, { id: full._id, docs: placementDocs(full, theirs, key) });
      open.delete(key);
    }
  }
  // This scan's result deleted by a newer one that covers all its groups: those owners are set above. Otherwise the
  // result was just stored and is listed.
  if (open.size) throw new Error(`MCP scan ${scan._id}: no stored result owns ${[...open].join(', ')}`);
  return { byGroup, covered };
}
/** What a placement says (the fields a reader sees), independent of key order. */
const content = (d: McpPlacementDoc) =>
  JSON.stringify([
    d.scanId,
    d.seenAt.getTime(),
    d.name,
    d.serverId,
    d.identity,
    d.version,
    d.hostId,
    d.reportedHostname,
    d.issues,
  ]);
