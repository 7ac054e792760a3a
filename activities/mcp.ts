// MCP scan activities: thin adapters from the MCP scan workflow to the pure domain
// (src/domain/mcp) and MongoDB (src/storage/mcp-processing.ts). Each is idempotent: every write is keyed by a
// deterministic _id and replaces what an earlier attempt wrote, and the scan document only moves forward
// (queued → running → completed | failed), so a retried activity duplicates nothing.
import { ApplicationFailure } from '@temporalio/activity';
import { identity as identityOf, type McpIdentity } from '../src/domain/mcp/identity';
import { countIssues, evaluateServer, type ToolPin } from '../src/domain/mcp/issues';
import type { RegistryRule } from '../src/domain/mcp/registry';
import type { PeerServer } from '../src/domain/mcp/shadowing';
import { toolDefinition, toolHash } from '../src/domain/mcp/tool-hash';
import type { Logger } from '../src/logger';
import { currentGeneration } from '../src/storage/advisories';
import type { McpIssueCode, McpIssueDoc, McpScanDoc, McpStoredServer } from '../src/storage/documents/mcp';
import {
  completeMcpScan,
  failMcpScan,
  getMcpScan,
  markMcpRunning,
  mcpToolPinId,
  pinMcpTools,
  replaceMcpPlacements,
  upsertMcpServers,
  type PlacementGroup,
} from '../src/storage/mcp-processing';
import type { Store } from '../src/storage/mongo';
import { advisoryIndex } from './scan-steps';
import { withOutagePatience } from './outage';

export interface McpActivityDeps {
  store: Store;
  logger: Logger;
}

export interface McpScanSummary {
  status: McpScanDoc['status'];
  servers: number;
  issues: Partial<Record<McpIssueCode, number>>;
  /** (client, config path) groups whose placements were written; skipped: left to a newer scan of the host. */
  groups: { written: number; skipped: number };
}

/** A scan that is not stored: retrying cannot help. */
const missing = (scanId: string) => ApplicationFailure.nonRetryable(`MCP scan ${scanId} not found`, 'mcp_scan_missing');

const storedTransport = (t: string): McpStoredServer['transport'] => (t === 'http' || t === 'sse' ? t : 'stdio');

export function identityOfStored(server: McpStoredServer): McpIdentity {
  return identityOf({
    transport: server.transport,
    command: server.command ?? undefined,
    args: server.args,
    url: server.url ?? undefined,
  });
}

/**
 * Everything of one scan's processing but its status writes: identities, inventory servers, tool pins, issues
 * (registry and advisories read now), placements. Each step replaces its outputs.
 */
