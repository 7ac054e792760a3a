// `scanner mcp scan`, its reading part (src/client/mcp): the configuration files of every agent at
// their documented paths on Linux, macOS and Windows (fixture trees under test/fixtures/mcp/<client>/, written as each
// agent writes them, with secrets planted in env, headers, args and URLs), the shapes of each, the warnings for what
// cannot be read, and the promise that matters most: none of the planted secret values appears anywhere in the output.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  discoverMcpConfigs,
  processDiscoveryEnv,
  readServer,
  type McpDiscovery,
  type McpDiscoveryEnv,
} from '../../../src/client/mcp';
import { identity } from '../../../src/domain/mcp/identity';
import { REDACTED as R } from '../../../src/shared/mcp/redact';
import type { McpClientConfig } from '../../../src/shared/mcp/types';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/mcp');
const SECRETS: Record<string, string> = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'SECRETS.json'), 'utf8'));
const HEX64 = '5d3ad0d3a07c4b5dbb4d1a7c0f2e8e7a4c2b1d0e9f8a7b6c5d4e3f2a1b0c9d8e';

let tmp: string;
let home: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-discover-'));
  home = path.join(tmp, 'home');
  fs.mkdirSync(home);
});
afterEach(() => {
  fs.chmodSync(tmp, 0o700);
  fs.rmSync(tmp, { recursive: true, force: true });
});

function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? files(path.join(dir, d.name)) : [path.join(dir, d.name)]));
}

/** Copies fixture trees into DEST; the fixtures' home directory (/home/dev, /Users/dev) is written as this test's home. */
function place(dest: string, ...trees: string[]): string {
  fs.mkdirSync(dest, { recursive: true });
  for (const tree of trees) fs.cpSync(path.join(FIXTURES, tree), dest, { recursive: true });
  for (const f of files(dest)) {
    const text = fs.readFileSync(f, 'utf8');
    const moved = text.split('/home/dev').join(home).split('/Users/dev').join(home);
    if (moved !== text) fs.writeFileSync(f, moved);
  }
  return dest;
}

