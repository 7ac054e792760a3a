// One configured server, read from each agent's own fields, to the shape the service takes with nothing secret left
// (src/shared/mcp/redact.ts: the function the service applies again).
//
// The fields, per agent:
// - everywhere: `command`, `args`, `env` (stdio); `url`, `headers` (remote); `type` (or `transport`) when given:
//   stdio, sse, http (also written streamable-http / streamableHttp);
// - Windsurf: `serverUrl` for a remote server;
// - Gemini CLI: `httpUrl` is streamable HTTP, `url` is SSE (https://geminicli.com/docs/tools/mcp-server);
// - Codex (https://developers.openai.com/codex/mcp): `env_vars` (names passed through from Codex's environment:
//   references), `http_headers` (literal), `env_http_headers` (header → variable: references), `bearer_token_env_var`
//   (Authorization: Bearer ${VAR}), `bearer_token` (a literal Authorization);
// - without a type: a command is stdio; a URL is http, or sse when its path ends in /sse.
import type { McpClient, McpServerConfig, McpTransport } from '../../shared/mcp/types';
import { redactServer } from '../../shared/mcp/redact';

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

function transportOf(type: unknown): McpTransport | undefined {
  if (typeof type !== 'string') return undefined;
  const t = type
    .trim()
    .toLowerCase()
    .replace(/[-_\s]/g, '');
  if (t === 'stdio') return 'stdio';
  if (t === 'sse') return 'sse';
  if (t === 'http' || t === 'streamablehttp' || t === 'httpstream' || t === 'streamable') return 'http';
  return undefined;
}

function byPath(url: string): McpTransport {
  const pathname = url.replace(/[?#].*$/s, '');
  return /\/sse\/?$/i.test(pathname) ? 'sse' : 'http';
}

/** The literal or reference values of Codex's extra header and variable fields, merged into headers and env. */
function codexExtras(raw: Record<string, unknown>): { env: Record<string, unknown>; headers: Record<string, unknown> } {
  const env: Record<string, unknown> = {};
  const headers: Record<string, unknown> = {};
  if (Array.isArray(raw.env_vars))
    for (const name of raw.env_vars) if (typeof name === 'string') env[name] = `\${${name}}`;
  if (isPlainObject(raw.http_headers)) Object.assign(headers, raw.http_headers);
  if (isPlainObject(raw.env_http_headers)) {
    for (const [name, variable] of Object.entries(raw.env_http_headers))
      headers[name] = typeof variable === 'string' ? `\${${variable}}` : variable;
  }
  if (typeof raw.bearer_token_env_var === 'string') headers.Authorization = `Bearer \${${raw.bearer_token_env_var}}`;
  else if (raw.bearer_token !== undefined) headers.Authorization = raw.bearer_token;
  return { env, headers };
}

export type ServerResult = { server: McpServerConfig } | { warning: string };

/**
 * How to reach one configured server, as written (nothing redacted): what `scanner mcp scan --introspect` starts or
 * calls, and never uploaded. The values of env and headers may hold `${VAR}` references (expanded when used).
 */
export interface McpLaunch {
  transport: McpTransport;
  command?: string;
  args?: string[];
  url?: string;
  env?: Record<string, string>;
  headers?: Record<string, string>;
}

const strings = (m: Record<string, unknown> | undefined): Record<string, string> | undefined => {
  if (!m) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m))
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
  return Object.keys(out).length > 0 ? out : undefined;
};

interface ReadLaunch {
  launch: McpLaunch;
  /** As found, before the launch's string-only filtering: what redaction reads. */
  rawArgs?: unknown[];
  rawEnv?: Record<string, unknown>;
  rawHeaders?: Record<string, unknown>;
}

