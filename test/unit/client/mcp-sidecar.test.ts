// `scanner sidecar --mcp-interval S` (issue 19) in-process against a local stand-in: the MCP report goes
// to POST /v1/mcp/scans with the host credential and the host's id, after the first heartbeat and then once per
// interval; it never starts a configured server (fixture configurations whose command would write a marker file);
// its failures are logged and the heartbeats go on; --mcp-interval 0 (the default) sends none.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sidecarCommand, type SidecarHooks } from '../../../src/client/commands/sidecar';
import type { Io } from '../../../src/client/io';
import { REDACTED } from '../../../src/shared/mcp/redact';

const FIXTURES = path.resolve(__dirname, '../../fixtures/mcp');
const SERVER_JS = path.join(FIXTURES, 'servers', 'stdio-server.mjs');
const CREDENTIAL = 'svc_hst_sidecarMcpCREDENTIAL01';
const LITERAL = 'ghp_Mn3Bv4Cx5Za6Sd7Fg8Hj9Kl0Qw1Er2Ty3Ui4';

interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}
let service: http.Server;
let url: string;
let seen: Seen[];
let mcpStatus: number[];
let heartbeats: number;
let onHeartbeat: (n: number) => void;
let dir: string;
let home: string;
let marker: string;

beforeAll(async () => {
  service = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body: raw ? JSON.parse(raw) : undefined });
      const reply = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.headers.authorization !== `Bearer ${CREDENTIAL}`)
        return reply(401, { error: { code: 'invalid_token', message: 'no', requestId: 'r' } });
      if (req.url === '/v1/hosts/hst_1/heartbeats') {
        heartbeats++;
        reply(200, { host: { id: 'hst_1', status: 'active' }, nextHeartbeatSeconds: 60 });
        return onHeartbeat(heartbeats);
      }
      if (req.url === '/v1/mcp/scans') {
        const status = mcpStatus.shift() ?? 201;
        return status === 201
          ? reply(201, {
              id: `mcs_${seen.length}`,
              status: 'queued',
              hostId: 'hst_1',
              receivedAt: new Date().toISOString(),
            })
          : reply(status, { error: { code: 'unavailable', message: 'not now', requestId: 'r' } });
      }
      reply(404, { error: { code: 'not_found', message: 'no route', requestId: 'r' } });
    });
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => service.close(() => r())));

function write(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
}