function write(file: string, text: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function env(overrides: Partial<McpDiscoveryEnv> = {}): McpDiscoveryEnv {
  const cwd = path.join(tmp, 'cwd');
  fs.mkdirSync(cwd, { recursive: true });
  return { home, platform: 'linux', env: {}, cwd, projectDirs: [], systemRoot: path.join(tmp, 'root'), ...overrides };
}

const summary = (d: McpDiscovery) =>
  d.clients.map((c) => [c.client, c.configPath, c.scope, c.servers.map((s) => `${s.name}:${s.transport}`)]);
const server = (d: McpDiscovery, configPath: string, name: string) => {
  const c = d.clients.find((x) => x.configPath === configPath);
  if (!c) throw new Error(`no entry for ${configPath}`);
  const s = c.servers.find((x) => x.name === name);
  if (!s) throw new Error(`no server ${name} in ${configPath}`);
  return s;
};

/** The promise: no planted secret anywhere in the output (clients and warnings), nor in any server's identity. */
function expectNoSecret(d: McpDiscovery) {
  const out = JSON.stringify(d);
  for (const [what, secret] of Object.entries(SECRETS)) {
    if (out.includes(secret)) throw new Error(`secret ${what} in the output`);
  }
  for (const c of d.clients) {
    for (const s of c.servers) {
      const id = JSON.stringify(identity(s));
      for (const secret of Object.values(SECRETS)) expect(id).not.toContain(secret);
    }
  }
}

describe('a Linux machine with every agent', () => {
  let d: McpDiscovery;
  let root: string;
  let projects: Record<string, string>;
  beforeEach(async () => {
    place(
      home,
      'claude-desktop/linux/home',
      'claude-code/linux/home',
      'cursor/home',
      'vscode/linux/home',
      'windsurf/home',
      'gemini-cli/home',
      'codex/home',
    );
    root = place(path.join(tmp, 'root'), 'claude-code/linux/root', 'gemini-cli/linux/root', 'codex/linux/root');
    projects = {
      cursor: place(path.join(tmp, 'projects', 'shop'), 'cursor/project'),
      vscode: place(path.join(tmp, 'projects', 'api'), 'vscode/project'),
      gemini: place(path.join(tmp, 'projects', 'tools'), 'gemini-cli/project'),
      codex: place(path.join(tmp, 'projects', 'repo'), 'codex/project'),
    };
    d = await discoverMcpConfigs(env({ projectDirs: Object.values(projects) }));
  });

  test('every file at its documented path, in a fixed order, with its scope', () => {
    expect(summary(d)).toEqual([
      [
        'claude-desktop',
        '~/.config/Claude/claude_desktop_config.json',
        'user',
        ['memory:stdio', 'openai-bridge:stdio'],
      ],
      ['claude-code', '~/.claude.json', 'user', ['sentry:http', 'linear:sse', 'airtable:stdio', 'internal-api:http']],
      ['claude-code', '~/.claude.json#projects[~/work/webapp]', 'project', ['linear-local:stdio']],
      [
        'claude-code',
        path.join(root, 'etc/claude-code/managed-mcp.json'),
        'managed',
        ['company-internal:stdio', 'github:http'],
      ],
      ['cursor', '~/.cursor/mcp.json', 'user', ['context7:http', 'slack:stdio', 'remote-docs:sse', 'custom:stdio']],
      ['vscode', '~/.config/Code/User/mcp.json', 'user', ['perplexity:stdio', 'github:http', 'fetch:stdio']],
      ['vscode', '~/.config/Code/User/settings.json', 'user', ['time:stdio', 'legacy-api:stdio']],
      ['vscode', '~/.config/Code/User/profiles/-5a3b1c2d/mcp.json', 'user', ['playwright:stdio']],
      [
        'windsurf',
        '~/.codeium/windsurf/mcp_config.json',
        'user',
        ['zapier:sse', 'github:stdio', 'figma:stdio', 'remote-http:http'],
      ],
      [
        'gemini-cli',
        '~/.gemini/settings.json',
        'user',
        ['pythonTools:stdio', 'maps:http', 'events:sse', 'google:stdio', 'secured:http'],
      ],
      ['gemini-cli', path.join(root, 'etc/gemini-cli/settings.json'), 'managed', ['corp-search:http']],
      [
        'codex',
        '~/.codex/config.toml',
        'user',
        ['context7:stdio', 'figma:http', 'github:stdio', 'legacy:http', 'aws-docs:stdio', 'internal:http'],
      ],
      ['codex', path.join(root, 'etc/codex/config.toml'), 'managed', ['corp:stdio']],
      ['cursor', path.join(projects.cursor, '.cursor/mcp.json'), 'project', ['supabase:stdio', 'stripe:stdio']],
      ['vscode', path.join(projects.vscode, '.vscode/mcp.json'), 'project', ['postgres:stdio', 'workspace-tool:stdio']],
      ['gemini-cli', path.join(projects.gemini, '.gemini/settings.json'), 'project', ['docker-tools:stdio']],
      ['codex', path.join(projects.codex, '.codex/config.toml'), 'project', ['repo-tools:stdio']],
      // A project Claude Code knows (~/.claude.json `projects`): its .mcp.json.
      ['claude-code', '~/work/webapp/.mcp.json', 'project', ['playwright:stdio', 'db:stdio', 'api:http']],
    ]);
    expect(d.warnings).toEqual([]);
  });

  test('no planted secret anywhere in the output', () => {
    expectNoSecret(d);
    // ... and the fixtures did plant them: the input holds all but those of the macOS, Windows and broken trees.
    const input = [home, root, ...Object.values(projects)]
      .flatMap(files)
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
    const absent = Object.entries(SECRETS)
      .filter(([, secret]) => !input.includes(secret))
      .map(([what]) => what);
    expect(absent.sort()).toEqual([
      'claude_configdir_secret',
      'codex_broken_secret',
      'cursor_broken_secret',
      'desktop_brave_key',
      'desktop_github_pat',
      'desktop_pg_password',
      'desktop_windows_token',
      'msix_key',
      'vscode_insiders_key',
      'vscode_windows_key',
    ]);
  });

  test('stdio servers: args redacted, the home written ~, env reduced to names', () => {
    expect(server(d, '~/.config/Claude/claude_desktop_config.json', 'openai-bridge')).toEqual({
      name: 'openai-bridge',
      transport: 'stdio',
      command: '~/.local/bin/openai-mcp',
      args: ['--api-key', R, '--model', 'gpt-4.1'],
    });
    expect(server(d, '~/.cursor/mcp.json', 'slack')).toEqual({
      name: 'slack',
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-slack'],
      env: { SLACK_BOT_TOKEN: R, SLACK_TEAM_ID: R },
    });
    expect(server(d, '~/.cursor/mcp.json', 'custom').args).toEqual(['~/tools/mcp_server.py', '--token', R]);
    expect(server(d, path.join(projects.cursor, '.cursor/mcp.json'), 'stripe').args).toEqual([
      '-y',
      '@stripe/mcp',
      '--tools=all',
      `--api-key=${R}`,
    ]);
    expect(server(d, '~/.codeium/windsurf/mcp_config.json', 'github').args).toEqual([
      'run',
      '-i',
      '--rm',
      '-e',
      `GITHUB_PERSONAL_ACCESS_TOKEN=${R}`,
      'ghcr.io/github/github-mcp-server:v0.4.0',
    ]);
    expect(server(d, '~/work/webapp/.mcp.json', 'db')).toEqual({
      name: 'db',
      transport: 'stdio',
      command: '~/work/webapp/scripts/db-mcp.sh',
      args: ['--password', R],
      env: { DB_HOST: R },
    });
    expect(server(d, path.join(projects.vscode, '.vscode/mcp.json'), 'postgres')).toEqual({
      name: 'postgres',
      transport: 'stdio',
      command: 'docker',
      args: [
        'run',
        '-i',
        '--rm',
        '-e',
        'DATABASE_URI',
        `crystaldba/postgres-mcp@sha256:${HEX64}`,
        '--access-mode=restricted',
      ],
      env: { DATABASE_URI: R },
    });
  });

  test('references are kept: they name a secret without holding it', () => {
    expect(server(d, '~/.claude.json', 'airtable').env).toEqual({ AIRTABLE_API_KEY: '${AIRTABLE_API_KEY}' });
    expect(server(d, '~/.config/Code/User/mcp.json', 'perplexity').env).toEqual({
      PERPLEXITY_API_KEY: '${input:perplexity-key}',
    });
    expect(server(d, '~/.cursor/mcp.json', 'context7').headers).toEqual({
      CONTEXT7_API_KEY: '${env:CONTEXT7_API_KEY}',
    });
    expect(server(d, '~/.gemini/settings.json', 'pythonTools').env).toEqual({
      DATABASE_URL: '$DB_CONNECTION_STRING',
      API_KEY: '${EXTERNAL_API_KEY}',
    });
    expect(server(d, '~/work/webapp/.mcp.json', 'api').headers).toEqual({ Authorization: 'Bearer ${API_KEY}' });
    expect(server(d, path.join(projects.vscode, '.vscode/mcp.json'), 'workspace-tool')).toEqual({
      name: 'workspace-tool',
      transport: 'stdio',
      command: '${workspaceFolder}/bin/tool',
      args: ['--root', '${workspaceFolder}'],
    });
  });

  test('remote servers: URL user info and query values redacted, literal headers too', () => {
    expect(server(d, '~/.claude.json', 'internal-api')).toEqual({
      name: 'internal-api',
      transport: 'http',
      url: `https://${R}@mcp.corp.example/mcp`,
      headers: { Authorization: 'Bearer ${INTERNAL_TOKEN}', 'X-Session': R },
    });
    expect(server(d, '~/.cursor/mcp.json', 'remote-docs')).toEqual({
      name: 'remote-docs',
      transport: 'sse',
      url: `https://docs-mcp.example.com/sse?apiKey=${R}`,
    });
    expect(server(d, '~/.config/Code/User/mcp.json', 'github')).toEqual({
      name: 'github',
      transport: 'http',
      url: 'https://api.githubcopilot.com/mcp/',
      headers: { Authorization: R },
    });
    expect(server(d, '~/.codeium/windsurf/mcp_config.json', 'zapier')).toEqual({
      name: 'zapier',
      transport: 'sse',
      url: `https://actions.zapier.com/mcp/${R}/sse`,
    });
    expect(server(d, '~/.gemini/settings.json', 'maps')).toEqual({
      name: 'maps',
      transport: 'http',
      url: `https://mcp.maps.example.com/mcp?key=${R}`,
    });
    expect(server(d, '~/.gemini/settings.json', 'events')).toEqual({
      name: 'events',
      transport: 'sse',
      url: 'http://localhost:8080/sse',
    });
  });

  test("Codex's own fields: env_vars, bearer_token_env_var, env_http_headers as references; bearer_token, http_headers literal", () => {
    expect(server(d, '~/.codex/config.toml', 'github').env).toEqual({
      GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_PERSONAL_ACCESS_TOKEN}',
    });
    expect(server(d, '~/.codex/config.toml', 'figma')).toEqual({
      name: 'figma',
      transport: 'http',
      url: 'https://mcp.figma.com/mcp',
      headers: { Authorization: 'Bearer ${FIGMA_OAUTH_TOKEN}' },
    });
    expect(server(d, '~/.codex/config.toml', 'legacy').headers).toEqual({ Authorization: R });
    expect(server(d, '~/.codex/config.toml', 'internal').headers).toEqual({
      'X-Api-Key': R,
      'X-Tenant': '${TENANT_ID}',
    });
    expect(server(d, '~/.codex/config.toml', 'aws-docs')).toEqual({
      name: 'aws-docs',
      transport: 'stdio',
      command: 'uvx',
      args: ['awslabs.aws-documentation-mcp-server@latest', `--api-key=${R}`],
      env: { FASTMCP_LOG_LEVEL: R, AWS_ACCESS_KEY_ID: R, AWS_SECRET_ACCESS_KEY: R },
    });
  });

  test('the identities of what was read', () => {
    const ids = (configPath: string) =>
      d.clients.find((c) => c.configPath === configPath)!.servers.map((s) => [s.name, identity(s)]);
    expect(ids('~/.config/Code/User/mcp.json')).toEqual([
      ['perplexity', { identity: 'pkg:npm/server-perplexity-ask', version: null, pinned: false, kind: 'npm' }],
      ['github', { identity: 'https://api.githubcopilot.com/mcp/', version: null, pinned: false, kind: 'remote' }],
      ['fetch', { identity: 'pkg:pypi/mcp-server-fetch', version: '2025.4.7', pinned: true, kind: 'pypi' }],
    ]);
    expect(identity(server(d, path.join(projects.vscode, '.vscode/mcp.json'), 'postgres'))).toEqual({
      identity: 'pkg:oci/docker.io/crystaldba/postgres-mcp',
      version: `sha256:${HEX64}`,
      pinned: true,
      kind: 'oci',
    });
    expect(identity(server(d, '~/.claude.json', 'internal-api')).identity).toBe('https://mcp.corp.example/mcp');
    // The service, receiving what the client uploads, computes the same identity (it has no home to replace).
    const db = server(d, '~/work/webapp/.mcp.json', 'db');
    expect(identity(db).identity).toMatch(/^cmd:[0-9a-f]{64}$/);
  });
});

