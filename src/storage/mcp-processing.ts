// The writes of MCP scan processing (platform.md §6): scan status, inventory servers, tool pins and placements. Every
// write is keyed by a deterministic _id and replaces (never appends), so a retried activity duplicates nothing; and
// none relies on a unique secondary index (FerretDB does not enforce them reliably): two workers racing on one
// server, pin or placement collide on its _id, and the loser's duplicate-key error is handled.
import { createHash } from 'node:crypto';
import { MongoBulkWriteError } from 'mongodb';
import type { McpIssueCode, McpIssueDoc, McpPlacementDoc, McpScanDoc, McpServerDoc, McpToolPinDoc } from './documents';
import { isDuplicateKey, type Store } from './mongo';

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
export const mcpServerId = (orgId: string, identity: string): string => `mcp_${sha256(['mcp-server', orgId, identity]).slice(0, 26)}`;
/** A tool pin: per organization, identity, version and tool name. */
export const mcpToolPinId = (orgId: string, identity: string, version: string | null, tool: string): string => sha256(['mcp-pin', orgId, identity, version, tool]);
/** A placement: per organization, host, client, config path and server name. */
export const mcpPlacementId = (orgId: string, hostKey: string, client: string, configPath: string, name: string): string => sha256(['mcp-placement', orgId, hostKey, client, configPath, name]);

/** The host key of placements: the host's id, else `name:<reportedHostname>`. */
export const mcpHostKey = (scan: Pick<McpScanDoc, 'hostId' | 'reportedHostname'>): string => scan.hostId ?? `name:${scan.reportedHostname ?? ''}`;

/** A bulk write that failed only on duplicate _ids (someone else, or an earlier attempt, wrote those documents). */
function onlyDuplicates(err: unknown): boolean {
  if (isDuplicateKey(err)) return true;
  if (!(err instanceof MongoBulkWriteError)) return false;
  const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
  return errors.length > 0 && errors.every((e) => e.code === 11000);
}

export const getMcpScan = (store: Store, scanId: string) => store.c.mcpScans.findOne({ _id: scanId });

/** queued → running; anything else stays as it is. The scan as it is now (null: no such scan). */
export async function markMcpRunning(store: Store, scanId: string): Promise<McpScanDoc | null> {
  await store.c.mcpScans.updateOne({ _id: scanId, status: 'queued' }, { $set: { status: 'running' } });
  return getMcpScan(store, scanId);
}

/** running (or queued) → completed with the counts; a terminal scan is left as it is. True when this call wrote. */
export async function completeMcpScan(store: Store, scanId: string, servers: number, issues: Partial<Record<McpIssueCode, number>>, now = new Date()): Promise<boolean> {
  const r = await store.c.mcpScans.updateOne({ _id: scanId, status: { $in: ['queued', 'running'] } }, { $set: { status: 'completed', finishedAt: now, servers, issues, failureReason: null } });
  return r.modifiedCount > 0;
}

/** queued or running → failed with a reason; a completed scan keeps its outcome. True when this call wrote. */
export async function failMcpScan(store: Store, scanId: string, reason: string, now = new Date()): Promise<boolean> {
  const r = await store.c.mcpScans.updateOne({ _id: scanId, status: { $in: ['queued', 'running'] } }, { $set: { status: 'failed', finishedAt: now, failureReason: reason } });
  return r.modifiedCount > 0;
}

/** MCP scans still queued that were received before `before` (their workflow start was lost), oldest first. */
export function queuedMcpScans(store: Store, before: Date, limit = 100) {
  return store.c.mcpScans.find({ status: 'queued', receivedAt: { $lt: before } }).sort({ receivedAt: 1 }).limit(limit).toArray();
}

