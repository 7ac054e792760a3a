// `scanner mcp scan`, its reading part (issue 19): the MCP configuration files of Claude Desktop,
// Claude Code, Cursor, VS Code, Windsurf, Gemini CLI and Codex found at their documented per-OS paths
// (./locations.ts) and in project directories, read in each agent's shape (./servers.ts), redacted with the function
// the service applies again, to the `clients` of POST /v1/mcp/scans. Nothing is started and nothing secret is kept:
// args, url, command and names redacted; of env and headers only the names (a literal value as `[REDACTED]`).
// A file that cannot be read or parsed, or an entry that is not a server, is a warning and is skipped.
//
// Decisions where the contract is silent:
// - configPath: the file's path with a leading home directory written `~`; the per-project servers Claude Code keeps
//   in ~/.claude.json are one entry per project, `~/.claude.json#projects[<project path>]`, scope project.
// - A file of MCP servers only (mcp.json, .mcp.json, claude_desktop_config.json, mcp_config.json, managed-mcp.json) is an
//   entry whenever it exists and parses, with its servers (possibly none: the service then knows it lists none now);
//   a settings file that holds other settings too (~/.claude.json, VS Code's settings.json, Gemini CLI's settings.json,
//   Codex's config.toml) only when it has the servers key; a project of ~/.claude.json only when it lists a server.
// - Project directories: `projectDirs`, the working directory, and (unless knownProjects is false) the projects
//   Claude Code lists in ~/.claude.json. The same file is read once per client (the first location wins: user and
//   managed before project).
// - Disabled servers (`"disabled": true`, Codex's `enabled = false`) are reported like the others: they are configured.
import os from 'node:os';
import path from 'node:path';
import type { McpClient, McpClientConfig, McpConfigScope, McpServerConfig } from '../../shared/mcp/types';
import { homeToTilde } from '../../shared/mcp/redact';
import { projectLocations, userLocations, type ConfigLocation, type McpDiscoveryEnv } from './locations';
import { readConfigFile } from './read';
import { readServerLaunch, serversMap, type McpLaunch } from './servers';

export type { McpDiscoveryEnv } from './locations';

export interface McpDiscoveryWarning {
  client: McpClient;
  /** As in the clients' configPath (home written `~`). */
  configPath: string;
  message: string;
}

export interface McpDiscovery {
  clients: McpClientConfig[];
  warnings: McpDiscoveryWarning[];
}

/** The environment of this process. */
export function processDiscoveryEnv(overrides: Partial<McpDiscoveryEnv> = {}): McpDiscoveryEnv {
  return {
    home: os.homedir(),
    platform: process.platform,
    env: process.env,
    cwd: process.cwd(),
    projectDirs: [],
    ...overrides,
  };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Where a project of ~/.claude.json is (its key): Claude Code writes forward slashes on Windows too. */
const projectDir = (key: string) => (/^[A-Za-z]:\//.test(key) && path.sep === '\\' ? key.replace(/\//g, '\\') : key);

interface Collector {
  clients: McpClientConfig[];
  warnings: McpDiscoveryWarning[];
  home: string;
  launches?: Map<McpServerConfig, McpLaunch>;
}

export interface McpDiscoveryOptions {
  /** Read only these agents' files (the hook needs one agent's; a scan reads them all). */
  only?: readonly McpClient[];
  /**
   * Filled, when given, with each reported server's launch as written in its file (values not redacted): what
   * `scanner mcp scan --introspect` starts or calls. Kept apart from the result so that the result never holds a
   * secret (it is what is printed and uploaded).
   */
  launches?: Map<McpServerConfig, McpLaunch>;
}

function entry(
  c: Collector,
  client: McpClient,
  scope: McpConfigScope,
  configPath: string,
  map: Record<string, unknown>,
): McpClientConfig {
  const servers = [];
  for (const [name, raw] of Object.entries(map)) {
    const r = readServerLaunch(client, name, raw, c.home);
    if ('warning' in r) {
      c.warnings.push({ client, configPath, message: r.warning });
      continue;
    }
    servers.push(r.server);
    c.launches?.set(r.server, r.launch);
  }
  return { client, configPath, scope, servers };
}

/** Reads one location into C; returns the project directories ~/.claude.json lists (for the others, none). */
async function readLocation(c: Collector, loc: ConfigLocation): Promise<string[]> {
  const configPath = homeToTilde(loc.file, c.home);
  const read = await readConfigFile(loc.file, loc.format);
  if (read.kind === 'absent') return [];
  if (read.kind === 'warning') {
    c.warnings.push({ client: loc.client, configPath, message: read.message });
    return [];
  }
  const found = serversMap(read.document, loc.shape);
  if (found.kind === 'warning') c.warnings.push({ client: loc.client, configPath, message: found.message });
  else if (found.kind === 'map') c.clients.push(entry(c, loc.client, loc.scope, configPath, found.map));
  else if (loc.dedicated) c.clients.push({ client: loc.client, configPath, scope: loc.scope, servers: [] });
  if (!loc.claudeJson) return [];
  // ~/.claude.json: the servers of each project (Claude Code's "local" scope), and the projects themselves.
  const projects = read.document.projects;
  if (!isPlainObject(projects)) return [];
  const dirs: string[] = [];
  for (const [key, project] of Object.entries(projects)) {
    dirs.push(projectDir(key));
    if (!isPlainObject(project)) continue;
    const sectionPath = `${configPath}#projects[${homeToTilde(key, c.home)}]`;
    const found = serversMap(project, 'mcpServers');
    if (found.kind === 'warning')
      c.warnings.push({ client: loc.client, configPath: sectionPath, message: found.message });
    else if (found.kind === 'map' && Object.keys(found.map).length > 0)
      c.clients.push(entry(c, loc.client, 'project', sectionPath, found.map));
  }
  return dirs;
}

/**
 * Finds and reads the MCP configuration of every supported agent: the entry point of `scanner mcp scan` (its upload
 * is the next step: the result's `clients` is the body's `clients`). Never throws for a file; never starts a server.
 */
export async function discoverMcpConfigs(
  env: McpDiscoveryEnv = processDiscoveryEnv(),
  opts: McpDiscoveryOptions = {},
): Promise<McpDiscovery> {
  const c: Collector = { clients: [], warnings: [], home: env.home, launches: opts.launches };
  const seen = new Set<string>();
  const once = (loc: ConfigLocation) => {
    if (opts.only && !opts.only.includes(loc.client)) return false;
    const key = `${loc.client}\0${path.resolve(loc.file)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };

  const known: string[] = [];
  for (const loc of await userLocations(env)) {
    if (!once(loc)) continue;
    const dirs = await readLocation(c, loc);
    if (env.knownProjects !== false) known.push(...dirs);
  }

  const dirs: string[] = [];
  const dirSeen = new Set<string>();
  for (const d of [...env.projectDirs, env.cwd, ...known]) {
    if (!d) continue;
    const abs = path.resolve(env.cwd, d);
    if (dirSeen.has(abs)) continue;
    dirSeen.add(abs);
    dirs.push(abs);
  }
  for (const dir of dirs) {
    for (const loc of projectLocations(dir)) {
      if (once(loc)) await readLocation(c, loc);
    }
  }
  return { clients: c.clients, warnings: c.warnings };
}