describe('macOS and Windows layouts', () => {
  test('macOS: Claude Desktop in Application Support, VS Code Insiders, Claude Code managed under /Library', async () => {
    place(home, 'claude-desktop/macos/home', 'vscode/macos/home');
    const root = place(path.join(tmp, 'root'), 'claude-code/macos/root');
    const d = await discoverMcpConfigs(env({ platform: 'darwin' }));
    expect(summary(d)).toEqual([
      [
        'claude-desktop',
        '~/Library/Application Support/Claude/claude_desktop_config.json',
        'user',
        ['filesystem:stdio', 'github:stdio', 'postgres:stdio', 'brave-search:stdio'],
      ],
      [
        'claude-code',
        path.join(root, 'Library/Application Support/ClaudeCode/managed-mcp.json'),
        'managed',
        ['github:http'],
      ],
      ['vscode', '~/Library/Application Support/Code - Insiders/User/mcp.json', 'user', ['notion:stdio']],
    ]);
    const desktop = d.clients[0].servers;
    expect(desktop[0].args).toEqual(['-y', '@modelcontextprotocol/server-filesystem', '~/Desktop', '~/Downloads']);
    expect(desktop[1].env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: R });
    expect(desktop[2].args).toEqual([
      '-y',
      '@modelcontextprotocol/server-postgres',
      `postgresql://${R}@db.internal:5432/app`,
    ]);
    expect(desktop[3]).toEqual({
      name: 'brave-search',
      transport: 'stdio',
      command: 'docker',
      args: ['run', '-i', '--rm', '-e', 'BRAVE_API_KEY', 'mcp/brave-search'],
      env: { BRAVE_API_KEY: R },
    });
    expectNoSecret(d);
  });

  test('Windows: %APPDATA%, the Microsoft Store package, Program Files and the older ProgramData', async () => {
    place(home, 'claude-desktop/windows/home', 'vscode/windows/home');
    place(tmp, 'claude-code/windows');
    const appData = path.join(home, 'AppData', 'Roaming');
    const d = await discoverMcpConfigs(
      env({
        platform: 'win32',
        env: {
          APPDATA: appData,
          LOCALAPPDATA: path.join(home, 'AppData', 'Local'),
          ProgramFiles: path.join(tmp, 'ProgramFiles'),
          ProgramData: path.join(tmp, 'ProgramData'),
        },
      }),
    );
    expect(summary(d)).toEqual([
      [
        'claude-desktop',
        '~/AppData/Roaming/Claude/claude_desktop_config.json',
        'user',
        ['filesystem:stdio', 'memory:stdio'],
      ],
      [
        'claude-desktop',
        '~/AppData/Local/Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming/Claude/claude_desktop_config.json',
        'user',
        ['fetch:stdio'],
      ],
      ['claude-code', path.join(tmp, 'ProgramFiles/ClaudeCode/managed-mcp.json'), 'managed', ['company-docs:sse']],
      // A file of MCP servers only, listing none: an entry all the same.
      ['claude-code', path.join(tmp, 'ProgramData/ClaudeCode/managed-mcp.json'), 'managed', []],
      ['vscode', '~/AppData/Roaming/Code/User/mcp.json', 'user', ['azure:stdio']],
    ]);
    expect(d.clients[0].servers).toEqual([
      {
        name: 'filesystem',
        transport: 'stdio',
        command: 'cmd',
        args: ['/c', 'npx', '-y', '@modelcontextprotocol/server-filesystem', 'C:\\Users\\dev\\Documents'],
      },
      {
        name: 'memory',
        transport: 'stdio',
        command: 'C:\\Program Files\\nodejs\\npx.cmd',
        args: ['-y', '@modelcontextprotocol/server-memory@2025.4.25'],
        env: { MEMORY_FILE_PATH: R, API_TOKEN: R },
      },
    ]);
    expect(identity(d.clients[0].servers[0])).toMatchObject({
      identity: 'pkg:npm/%40modelcontextprotocol/server-filesystem',
      kind: 'npm',
    });
    expect(identity(d.clients[0].servers[1])).toMatchObject({
      identity: 'pkg:npm/%40modelcontextprotocol/server-memory',
      version: '2025.4.25',
      pinned: true,
    });
    expectNoSecret(d);
  });

  test('Windows without APPDATA and LOCALAPPDATA: their defaults under the user profile', async () => {
    place(home, 'claude-desktop/windows/home');
    const d = await discoverMcpConfigs(env({ platform: 'win32', env: { APPDATA: 'relative' } }));
    expect(summary(d).map(([, configPath]) => configPath)).toEqual([
      '~/AppData/Roaming/Claude/claude_desktop_config.json',
      '~/AppData/Local/Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming/Claude/claude_desktop_config.json',
    ]);
  });
});

