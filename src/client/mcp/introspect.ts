// `scanner mcp scan --introspect` (issue 19): the tools a configured server offers, asked of the server
// itself. Only ever run by hand (the sidecar never introspects): it starts the configured command (stdio) or calls the
// configured URL (Streamable HTTP, or the older HTTP+SSE transport) with the values of its configuration file, which
// never leave the machine. What it sends: `initialize`, `notifications/initialized`, then `tools/list` (every page);
// nothing else, so no tool is ever called. Each server has a time limit; a stdio server is killed (its whole process
// group) as soon as its tools are listed, it fails, or the time is up. Tool names, descriptions and input schemas are
// passed through the shared redaction before anything is kept.
//
// A small JSON-RPC client of our own rather than @modelcontextprotocol/sdk: the SDK's client pulls in zod (and ajv
// for output schemas) and an EventSource implementation, several hundred KiB the one-file CLI would compile at every
// start, for three requests.
import type { ChildProcess } from 'node:child_process';
import { nodeChildProcess } from '../builtins';
import { redactText } from '../../shared/mcp/redact';
import { VERSION } from '../version';
import type { McpLaunch } from './servers';

export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema?: unknown;
}

export type IntrospectResult = { ok: true; tools: McpToolInfo[] } | { ok: false; error: string };

/** The MCP revision we speak; servers answer with theirs, and tools/list is the same in every revision. */
export const PROTOCOL_VERSION = '2025-06-18';
/** At most this many tools are kept per server (the upload's limit). */
export const MAX_TOOLS = 500;
const MAX_PAGES = 50;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * `${VAR}`, `${VAR:-default}` (Claude Code) and `${env:VAR}` (Cursor, VS Code) from ENV, as the agents expand them; an
 * unknown variable is empty. Anything else (`${input:...}`, `${workspaceFolder}`) is left as written.
 */
export function expandReferences(value: string, env: Record<string, string | undefined>): string {
  return value.replace(
    /\$\{(env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (whole: string, prefix: string | undefined, name: string, dflt: string | undefined) =>
      !prefix && /^(workspaceFolder|userHome|pathSeparator)$/.test(name) ? whole : (env[name] ?? dflt ?? ''),
  );
}

/** Every string of a JSON value redacted (schemas carry descriptions and defaults). */
function redactDeep(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return redactText(v);
  if (depth > 64) return null;
  if (Array.isArray(v)) return v.map((x) => redactDeep(x, depth + 1));
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(out, redactText(k), {
        value: redactDeep(x, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return v;
}

/** A tools/list entry as uploaded: name, description and inputSchema, redacted; null when it is not a tool. */
export function toolOf(raw: unknown): McpToolInfo | null {
  if (!isObject(raw) || typeof raw.name !== 'string' || raw.name === '') return null;
  const tool: McpToolInfo = { name: redactText(raw.name) };
  if (typeof raw.description === 'string') tool.description = redactText(raw.description);
  if (isObject(raw.inputSchema)) tool.inputSchema = redactDeep(raw.inputSchema);
  return tool;
}

/** One JSON-RPC conversation: send a request, get its result (or the error it answered). */
interface Channel {
  request(method: string, params: unknown): Promise<unknown>;
  notify(method: string, params?: unknown): Promise<void>;
  close(): void;
}

class RpcError extends Error {}

function resultOf(msg: Record<string, unknown>, method: string): unknown {
  if (isObject(msg.error)) {
    const e = msg.error;
    throw new RpcError(
      `${method}: error ${typeof e.code === 'number' ? e.code : ''} ${typeof e.message === 'string' ? redactText(e.message).slice(0, 200) : ''}`.trim(),
    );
  }
  return msg.result;
}

/** initialize → initialized → tools/list (all pages). */
async function listTools(ch: Channel): Promise<McpToolInfo[]> {
  const init = await ch.request('initialize', {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'scanner', version: VERSION },
  });
  if (!isObject(init)) throw new RpcError('initialize: the answer has no result');
  await ch.notify('notifications/initialized');
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await ch.request('tools/list', cursor ? { cursor } : {});
    if (!isObject(r) || !Array.isArray(r.tools)) throw new RpcError('tools/list: the answer has no tools');
    for (const t of r.tools) {
      const tool = toolOf(t);
      if (tool && tools.length < MAX_TOOLS) tools.push(tool);
    }
    cursor = typeof r.nextCursor === 'string' && r.nextCursor !== '' ? r.nextCursor : undefined;
    if (!cursor || tools.length >= MAX_TOOLS) break;
  }
  return tools;
}

// ---- stdio -------------------------------------------------------------------------------------------------------

/** Kills the child and, on POSIX, its process group (npx and uvx start the server as a grandchild). */
function kill(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (process.platform !== 'win32' && child.pid) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

function stdioChannel(
  launch: McpLaunch,
  env: Record<string, string | undefined>,
  cwd: string,
  onSpawn?: (pid: number) => void,
): Channel & { done: Promise<void> } {
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
  for (const [k, v] of Object.entries(launch.env ?? {})) childEnv[k] = expandReferences(v, env);
  const child = nodeChildProcess().spawn(
    expandReferences(launch.command ?? '', env),
    (launch.args ?? []).map((a) => expandReferences(a, env)),
    {
      env: childEnv,
      cwd,
      stdio: ['pipe', 'pipe', 'ignore'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    },
  );
  if (child.pid) onSpawn?.(child.pid);
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; method: string }>();
  let nextId = 1;
  let buffer = '';
  let failure: Error | null = null;
  const failAll = (err: Error) => {
    failure ??= err;
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  };
  child.on('error', (err) =>
    failAll(
      new Error(
        `could not start ${JSON.stringify(redactText(launch.command ?? ''))}: ${(err as NodeJS.ErrnoException).code ?? err.message}`,
      ),
    ),
  );
  const done = new Promise<void>((resolve) => child.on('close', () => resolve()));
  child.on('exit', (code, signal) =>
    failAll(new Error(`the server exited (${signal ?? `code ${code}`}) before answering`)),
  );
  child.stdin?.on('error', () => undefined);
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    buffer += chunk;
    if (buffer.length > 64 * 1024 * 1024)
      return failAll(new Error('the server wrote more than 64 MiB without a line break'));
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line) continue;
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        continue; // a log line on stdout: not ours
      }
      if (!isObject(msg) || typeof msg.id !== 'number') continue;
      const p = pending.get(msg.id);
      if (!p) continue;
      pending.delete(msg.id);
      try {
        p.resolve(resultOf(msg, p.method));
      } catch (err) {
        p.reject(err as Error);
      }
    }
  });
  const write = (msg: unknown) => {
    child.stdin?.write(`${JSON.stringify(msg)}\n`);
  };
  return {
    done,
    request(method, params) {
      if (failure) return Promise.reject(failure);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, method });
        write({ jsonrpc: '2.0', id, method, params });
      });
    },
    async notify(method, params) {
      write({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
    },
    close() {
      kill(child);
    },
  };
}

