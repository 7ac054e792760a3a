// Where each agent keeps its MCP server configuration, per OS, as each documents it (issue 19).
// Paths are built from an injectable environment (home, platform, environment variables, system root), so tests run on
// fixture trees and every OS's layout can be exercised from one machine.
import fs from 'node:fs';
import path from 'node:path';
import type { McpClient, McpConfigScope } from '../../shared/mcp/types';

export interface McpDiscoveryEnv {
  /** The user's home directory. */
  home: string;
  /** Which OS's layout to read: 'darwin', 'win32', anything else as Linux. */
  platform: NodeJS.Platform;
  /** Environment variables (APPDATA, XDG_CONFIG_HOME, CLAUDE_CONFIG_DIR, CODEX_HOME, ProgramData ...). */
  env: Record<string, string | undefined>;
  /** The working directory: a project directory too. */
  cwd: string;
  /** Project directories whose project-scoped files (.mcp.json, .cursor/mcp.json, .vscode/mcp.json ...) are read. */
  projectDirs: string[];
  /** Also read the project directories Claude Code lists in ~/.claude.json (`projects`). Default true. */
  knownProjects?: boolean;
  /** Prefix of system-wide Unix paths (/etc/..., /Library/...): '' (default) in real use, a fixture tree in tests. */
  systemRoot?: string;
}

/** Where the servers are in a file: the shapes each agent writes (`projects` is ~/.claude.json's per-project map). */
export type ServersShape = 'mcpServers' | 'servers' | 'mcp.servers' | 'mcp_servers';

export interface ConfigLocation {
  client: McpClient;
  scope: McpConfigScope;
  /** Absolute path. */
  file: string;
  format: 'json' | 'toml';
  shape: ServersShape;
  /** A file of MCP servers only (mcp.json ...), an entry even when it lists none; else a settings file that holds
   *  other settings too (settings.json, config.toml, ~/.claude.json), an entry only when it has the servers key. */
  dedicated: boolean;
  /** ~/.claude.json: the user's servers and, per project, the project's (local scope). */
  claudeJson?: boolean;
}

const isWindows = (e: McpDiscoveryEnv) => e.platform === 'win32';
const isMac = (e: McpDiscoveryEnv) => e.platform === 'darwin';
const absolute = (p: string | undefined): p is string =>
  typeof p === 'string' && p !== '' && (path.isAbsolute(p) || /^[A-Za-z]:[\\/]/.test(p));

/** A system-wide Unix path, under the system root (tests). */
const system = (e: McpDiscoveryEnv, p: string) => (e.systemRoot ? path.join(e.systemRoot, p) : p);

/** %APPDATA% (Windows), else ~/AppData/Roaming. */
const appData = (e: McpDiscoveryEnv) =>
  absolute(e.env.APPDATA) ? e.env.APPDATA : path.join(e.home, 'AppData', 'Roaming');
const localAppData = (e: McpDiscoveryEnv) =>
  absolute(e.env.LOCALAPPDATA) ? e.env.LOCALAPPDATA : path.join(e.home, 'AppData', 'Local');
/** $XDG_CONFIG_HOME (Linux, when absolute, as the XDG spec asks), else ~/.config. */
const xdgConfig = (e: McpDiscoveryEnv) =>
  absolute(e.env.XDG_CONFIG_HOME) ? e.env.XDG_CONFIG_HOME : path.join(e.home, '.config');
const programData = (e: McpDiscoveryEnv) =>
  absolute(e.env.ProgramData) ? e.env.ProgramData : absolute(e.env.PROGRAMDATA) ? e.env.PROGRAMDATA : 'C:\\ProgramData';
const programFiles = (e: McpDiscoveryEnv) =>
  absolute(e.env.ProgramFiles)
    ? e.env.ProgramFiles
    : absolute(e.env.PROGRAMFILES)
      ? e.env.PROGRAMFILES
      : 'C:\\Program Files';

const json = (
  client: McpClient,
  scope: McpConfigScope,
  file: string,
  shape: ServersShape = 'mcpServers',
  dedicated = true,
): ConfigLocation => ({
  client,
  scope,
  file,
  format: 'json',
  shape,
  dedicated,
});
const toml = (scope: McpConfigScope, file: string): ConfigLocation => ({
  client: 'codex',
  scope,
  file,
  format: 'toml',
  shape: 'mcp_servers',
  dedicated: false,
});

