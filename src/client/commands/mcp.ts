// `scanner mcp scan` and `scanner mcp hook` (issue 19).
// - scan: the MCP servers configured on this machine (src/client/mcp), uploaded to POST /v1/mcp/scans. Starts nothing
//   unless --introspect is given by hand (the sidecar's periodic scan never passes it).
// - hook: an agent's pre-tool hook (Claude Code PreToolUse, Cursor beforeMCPExecution): one `pre` usage event to POST
//   /v1/mcp/usage-events, and the service's decision as the agent's answer (src/client/mcp/hook.ts).
import fs from 'node:fs';
import os from 'node:os';
import { parse } from '../args';
import { nodeCrypto } from '../builtins';
import { Http } from '../api/http';
import { closeConnections } from '../api/transport';
import { EXIT, InputError, ServiceError } from '../errors';
import type { Io } from '../io';
import { VERSION } from '../version';
import { discoverMcpConfigs, type McpDiscoveryEnv } from '../mcp/discover';
import {
  answer,
  candidates,
  passthrough,
  readHookInput,
  resolveCall,
  type Decision,
  type FailMode,
  type HookClient,
} from '../mcp/hook';
import { collectMcp, countServers, discoveryEnvOf, foundLines, MCP_SCAN_LIMITS, type McpHostRef } from '../mcp/scan';
import type { McpLaunch } from '../mcp/servers';
import type { McpServerConfig } from '../../shared/mcp/types';

export const MCP_HELP = `usage:
  scanner mcp scan [--server URL] [--host-id ID | --hostname NAME] [--introspect] [--timeout S] [--dry-run]
                   [--format table|json]
      find the MCP servers configured on this machine (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf,
      Gemini CLI, Codex: user, managed and this directory's project files) and upload them to POST /v1/mcp/scans.
      Secrets never leave the machine: of env and headers only the names are sent, args and URLs are redacted.
      --host-id ID      report for this host (hst_..., an active host of the organization)
      --hostname NAME   report under this name (default: this machine's hostname); it never creates a host
      --introspect      also START each configured server (stdio: its command, with the env of its configuration
                        file; http/sse: its URL) and list its tools (initialize + tools/list; no tool is called);
                        the descriptions and schemas are redacted before upload. A server that fails or does not
                        answer within --timeout is reported and skipped; a started server is killed afterwards.
                        Never done unless given here by hand (the sidecar never does it)
      --timeout S       per server, with --introspect (default 10); the upload has 60 s
      --dry-run         print the body it would send (stdout) and upload nothing (no credential needed)
      --format          table (default): what was found and the scan id; json: {scan, clients, warnings}
      environment: SCANNER_URL, SCANNER_TOKEN (an API key with mcp:upload)
      exit codes: 0 uploaded (or --dry-run); 2 usage or input error (bad flag, a body the service refused with
      400/413/422); 3 service error (unreachable after retries, 401/403, 5xx)

  scanner mcp hook --client claude-code|cursor [--fail open|closed] [--timeout S] [--server URL]
                   [--host-id ID | --hostname NAME]
      an agent's pre-tool hook: reads the hook input (JSON) on stdin, finds the MCP server the call goes to in
      the agent's configuration for the input's directory, sends one "pre" usage event to POST /v1/mcp/usage-events
      (never the tool's arguments) and writes the service's decision as the agent's answer on stdout (exit 0):
        Claude Code (PreToolUse): block → permissionDecision "deny" with the reason; warn → "ask" with the reason
          (you see it in the permission prompt and decide); allow → no decision ({}), so Claude Code's own permission
          rules and prompts apply as without the hook. Tools that are not MCP tools pass through at once ({}).
        Cursor (beforeMCPExecution): allow → {"permission":"allow"}, warn → "ask", block → "deny", with the reason.
      --fail open|closed  when no decision comes within --timeout (service unreachable, 5xx, 401/403, no
                          SCANNER_TOKEN, unreadable input): open (default) allows the call with a message saying
                          why; closed denies it
      --timeout S         for the whole exchange with the service (default 5)
      environment: SCANNER_URL, SCANNER_TOKEN (an API key with mcp:upload)
      exit codes: 0 an answer was written (whatever the decision); 2 usage error (bad flag)`;

