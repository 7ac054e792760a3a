// The API's resource shapes as the app reads them (spec: Resources; platform.md). Unknown fields are tolerated.
export type Severity = 'critical' | 'high' | 'medium' | 'low';
export const SEVERITIES: Severity[] = ['critical', 'high', 'medium', 'low'];

export interface Me {
  user: { id: string; email: string };
  org: { id: string; name: string } | null;
  member: { id: string; role: 'owner' | 'admin' | 'member' | 'auditor'; joinedAt: string } | null;
}

export interface SeverityCounts {
  critical: number;
  high: number;
  medium: number;
  low: number;
}

export interface Project {
  id: string;
  slug: string;
  createdAt: string;
  latestScan: { id: string; status: ScanStatus; ecosystem: string; startedAt: string; findings: SeverityCounts | null } | null;
}

export type ScanStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface ScanModule {
  path: string;
  dependencies: string[];
  teamName?: string | null;
  attributes?: Record<string, string>;
  counts?: SeverityCounts & { suppressed: number };
}

export interface Scan {
  id: string;
  target: string;
  project: string;
  ecosystem: string;
  status: ScanStatus;
  findings: SeverityCounts | null;
  suppressed: number | null;
  startedAt: string;
  finishedAt: string | null;
  failureReason: string | null;
  modules: ScanModule[];
  attributionMode?: 'paged';
  moduleCount?: number;
  metadata?: { commit?: string; ref?: string; runUrl?: string } | null;
  /** The advisory generation matched against; null when the service had no advisories imported at the time. */
  advisoryGeneration?: string | null;
}

export interface Origin {
  module: string;
  dependency: string;
  path?: string[];
}

export interface Attribution {
  id?: string;
  module: string;
  context: string;
  relationship: 'direct' | 'transitive';
  path?: string[];
  origins: Origin[];
}

export interface Finding {
  id: string;
  scanId: string;
  severity: Severity;
  cve: string;
  aliases?: string[];
  publishedAt: string | null;
  package: string;
  installedVersion: string;
  fixedVersion: string | null;
  path: string[];
  suppressed: boolean;
  suppressionReason: string | null;
  attributions: Attribution[];
  attributionCount?: number;
  summary: string;
  packageRef?: string;
}

export interface FindingsPage {
  findings: Finding[];
  nextCursor: string | null;
  counts: (SeverityCounts & { suppressed: number }) | null;
}

export interface Dependency {
  id: string;
  project: string;
  ecosystem: string;
  name: string;
  version: string;
  direct: boolean;
  path: string[];
  manifest: string;
}

// Hosts and gateways (platform.md §4, §5). Labels, hostnames and names are user-controlled: shown as text only.
export type Labels = Record<string, string>;
export type HostStatus = 'active' | 'expired' | 'revoked';
export type GatewayStatus = 'pending' | 'active' | 'expired' | 'revoked';
export type RegistrationTokenStatus = 'active' | 'exhausted' | 'expired' | 'revoked';
export type EnrollmentTokenStatus = 'active' | 'used' | 'expired' | 'revoked';

export interface Host {
  id: string;
  hostname: string;
  status: HostStatus;
  lastHeartbeatAt: string;
  labels: Labels;
  connectivity: 'direct' | 'gateway' | null;
  /** Only when connectivity is gateway. */
  gatewayId?: string;
  os?: string | null;
  arch?: string | null;
  agentVersion?: string | null;
  registeredAt?: string;
}

export interface Gateway {
  id: string;
  name: string;
  status: GatewayStatus;
  /** The approved scope once active; while pending (or expired unapproved), the scope asked for. */
  networkScope: string[];
  version: string | null;
  lastSeenAt: string;
  requestedScope?: string[];
  enrolledAt?: string;
  approvedAt?: string | null;
}

export interface RegistrationToken {
  id: string;
  name: string;
  usesLeft: number;
  labels: Labels;
  status: RegistrationTokenStatus;
  createdBy: string | null;
  createdAt: string;
  expiresAt: string;
  uses?: number;
  revokedAt?: string | null;
}

export interface EnrollmentToken {
  id: string;
  name: string;
  status: EnrollmentTokenStatus;
  createdBy: string | null;
  createdAt: string;
  expiresAt: string;
  usedAt?: string | null;
  gatewayId?: string | null;
  revokedAt?: string | null;
}

// MCP auditing (platform.md §6). Server names, tool names, descriptions, notes and hostnames are user-controlled:
// shown as text only. Shapes the documented payloads; fields the contract leaves open are optional.
export type McpDecision = 'allow' | 'deny';
export type McpDecisionFilter = McpDecision | 'unreviewed';
export type McpTransport = 'stdio' | 'http' | 'sse';
export type McpControlLevelName = 'observe' | 'warn' | 'block';
export type McpIssueCode =
  | 'vulnerable_package'
  | 'registry_denied'
  | 'secret_in_config'
  | 'tool_definition_changed'
  | 'prompt_injection_suspected'
  | 'tool_shadowing'
  | 'insecure_transport'
  | 'unpinned_package'
  | 'not_in_registry';

export interface McpIssue {
  code: McpIssueCode | string;
  severity: Severity;
  message: string;
  serverId?: string;
  tool?: string;
  details?: Record<string, unknown>;
  /** The host the issue was raised on (its id, or the hostname an upload reported without a host). */
  hostId?: string | null;
  reportedHostname?: string | null;
}

/** A server's issues as a list, counted by severity, or counted by code (the list item's form is read as any). */
export type McpIssues = McpIssue[] | Partial<SeverityCounts> | Partial<Record<string, number>>;

export interface McpServer {
  id: string;
  identity: string;
  names: string[];
  transport: McpTransport;
  versions: string[];
  /** How many hosts configure it now. */
  hosts: number;
  clients: string[];
  firstSeenAt: string;
  lastSeenAt: string;
  registry: { decision: McpDecisionFilter | null; entryId: string | null };
  issues: McpIssues;
  usage: { calls: number; errors: number; blocked: number; lastCalledAt: string | null };
}

/** Where a server is configured: a host (or a reported hostname), a client and its config file. */
export interface McpPlacement {
  hostId?: string | null;
  hostname?: string | null;
  reportedHostname?: string | null;
  client?: string;
  configPath?: string;
  scope?: string;
  name?: string;
  version?: string | null;
  seenAt?: string;
  issues?: McpIssue[];
}

export interface McpServerDetail extends Omit<McpServer, 'hosts'> {
  hosts: McpPlacement[];
}

export interface McpRegistryEntry {
  id: string;
  identity: string;
  /** null: every version. */
  versions: string[] | null;
  decision: McpDecision;
  note: string | null;
  updatedBy: string | null;
  updatedAt: string;
}

export interface McpControlLevel {
  level: McpControlLevelName;
  updatedAt?: string | null;
  updatedBy?: string | null;
}

export interface McpUsageEvent {
  id: string;
  eventId?: string;
  occurredAt: string;
  receivedAt?: string;
  hostId?: string | null;
  reportedHostname?: string | null;
  hostname?: string | null;
  client: string;
  serverId?: string | null;
  identity?: string | null;
  serverName?: string | null;
  server?: { id?: string | null; name?: string | null; identity?: string | null } | null;
  tool: string;
  phase: 'pre' | 'post';
  outcome?: 'ok' | 'error' | 'blocked' | null;
  durationMs?: number | null;
  decision?: { decision: 'allow' | 'warn' | 'block'; reason?: string } | 'allow' | 'warn' | 'block' | null;
}