/** Subdirectories of DIR whose name passes KEEP, sorted (a directory that cannot be listed: none). */
async function subdirectories(dir: string, keep: (name: string) => boolean): Promise<string[]> {
  try {
    const entries = await fs.promises.readdir(dir, { withFileTypes: true });
    return entries
      .filter((d) => d.isDirectory() && keep(d.name))
      .map((d) => path.join(dir, d.name))
      .sort();
  } catch {
    return [];
  }
}

/** The user-scoped and machine-wide (managed) configuration files, in a fixed order. */
export async function userLocations(e: McpDiscoveryEnv): Promise<ConfigLocation[]> {
  const out: ConfigLocation[] = [];

  // Claude Desktop — https://modelcontextprotocol.io/quickstart/user: macOS
  // ~/Library/Application Support/Claude/claude_desktop_config.json, Windows %APPDATA%\Claude\claude_desktop_config.json.
  // There is no official Linux build; the community builds use $XDG_CONFIG_HOME/Claude. The Microsoft Store (MSIX)
  // package keeps its roaming data under %LOCALAPPDATA%\Packages\Claude_<publisher id>\LocalCache\Roaming\Claude.
  if (isMac(e)) {
    out.push(
      json(
        'claude-desktop',
        'user',
        path.join(e.home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json'),
      ),
    );
  } else if (isWindows(e)) {
    out.push(json('claude-desktop', 'user', path.join(appData(e), 'Claude', 'claude_desktop_config.json')));
    for (const pkg of await subdirectories(path.join(localAppData(e), 'Packages'), (n) => n.startsWith('Claude_'))) {
      out.push(
        json('claude-desktop', 'user', path.join(pkg, 'LocalCache', 'Roaming', 'Claude', 'claude_desktop_config.json')),
      );
    }
  } else {
    out.push(json('claude-desktop', 'user', path.join(xdgConfig(e), 'Claude', 'claude_desktop_config.json')));
  }

  // Claude Code — https://code.claude.com/docs/en/mcp ("MCP installation scopes"): user and local scopes in
  // ~/.claude.json (`mcpServers`, and `projects[<path>].mcpServers`), in $CLAUDE_CONFIG_DIR when that is set;
  // managed-mcp.json at the managed settings locations (https://code.claude.com/docs/en/settings): macOS
  // /Library/Application Support/ClaudeCode, Linux and WSL /etc/claude-code, Windows C:\Program Files\ClaudeCode
  // (C:\ProgramData\ClaudeCode before Claude Code 2.0, still read).
  const claudeDir = absolute(e.env.CLAUDE_CONFIG_DIR) ? e.env.CLAUDE_CONFIG_DIR : e.home;
  out.push({
    ...json('claude-code', 'user', path.join(claudeDir, '.claude.json'), 'mcpServers', false),
    claudeJson: true,
  });
  if (isMac(e)) {
    out.push(json('claude-code', 'managed', system(e, '/Library/Application Support/ClaudeCode/managed-mcp.json')));
  } else if (isWindows(e)) {
    out.push(json('claude-code', 'managed', path.join(programFiles(e), 'ClaudeCode', 'managed-mcp.json')));
    out.push(json('claude-code', 'managed', path.join(programData(e), 'ClaudeCode', 'managed-mcp.json')));
  } else {
    out.push(json('claude-code', 'managed', system(e, '/etc/claude-code/managed-mcp.json')));
  }

  // Cursor — https://cursor.com/docs/context/mcp: global ~/.cursor/mcp.json (%USERPROFILE%\.cursor\mcp.json).
  out.push(json('cursor', 'user', path.join(e.home, '.cursor', 'mcp.json')));

  // VS Code — https://code.visualstudio.com/docs/copilot/reference/mcp-configuration: mcp.json in the user profile
  // (`servers`; other profiles under User/profiles/<id>/), and the `mcp.servers` setting of settings.json that came
  // before it. The user data directory: https://code.visualstudio.com/docs/configure/settings#_settings-file-locations
  // (macOS ~/Library/Application Support/Code/User, Windows %APPDATA%\Code\User, Linux ~/.config/Code/User), Insiders
  // as "Code - Insiders"; on a machine reached with Remote - SSH, ~/.vscode-server/data/User.
  const vscodeRoots: string[] = [];
  for (const product of ['Code', 'Code - Insiders']) {
    if (isMac(e)) vscodeRoots.push(path.join(e.home, 'Library', 'Application Support', product, 'User'));
    else if (isWindows(e)) vscodeRoots.push(path.join(appData(e), product, 'User'));
    else vscodeRoots.push(path.join(xdgConfig(e), product, 'User'));
  }
  if (!isMac(e) && !isWindows(e)) vscodeRoots.push(path.join(e.home, '.vscode-server', 'data', 'User'));
  for (const root of vscodeRoots) {
    out.push(json('vscode', 'user', path.join(root, 'mcp.json'), 'servers'));
    out.push(json('vscode', 'user', path.join(root, 'settings.json'), 'mcp.servers', false));
    for (const profile of await subdirectories(path.join(root, 'profiles'), () => true)) {
      out.push(json('vscode', 'user', path.join(profile, 'mcp.json'), 'servers'));
      out.push(json('vscode', 'user', path.join(profile, 'settings.json'), 'mcp.servers', false));
    }
  }

  // Windsurf — https://docs.windsurf.com/windsurf/cascade/mcp: ~/.codeium/windsurf/mcp_config.json on every OS.
  out.push(json('windsurf', 'user', path.join(e.home, '.codeium', 'windsurf', 'mcp_config.json')));

  // Gemini CLI — https://geminicli.com/docs/cli/configuration ("Settings files"): user ~/.gemini/settings.json; the
  // system settings (overrides) and system defaults, machine-wide: Linux /etc/gemini-cli, Windows
  // C:\ProgramData\gemini-cli, macOS /Library/Application Support/GeminiCli, or where GEMINI_CLI_SYSTEM_SETTINGS_PATH
  // and GEMINI_CLI_SYSTEM_DEFAULTS_PATH point.
  out.push(json('gemini-cli', 'user', path.join(e.home, '.gemini', 'settings.json'), 'mcpServers', false));
  const geminiDir = isMac(e)
    ? system(e, '/Library/Application Support/GeminiCli')
    : isWindows(e)
      ? path.join(programData(e), 'gemini-cli')
      : system(e, '/etc/gemini-cli');
  const geminiSystem = absolute(e.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH)
    ? e.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH
    : path.join(geminiDir, 'settings.json');
  out.push(json('gemini-cli', 'managed', geminiSystem, 'mcpServers', false));
  const geminiDefaults = absolute(e.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH)
    ? e.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH
    : path.join(geminiDir, 'system-defaults.json');
  out.push(json('gemini-cli', 'managed', geminiDefaults, 'mcpServers', false));

  // Codex — https://developers.openai.com/codex/mcp and /codex/config-basic: `[mcp_servers.<name>]` tables in
  // $CODEX_HOME/config.toml (~/.codex by default); the system config /etc/codex/config.toml and the managed defaults
  // /etc/codex/managed_config.toml on Unix (https://developers.openai.com/codex/enterprise/managed-configuration).
  const codexHome = absolute(e.env.CODEX_HOME) ? e.env.CODEX_HOME : path.join(e.home, '.codex');
  out.push(toml('user', path.join(codexHome, 'config.toml')));
  if (!isWindows(e)) {
    for (const f of ['/etc/codex/config.toml', '/etc/codex/managed_config.toml']) {
      out.push(toml('managed', system(e, f)));
    }
  }
  return out;
}

/** The project-scoped files of one project directory. */
export function projectLocations(dir: string): ConfigLocation[] {
  return [
    // Claude Code: .mcp.json at the project root (project scope).
    json('claude-code', 'project', path.join(dir, '.mcp.json')),
    // Cursor: .cursor/mcp.json in the project.
    json('cursor', 'project', path.join(dir, '.cursor', 'mcp.json')),
    // VS Code: .vscode/mcp.json in the workspace, and the workspace's settings.json.
    json('vscode', 'project', path.join(dir, '.vscode', 'mcp.json'), 'servers'),
    json('vscode', 'project', path.join(dir, '.vscode', 'settings.json'), 'mcp.servers', false),
    // Gemini CLI: .gemini/settings.json in the project root.
    json('gemini-cli', 'project', path.join(dir, '.gemini', 'settings.json'), 'mcpServers', false),
    // Codex: .codex/config.toml in a (trusted) project.
    toml('project', path.join(dir, '.codex', 'config.toml')),
  ];
}
