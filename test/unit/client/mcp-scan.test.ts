// `scanner mcp scan` (issue 19) in-process against a local stand-in for POST /v1/mcp/scans: the body's
// shape (host, clients, configPath, servers), no planted secret (test/fixtures/mcp/SECRETS.json) in the body or in
// anything printed, --dry-run, retries with Retry-After, exit codes, and --introspect: over stdio with the fixture
// server test/fixtures/mcp/servers/stdio-server.mjs (the configuration's env reaches it, its tools are redacted, a
// hanging server is killed at its time limit and the others still listed), over Streamable HTTP (JSON and event-stream
// answers) and the older HTTP+SSE transport; without --introspect nothing is ever started.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { mcpCommand, type McpHooks } from '../../../src/client/commands/mcp';
import type { Io } from '../../../src/client/io';
import { REDACTED } from '../../../src/shared/mcp/redact';

const FIXTURES = path.resolve(__dirname, '../../fixtures/mcp');
const SECRETS: string[] = Object.values(JSON.parse(fs.readFileSync(path.join(FIXTURES, 'SECRETS.json'), 'utf8')));
const SERVER_JS = path.join(FIXTURES, 'servers', 'stdio-server.mjs');
const TOKEN = 'svc_key_mcpScanTESTtoken0001';
const TOOL_SECRET = 'ghp_Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8Vb7';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}
type Reply = { status: number; body?: unknown; headers?: Record<string, string> };

let service: http.Server;
let url: string;
let seen: Seen[];
let replies: Reply[];
let tmp: string;
let home: string;
let cwd: string;

beforeAll(async () => {
  service = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: raw ? JSON.parse(raw) : undefined,
      });
      const r = replies.shift() ?? {
        status: 201,
        body: { id: 'mcs_1', status: 'queued', hostId: null, receivedAt: '2026-11-24T00:00:00.000Z' },
      };
      res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
      res.end(JSON.stringify(r.body ?? { error: { code: 'x', message: 'x', requestId: 'r' } }));
    });
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => service.close(() => r())));

beforeEach(() => {
  seen = [];
  replies = [];
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-scan-'));
  home = path.join(tmp, 'home');
  cwd = path.join(tmp, 'project');
  fs.mkdirSync(home);
  fs.mkdirSync(cwd);
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? files(path.join(dir, d.name)) : [path.join(dir, d.name)]));
}

/** Copies fixture trees into DEST, the fixtures' /home/dev written as this test's home. */
function place(dest: string, ...trees: string[]): void {
  for (const tree of trees) fs.cpSync(path.join(FIXTURES, tree), dest, { recursive: true });
  for (const f of files(dest)) fs.writeFileSync(f, fs.readFileSync(f, 'utf8').split('/home/dev').join(home));
}

function write(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
}

interface Run {
  code: number;
  out: string;
  err: string;
  delays: number[];
  pids: number[];
}

async function run(args: string[], opts: { env?: NodeJS.ProcessEnv; hooks?: McpHooks } = {}): Promise<Run> {
  let out = '';
  let err = '';
  const delays: number[] = [];
  const pids: number[] = [];
  const io: Io = {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    env: { HOME: home, PATH: process.env.PATH, SCANNER_URL: url, SCANNER_TOKEN: TOKEN, ...opts.env },
    cwd,
    stdoutIsTTY: false,
    stderrIsTTY: false,
  };
  const hooks: McpHooks = {
    discoveryEnv: { platform: 'linux', systemRoot: path.join(tmp, 'root') },
    sleep: async (ms) => void delays.push(ms),
    random: () => 0.5,
    hostname: () => 'dev-laptop.example',
    now: () => new Date('2026-11-24T01:00:00.000Z'),
    onSpawn: (pid) => pids.push(pid),
    ...opts.hooks,
  };
  const code = await mcpCommand(args, io, hooks).catch((e: Error & { exitCode?: number }) => {
    err += `scanner: ${e.message}\n`;
    return e.exitCode ?? 99;
  });
  return { code, out, err, delays, pids };
}

