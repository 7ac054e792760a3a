// Stored documents of MCP auditing: MCP scans, the inventory of servers and their placements, tool pins, the
// registry, the control level and usage events. Secret values are never stored: of env and headers only the names.
import type { McpIssueCode, McpIssueDoc, McpSeverity, McpStoredServer, McpStoredTool } from '../../domain/mcp/audited';

export type { McpIssueCode, McpIssueDoc, McpSeverity, McpStoredServer, McpStoredTool };

export interface McpStoredClient {
  client: string;
  configPath: string;
  scope: 'user' | 'project' | 'managed';
  servers: McpStoredServer[];
}

/** POST /v1/mcp/scans: stored at upload (status queued), processed by the MCP scan workflow (workflow id = _id). */
export interface McpScanDoc {
  _id: string; // mcs_...
  orgId: string;
  /** The host: implied by a host credential, or named by {hostId} (an active host of the organization). */
  hostId: string | null;
  /** {hostname} as given: never creates a host. */
  reportedHostname: string | null;
  receivedAt: Date;
  scannedAt: Date | null;
  status: 'queued' | 'running' | 'completed' | 'failed';
  finishedAt: Date | null;
  failureReason: string | null;
  clients: McpStoredClient[];
  /** After processing: the number of servers and issues by code. */
  servers: number | null;
  issues: Partial<Record<McpIssueCode, number>> | null;
}

/** A server of the organization's inventory: one per identity (src/domain/mcp/identity.ts). */
export interface McpServerDoc {
  _id: string; // mcp_...
  orgId: string;
  identity: string;
  /** What the identity is: a package (npm, pypi, oci), a remote URL or another command. */
  kind: 'npm' | 'pypi' | 'oci' | 'remote' | 'command';
  names: string[];
  transport: 'stdio' | 'http' | 'sse';
  versions: string[];
  firstSeenAt: Date;
  lastSeenAt: Date;
}

/**
 * Where a server is configured now: one per (organization, host, client, config path, server name); replaced by
 * each scan of that host, client and config path, so a server belongs to a host while its latest scan shows it. The
 * host key is `hst_...`, else `name:<reportedHostname>`.
 */
export interface McpPlacementDoc {
  _id: string;
  orgId: string;
  hostKey: string;
  hostId: string | null;
  reportedHostname: string | null;
  client: string;
  configPath: string;
  name: string;
  serverId: string;
  identity: string;
  version: string | null;
  scanId: string;
  seenAt: Date;
  /** The issues of this placement, from its latest scan. */
  issues: McpIssueDoc[];
}

/**
 * The placements one MCP scan computed for its host, written once before any placement (src/storage/mcp-processing.ts):
 * each (client, config path) of the host belongs to the newest scan whose result is here. A result is deleted once a
 * newer result of the same host covers all its groups.
 */
export interface McpPlacementResultDoc {
  _id: string; // the mcs_ id of the scan
  orgId: string;
  hostKey: string;
  hostId: string | null;
  reportedHostname: string | null;
  receivedAt: Date;
  /** The group keys, JSON [client, configPath]. */
  groups: string[];
  /** PlacementGroup[] as JSON. */
  placements: string;
}

/** The first definition seen of a tool, per organization, identity and version (tool pinning). */
export interface McpToolPinDoc {
  _id: string; // sha256 of orgId, identity, version, tool name
  orgId: string;
  identity: string;
  version: string | null;
  tool: string;
  hash: string;
  firstSeenAt: Date;
  scanId: string;
}

export interface McpRegistryEntryDoc {
  _id: string; // mre_...
  orgId: string;
  identity: string;
  versions: string[] | null;
  decision: 'allow' | 'deny';
  note: string | null;
  updatedBy: string;
  updatedAt: Date;
}

export interface McpControlDoc {
  _id: string; // orgId
  level: 'observe' | 'warn' | 'block';
  updatedAt: Date;
  updatedBy: string;
}

/** A usage event, idempotent per (organization, eventId): _id = SHA-256 of both. Never raw tool arguments. */
export interface McpUsageEventDoc {
  _id: string;
  id: string; // mue_..., sortable by reception
  orgId: string;
  eventId: string;
  occurredAt: Date;
  receivedAt: Date;
  hostId: string | null;
  reportedHostname: string | null;
  client: string;
  serverId: string | null;
  identity: string | null;
  serverName: string | null;
  tool: string;
  phase: 'pre' | 'post';
  outcome: 'ok' | 'error' | 'blocked' | null;
  durationMs: number | null;
  /** pre events: the decision given, returned again for a repeated eventId. */
  decision: { decision: 'allow' | 'warn' | 'block'; reason: string } | null;
}