beforeEach(() => {
  seen = [];
  mcpStatus = [];
  heartbeats = 0;
  onHeartbeat = () => undefined;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-sidecar-'));
  home = path.join(dir, 'home');
  marker = path.join(dir, 'STARTED');
  // Configurations whose servers, if anything started them, would write the marker file.
  const server = {
    command: process.execPath,
    args: [SERVER_JS],
    env: { FIXTURE_MARKER: marker, GITHUB_TOKEN: LITERAL },
  };
  write(path.join(home, '.cursor', 'mcp.json'), { mcpServers: { fixture: server } });
  write(path.join(home, '.claude.json'), {
    mcpServers: { fixture: server, sh: { command: 'sh', args: ['-c', `echo started > ${marker}`] } },
  });
  write(path.join(dir, 'state', 'sidecar.json'), {
    kind: 'sidecar',
    serverUrl: url,
    hostId: 'hst_1',
    credential: CREDENTIAL,
  });
  fs.chmodSync(path.join(dir, 'state', 'sidecar.json'), 0o600);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function run(args: string[], opts: { stopAfter?: number; clock?: { t: number } } = {}) {
  let out = '';
  let err = '';
  const controller = new AbortController();
  const clock = opts.clock ?? { t: Date.parse('2026-11-24T01:00:00Z') };
  onHeartbeat = (n) => {
    if (opts.stopAfter !== undefined && n >= opts.stopAfter) controller.abort();
  };
  const io: Io = {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    env: { HOME: home },
    cwd: dir,
    stdoutIsTTY: false,
    stderrIsTTY: false,
  };
  const hooks: SidecarHooks = {
    signal: controller.signal,
    // Each wait moves the clock on by what was asked, at once.
    sleep: async (ms) => {
      clock.t += ms;
      await new Promise((r) => setImmediate(r));
    },
    now: () => clock.t,
    random: () => 1,
    mcpDiscoveryEnv: { platform: 'linux', systemRoot: path.join(dir, 'root') },
  };
  const code = await sidecarCommand(
    ['--server', url, '--state', path.join(dir, 'state', 'sidecar.json'), ...args],
    io,
    hooks,
  ).catch((e: Error & { exitCode?: number }) => {
    err += `scanner: ${e.message}\n`;
    return e.exitCode ?? 99;
  });
  return { code, out, err };
}

test('--once --mcp-interval: one heartbeat, then one MCP report with the host credential and host id, found by reading files only', async () => {
  const r = await run(['--once', '--mcp-interval', '600']);
  expect(r.code).toBe(0);
  expect(seen.map((s) => s.url)).toEqual(['/v1/hosts/hst_1/heartbeats', '/v1/mcp/scans']);
  const scan = seen[1];
  expect(scan.headers.authorization).toBe(`Bearer ${CREDENTIAL}`);
  expect(scan.body.host).toEqual({ hostId: 'hst_1' });
  expect(scan.body.clients.map((c: any) => [c.client, c.configPath, c.servers.map((s: any) => s.name)])).toEqual([
    ['claude-code', '~/.claude.json', ['fixture', 'sh']],
    ['cursor', '~/.cursor/mcp.json', ['fixture']],
  ]);
  const fixture = scan.body.clients[1].servers[0];
  expect(fixture.env).toEqual({ FIXTURE_MARKER: REDACTED, GITHUB_TOKEN: REDACTED });
  expect(fixture.tools).toBeUndefined();
  expect(JSON.stringify(scan.body)).not.toContain(LITERAL);
  expect(r.err).toMatch(/scanner: MCP scan mcs_2: 2 configuration file\(s\), 3 server\(s\); next in 600 s/);
  expect(r.err + r.out).not.toContain(CREDENTIAL);
  // Nothing configured was started.
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(fs.existsSync(marker)).toBe(false);
});

test('by default (no --mcp-interval) --once sends one MCP report after its heartbeat; --mcp-interval 0 sends none', async () => {
  expect((await run(['--once'])).code).toBe(0);
  expect((await run(['--once', '--mcp-interval', '0'])).code).toBe(0);
  expect(seen.map((s) => s.url)).toEqual(['/v1/hosts/hst_1/heartbeats', '/v1/mcp/scans', '/v1/hosts/hst_1/heartbeats']);
});

test('by default, while running, the report comes hourly (3600 s)', async () => {
  // Heartbeats every 60 s: a report after the first, the next one 60 heartbeats later.
  const r = await run([], { stopAfter: 62 });
  expect(r.code).toBe(0);
  const reports = seen
    .map((s, i) => (s.url === '/v1/mcp/scans' ? seen.slice(0, i).filter((x) => x.url !== '/v1/mcp/scans').length : -1))
    .filter((n) => n >= 0);
  expect(reports).toEqual([1, 61]);
});

test('while running: a report after the first heartbeat, then once per interval; a failed one is logged and tried again later, and the heartbeats go on', async () => {
  // Heartbeats every 60 s; reports every 120 s. The first report fails twice (its two attempts): retried after
  // min(120, 300) s.
  mcpStatus = [503, 503];
  const r = await run(['--mcp-interval', '120'], { stopAfter: 7 });
  expect(r.code).toBe(0);
  const urls = seen.map((s) => (s.url === '/v1/mcp/scans' ? 'M' : 'H'));
  // t=0 H, M(503), M(503: given up) · t=60 H · t=120 H M(201) · t=180 H · t=240 H M · t=300 H · t=360 H (stopped)
  expect(urls.join('')).toBe('HMMHHMHHMHH');
  expect(heartbeats).toBe(7);
  expect(r.err).toMatch(/MCP scan failed \(.*gave up after 2 attempts.*\): heartbeats go on; trying again in 120 s/);
  expect(r.err).not.toContain(CREDENTIAL);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(fs.existsSync(marker)).toBe(false);
});

test('a bad --mcp-interval is a usage error (exit 2) and nothing is sent', async () => {
  for (const v of ['-1', 'soon', '1.5']) expect([v, (await run(['--once', '--mcp-interval', v])).code]).toEqual([v, 2]);
  expect(seen).toEqual([]);
});