const leaked = (text: string) => [...SECRETS, TOOL_SECRET, TOKEN].filter((s) => text.includes(s));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('uploads what it found (host by hostname, each file with its servers), never a planted secret; prints the files, servers and scan id', async () => {
  place(home, 'cursor/home', 'claude-code/linux/home', 'windsurf/home');
  const r = await run(['scan']);
  expect(r.code).toBe(0);
  expect(seen).toHaveLength(1);
  const [req] = seen;
  expect(req).toMatchObject({
    method: 'POST',
    url: '/v1/mcp/scans',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
  });
  expect(req.body.host).toEqual({ hostname: 'dev-laptop.example' });
  expect(req.body.scannedAt).toBe('2026-11-24T01:00:00.000Z');
  const cursor = req.body.clients.find((c: any) => c.configPath === '~/.cursor/mcp.json');
  expect(cursor).toMatchObject({ client: 'cursor', scope: 'user' });
  expect(cursor.servers.map((s: any) => s.name).sort()).toEqual(
    expect.arrayContaining(['context7', 'custom', 'remote-docs', 'slack']),
  );
  const slack = cursor.servers.find((s: any) => s.name === 'slack');
  expect(slack).toMatchObject({
    transport: 'stdio',
    command: 'npx',
    args: ['-y', '@modelcontextprotocol/server-slack'],
    env: { SLACK_BOT_TOKEN: REDACTED },
  });
  expect(slack.tools).toBeUndefined();
  expect(req.body.clients.map((c: any) => c.client)).toEqual(
    expect.arrayContaining(['cursor', 'claude-code', 'windsurf']),
  );
  for (const c of req.body.clients) expect(Object.keys(c).sort()).toEqual(['client', 'configPath', 'scope', 'servers']);
  expect(leaked(JSON.stringify(req.body))).toEqual([]);
  expect(leaked(r.out + r.err)).toEqual([]);
  expect(r.out).toMatch(/^cursor ~\/\.cursor\/mcp\.json \(user\): \d+ servers$/m);
  expect(r.out).toMatch(/^ {2}slack \[stdio\] npx -y @modelcontextprotocol\/server-slack$/m);
  expect(r.out).toMatch(/^MCP scan mcs_1 \(queued\): \d+ configuration file\(s\), \d+ server\(s\)$/m);
});

test('--host-id names the host; --format json prints {scan, clients, warnings}; a broken file is a warning, not a failure', async () => {
  place(home, 'cursor/home');
  write(path.join(cwd, '.mcp.json'), { mcpServers: { local: { command: 'node', args: ['x.js'] } } });
  fs.mkdirSync(path.join(cwd, '.cursor'));
  fs.writeFileSync(path.join(cwd, '.cursor', 'mcp.json'), '{ "mcpServers": { "a": ');
  replies = [
    { status: 201, body: { id: 'mcs_2', status: 'queued', hostId: 'hst_abc', receivedAt: '2026-11-24T01:00:01.000Z' } },
  ];
  const r = await run(['scan', '--host-id', 'hst_abc', '--format', 'json']);
  expect(r.code).toBe(0);
  expect(seen[0].body.host).toEqual({ hostId: 'hst_abc' });
  const printed = JSON.parse(r.out);
  expect(printed.scan).toEqual({
    id: 'mcs_2',
    status: 'queued',
    hostId: 'hst_abc',
    receivedAt: '2026-11-24T01:00:01.000Z',
  });
  expect(
    printed.clients.find((c: any) => c.configPath === './.mcp.json' || c.configPath.endsWith('project/.mcp.json')),
  ).toMatchObject({ client: 'claude-code', scope: 'project' });
  expect(printed.warnings).toEqual([
    expect.objectContaining({ client: 'cursor', message: expect.stringMatching(/^not valid JSON/) }),
  ]);
  expect(r.err).toMatch(/scanner: warning: cursor .*\.cursor\/mcp\.json: not valid JSON/);
  expect(leaked(r.out + r.err + JSON.stringify(seen.map((s) => s.body)))).toEqual([]);
});