/** MCP scans running since before `before` (by reception), for the sweeper's check of their workflow. */
export function staleRunningMcpScans(store: Store, before: Date, limit = 100) {
  return store.c.mcpScans.find({ status: 'running', receivedAt: { $lt: before } }, { projection: { _id: 1 } }).limit(limit).toArray();
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
export async function upsertMcpServers(store: Store, orgId: string, seen: readonly SeenServer[], seenAt: Date): Promise<Map<string, string>> {
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
export async function pinMcpTools(store: Store, orgId: string, scanId: string, candidates: readonly PinCandidate[], firstSeenAt: Date): Promise<Map<string, McpToolPinDoc>> {
  const docs = new Map<string, McpToolPinDoc>();
  for (const c of candidates) {
    const _id = mcpToolPinId(orgId, c.identity, c.version, c.tool);
    if (!docs.has(_id)) docs.set(_id, { _id, orgId, identity: c.identity, version: c.version, tool: c.tool, hash: c.hash, firstSeenAt, scanId });
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
  placements: Array<{ name: string; serverId: string; identity: string; version: string | null; issues: McpIssueDoc[] }>;
}

const groupKey = (client: string, configPath: string) => JSON.stringify([client, configPath]);

/**
 * The (client, config path) pairs of this scan's host that a NEWER scan (received later; on a tie, the greater id) also
 * covers, failed scans aside: their placements are that scan's to write, never this one's.
 */
export async function supersededGroups(store: Store, scan: McpScanDoc): Promise<Set<string>> {
  const host = scan.hostId !== null ? { hostId: scan.hostId } : { hostId: null, reportedHostname: scan.reportedHostname };
  const newer = await store.c.mcpScans
    .find(
      { orgId: scan.orgId, ...host, _id: { $ne: scan._id }, receivedAt: { $gte: scan.receivedAt }, status: { $ne: 'failed' } },
      { projection: { _id: 1, receivedAt: 1, 'clients.client': 1, 'clients.configPath': 1 } },
    )
    .toArray();
  const out = new Set<string>();
  for (const n of newer) {
    if (n.receivedAt.getTime() === scan.receivedAt.getTime() && n._id < scan._id) continue;
    for (const c of n.clients ?? []) out.add(groupKey(c.client, c.configPath));
  }
  return out;
}

/** A placement written by this scan may replace one written by an older scan (or by itself: a retry). */
const replaceable = (scan: McpScanDoc) => ({ $or: [{ seenAt: { $lt: scan.receivedAt } }, { seenAt: scan.receivedAt, scanId: { $lte: scan._id } }] });

/**
 * Replaces the placements of the scan's host for each (client, config path) of GROUPS: the servers of the group
 * upserted (each only over an older scan's placement), and the group's other placements from older scans deleted, so
 * a server removed from a config path leaves the host. Groups that a newer scan covers are left to it. A newer scan
 * arriving while this one writes: its groups are checked again after the writes, and whatever this scan wrote there
 * is removed. Returns the number of groups written and skipped.
 */
export async function replaceMcpPlacements(store: Store, scan: McpScanDoc, groups: readonly PlacementGroup[]): Promise<{ written: number; skipped: number }> {
  const hostKey = mcpHostKey(scan);
  const superseded = await supersededGroups(store, scan);
  const live = groups.filter((g) => !superseded.has(groupKey(g.client, g.configPath)));
  const writes: Array<{ _id: string; doc: Omit<McpPlacementDoc, '_id'> }> = [];
  for (const g of live) {
    for (const p of g.placements) {
      const _id = mcpPlacementId(scan.orgId, hostKey, g.client, g.configPath, p.name);
      const doc: Omit<McpPlacementDoc, '_id'> = {
        orgId: scan.orgId,
        hostKey,
        hostId: scan.hostId,
        reportedHostname: scan.reportedHostname,
        client: g.client,
        configPath: g.configPath,
        name: p.name,
        serverId: p.serverId,
        identity: p.identity,
        version: p.version,
        scanId: scan._id,
        seenAt: scan.receivedAt,
        issues: p.issues,
      };
      writes.push({ _id, doc });
    }
  }
  await eachLimited(writes, WRITE_CONCURRENCY, async ({ _id, doc }) => {
    try {
      await store.c.mcpPlacements.updateOne({ _id, ...replaceable(scan) }, { $set: doc }, { upsert: true });
    } catch (err) {
      // A duplicate _id: a newer scan's placement is there (the filter did not match it); it stays.
      if (!isDuplicateKey(err)) throw err;
    }
  });
  await Promise.all(
    live.map((g) => {
      const keep = g.placements.map((p) => mcpPlacementId(scan.orgId, hostKey, g.client, g.configPath, p.name));
      return store.c.mcpPlacements.deleteMany({ orgId: scan.orgId, hostKey, client: g.client, configPath: g.configPath, _id: { $nin: keep }, scanId: { $ne: scan._id }, ...replaceable(scan) });
    }),
  );
  // A newer scan of the same groups stored meanwhile: what this scan wrote there is withdrawn (the newer one's own
  // writes replace it anyway; this covers the servers the newer scan no longer has).
  const late = await supersededGroups(store, scan);
  await Promise.all(
    live
      .filter((g) => late.has(groupKey(g.client, g.configPath)))
      .map((g) => store.c.mcpPlacements.deleteMany({ orgId: scan.orgId, hostKey, client: g.client, configPath: g.configPath, scanId: scan._id })),
  );
  return { written: live.length, skipped: groups.length - live.length };
}