function launchOf(client: McpClient, raw: Record<string, unknown>, safeName: string): ReadLaunch | { warning: string } {
  const command = text(raw.command);
  let url: string | undefined;
  let transport = transportOf(raw.type) ?? transportOf(raw.transport);
  if (client === 'gemini-cli' && text(raw.httpUrl)) {
    url = text(raw.httpUrl);
    transport ??= command ? undefined : 'http';
  } else if (client === 'gemini-cli' && text(raw.url)) {
    url = text(raw.url);
    transport ??= command ? undefined : 'sse';
  } else {
    url = text(raw.url) ?? text(raw.serverUrl) ?? text(raw.httpUrl);
  }
  transport ??= command ? 'stdio' : url ? byPath(url) : undefined;
  if (transport === undefined) return { warning: `server "${safeName}" has neither a command nor a URL: skipped` };
  if (transport === 'stdio' && !command) return { warning: `server "${safeName}" is stdio without a command: skipped` };
  if (transport !== 'stdio' && !url) return { warning: `server "${safeName}" is ${transport} without a URL: skipped` };

  let env: Record<string, unknown> | undefined = isPlainObject(raw.env) ? { ...raw.env } : undefined;
  let headers: Record<string, unknown> | undefined = isPlainObject(raw.headers) ? { ...raw.headers } : undefined;
  if (client === 'codex') {
    const extra = codexExtras(raw);
    if (Object.keys(extra.env).length > 0) env = { ...extra.env, ...env };
    if (Object.keys(extra.headers).length > 0) headers = { ...headers, ...extra.headers };
  }

  let args: unknown[] | undefined;
  if (Array.isArray(raw.args)) args = raw.args;
  else if (typeof raw.args === 'string') args = [raw.args];

  const stdio = transport === 'stdio';
  const launch: McpLaunch = { transport };
  if (stdio) {
    launch.command = command;
    if (args) launch.args = args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a)));
  } else {
    launch.url = url;
    const h = strings(headers);
    if (h) launch.headers = h;
  }
  const e = strings(env);
  if (e) launch.env = e;
  return {
    launch,
    rawArgs: stdio ? args : undefined,
    rawEnv: env && Object.keys(env).length > 0 ? env : undefined,
    rawHeaders: !stdio && headers && Object.keys(headers).length > 0 ? headers : undefined,
  };
}

/** One entry of a servers map, redacted; a warning (without any value of the entry) when it is not a server. */
export function readServer(client: McpClient, name: string, raw: unknown, home: string): ServerResult {
  const r = readServerLaunch(client, name, raw, home);
  return 'warning' in r ? r : { server: r.server };
}

/** {@link readServer}, with the launch as written beside it (for --introspect; never uploaded). */
export function readServerLaunch(
  client: McpClient,
  name: string,
  raw: unknown,
  home: string,
): { server: McpServerConfig; launch: McpLaunch } | { warning: string } {
  const safeName = redactServer({ name }).server.name ?? '';
  if (!isPlainObject(raw)) return { warning: `server "${safeName}" is not an object: skipped` };
  const read = launchOf(client, raw, safeName);
  if ('warning' in read) return read;
  const { launch } = read;
  const r = redactServer(
    {
      name,
      command: launch.command,
      args: read.rawArgs,
      url: launch.url,
      env: read.rawEnv,
      headers: read.rawHeaders,
    },
    { home },
  );
  const server: McpServerConfig = { name: r.server.name ?? '', transport: launch.transport };
  if (r.server.command !== undefined) server.command = r.server.command;
  if (r.server.args !== undefined) server.args = r.server.args;
  if (r.server.url !== undefined) server.url = r.server.url;
  if (r.server.env !== undefined) server.env = r.server.env;
  if (r.server.headers !== undefined) server.headers = r.server.headers;
  return { server, launch };
}

/** The servers map of a document in SHAPE: none, a map, or a warning when it is not a map. */
export type ServersMap =
  { kind: 'none' } | { kind: 'map'; map: Record<string, unknown> } | { kind: 'warning'; message: string };

export function serversMap(
  document: Record<string, unknown>,
  shape: 'mcpServers' | 'servers' | 'mcp.servers' | 'mcp_servers',
): ServersMap {
  let map: unknown;
  let key: string = shape;
  switch (shape) {
    case 'mcpServers':
    case 'mcp_servers':
      map = document[shape];
      break;
    case 'servers':
      // VS Code's mcp.json; the portable `mcpServers` shape is accepted there too.
      map = document.servers ?? document.mcpServers;
      key = document.servers === undefined && document.mcpServers !== undefined ? 'mcpServers' : 'servers';
      break;
    case 'mcp.servers':
      // A settings.json: `"mcp": {"servers": {...}}`, or the flat key `"mcp.servers"`.
      map = isPlainObject(document.mcp) ? document.mcp.servers : undefined;
      if (map === undefined) map = document['mcp.servers'];
      break;
  }
  if (map === undefined || map === null) return { kind: 'none' };
  if (!isPlainObject(map)) return { kind: 'warning', message: `\`${key}\` is not an object` };
  return { kind: 'map', map };
}