test('--dry-run prints the body it would send and uploads nothing (no credential needed)', async () => {
  place(home, 'cursor/home');
  const r = await run(['scan', '--dry-run'], { env: { SCANNER_TOKEN: undefined, SCANNER_URL: undefined } });
  expect(r.code).toBe(0);
  expect(seen).toEqual([]);
  const body = JSON.parse(r.out);
  expect(body).toEqual({
    host: { hostname: 'dev-laptop.example' },
    scannedAt: '2026-11-24T01:00:00.000Z',
    clients: [expect.objectContaining({ client: 'cursor', configPath: '~/.cursor/mcp.json' })],
  });
  expect(r.err).toMatch(/--dry-run: 1 configuration file\(s\), \d+ server\(s\); nothing uploaded/);
  expect(leaked(r.out + r.err)).toEqual([]);
});

test('429 and 5xx are retried with backoff, never sooner than Retry-After; then 201', async () => {
  replies = [
    { status: 503, headers: { 'retry-after': '7' } },
    { status: 429, headers: { 'retry-after': '2' } },
  ];
  const r = await run(['scan']);
  expect(r.code).toBe(0);
  expect(seen.map((s) => s.url)).toEqual(['/v1/mcp/scans', '/v1/mcp/scans', '/v1/mcp/scans']);
  expect(r.delays).toHaveLength(2);
  expect(r.delays[0]).toBeGreaterThanOrEqual(7000);
  expect(r.delays[1]).toBeGreaterThanOrEqual(2000);
  // The same body each time.
  expect(new Set(seen.map((s) => JSON.stringify(s.body))).size).toBe(1);
  expect(r.err).toMatch(/retrying in/);
});

test.each([
  [422, 2],
  [413, 2],
  [400, 2],
  [401, 3],
  [403, 3],
])('the service answering %i: exit %i', async (status, exit) => {
  replies = [{ status, body: { error: { code: 'some_code', message: 'refused', requestId: 'r' } } }];
  const r = await run(['scan']);
  expect(r.code).toBe(exit);
  expect(seen).toHaveLength(1);
  expect(r.err).toMatch(new RegExp(`${status} some_code`));
});

test('5xx until attempts run out: exit 3; unreachable: exit 3; usage errors: exit 2 before anything is read or sent', async () => {
  replies = [{ status: 500 }, { status: 500 }];
  expect((await run(['scan'], { env: { SCANNER_MAX_ATTEMPTS: '2' } })).code).toBe(3);
  expect(seen).toHaveLength(2);
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const away = await run(['scan', '--server', `http://127.0.0.1:${port}`], { env: { SCANNER_MAX_ATTEMPTS: '2' } });
  expect(away.code).toBe(3);
  expect(away.err).toMatch(/gave up after 2 attempts/);
  seen = [];
  for (const args of [
    ['scan', '--format', 'sarif'],
    ['scan', '--host-id', 'hst_1', '--hostname', 'x'],
    ['scan', '--host-id', 'nope'],
    ['scan', '--timeout', '5'],
    ['scan', '--introspect', '--timeout', '0'],
    ['scan', 'extra'],
    ['scan', '--bogus'],
    ['nothing'],
  ]) {
    expect([args, (await run(args)).code]).toEqual([args, 2]);
  }
  expect((await run(['scan'], { env: { SCANNER_TOKEN: undefined } })).code).toBe(2);
  expect((await run(['scan'], { env: { SCANNER_URL: undefined } })).code).toBe(2);
  expect(seen).toEqual([]);
});

/** A configuration (Claude Code's .mcp.json in the project) of fixture servers, each with its env. */
function stdioConfig(servers: Record<string, Record<string, string>>): void {
  const mcpServers: Record<string, unknown> = {};
  for (const [name, env] of Object.entries(servers))
    mcpServers[name] = { command: process.execPath, args: [SERVER_JS], env };
  write(path.join(cwd, '.mcp.json'), { mcpServers });
}

test('without --introspect no configured command is ever started', async () => {
  const marker = path.join(tmp, 'started');
  stdioConfig({ fixture: { FIXTURE_MARKER: marker } });
  const r = await run(['scan']);
  expect(r.code).toBe(0);
  expect(r.pids).toEqual([]);
  expect(fs.existsSync(marker)).toBe(false);
  expect(seen[0].body.clients[0].servers[0].tools).toBeUndefined();
});