describe('where the environment points', () => {
  test('CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_CONFIG_HOME and the Gemini CLI system paths', async () => {
    place(home, 'claude-code/config-dir/home', 'claude-code/linux/home');
    const codexHome = place(path.join(tmp, 'codex-home'), 'codex/project/.codex');
    const xdg = path.join(tmp, 'xdg');
    write(
      path.join(xdg, 'Code/User/mcp.json'),
      '{ "servers": { "x": { "command": "npx", "args": ["mcp-x@1.0.0"] } } }',
    );
    write(
      path.join(xdg, 'Claude/claude_desktop_config.json'),
      '{ "mcpServers": { "y": { "command": "uvx", "args": ["mcp-y"] } } }',
    );
    write(
      path.join(home, '.config/Claude/claude_desktop_config.json'),
      '{ "mcpServers": { "not-read": { "command": "x" } } }',
    );
    const geminiSystem = path.join(tmp, 'gemini', 'system.json');
    const geminiDefaults = path.join(tmp, 'gemini', 'defaults.json');
    write(geminiSystem, '{ "mcpServers": { "sys": { "httpUrl": "https://sys.example/mcp" } } }');
    write(geminiDefaults, '{ "mcpServers": { "def": { "command": "def-mcp" } } }');
    const d = await discoverMcpConfigs(
      env({
        env: {
          CLAUDE_CONFIG_DIR: path.join(home, '.claude-work'),
          CODEX_HOME: codexHome,
          XDG_CONFIG_HOME: xdg,
          GEMINI_CLI_SYSTEM_SETTINGS_PATH: geminiSystem,
          GEMINI_CLI_SYSTEM_DEFAULTS_PATH: geminiDefaults,
        },
        knownProjects: false,
      }),
    );
    expect(summary(d)).toEqual([
      ['claude-desktop', path.join(xdg, 'Claude/claude_desktop_config.json'), 'user', ['y:stdio']],
      ['claude-code', '~/.claude-work/.claude.json', 'user', ['work-tools:stdio']],
      ['vscode', path.join(xdg, 'Code/User/mcp.json'), 'user', ['x:stdio']],
      ['gemini-cli', geminiSystem, 'managed', ['sys:http']],
      ['gemini-cli', geminiDefaults, 'managed', ['def:stdio']],
      ['codex', path.join(codexHome, 'config.toml'), 'user', ['repo-tools:stdio']],
    ]);
    expectNoSecret(d);
  });

  test('a relative XDG_CONFIG_HOME is ignored, as the XDG specification asks', async () => {
    write(path.join(home, '.config/Code/User/mcp.json'), '{ "servers": {} }');
    const d = await discoverMcpConfigs(env({ env: { XDG_CONFIG_HOME: 'relative/dir' } }));
    expect(summary(d)).toEqual([['vscode', '~/.config/Code/User/mcp.json', 'user', []]]);
  });
});

