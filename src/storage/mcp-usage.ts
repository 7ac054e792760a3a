// MCP usage events: idempotent per (organization, eventId) by a deterministic _id (the SHA-256 of
// both), so a repeated event, in one batch or in two concurrent requests, is one insert and duplicates elsewhere; a
// repeated pre event gets the decision stored with the first. Usage of a server (calls, errors, blocked, last call) is
// computed from the stored events when read, never kept in a counter beside them.
import type { Filter } from 'mongodb';
import { sha256Hex } from '../domain/ids';
import type { McpUsageEventDoc } from './documents/mcp';
import type { Store } from './mongo';

export const usageEventDocId = (orgId: string, eventId: string): string => sha256Hex(`${orgId}\0${eventId}`);

/** Inserts the events; the indexes of those already stored (or repeated within the batch) are returned. */
export async function insertUsageEvents(store: Store, docs: McpUsageEventDoc[]): Promise<Set<number>> {
  const duplicates = new Set<number>();
  if (docs.length === 0) return duplicates;
  try {
    await store.c.mcpUsageEvents.insertMany(docs, { ordered: false });
  } catch (err) {
    const writeErrors = (err as { writeErrors?: Array<{ index: number; code?: number; err?: { code?: number } }> })
      .writeErrors;
    if (!Array.isArray(writeErrors) || writeErrors.length === 0) throw err;
    for (const w of writeErrors) {
      const code = w.code ?? w.err?.code;
      if (code !== 11000) throw err;
      duplicates.add(w.index);
    }
  }
  return duplicates;
}

/** The stored events of these _ids (their first decisions). */
export async function storedUsageEvents(store: Store, ids: readonly string[]): Promise<Map<string, McpUsageEventDoc>> {
  if (ids.length === 0) return new Map();
  const docs = await store.c.mcpUsageEvents.find({ _id: { $in: [...ids] } }).toArray();
  return new Map(docs.map((d) => [d._id, d]));
}

export interface UsageFilter {
  serverId?: string;
  hostId?: string;
  tool?: string;
  since?: Date;
  until?: Date;
}

/** Newest first (by reception: the mue_ id), after a cursor id. */
export async function listUsageEvents(
  store: Store,
  orgId: string,
  f: UsageFilter,
  o: { beforeId?: string; limit: number },
): Promise<McpUsageEventDoc[]> {
  const filter: Filter<McpUsageEventDoc> = { orgId };
  if (f.serverId !== undefined) filter.serverId = f.serverId;
  if (f.hostId !== undefined) filter.hostId = f.hostId;
  if (f.tool !== undefined) filter.tool = f.tool;
  if (f.since || f.until)
    filter.occurredAt = { ...(f.since ? { $gte: f.since } : {}), ...(f.until ? { $lt: f.until } : {}) };
  if (o.beforeId) filter.id = { $lt: o.beforeId };
  return store.c.mcpUsageEvents.find(filter).sort({ id: -1 }).limit(o.limit).toArray();
}

export interface ServerUsage {
  calls: number;
  errors: number;
  blocked: number;
  lastCalledAt: Date | null;
}

export const NO_USAGE: ServerUsage = { calls: 0, errors: 0, blocked: 0, lastCalledAt: null };

/**
 * Usage of each server, from its stored events: calls = post events (a call is reported once done), errors = post
 * events with outcome error, blocked = post events with outcome blocked and pre events answered block, lastCalledAt =
 * the latest occurredAt of any of its events. One aggregation counts them (FerretDB has no $max accumulator yet, so
 * the latest event of each server is one indexed read).
 */
export async function usageOfServers(
  store: Store,
  orgId: string,
  serverIds: readonly string[],
): Promise<Map<string, ServerUsage>> {
  const out = new Map<string, ServerUsage>(serverIds.map((id) => [id, { ...NO_USAGE }]));
  if (serverIds.length === 0) return out;
  const groups = await store.c.mcpUsageEvents
    .aggregate<{ _id: { s: string; p: string; o: string | null; d: string | null }; n: number }>([
      { $match: { orgId, serverId: { $in: [...serverIds] } } },
      { $group: { _id: { s: '$serverId', p: '$phase', o: '$outcome', d: '$decision.decision' }, n: { $sum: 1 } } },
    ])
    .toArray();
  for (const g of groups) {
    const u = out.get(g._id.s);
    if (!u) continue;
    if (g._id.p === 'post') {
      u.calls += g.n;
      if (g._id.o === 'error') u.errors += g.n;
      if (g._id.o === 'blocked') u.blocked += g.n;
    } else if (g._id.d === 'block') u.blocked += g.n;
  }
  await Promise.all(
    [...out].map(async ([serverId, u]) => {
      if (u.calls === 0 && u.blocked === 0 && !groups.some((g) => g._id.s === serverId)) return;
      const [last] = await store.c.mcpUsageEvents
        .find({ orgId, serverId })
        .sort({ occurredAt: -1 })
        .limit(1)
        .project<{ occurredAt: Date }>({ occurredAt: 1 })
        .toArray();
      u.lastCalledAt = last?.occurredAt ?? null;
    }),
  );
  return out;
}