test('--introspect over stdio: tools of every page, the configuration env given to the server (never uploaded), descriptions and schemas redacted; the server is gone afterwards', async () => {
  const pidFile = path.join(tmp, 'pid');
  stdioConfig({
    fixture: {
      FIXTURE_GREETING: 'hello-from-config',
      FIXTURE_SECRET: TOOL_SECRET,
      FIXTURE_PID_FILE: pidFile,
      FIXTURE_REF: '${HOME}',
    },
  });
  const r = await run(['scan', '--introspect']);
  expect(r.code).toBe(0);
  const server = seen[0].body.clients[0].servers[0];
  expect(server.env).toEqual({
    FIXTURE_GREETING: REDACTED,
    FIXTURE_SECRET: REDACTED,
    FIXTURE_PID_FILE: REDACTED,
    FIXTURE_REF: '${HOME}',
  });
  expect(server.tools.map((t: any) => t.name)).toEqual(['greet', 'query', 'third']);
  expect(server.tools[0]).toEqual({
    name: 'greet',
    description: 'Says hello-from-config',
    inputSchema: { type: 'object', properties: { who: { type: 'string' } } },
  });
  expect(server.tools[1].description).toBe(`Runs a query. Uses key ${REDACTED} for access.`);
  expect(server.tools[1].inputSchema.properties.sql.default).toBe(`token=${REDACTED}`);
  expect(leaked(JSON.stringify(seen.map((s) => s.body)) + r.out + r.err)).toEqual([]);
  expect(r.err).toMatch(/introspected fixture \(.*\.mcp\.json\): 3 tools/);
  expect(r.out).toMatch(/fixture \[stdio\] .* · 3 tools/);
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  expect(r.pids).toHaveLength(1);
  expect(alive(pid)).toBe(false);
});

test('--introspect: a server that hangs is killed at --timeout and reported, one that exits or cannot start is reported; the others are still listed', async () => {
  const pidFile = path.join(tmp, 'hang-pid');
  stdioConfig({
    hangs: { FIXTURE_MODE: 'hang', FIXTURE_PID_FILE: pidFile },
    exits: { FIXTURE_MODE: 'exit' },
    works: {},
  });
  const mcp = JSON.parse(fs.readFileSync(path.join(cwd, '.mcp.json'), 'utf8'));
  mcp.mcpServers.missing = { command: path.join(tmp, 'no-such-program') };
  write(path.join(cwd, '.mcp.json'), mcp);
  const r = await run(['scan', '--introspect', '--timeout', '1']);
  expect(r.code).toBe(0);
  const servers = Object.fromEntries(seen[0].body.clients[0].servers.map((s: any) => [s.name, s]));
  expect(servers.hangs.tools).toBeUndefined();
  expect(servers.exits.tools).toBeUndefined();
  expect(servers.missing.tools).toBeUndefined();
  expect(servers.works.tools.map((t: any) => t.name)).toEqual(['greet', 'query', 'third']);
  expect(r.err).toMatch(/introspected hangs .*: skipped: no answer within 1 s/);
  expect(r.err).toMatch(/introspected exits .*: skipped: the server exited \(code 3\) before answering/);
  expect(r.err).toMatch(/introspected missing .*: skipped: could not start .*ENOENT/);
  expect(alive(Number(fs.readFileSync(pidFile, 'utf8')))).toBe(false);
});