describe('project directories', () => {
  test('the working directory is one; the same file is read once per agent (user scope first)', async () => {
    place(home, 'cursor/home', 'gemini-cli/home');
    const d = await discoverMcpConfigs(env({ cwd: home, projectDirs: [home, '.', `${home}/`] }));
    expect(summary(d).map(([client, configPath, scope]) => [client, configPath, scope])).toEqual([
      ['cursor', '~/.cursor/mcp.json', 'user'],
      ['gemini-cli', '~/.gemini/settings.json', 'user'],
    ]);
  });

  test('relative project directories are taken from the working directory', async () => {
    const cwd = path.join(tmp, 'work');
    place(path.join(cwd, 'shop'), 'cursor/project');
    const d = await discoverMcpConfigs(env({ cwd, projectDirs: ['shop'] }));
    expect(summary(d)).toEqual([
      ['cursor', path.join(cwd, 'shop/.cursor/mcp.json'), 'project', ['supabase:stdio', 'stripe:stdio']],
    ]);
  });

  test("without knownProjects, Claude Code's projects are not searched (their servers in ~/.claude.json still are)", async () => {
    place(home, 'claude-code/linux/home');
    const d = await discoverMcpConfigs(env({ knownProjects: false }));
    expect(summary(d).map(([, configPath]) => configPath)).toEqual([
      '~/.claude.json',
      '~/.claude.json#projects[~/work/webapp]',
    ]);
  });

  test('a settings file without the servers key is no entry; a file of MCP servers only always is', async () => {
    const p = path.join(tmp, 'p');
    write(path.join(p, '.vscode/settings.json'), '{ "editor.tabSize": 2 }');
    write(path.join(p, '.gemini/settings.json'), '{ "ui": {} }');
    write(path.join(p, '.codex/config.toml'), 'model = "o3"\n');
    write(path.join(p, '.mcp.json'), '');
    write(path.join(p, '.cursor/mcp.json'), '{}');
    write(path.join(p, '.vscode/mcp.json'), '{ "inputs": [] }');
    const d = await discoverMcpConfigs(env({ projectDirs: [p] }));
    expect(summary(d)).toEqual([
      ['claude-code', path.join(p, '.mcp.json'), 'project', []],
      ['cursor', path.join(p, '.cursor/mcp.json'), 'project', []],
      ['vscode', path.join(p, '.vscode/mcp.json'), 'project', []],
    ]);
    expect(d.warnings).toEqual([]);
  });

  test('nothing configured: nothing found', async () => {
    expect(await discoverMcpConfigs(env())).toEqual({ clients: [], warnings: [] });
  });
});