// ---- HTTP ----------------------------------------------------------------------------------------------------------

/** Server-sent events from a fetch body, one at a time. */
async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = 'message';
  let data: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.search(/\r?\n/)) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer[nl] === '\r' ? 2 : 1));
        if (line === '') {
          if (data.length > 0) yield { event, data: data.join('\n') };
          event = 'message';
          data = [];
        } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        else if (line.startsWith('event:')) event = line.slice(6).trim();
      }
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

function headersOf(launch: McpLaunch, env: Record<string, string | undefined>): Record<string, string> {
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(launch.headers ?? {})) h[k] = expandReferences(v, env);
  return h;
}

/** Streamable HTTP: each message POSTed to the URL; the answer is JSON or an event stream holding it. */
function streamableChannel(url: string, headers: Record<string, string>, signal: AbortSignal): Channel {
  let session: string | undefined;
  let nextId = 1;
  const post = async (msg: Record<string, unknown>) => {
    const res = await fetch(url, {
      method: 'POST',
      signal,
      headers: {
        ...headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL_VERSION,
        ...(session ? { 'mcp-session-id': session } : {}),
      },
      body: JSON.stringify(msg),
    });
    session = res.headers.get('mcp-session-id') ?? session;
    return res;
  };
  return {
    async request(method, params) {
      const id = nextId++;
      const res = await post({ jsonrpc: '2.0', id, method, params });
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        throw new RpcError(`${method}: HTTP ${res.status}`);
      }
      const type = res.headers.get('content-type') ?? '';
      if (type.includes('text/event-stream') && res.body) {
        for await (const ev of sseEvents(res.body)) {
          let msg: unknown;
          try {
            msg = JSON.parse(ev.data);
          } catch {
            continue;
          }
          if (isObject(msg) && msg.id === id) return resultOf(msg, method);
        }
        throw new RpcError(`${method}: the event stream ended without the answer`);
      }
      let msg: unknown;
      try {
        msg = await res.json();
      } catch {
        throw new RpcError(`${method}: the answer is not JSON`);
      }
      const one = Array.isArray(msg) ? msg.find((m) => isObject(m) && m.id === id) : msg;
      if (!isObject(one)) throw new RpcError(`${method}: the answer is not a JSON-RPC message`);
      return resultOf(one, method);
    },
    async notify(method, params) {
      const res = await post({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
      await res.body?.cancel().catch(() => undefined);
    },
    close() {
      if (session) {
        fetch(url, { method: 'DELETE', headers: { ...headers, 'mcp-session-id': session } }).then(
          (r) => r.body?.cancel().catch(() => undefined),
          () => undefined,
        );
      }
    },
  };
}

/** The older HTTP+SSE transport: a GET event stream names (event `endpoint`) where to POST; answers come on the stream. */
async function sseChannel(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<Channel> {
  const res = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' }, signal });
  if (!res.ok || !res.body) throw new RpcError(`GET: HTTP ${res.status}`);
  const events = sseEvents(res.body);
  let endpoint: string | undefined;
  for (;;) {
    const { value, done } = await events.next();
    if (done) throw new RpcError('the event stream ended before naming its endpoint');
    if (value.event === 'endpoint') {
      endpoint = new URL(value.data.trim(), url).toString();
      break;
    }
  }
  let nextId = 1;
  const send = async (msg: unknown) => {
    const r = await fetch(endpoint!, {
      method: 'POST',
      signal,
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(msg),
    });
    await r.body?.cancel().catch(() => undefined);
    if (!r.ok) throw new RpcError(`POST: HTTP ${r.status}`);
  };
  return {
    async request(method, params) {
      const id = nextId++;
      await send({ jsonrpc: '2.0', id, method, params });
      for (;;) {
        const { value, done } = await events.next();
        if (done) throw new RpcError(`${method}: the event stream ended without the answer`);
        if (value.event !== 'message') continue;
        let msg: unknown;
        try {
          msg = JSON.parse(value.data);
        } catch {
          continue;
        }
        if (isObject(msg) && msg.id === id) return resultOf(msg, method);
      }
    },
    async notify(method, params) {
      await send({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
    },
    close() {
      events.return(undefined).catch(() => undefined);
    },
  };
}

export interface IntrospectOptions {
  timeoutMs: number;
  /** The environment the configuration's `${VAR}` references are expanded from, and a stdio server inherits. */
  env: Record<string, string | undefined>;
  /** Where a stdio server is started. */
  cwd: string;
  /** Told the process id of each started server (tests). */
  onSpawn?: (pid: number) => void;
}

/** The tools of one server, or why not; never throws. Within timeoutMs; a stdio server is killed at the end. */
export async function introspect(launch: McpLaunch, opts: IntrospectOptions): Promise<IntrospectResult> {
  const controller = new AbortController();
  let channel: (Channel & { done?: Promise<void> }) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new RpcError(`no answer within ${opts.timeoutMs / 1000} s`));
    }, opts.timeoutMs);
  });
  timedOut.catch(() => undefined);
  try {
    const work = (async () => {
      if (launch.transport === 'stdio') channel = stdioChannel(launch, opts.env, opts.cwd, opts.onSpawn);
      else if (launch.transport === 'http')
        channel = streamableChannel(
          expandReferences(launch.url ?? '', opts.env),
          headersOf(launch, opts.env),
          controller.signal,
        );
      else
        channel = await sseChannel(
          expandReferences(launch.url ?? '', opts.env),
          headersOf(launch, opts.env),
          controller.signal,
        );
      return listTools(channel);
    })();
    const tools = await Promise.race([work, timedOut]);
    return { ok: true, tools };
  } catch (err) {
    const e = err as Error;
    const cause = (e as Error & { cause?: { code?: string; message?: string } }).cause;
    const message =
      e instanceof RpcError
        ? e.message
        : e.name === 'AbortError'
          ? `no answer within ${opts.timeoutMs / 1000} s`
          : `${e.message ?? String(e)}${cause ? ` (${cause.code ?? cause.message ?? ''})` : ''}`;
    return { ok: false, error: redactText(message) };
  } finally {
    clearTimeout(timer);
    controller.abort();
    channel?.close();
    // A killed stdio server is waited for (bounded), so nothing it started outlives the scan.
    if (channel?.done) await Promise.race([channel.done, new Promise((r) => setTimeout(r, 2000).unref())]);
  }
}
