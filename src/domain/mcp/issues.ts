// The issues of one configured MCP server, pure: every input (the server as stored, its identity,
// the organization's registry read at processing time, the advisory index, the tool pins, the other servers of the
// same host and client) is given, nothing is read here. One function per code, each exported for its tests, and
// evaluateServer() running them all in a fixed order.
//
// | code                       | severity       | raised when                                                              |
// | vulnerable_package         | the advisory's | a pinned npm/PyPI version matches advisories (one issue per advisory)     |
// | registry_denied            | high           | a deny entry matches the identity (and version, when it lists versions)   |
// | secret_in_config           | high           | the upload found literal secrets (env/header values, args, url, command) |
// | tool_definition_changed    | high           | a tool's hash differs from its pin (first seen, same identity+version)    |
// | prompt_injection_suspected | high           | a tool's texts trip a rule of INJECTION_RULES (injection.ts)              |
// | tool_shadowing             | medium         | a description names another server's tool on the same host and client    |
// | insecure_transport         | medium         | plain http to a non-loopback host                                         |
// | unpinned_package           | low            | an npm, PyPI or OCI launch without an exact version or digest             |
// | not_in_registry            | low            | unreviewed: neither denied nor allowed for this identity and version      |
import type { AdvisoryIndex } from '../advisories/build-index';
import type { McpIssueCode, McpIssueDoc, McpSeverity, McpStoredServer } from './audited';
import type { McpIdentity } from './identity';
import { injectionRules } from './injection';
import { registryDecision, type RegistryDecision, type RegistryRule } from './registry';
import { shadowedTools, type PeerServer } from './shadowing';
import { insecureHttpHost } from './transport';
import { toolDefinition, type ToolDefinition } from './tool-hash';
import { packageMatches, pinnedPackage } from './vulnerable';

/** The order issues are listed in (the table above): the issue codes as ./audited.ts declares them, the one list. */
export { MCP_ISSUE_CODES as ISSUE_ORDER } from './audited';

export const ISSUE_SEVERITY: Readonly<Record<Exclude<McpIssueCode, 'vulnerable_package'>, McpSeverity>> = {
  registry_denied: 'high',
  secret_in_config: 'high',
  tool_definition_changed: 'high',
  prompt_injection_suspected: 'high',
  tool_shadowing: 'medium',
  insecure_transport: 'medium',
  unpinned_package: 'low',
  not_in_registry: 'low',
};

/** A tool's pin: the hash first seen for the organization, identity and version. */
export interface ToolPin {
  hash: string;
  firstSeenAt: Date;
}

/** A tool as evaluated: its inputSchema a value (toolDefinition() of a stored tool). */
export type ToolInput = ToolDefinition & { description: string | null };

export interface ServerInput {
  serverId: string;
  server: McpStoredServer;
  id: McpIdentity;
  /** The organization's registry entries (any identity: those of other identities never match). */
  registry: readonly RegistryRule[];
  /** The current advisory generation's index (null: none imported, nothing matches). */
  advisories: AdvisoryIndex | null;
  /** The server's tools with their inputSchema parsed (default: toolDefinition() of each stored tool). */
  tools?: readonly ToolInput[];
  /** The hash of each of the server's tools, by name (toolHash). */
  toolHashes: ReadonlyMap<string, string>;
  /** The pins of the server's identity and version, by tool name. */
  pins: ReadonlyMap<string, ToolPin>;
  /** The other servers of the same host and client. */
  peers: readonly PeerServer[];
}

type Issue = McpIssueDoc;

const label = (id: McpIdentity) => (id.version !== null ? `${id.identity}@${id.version}` : id.identity);

export function vulnerablePackage(serverId: string, id: McpIdentity, index: AdvisoryIndex | null): Issue[] {
  if (!index) return [];
  const pkg = pinnedPackage(id);
  if (!pkg) return [];
  return packageMatches(id, index)
    .map((m) => ({
      code: 'vulnerable_package' as const,
      severity: m.group.severity,
      message: `${pkg.name} ${pkg.version} is affected by ${m.group.cve}${m.group.summary ? `: ${m.group.summary}` : ''}${m.fixedVersion ? ` (fixed in ${m.fixedVersion})` : ' (no fixed version)'}`,
      serverId,
      details: { ids: m.group.ids, fixedVersion: m.fixedVersion },
    }))
    .sort((a, b) => (a.details.ids[0] < b.details.ids[0] ? -1 : a.details.ids[0] > b.details.ids[0] ? 1 : 0));
}

export function registryIssues(serverId: string, id: McpIdentity, decision: RegistryDecision): Issue[] {
  if (decision.decision === 'deny') {
    return [
      {
        code: 'registry_denied',
        severity: ISSUE_SEVERITY.registry_denied,
        message: `${label(id)} is denied by the organization's registry`,
        serverId,
        details: { entryId: decision.entryId },
      },
    ];
  }
  if (decision.decision === 'unreviewed') {
    return [
      {
        code: 'not_in_registry',
        severity: ISSUE_SEVERITY.not_in_registry,
        message: `${label(id)} is not reviewed: no registry entry allows this identity${id.version !== null ? ' and version' : ''}`,
        serverId,
      },
    ];
  }
  return [];
}