describe('what cannot be read is a warning, never a crash, and never quotes the file', () => {
  test('broken files and entries, each skipped, the rest read', async () => {
    const brokenCursor = place(path.join(tmp, 'p1'), 'cursor/broken');
    const brokenCodex = place(path.join(tmp, 'p2'), 'codex/broken');
    write(path.join(home, '.cursor/mcp.json'), '[1, 2]');
    write(path.join(home, '.codeium/windsurf/mcp_config.json'), '{ "mcpServers": ["not", "a", "map"] }');
    fs.mkdirSync(path.join(home, '.config/Code/User/mcp.json'), { recursive: true });
    write(
      path.join(home, '.gemini/settings.json'),
      JSON.stringify({
        mcpServers: {
          text: 'ghp_Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0Kk1Ll2',
          empty: {},
          stdioUrl: { type: 'stdio', url: 'https://x.example' },
          httpCommand: { type: 'http', command: 'x' },
          ghp_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8N: { command: 'named-after-a-token' },
          ok: { command: 'ok-mcp' },
        },
      }),
    );
    write(
      path.join(home, '.claude.json'),
      JSON.stringify({
        mcpServers: {},
        projects: { '/srv/app': { mcpServers: 'oops' }, '/srv/other': 'not an object' },
      }),
    );
    write(path.join(home, '.codex/config.toml'), '');
    const d = await discoverMcpConfigs(env({ projectDirs: [brokenCursor, brokenCodex], knownProjects: false }));
    expect(d.warnings).toEqual([
      {
        client: 'claude-code',
        configPath: '~/.claude.json#projects[/srv/app]',
        message: '`mcpServers` is not an object',
      },
      { client: 'cursor', configPath: '~/.cursor/mcp.json', message: 'not a JSON object' },
      { client: 'vscode', configPath: '~/.config/Code/User/mcp.json', message: 'not a regular file' },
      {
        client: 'windsurf',
        configPath: '~/.codeium/windsurf/mcp_config.json',
        message: '`mcpServers` is not an object',
      },
      {
        client: 'gemini-cli',
        configPath: '~/.gemini/settings.json',
        message: 'server "text" is not an object: skipped',
      },
      {
        client: 'gemini-cli',
        configPath: '~/.gemini/settings.json',
        message: 'server "empty" has neither a command nor a URL: skipped',
      },
      {
        client: 'gemini-cli',
        configPath: '~/.gemini/settings.json',
        message: 'server "stdioUrl" is stdio without a command: skipped',
      },
      {
        client: 'gemini-cli',
        configPath: '~/.gemini/settings.json',
        message: 'server "httpCommand" is http without a URL: skipped',
      },
      {
        client: 'cursor',
        configPath: path.join(brokenCursor, '.cursor/mcp.json'),
        message: 'not valid JSON (CloseBraceExpected at line 6, column 1)',
      },
      {
        client: 'codex',
        configPath: path.join(brokenCodex, '.codex/config.toml'),
        message: 'not valid TOML (at line 2, column 15)',
      },
    ]);
    expect(summary(d)).toEqual([
      ['claude-code', '~/.claude.json', 'user', []],
      ['gemini-cli', '~/.gemini/settings.json', 'user', [`${R}:stdio`, 'ok:stdio']],
    ]);
    expectNoSecret(d);
    expect(JSON.stringify(d)).not.toMatch(/ghp_/);
  });

  test('a file that cannot be read', async () => {
    if (process.getuid?.() === 0) return; // root reads a mode-000 file: nothing to show
    write(path.join(home, '.cursor/mcp.json'), '{ "mcpServers": {} }');
    fs.chmodSync(path.join(home, '.cursor/mcp.json'), 0o000);
    const d = await discoverMcpConfigs(env());
    expect(d).toEqual({
      clients: [],
      warnings: [{ client: 'cursor', configPath: '~/.cursor/mcp.json', message: 'cannot be read (EACCES)' }],
    });
  });

  test('a byte-order mark and CRLF line ends are fine', async () => {
    write(
      path.join(home, '.cursor/mcp.json'),
      '\ufeff{\r\n  "mcpServers": {\r\n    "a": { "command": "npx", "args": ["mcp-a"] }\r\n  }\r\n}\r\n',
    );
    write(path.join(home, '.codex/config.toml'), '\ufeff[mcp_servers.b]\r\ncommand = "uvx"\r\nargs = ["mcp-b"]\r\n');
    const d = await discoverMcpConfigs(env());
    expect(summary(d)).toEqual([
      ['cursor', '~/.cursor/mcp.json', 'user', ['a:stdio']],
      ['codex', '~/.codex/config.toml', 'user', ['b:stdio']],
    ]);
  });
});

