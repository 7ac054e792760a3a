// Reads of the MCP inventory for GET /v1/mcp/servers and /v1/mcp/servers/{id}. The MCP scan
// workflow writes these collections; a server's hosts, clients and current issues come from its placements (where
// it is configured now, per host, client, config path and name).
import type { Filter } from 'mongodb';
import type { McpIssueCode, McpPlacementDoc, McpServerDoc } from './documents/mcp';
import type { Store } from './mongo';

export type ServerPosition = [identity: string, id: string];

/** The host key of placements: the host's id, else `name:<reportedHostname>`. */
export const hostKeyOf = (hostId: string | null, reportedHostname: string | null): string =>
  hostId ?? `name:${reportedHostname ?? ''}`;

/** A batch of servers ordered by identity, then id, after a position; restricted to `ids` when given. */
export async function listServers(
  store: Store,
  orgId: string,
  o: { ids?: readonly string[]; after?: ServerPosition; limit: number },
): Promise<McpServerDoc[]> {
  const filter: Filter<McpServerDoc> = { orgId };
  if (o.ids) filter._id = { $in: [...o.ids] };
  if (o.after) filter.$or = [{ identity: { $gt: o.after[0] } }, { identity: o.after[0], _id: { $gt: o.after[1] } }];
  return store.c.mcpServers.find(filter).sort({ identity: 1, _id: 1 }).limit(o.limit).toArray();
}

export async function findServer(store: Store, orgId: string, id: string): Promise<McpServerDoc | null> {
  const doc = await store.c.mcpServers.findOne({ _id: id });
  return doc && doc.orgId === orgId ? doc : null;
}

export async function serversByIdentity(
  store: Store,
  orgId: string,
  identities: readonly string[],
): Promise<Map<string, McpServerDoc>> {
  if (identities.length === 0) return new Map();
  const docs = await store.c.mcpServers
    .find({ orgId, identity: { $in: [...new Set(identities)] } })
    .sort({ _id: 1 })
    .toArray();
  const out = new Map<string, McpServerDoc>();
  for (const d of docs) if (!out.has(d.identity)) out.set(d.identity, d);
  return out;
}

export async function serversById(
  store: Store,
  orgId: string,
  ids: readonly string[],
): Promise<Map<string, McpServerDoc>> {
  if (ids.length === 0) return new Map();
  const docs = await store.c.mcpServers.find({ orgId, _id: { $in: [...new Set(ids)] } }).toArray();
  return new Map(docs.map((d) => [d._id, d]));
}

/** The placements of these servers. */
export async function placementsOf(
  store: Store,
  orgId: string,
  serverIds: readonly string[],
): Promise<McpPlacementDoc[]> {
  if (serverIds.length === 0) return [];
  return store.c.mcpPlacements
    .find({ orgId, serverId: { $in: [...new Set(serverIds)] } })
    .sort({ hostKey: 1, client: 1, configPath: 1, name: 1 })
    .toArray();
}

/** The placements on these hosts (host keys). */
export async function placementsOnHosts(
  store: Store,
  orgId: string,
  hostKeys: readonly string[],
): Promise<McpPlacementDoc[]> {
  if (hostKeys.length === 0) return [];
  return store.c.mcpPlacements.find({ orgId, hostKey: { $in: [...new Set(hostKeys)] } }).toArray();
}

/** The ids of servers with a placement matching: on a host, and/or with a current issue of a code. */
export async function serverIdsWhere(
  store: Store,
  orgId: string,
  w: { hostId?: string; issue?: McpIssueCode },
): Promise<string[]> {
  const filter: Filter<McpPlacementDoc> = { orgId };
  if (w.hostId !== undefined) filter.hostKey = w.hostId;
  if (w.issue === undefined) return (await store.c.mcpPlacements.distinct('serverId', filter)) as string[];
  // FerretDB does not match a dotted path into an array of documents ('issues.code'): the codes are read and matched here
  const rows = await store.c.mcpPlacements
    .find(filter)
    .project<{ serverId: string; issues: Array<{ code: string }> }>({ serverId: 1, 'issues.code': 1 })
    .toArray();
  return [...new Set(rows.filter((r) => (r.issues ?? []).some((i) => i.code === w.issue)).map((r) => r.serverId))];
}
