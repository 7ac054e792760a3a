// What the MCP endpoints answer, from stored documents. Field order is the contract's, additive fields
// last.
import { registryDecision, type RegistryDecision, type RegistryRule } from '../domain/mcp/registry';
import type {
  McpIssueDoc,
  McpPlacementDoc,
  McpRegistryEntryDoc,
  McpScanDoc,
  McpServerDoc,
  McpUsageEventDoc,
} from '../storage/documents/mcp';
import type { ControlLevelState } from '../storage/mcp-control';
import type { ServerUsage } from '../storage/mcp-usage';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** servers and issues are null until the scan is processed (status completed): not counted yet, rather than none. */
export function presentScan(s: McpScanDoc) {
  const done = s.status === 'completed';
  return {
    id: s._id,
    status: s.status,
    hostId: s.hostId,
    reportedHostname: s.reportedHostname,
    receivedAt: s.receivedAt.toISOString(),
    finishedAt: iso(s.finishedAt),
    servers: done ? (s.servers ?? 0) : null,
    issues: done ? (s.issues ?? {}) : null,
    scannedAt: iso(s.scannedAt),
  };
}

/**
 * The registry's decision for a server of the inventory, over the versions seen: denied when an entry denies any of
 * them, allowed when entries allow every one, else unreviewed (a version outside an entry's list counts as
 * unreviewed). A server with no version seen is decided for version null (only an entry without versions covers it).
 */
export function serverDecision(
  rules: readonly RegistryRule[],
  identity: string,
  versions: readonly string[],
): RegistryDecision {
  const list = versions.length ? versions : [null];
  const each = list.map((v) => registryDecision(rules, identity, v));
  const deny = each.find((d) => d.decision === 'deny');
  if (deny) return deny;
  if (each.every((d) => d.decision === 'allow')) return each[0];
  return { decision: 'unreviewed', entryId: null };
}

function presentIssue(i: McpIssueDoc, p: McpPlacementDoc) {
  return {
    code: i.code,
    severity: i.severity,
    message: i.message,
    serverId: i.serverId,
    ...(i.tool !== undefined ? { tool: i.tool } : {}),
    ...(i.details !== undefined ? { details: i.details } : {}),
    hostId: p.hostId,
    reportedHostname: p.reportedHostname,
  };
}

const presentUsage = (u: ServerUsage) => ({
  calls: u.calls,
  errors: u.errors,
  blocked: u.blocked,
  lastCalledAt: iso(u.lastCalledAt),
});

/** A server of the list: hosts is the count of distinct hosts configuring it now; issues those of its placements. */
export function presentServer(
  s: McpServerDoc,
  placements: readonly McpPlacementDoc[],
  registry: RegistryDecision,
  usage: ServerUsage,
) {
  return {
    id: s._id,
    identity: s.identity,
    names: s.names,
    transport: s.transport,
    versions: s.versions,
    hosts: new Set(placements.map((p) => p.hostKey)).size,
    clients: [...new Set(placements.map((p) => p.client))].sort(),
    firstSeenAt: s.firstSeenAt.toISOString(),
    lastSeenAt: s.lastSeenAt.toISOString(),
    registry,
    issues: placements.flatMap((p) => p.issues.map((i) => presentIssue(i, p))),
    usage: presentUsage(usage),
    kind: s.kind,
  };
}

/** The detail: as in the list, with hosts as the placements (where it is configured now, with their issues). */
export function presentServerDetail(
  s: McpServerDoc,
  placements: readonly McpPlacementDoc[],
  registry: RegistryDecision,
  usage: ServerUsage,
) {
  return {
    ...presentServer(s, placements, registry, usage),
    hostCount: new Set(placements.map((p) => p.hostKey)).size,
    hosts: placements.map((p) => ({
      hostId: p.hostId,
      reportedHostname: p.reportedHostname,
      client: p.client,
      configPath: p.configPath,
      name: p.name,
      version: p.version,
      seenAt: p.seenAt.toISOString(),
      scanId: p.scanId,
      issues: p.issues.map((i) => presentIssue(i, p)),
    })),
  };
}

export const presentEntry = (e: McpRegistryEntryDoc) => ({
  id: e._id,
  identity: e.identity,
  versions: e.versions,
  decision: e.decision,
  note: e.note,
  updatedBy: e.updatedBy,
  updatedAt: e.updatedAt.toISOString(),
});

export const presentControl = (c: ControlLevelState) => ({
  level: c.level,
  updatedAt: iso(c.updatedAt),
  updatedBy: c.updatedBy,
});

export const presentUsageEvent = (e: McpUsageEventDoc) => ({
  id: e.id,
  eventId: e.eventId,
  occurredAt: e.occurredAt.toISOString(),
  receivedAt: e.receivedAt.toISOString(),
  hostId: e.hostId,
  reportedHostname: e.reportedHostname,
  client: e.client,
  serverId: e.serverId,
  identity: e.identity,
  serverName: e.serverName,
  tool: e.tool,
  phase: e.phase,
  outcome: e.outcome,
  durationMs: e.durationMs,
  decision: e.decision,
});