describe('one server, read in each agent\u2019s terms', () => {
  const table: Array<[client: Parameters<typeof readServer>[0], raw: unknown, expected: unknown]> = [
    [
      'claude-code',
      { type: 'stdio', command: 'npx', args: ['a'] },
      { name: 's', transport: 'stdio', command: 'npx', args: ['a'] },
    ],
    [
      'claude-code',
      { type: 'http', url: 'https://h.example/mcp' },
      { name: 's', transport: 'http', url: 'https://h.example/mcp' },
    ],
    [
      'claude-code',
      { type: 'sse', url: 'https://h.example/events' },
      { name: 's', transport: 'sse', url: 'https://h.example/events' },
    ],
    [
      'cursor',
      { type: 'streamable-http', url: 'https://h.example/x' },
      { name: 's', transport: 'http', url: 'https://h.example/x' },
    ],
    [
      'cursor',
      { transport: 'streamableHttp', url: 'https://h.example/x' },
      { name: 's', transport: 'http', url: 'https://h.example/x' },
    ],
    ['cursor', { url: 'https://h.example/sse/' }, { name: 's', transport: 'sse', url: 'https://h.example/sse/' }],
    [
      'cursor',
      { url: 'https://h.example/mcp?x=/sse' },
      { name: 's', transport: 'http', url: `https://h.example/mcp?x=${R}` },
    ],
    [
      'windsurf',
      { serverUrl: 'https://h.example/mcp' },
      { name: 's', transport: 'http', url: 'https://h.example/mcp' },
    ],
    ['gemini-cli', { httpUrl: 'https://h.example/a' }, { name: 's', transport: 'http', url: 'https://h.example/a' }],
    ['gemini-cli', { url: 'https://h.example/a' }, { name: 's', transport: 'sse', url: 'https://h.example/a' }],
    ['gemini-cli', { command: 'x', url: 'https://h.example/a' }, { name: 's', transport: 'stdio', command: 'x' }],
    [
      'vscode',
      { command: 'x', args: 'single-arg' },
      { name: 's', transport: 'stdio', command: 'x', args: ['single-arg'] },
    ],
    ['vscode', { command: 'x', args: [1, true] }, { name: 's', transport: 'stdio', command: 'x', args: ['1', 'true'] }],
    ['vscode', { type: 'stdio', command: 'x', headers: { A: 'b' } }, { name: 's', transport: 'stdio', command: 'x' }],
    ['vscode', { command: 'x', env: {} }, { name: 's', transport: 'stdio', command: 'x' }],
    [
      'vscode',
      { type: 'websocket', url: 'https://h.example/ws' },
      { name: 's', transport: 'http', url: 'https://h.example/ws' },
    ],
    [
      'codex',
      { url: 'https://h.example/m', bearer_token_env_var: 'TOK', env_http_headers: { 'X-A': 'VAR_A' } },
      {
        name: 's',
        transport: 'http',
        url: 'https://h.example/m',
        headers: { 'X-A': '${VAR_A}', Authorization: 'Bearer ${TOK}' },
      },
    ],
    [
      'codex',
      { command: 'x', env_vars: ['A', 'B'], env: { C: 'lit' } },
      { name: 's', transport: 'stdio', command: 'x', env: { A: '${A}', B: '${B}', C: R } },
    ],
  ];
  test.each(table)('%s %j', (client, raw, expected) => {
    expect(readServer(client, 's', raw, home)).toEqual({ server: expected });
  });

  test('a VS Code settings.json with the flat "mcp.servers" key', async () => {
    write(
      path.join(home, '.config/Code/User/settings.json'),
      '{ "mcp.servers": { "flat": { "command": "flat-mcp" } } }',
    );
    const d = await discoverMcpConfigs(env());
    expect(summary(d)).toEqual([['vscode', '~/.config/Code/User/settings.json', 'user', ['flat:stdio']]]);
  });

  test('a VS Code mcp.json in the portable mcpServers shape', async () => {
    write(path.join(home, '.config/Code/User/mcp.json'), '{ "mcpServers": { "portable": { "command": "p" } } }');
    const d = await discoverMcpConfigs(env());
    expect(summary(d)).toEqual([['vscode', '~/.config/Code/User/mcp.json', 'user', ['portable:stdio']]]);
  });
});

