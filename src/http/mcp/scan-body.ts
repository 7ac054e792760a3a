// POST /v1/mcp/scans: the body read, checked and redacted before anything is stored. Of env and
// headers only the names are kept; name, command, args and url pass through the shared redaction
// (src/shared/mcp/redact.ts, the function the CLI uses too); tool names, descriptions and every string of an
// inputSchema through redactText. What was literal or redacted is listed in the server's `secrets` (`env:NAME`,
// `header:NAME`, `name`, `command`, `args`, `url`), so secret_in_config needs no value later. Unknown fields are
// ignored (as everywhere in the API) and never stored: the stored document is built field by field.
import { invalidParameter } from '../../domain/errors';
import { REDACTED, redactServer, redactText } from '../../shared/mcp/redact';
import { MCP_CLIENTS } from '../../shared/mcp/types';
import type { McpStoredClient, McpStoredServer, McpStoredTool } from '../../storage/documents/mcp';
import { arr, dateTime, depthOf, hostRef, isObj, obj, oneOf, reqStr, str, type HostRef, type Obj } from './fields';

export const MCP_LIMITS = {
  clients: 100,
  serversPerClient: 200,
  toolsPerServer: 500,
  configPath: 4096,
  name: 500,
  command: 4096,
  args: 1000,
  arg: 16_384,
  url: 8192,
  namedValues: 500,
  valueName: 256,
  value: 16_384,
  toolName: 500,
  description: 65_536,
  schemaDepth: 64,
} as const;

export const SCOPES = ['user', 'project', 'managed'] as const;
export const TRANSPORTS = ['stdio', 'http', 'sse'] as const;

export interface ScanBody {
  host: HostRef | null;
  scannedAt: Date | null;
  clients: McpStoredClient[];
}

/** env or headers: names of 1..256 characters, values strings (or scalars: a literal all the same), at most 500. */
function namedValues(v: unknown, path: string): Record<string, string> | undefined {
  const o = obj(v, path, false);
  if (!o) return undefined;
  const entries = Object.entries(o);
  if (entries.length > MCP_LIMITS.namedValues)
    throw invalidParameter(path, `at most ${MCP_LIMITS.namedValues} entries`);
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (name.length === 0 || name.length > MCP_LIMITS.valueName)
      throw invalidParameter(path, `names of 1 to ${MCP_LIMITS.valueName} characters`);
    if (value !== null && typeof value === 'object')
      throw invalidParameter(`${path}.${name.slice(0, 100)}`, 'must be a string');
    const text = value === null ? '' : String(value);
    if (text.length > MCP_LIMITS.value)
      throw invalidParameter(`${path}.${name.slice(0, 100)}`, `at most ${MCP_LIMITS.value} characters`);
    out[name] = text;
  }
  return out;
}

/** Every string of a JSON value through redactText (keys kept); depth already bounded. */
function redactDeep(v: unknown): unknown {
  if (typeof v === 'string') return redactText(v);
  if (Array.isArray(v)) return v.map(redactDeep);
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, redactDeep(x)]));
  return v;
}

function tool(v: unknown, path: string): McpStoredTool {
  const o = obj(v, path)!;
  const name = reqStr(o.name, `${path}.name`, MCP_LIMITS.toolName);
  const description = str(o.description, `${path}.description`, { max: MCP_LIMITS.description, min: 0 });
  let inputSchema: string | null = null;
  if (o.inputSchema !== undefined && o.inputSchema !== null) {
    if (!isObj(o.inputSchema)) throw invalidParameter(`${path}.inputSchema`, 'must be an object');
    if (depthOf(o.inputSchema) > MCP_LIMITS.schemaDepth)
      throw invalidParameter(`${path}.inputSchema`, `nested at most ${MCP_LIMITS.schemaDepth} deep`);
    // stored as JSON text: FerretDB refuses field names starting with `$` or holding `.` (storage/mcp-scans.ts)
    inputSchema = JSON.stringify(redactDeep(o.inputSchema));
  }
  return { name: redactText(name), description: description === null ? null : redactText(description), inputSchema };
}

function server(v: unknown, path: string): McpStoredServer {
  const o = obj(v, path)!;
  const name = reqStr(o.name, `${path}.name`, MCP_LIMITS.name);
  const transport = oneOf(o.transport, `${path}.transport`, TRANSPORTS);
  const command = str(o.command, `${path}.command`, { max: MCP_LIMITS.command, min: 0 });
  const argList = arr(o.args, `${path}.args`, { max: MCP_LIMITS.args });
  const args = (argList ?? []).map((a, i) => {
    if (typeof a !== 'string') throw invalidParameter(`${path}.args[${i}]`, 'must be a string');
    if (a.length > MCP_LIMITS.arg) throw invalidParameter(`${path}.args[${i}]`, `at most ${MCP_LIMITS.arg} characters`);
    return a;
  });
  const url = str(o.url, `${path}.url`, { max: MCP_LIMITS.url, min: 0 });
  const env = namedValues(o.env, `${path}.env`);
  const headers = namedValues(o.headers, `${path}.headers`);
  const toolList = arr(o.tools, `${path}.tools`, { max: MCP_LIMITS.toolsPerServer });
  const tools = toolList ? toolList.map((t, i) => tool(t, `${path}.tools[${i}]`)) : null;

  const r = redactServer({ name, command: command ?? undefined, args, url: url ?? undefined, env, headers });
  const s = r.server;
  const secrets: string[] = [];
  if (s.name?.includes(REDACTED)) secrets.push('name');
  if (s.command?.includes(REDACTED)) secrets.push('command');
  if (s.args?.some((a) => a.includes(REDACTED))) secrets.push('args');
  if (s.url?.includes(REDACTED)) secrets.push('url');
  for (const n of r.literalEnv) secrets.push(`env:${n}`);
  for (const n of r.literalHeaders) secrets.push(`header:${n}`);
  return {
    name: s.name ?? name,
    transport,
    command: command === null ? null : (s.command ?? null),
    args: s.args ?? [],
    url: url === null ? null : (s.url ?? null),
    envNames: Object.keys(s.env ?? {}),
    headerNames: Object.keys(s.headers ?? {}),
    secrets,
    tools,
  };
}

function client(v: unknown, path: string): McpStoredClient {
  const o = obj(v, path)!;
  const servers = arr(o.servers, `${path}.servers`, { max: MCP_LIMITS.serversPerClient, required: true })!;
  return {
    client: oneOf(o.client, `${path}.client`, MCP_CLIENTS),
    configPath: redactText(reqStr(o.configPath, `${path}.configPath`, MCP_LIMITS.configPath)),
    scope: oneOf(o.scope, `${path}.scope`, SCOPES),
    servers: servers.map((s, i) => server(s, `${path}.servers[${i}]`)),
  };
}

/** The body of POST /v1/mcp/scans, redacted. `host` may be left out with a host credential only (checked by the route). */
export function parseScanBody(body: Obj): ScanBody {
  const host = body.host === undefined || body.host === null ? null : hostRef(body.host, 'host');
  const scannedAt = dateTime(body.scannedAt, 'scannedAt', false);
  const clients = arr(body.clients, 'clients', { max: MCP_LIMITS.clients, required: true })!;
  return { host, scannedAt, clients: clients.map((c, i) => client(c, `clients[${i}]`)) };
}