export function secretInConfig(serverId: string, server: Pick<McpStoredServer, 'secrets'>): Issue[] {
  if (server.secrets.length === 0) return [];
  const fields = [...new Set(server.secrets)].sort();
  return [
    {
      code: 'secret_in_config',
      severity: ISSUE_SEVERITY.secret_in_config,
      message: `literal secret values in the configuration (${fields.join(', ')}); use references such as \${VAR} instead`,
      serverId,
      details: { fields },
    },
  ];
}

export function toolDefinitionChanged(
  serverId: string,
  hashes: ReadonlyMap<string, string>,
  pins: ReadonlyMap<string, ToolPin>,
): Issue[] {
  const out: Issue[] = [];
  for (const [tool, actual] of [...hashes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const pin = pins.get(tool);
    if (!pin || pin.hash === actual) continue;
    out.push({
      code: 'tool_definition_changed',
      severity: ISSUE_SEVERITY.tool_definition_changed,
      message: `the definition of tool ${tool} differs from the one first seen on ${pin.firstSeenAt.toISOString()} for the same identity and version`,
      serverId,
      tool,
      details: { firstSeenAt: pin.firstSeenAt.toISOString(), expected: pin.hash, actual },
    });
  }
  return out;
}

export function promptInjection(serverId: string, tools: readonly ToolInput[]): Issue[] {
  const out: Issue[] = [];
  for (const tool of tools) {
    const rules = injectionRules(tool);
    if (rules.length === 0) continue;
    out.push({
      code: 'prompt_injection_suspected',
      severity: ISSUE_SEVERITY.prompt_injection_suspected,
      message: `the description of tool ${tool.name} looks like a prompt injection (${rules.join(', ')})`,
      serverId,
      tool: tool.name,
      details: { rules },
    });
  }
  return out;
}

export function toolShadowing(serverId: string, tools: readonly ToolInput[], peers: readonly PeerServer[]): Issue[] {
  if (peers.length === 0) return [];
  const own = new Set(tools.map((t) => t.name));
  const out: Issue[] = [];
  for (const tool of tools) {
    const texts = typeof tool.description === 'string' && tool.description !== '' ? [tool.description] : [];
    const shadows = shadowedTools(texts, own, peers);
    if (shadows.length === 0) continue;
    const named = shadows.map((s) => `${s.server}.${s.tool}`).join(', ');
    out.push({
      code: 'tool_shadowing',
      severity: ISSUE_SEVERITY.tool_shadowing,
      message: `the description of tool ${tool.name} names tools of other servers (${named})`,
      serverId,
      tool: tool.name,
      details: { shadows },
    });
  }
  return out;
}

export function insecureTransport(serverId: string, server: Pick<McpStoredServer, 'url'>): Issue[] {
  const host = insecureHttpHost(server.url);
  if (host === null) return [];
  return [
    {
      code: 'insecure_transport',
      severity: ISSUE_SEVERITY.insecure_transport,
      message: `plain http to ${host}, which is not a loopback host: traffic and credentials travel unencrypted`,
      serverId,
      details: { host },
    },
  ];
}

export function unpinnedPackage(serverId: string, id: McpIdentity): Issue[] {
  if (id.pinned || (id.kind !== 'npm' && id.kind !== 'pypi' && id.kind !== 'oci')) return [];
  const what =
    id.version === null ? 'no version' : `${id.version}, not an exact version${id.kind === 'oci' ? ' or digest' : ''}`;
  return [
    {
      code: 'unpinned_package',
      severity: ISSUE_SEVERITY.unpinned_package,
      message: `${id.identity} is launched without a pin (${what}): each launch may run different code`,
      serverId,
      details: { version: id.version },
    },
  ];
}

/** Every issue of one server, in ISSUE_ORDER. */
export function evaluateServer(input: ServerInput): Issue[] {
  const { serverId, server, id } = input;
  const tools = input.tools ?? (server.tools ?? []).map(toolDefinition);
  const decision = registryDecision(input.registry, id.identity, id.version);
  const registry = registryIssues(serverId, id, decision);
  return [
    ...vulnerablePackage(serverId, id, input.advisories),
    ...registry.filter((i) => i.code === 'registry_denied'),
    ...secretInConfig(serverId, server),
    ...toolDefinitionChanged(serverId, input.toolHashes, input.pins),
    ...promptInjection(serverId, tools),
    ...toolShadowing(serverId, tools, input.peers),
    ...insecureTransport(serverId, server),
    ...unpinnedPackage(serverId, id),
    ...registry.filter((i) => i.code === 'not_in_registry'),
  ];
}

/** Issues counted by code (the scan's `issues`). */
export function countIssues(issues: Iterable<Pick<McpIssueDoc, 'code'>>): Partial<Record<McpIssueCode, number>> {
  const out: Partial<Record<McpIssueCode, number>> = {};
  for (const i of issues) out[i.code] = (out[i.code] ?? 0) + 1;
  return out;
}