export async function processMcpScan(deps: McpActivityDeps, scan: McpScanDoc): Promise<Omit<McpScanSummary, 'status'>> {
  const { store } = deps;
  const entries = scan.clients.flatMap((c) =>
    c.servers.map((server) => ({ client: c.client, configPath: c.configPath, server, id: identityOfStored(server) })),
  );
  // The stored inputSchema is JSON text: each tool's definition as it was, for its hash and its evaluation.
  const tools = entries.map((e) => (e.server.tools ?? []).map(toolDefinition));
  const hashes = tools.map((list) => new Map(list.map((t) => [t.name, toolHash(t)] as const)));
  // Independent steps at once: inventory servers, tool pins, the registry and the advisory index.
  const [serverIds, pins, registry, advisories] = await Promise.all([
    upsertMcpServers(
      store,
      scan.orgId,
      entries.map((e) => ({
        identity: e.id.identity,
        kind: e.id.kind,
        transport: storedTransport(e.server.transport),
        name: e.server.name,
        version: e.id.version,
      })),
      scan.receivedAt,
    ),
    pinMcpTools(
      store,
      scan.orgId,
      scan._id,
      entries.flatMap((e, k) =>
        [...hashes[k]].map(([tool, hash]) => ({ identity: e.id.identity, version: e.id.version, tool, hash })),
      ),
      scan.receivedAt,
    ),
    store.c.mcpRegistry
      .find({ orgId: scan.orgId }, { projection: { _id: 1, identity: 1, versions: 1, decision: 1 } })
      .toArray() as Promise<RegistryRule[]>,
    currentGeneration(store).then((generation) => advisoryIndex(deps, generation)),
  ]);
  // The servers of each client on this host (all its config paths in this scan), for tool_shadowing.
  const byClient = new Map<string, PeerServer[]>();
  for (const e of entries) {
    if (!e.server.tools || e.server.tools.length === 0) continue;
    const list = byClient.get(e.client) ?? [];
    list.push({ name: e.server.name, tools: e.server.tools.map((t) => t.name) });
    byClient.set(e.client, list);
  }
  const all: McpIssueDoc[] = [];
  const groups = new Map<string, PlacementGroup>();
  entries.forEach((e, k) => {
    const serverId = serverIds.get(e.id.identity)!;
    const serverPins = new Map<string, ToolPin>();
    for (const tool of hashes[k].keys()) {
      const pin = pins.get(mcpToolPinId(scan.orgId, e.id.identity, e.id.version, tool));
      if (pin) serverPins.set(tool, { hash: pin.hash, firstSeenAt: pin.firstSeenAt });
    }
    const peers = (byClient.get(e.client) ?? []).filter((p) => p.name !== e.server.name);
    const issues = evaluateServer({
      serverId,
      server: e.server,
      id: e.id,
      registry,
      advisories,
      tools: tools[k],
      toolHashes: hashes[k],
      pins: serverPins,
      peers,
    });
    all.push(...issues);
    const key = JSON.stringify([e.client, e.configPath]);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { client: e.client, configPath: e.configPath, placements: [] }));
    // Two entries of one name in one config path (a malformed file): one placement, the first.
    if (!g.placements.some((p) => p.name === e.server.name))
      g.placements.push({ name: e.server.name, serverId, identity: e.id.identity, version: e.id.version, issues });
  });
  // A config path listed with no servers: its earlier placements go.
  for (const c of scan.clients) {
    const key = JSON.stringify([c.client, c.configPath]);
    if (!groups.has(key)) groups.set(key, { client: c.client, configPath: c.configPath, placements: [] });
  }
  const written = await replaceMcpPlacements(store, scan, [...groups.values()]);
  return { servers: entries.length, issues: countIssues(all), groups: written };
}

export function createMcpActivities(deps: McpActivityDeps) {
  const load = async (scanId: string) => {
    const scan = await getMcpScan(deps.store, scanId);
    if (!scan) throw missing(scanId);
    return scan;
  };
  return withOutagePatience({
    /** queued → running; reports what the scan holds (for the workflow's details). */
    async mcpScanStart({ scanId }: { scanId: string }) {
      const scan = await markMcpRunning(deps.store, scanId);
      if (!scan) throw missing(scanId);
      const servers = scan.clients.reduce((n, c) => n + c.servers.length, 0);
      return {
        status: scan.status,
        clients: scan.clients.length,
        servers,
        tools: scan.clients.reduce((n, c) => n + c.servers.reduce((m, s) => m + (s.tools?.length ?? 0), 0), 0),
      };
    },

    /** Inventory, pins, issues and placements; a scan already terminal is reported as stored. */
    async mcpScanProcess({ scanId }: { scanId: string }): Promise<McpScanSummary> {
      const scan = await load(scanId);
      if (scan.status === 'completed' || scan.status === 'failed') {
        return {
          status: scan.status,
          servers: scan.servers ?? 0,
          issues: scan.issues ?? {},
          groups: { written: 0, skipped: 0 },
        };
      }
      const r = await processMcpScan(deps, scan);
      deps.logger.info(
        { scanId, orgId: scan.orgId, servers: r.servers, issues: r.issues, groups: r.groups },
        'MCP scan processed',
      );
      return { status: scan.status, ...r };
    },

    /** running → completed with the counts (a retry after it landed changes nothing). */
    async mcpScanComplete({
      scanId,
      servers,
      issues,
    }: {
      scanId: string;
      servers: number;
      issues: Partial<Record<McpIssueCode, number>>;
    }) {
      await completeMcpScan(deps.store, scanId, servers, issues);
      const scan = await load(scanId);
      return { status: scan.status };
    },

    /** queued or running → failed with the reason (a completed scan keeps its outcome). */
    async mcpScanFail({ scanId, reason }: { scanId: string; reason: string }) {
      await failMcpScan(deps.store, scanId, reason);
    },
  });
}
