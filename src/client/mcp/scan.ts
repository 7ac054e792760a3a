// What `scanner mcp scan` and the sidecar's periodic MCP scan share: discovery (and, by hand only,
// introspection) to the body of POST /v1/mcp/scans within its limits, and the lines that say what was found. Nothing
// here prints a value of a configuration: the clients are redacted by discovery, tools by introspection.
import os from 'node:os';
import type { McpClientConfig, McpServerConfig } from '../../shared/mcp/types';
import type { Io } from '../io';
import { discoverMcpConfigs, type McpDiscoveryEnv, type McpDiscoveryWarning } from './discover';
import { introspect, type McpToolInfo } from './introspect';
import type { McpLaunch } from './servers';

/** At most 100 clients, 200 servers each, 500 tools each; the body at most 1 MB. */
export const MCP_SCAN_LIMITS = { clients: 100, servers: 200, tools: 500, bodyBytes: 1024 * 1024 } as const;

export type McpHostRef = { hostId: string } | { hostname: string };

export interface UploadedServer extends McpServerConfig {
  tools?: McpToolInfo[];
}

export interface McpScanBody {
  host: McpHostRef;
  scannedAt: string;
  clients: Array<Omit<McpClientConfig, 'servers'> & { servers: UploadedServer[] }>;
}

export interface IntrospectionOutcome {
  client: string;
  configPath: string;
  server: string;
  tools?: number;
  error?: string;
}

export interface CollectedMcp {
  body: McpScanBody;
  warnings: McpDiscoveryWarning[];
  /** What was left out to keep within the limits. */
  truncated: string[];
  introspection: IntrospectionOutcome[];
}

/** The discovery environment of a command: its io's HOME and environment, and its working directory. */
export function discoveryEnvOf(io: Io, overrides: Partial<McpDiscoveryEnv> = {}): McpDiscoveryEnv {
  return {
    home: io.env.HOME || io.env.USERPROFILE || os.homedir(),
    platform: process.platform,
    env: io.env,
    cwd: io.cwd,
    projectDirs: [],
    ...overrides,
  };
}

export interface CollectOptions {
  host: McpHostRef;
  now: Date;
  /** Only when `--introspect` was given by hand: never set by the sidecar. */
  introspect?: {
    timeoutMs: number;
    env: Record<string, string | undefined>;
    cwd: string;
    onSpawn?: (pid: number) => void;
    onServer?: (o: IntrospectionOutcome) => void;
  };
}

/** Discovery (then introspection when asked) to the upload's body, cut to the limits. */
export async function collectMcp(env: McpDiscoveryEnv, opts: CollectOptions): Promise<CollectedMcp> {
  const launches = new Map<McpServerConfig, McpLaunch>();
  const found = await discoverMcpConfigs(env, { launches });
  const truncated: string[] = [];
  let clients = found.clients;
  if (clients.length > MCP_SCAN_LIMITS.clients) {
    truncated.push(
      `${clients.length - MCP_SCAN_LIMITS.clients} configuration file(s) over the limit of ${MCP_SCAN_LIMITS.clients} not sent`,
    );
    clients = clients.slice(0, MCP_SCAN_LIMITS.clients);
  }
  const introspection: IntrospectionOutcome[] = [];
  const out: McpScanBody['clients'] = [];
  for (const c of clients) {
    let servers = c.servers;
    if (servers.length > MCP_SCAN_LIMITS.servers) {
      truncated.push(
        `${c.configPath}: ${servers.length - MCP_SCAN_LIMITS.servers} server(s) over the limit of ${MCP_SCAN_LIMITS.servers} not sent`,
      );
      servers = servers.slice(0, MCP_SCAN_LIMITS.servers);
    }
    const sent: UploadedServer[] = [];
    for (const s of servers) {
      const server: UploadedServer = { ...s };
      const launch = launches.get(s);
      if (opts.introspect && launch) {
        const r = await introspect(launch, opts.introspect);
        const outcome: IntrospectionOutcome = {
          client: c.client,
          configPath: c.configPath,
          server: s.name,
          ...(r.ok ? { tools: r.tools.length } : { error: r.error }),
        };
        introspection.push(outcome);
        opts.introspect.onServer?.(outcome);
        if (r.ok) server.tools = r.tools.slice(0, MCP_SCAN_LIMITS.tools);
      }
      sent.push(server);
    }
    out.push({ client: c.client, configPath: c.configPath, scope: c.scope, servers: sent });
  }
  return {
    body: { host: opts.host, scannedAt: opts.now.toISOString(), clients: out },
    warnings: found.warnings,
    truncated,
    introspection,
  };
}

/** The lines that say what was found: one per configuration file, its servers by name (and tools when introspected). */
export function foundLines(body: McpScanBody): string[] {
  if (body.clients.length === 0) return ['no MCP configuration found'];
  const lines: string[] = [];
  for (const c of body.clients) {
    lines.push(
      `${c.client} ${c.configPath} (${c.scope}): ${c.servers.length} server${c.servers.length === 1 ? '' : 's'}`,
    );
    for (const s of c.servers) {
      const where = s.transport === 'stdio' ? [s.command, ...(s.args ?? [])].join(' ') : (s.url ?? '');
      lines.push(
        `  ${s.name} [${s.transport}] ${where}${s.tools ? ` · ${s.tools.length} tool${s.tools.length === 1 ? '' : 's'}` : ''}`,
      );
    }
  }
  return lines;
}

export const countServers = (body: McpScanBody): number => body.clients.reduce((n, c) => n + c.servers.length, 0);