/** A Streamable HTTP MCP server (answers as JSON, or as an event stream) and an old-style HTTP+SSE one. */
async function mcpHttpServer(): Promise<{
  url: string;
  seen: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders; body?: any }>;
  close: () => Promise<void>;
}> {
  const log: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders; body?: any }> = [];
  let sseRes: http.ServerResponse | undefined;
  const tools = [{ name: 'search', description: `Search. Key: ${TOOL_SECRET}`, inputSchema: { type: 'object' } }];
  const answerOf = (msg: any) =>
    msg.method === 'initialize'
      ? {
          jsonrpc: '2.0',
          id: msg.id,
          result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'h', version: '1' } },
        }
      : msg.method === 'tools/list'
        ? { jsonrpc: '2.0', id: msg.id, result: { tools } }
        : { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'nope' } };
  const s = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : undefined;
      const p = (req.url ?? '').split('?')[0];
      log.push({ method: req.method ?? '', path: p, headers: req.headers, body });
      if (p === '/mcp' || p === '/stream') {
        if (req.method === 'DELETE') return res.writeHead(204).end();
        if (req.headers.authorization !== 'Bearer http-secret-value') return res.writeHead(401).end();
        if (body.id === undefined) return res.writeHead(202).end();
        if (p === '/stream') {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'sess-1' });
          res.write(
            `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: {} })}\n\n`,
          );
          return res.end(`event: message\ndata: ${JSON.stringify(answerOf(body))}\n\n`);
        }
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-1' });
        return res.end(JSON.stringify(answerOf(body)));
      }
      if (p === '/sse' && req.method === 'GET') {
        sseRes = res;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return res.write('event: endpoint\ndata: /messages?session=abc\n\n');
      }
      if (p === '/messages' && req.method === 'POST') {
        res.writeHead(202).end();
        if (body.id !== undefined) sseRes?.write(`event: message\ndata: ${JSON.stringify(answerOf(body))}\n\n`);
        return;
      }
      if (p === '/hang') return; // never answers
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    seen: log,
    close: () => {
      s.closeAllConnections();
      return new Promise<void>((r) => s.close(() => r()));
    },
  };
}

test('--introspect over HTTP: Streamable HTTP (JSON and event-stream answers, session id kept, headers from the configuration) and HTTP+SSE; a silent URL times out', async () => {
  const m = await mcpHttpServer();
  try {
    write(path.join(cwd, '.mcp.json'), {
      mcpServers: {
        json: { type: 'http', url: `${m.url}/mcp`, headers: { Authorization: 'Bearer ${MCP_HTTP_TOKEN}' } },
        stream: { type: 'http', url: `${m.url}/stream`, headers: { Authorization: 'Bearer http-secret-value' } },
        legacy: { type: 'sse', url: `${m.url}/sse` },
        silent: { type: 'http', url: `${m.url}/hang` },
      },
    });
    const r = await run(['scan', '--introspect', '--timeout', '1'], { env: { MCP_HTTP_TOKEN: 'http-secret-value' } });
    expect(r.code).toBe(0);
    const servers = Object.fromEntries(seen[0].body.clients[0].servers.map((s: any) => [s.name, s]));
    for (const name of ['json', 'stream', 'legacy']) {
      expect([name, servers[name].tools]).toEqual([
        name,
        [{ name: 'search', description: `Search. Key: ${REDACTED}`, inputSchema: { type: 'object' } }],
      ]);
    }
    expect(servers.silent.tools).toBeUndefined();
    expect(r.err).toMatch(/introspected silent .*: skipped: no answer within 1 s/);
    expect(servers.json.headers).toEqual({ Authorization: 'Bearer ${MCP_HTTP_TOKEN}' });
    expect(servers.stream.headers).toEqual({ Authorization: REDACTED });
    const posts = m.seen.filter((x) => x.path === '/mcp' && x.method === 'POST');
    expect(posts.map((x) => x.body.method)).toEqual(['initialize', 'notifications/initialized', 'tools/list']);
    expect(posts[1].headers['mcp-session-id']).toBe('sess-1');
    expect(posts[0].headers.accept).toBe('application/json, text/event-stream');
    // Nothing but the listing: no tool is ever called.
    expect(m.seen.some((x) => x.body?.method === 'tools/call')).toBe(false);
    expect(JSON.stringify(seen)).not.toContain('http-secret-value');
    expect(r.out + r.err).not.toContain('http-secret-value');
  } finally {
    await m.close();
  }
});

test('references in a configuration are expanded as the agents do, for --introspect only', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { expandReferences } = require('../../../src/client/mcp/introspect');
  const env = { TOKEN: 't0k', EMPTY: '' };
  expect(expandReferences('Bearer ${TOKEN}', env)).toBe('Bearer t0k');
  expect(expandReferences('Bearer ${env:TOKEN}', env)).toBe('Bearer t0k');
  expect(expandReferences('${MISSING:-fallback}/${MISSING}', env)).toBe('fallback/');
  expect(expandReferences('${workspaceFolder}/x ${input:key}', env)).toBe('${workspaceFolder}/x ${input:key}');
});