test('the environment of this process', () => {
  const e = processDiscoveryEnv({ projectDirs: ['/x'] });
  expect(e).toMatchObject({ home: os.homedir(), platform: process.platform, cwd: process.cwd(), projectDirs: ['/x'] });
  expect(e.env).toBe(process.env);
});

test('bundled as the client is (one ES module; jsonc-parser from its ES build), it reads the same and starts nothing', async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof import('esbuild');
  const outfile = path.join(tmp, 'mcp.mjs');
  const r = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ['src/client/mcp/index.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'bundle',
    // jsonc-parser's `main` is a UMD build whose inner require() calls esbuild cannot follow; its `module` is plain ESM.
    mainFields: ['module', 'main'],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(r.metafile.inputs).map((p) => p.split(path.sep).join('/'));
  expect(
    inputs.filter(
      (p) =>
        !/^src\/client\/mcp\/|^src\/shared\/mcp\/|^src\/domain\/mcp\/|^src\/shared\/package-names\.ts$|^node_modules\/(jsonc-parser|smol-toml)\//.test(
          p,
        ),
    ),
  ).toEqual([]);
  const [out] = Object.values(r.metafile.outputs);
  const external = out.imports.filter((i) => i.external).map((i) => i.path.replace(/^node:/, ''));
  expect(
    external.filter((m) => ['child_process', 'net', 'http', 'https', 'tls', 'worker_threads'].includes(m)),
  ).toEqual([]);

  place(home, 'cursor/home', 'vscode/linux/home', 'codex/home');
  const script = `import { discoverMcpConfigs } from ${JSON.stringify(outfile)};
const r = await discoverMcpConfigs({ home: ${JSON.stringify(home)}, platform: 'linux', env: {}, cwd: ${JSON.stringify(home)}, projectDirs: [], systemRoot: ${JSON.stringify(path.join(tmp, 'root'))} });
process.stdout.write(JSON.stringify(r));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  const bundled = JSON.parse(run.stdout) as { clients: McpClientConfig[] };
  const direct = await discoverMcpConfigs(env({ cwd: home }));
  expect(bundled).toEqual(direct);
  expect(bundled.clients.length).toBe(5);
}, 60_000);