const SCAN_OPTIONS = {
  server: { type: 'string' },
  'host-id': { type: 'string' },
  hostname: { type: 'string' },
  introspect: { type: 'boolean' },
  timeout: { type: 'string' },
  'dry-run': { type: 'boolean' },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const HOOK_OPTIONS = {
  client: { type: 'string' },
  fail: { type: 'string' },
  timeout: { type: 'string' },
  server: { type: 'string' },
  'host-id': { type: 'string' },
  hostname: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** What tests (and only tests) replace. */
export interface McpHooks {
  discoveryEnv?: Partial<McpDiscoveryEnv>;
  readStdin?: () => string;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  onSpawn?: (pid: number) => void;
  hostname?: () => string;
}

function seconds(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new InputError(`--${flag} ${JSON.stringify(value)}: a number of seconds above 0`);
  return n;
}

function server(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const s = flag ?? (env.SCANNER_URL || undefined);
  if (!s) throw new InputError('no service: pass --server URL or set SCANNER_URL');
  if (!/^https?:\/\/[^/]/i.test(s)) throw new InputError(`--server ${JSON.stringify(s)}: an http(s) URL`);
  return s;
}

function hostRef(values: { 'host-id'?: string; hostname?: string }, hooks: McpHooks): McpHostRef {
  if (values['host-id'] !== undefined && values.hostname !== undefined)
    throw new InputError('--host-id and --hostname: give one of them');
  if (values['host-id'] !== undefined) {
    if (!/^hst_[A-Za-z0-9_-]{1,200}$/.test(values['host-id']))
      throw new InputError(`--host-id ${JSON.stringify(values['host-id'])}: a host id (hst_...)`);
    return { hostId: values['host-id'] };
  }
  const name = values.hostname ?? (hooks.hostname ?? os.hostname)();
  if (name.length < 1 || name.length > 253)
    throw new InputError(`--hostname ${JSON.stringify(name)}: 1 to 253 characters`);
  return { hostname: name };
}

/** SCANNER_MAX_ATTEMPTS and SCANNER_RETRY_BASE_MS, read as `scanner scan` reads them. */
function retryTuning(env: NodeJS.ProcessEnv): { maxAttempts?: number; baseDelayMs?: number } {
  const int = (name: string, min: number): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    if (!/^\d+$/.test(v) || Number(v) < min)
      throw new InputError(`${name}=${JSON.stringify(v)}: a whole number of at least ${min}`);
    return Number(v);
  };
  return { maxAttempts: int('SCANNER_MAX_ATTEMPTS', 1), baseDelayMs: int('SCANNER_RETRY_BASE_MS', 0) };
}

export async function mcpCommand(args: string[], io: Io, hooks: McpHooks = {}): Promise<number> {
  const [sub, ...rest] = args;
  try {
    switch (sub) {
      case 'scan':
        return await scanCommand(rest, io, hooks);
      case 'hook':
        return await hookCommand(rest, io, hooks);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(`${MCP_HELP}\n`);
        return sub === undefined ? EXIT.input : EXIT.ok;
      default:
        throw new InputError(`unknown subcommand "mcp ${sub}"\n${MCP_HELP}`);
    }
  } finally {
    closeConnections();
  }
}

async function scanCommand(args: string[], io: Io, hooks: McpHooks): Promise<number> {
  const { values, positionals } = parse(args, SCAN_OPTIONS);
  if (values.help) {
    io.out(`${MCP_HELP}\n`);
    return EXIT.ok;
  }
  if (positionals.length)
    throw new InputError(`scanner mcp scan takes no arguments (got ${JSON.stringify(positionals[0])})`);
  const format = values.format ?? 'table';
  if (format !== 'table' && format !== 'json')
    throw new InputError(`--format ${JSON.stringify(format)}: expected one of table, json`);
  const timeoutS = seconds('timeout', values.timeout, 10);
  if (values.timeout !== undefined && !values.introspect)
    throw new InputError('--timeout is the time limit of each server with --introspect: give --introspect too');
  const host = hostRef(values, hooks);
  const dryRun = Boolean(values['dry-run']);
  // Checked before anything is read or started: a run that cannot upload stops here.
  const url = dryRun ? undefined : server(values.server, io.env);
  const token = io.env.SCANNER_TOKEN;
  if (!dryRun && !token) throw new InputError('no credential: set SCANNER_TOKEN to an API key with mcp:upload');

  const collected = await collectMcp(discoveryEnvOf(io, hooks.discoveryEnv), {
    host,
    now: (hooks.now ?? (() => new Date()))(),
    introspect: values.introspect
      ? {
          timeoutMs: timeoutS * 1000,
          env: io.env,
          cwd: io.cwd,
          onSpawn: hooks.onSpawn,
          onServer: (o) =>
            io.err(
              `scanner: introspected ${o.server} (${o.configPath}): ${o.error !== undefined ? `skipped: ${o.error}` : `${o.tools} tool${o.tools === 1 ? '' : 's'}`}\n`,
            ),
        }
      : undefined,
  });
  for (const w of collected.warnings) io.err(`scanner: warning: ${w.client} ${w.configPath}: ${w.message}\n`);
  for (const t of collected.truncated) io.err(`scanner: warning: ${t}\n`);
  const body = JSON.stringify(collected.body);
  if (Buffer.byteLength(body, 'utf8') > MCP_SCAN_LIMITS.bodyBytes) {
    throw new InputError(
      `the scan is ${Buffer.byteLength(body, 'utf8')} bytes, over the service's limit of ${MCP_SCAN_LIMITS.bodyBytes}${values.introspect ? ' (the tools of --introspect make most of it: try without)' : ''}`,
    );
  }
  if (dryRun) {
    io.out(`${JSON.stringify(collected.body, null, 2)}\n`);
    io.err(
      `scanner: --dry-run: ${collected.body.clients.length} configuration file(s), ${countServers(collected.body)} server(s); nothing uploaded\n`,
    );
    return EXIT.ok;
  }

  const http = new Http({
    server: url!,
    token: token!,
    userAgent: `scanner/${VERSION} node/${process.versions.node}`,
    deadline: Date.now() + 60_000,
    ...retryTuning(io.env),
    onRetry: (msg) => io.err(`scanner: ${msg}\n`),
    sleep: hooks.sleep,
    random: hooks.random,
  });
  const res = await http.request<{ id?: unknown; status?: unknown; hostId?: unknown; receivedAt?: unknown }>(
    'POST',
    '/v1/mcp/scans',
    { body, inputErrorStatuses: [400, 413, 422] },
  );
  if (res.status !== 201 || typeof res.body.id !== 'string')
    throw new ServiceError(
      `POST /v1/mcp/scans: answered ${res.status} without a scan id: is ${url} the scanning service?`,
    );
  const scan = {
    id: res.body.id,
    status: res.body.status,
    hostId: res.body.hostId ?? null,
    receivedAt: res.body.receivedAt,
  };
  if (format === 'json') {
    const clients = collected.body.clients.map((c) => ({
      ...c,
      servers: c.servers.map((s) => ({ ...s, tools: s.tools?.map((t) => t.name) })),
    }));
    io.out(
      `${JSON.stringify({ scan, clients, warnings: collected.warnings, introspection: values.introspect ? collected.introspection : undefined }, null, 2)}\n`,
    );
  } else {
    io.out(`${foundLines(collected.body).join('\n')}\n`);
    io.out(
      `MCP scan ${scan.id} (${String(scan.status ?? 'queued')}): ${collected.body.clients.length} configuration file(s), ${countServers(collected.body)} server(s)\n`,
    );
  }
  return EXIT.ok;
}

async function hookCommand(args: string[], io: Io, hooks: McpHooks): Promise<number> {
  const { values, positionals } = parse(args, HOOK_OPTIONS);
  if (values.help) {
    io.out(`${MCP_HELP}\n`);
    return EXIT.ok;
  }
  if (positionals.length)
    throw new InputError(`scanner mcp hook takes no arguments (got ${JSON.stringify(positionals[0])})`);
  const client = values.client;
  if (client !== 'claude-code' && client !== 'cursor')
    throw new InputError(
      `--client ${client === undefined ? 'is required' : JSON.stringify(client)}: claude-code or cursor`,
    );
  const mode = (values.fail ?? 'open') as FailMode;
  if (mode !== 'open' && mode !== 'closed')
    throw new InputError(`--fail ${JSON.stringify(values.fail)}: open or closed`);
  const timeoutS = seconds('timeout', values.timeout, 5);
  const host = hostRef(values, hooks);
  const write = (o: Record<string, unknown>) => {
    io.out(`${JSON.stringify(o)}\n`);
    return EXIT.ok;
  };
  const fail = (why: string) => {
    io.err(`scanner: mcp hook: ${why}\n`);
    return write(answer(client, { failed: why, mode }));
  };

  let call;
  try {
    call = readHookInput(client, (hooks.readStdin ?? (() => fs.readFileSync(0, 'utf8')))(), io.cwd);
  } catch (err) {
    return fail((err as Error).message);
  }
  if (call.kind === 'passthrough') return write(passthrough(client));

  let url: string;
  try {
    url = server(values.server, io.env);
  } catch (err) {
    return fail((err as Error).message);
  }
  const token = io.env.SCANNER_TOKEN;
  if (!token) return fail('no credential: SCANNER_TOKEN is not set');

  const deadline = Date.now() + timeoutS * 1000;
  const env = discoveryEnvOf(io, { cwd: call.dir, knownProjects: false, ...hooks.discoveryEnv });
  const launches = new Map<McpServerConfig, McpLaunch>();
  const found = await discoverMcpConfigs(env, { launches, only: [client] });
  const target = resolveCall(call, candidates(client, found.clients, launches, call.dir, env.home));
  const event = {
    eventId: nodeCrypto().randomUUID(),
    occurredAt: (hooks.now ?? (() => new Date()))().toISOString(),
    host,
    client,
    server: target.server,
    tool: target.tool,
    phase: 'pre',
  };
  const http = new Http({
    server: url,
    token,
    userAgent: `scanner/${VERSION} node/${process.versions.node}`,
    deadline,
    maxAttempts: 3,
    baseDelayMs: 200,
    maxDelayMs: 1000,
    sleep: hooks.sleep,
    random: hooks.random,
  });
  try {
    const res = await http.request<{ decisions?: Array<{ eventId?: unknown; decision?: unknown; reason?: unknown }> }>(
      'POST',
      '/v1/mcp/usage-events',
      {
        body: JSON.stringify({ events: [event] }),
        attemptTimeoutMs: Math.max(1, deadline - Date.now()),
      },
    );
    const d = res.body.decisions?.find((x) => x.eventId === event.eventId) ?? res.body.decisions?.[0];
    const decision = d?.decision;
    if (decision !== 'allow' && decision !== 'warn' && decision !== 'block')
      return fail(`the service answered without a decision for the event`);
    if (decision !== 'allow')
      io.err(
        `scanner: mcp hook: ${target.server.name}/${target.tool}: ${decision}${typeof d?.reason === 'string' ? `: ${d.reason}` : ''}\n`,
      );
    return write(
      answer(client, { decision: decision as Decision, reason: typeof d?.reason === 'string' ? d.reason : '' }),
    );
  } catch (err) {
    if (err instanceof InputError || err instanceof ServiceError) return fail(err.message);
    throw err;
  }
}
