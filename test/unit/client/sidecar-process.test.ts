// The built client (the very bundle GET /cli/scanner.mjs serves, built here in memory) run as a process against a local
// stand-in for the service: SIGTERM and SIGINT stop it with exit 0; the service closing its port and opening it again
// gives one "unavailable" line and one "back" line and the heartbeats go on; a revocation stops it with exit 3; the
// state file is 0600 even under umask 000.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildClient } = require('../../../tools/build-client.js');

const TOKEN = 'svc_reg_processSECRET42';
let dir: string;
let bundle: string;
let text: string;
let port: number;
let server: http.Server | undefined;
let heartbeats: number;
let revoked: boolean;
let credential: string;

function listen(): Promise<void> {
  const s = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/v1/hosts/attestations' && bearer === TOKEN) {
        credential = `svc_hst_${Math.random().toString(36).slice(2)}`;
        return reply(201, { host: { id: 'hst_p', hostname: JSON.parse(raw).hostname, status: 'active' }, credential });
      }
      if (req.url === '/v1/hosts/hst_p/heartbeats' && bearer === credential && !revoked) {
        heartbeats++;
        return reply(200, { host: { id: 'hst_p', status: 'active' }, nextHeartbeatSeconds: 1 });
      }
      reply(401, { error: { code: 'invalid_token', message: 'Authorization: invalid credential', requestId: 'r' } });
    });
  });
  server = s;
  return new Promise((resolve) => s.listen(port, '127.0.0.1', () => resolve()));
}

async function close(): Promise<void> {
  const s = server;
  server = undefined;
  if (!s) return;
  s.closeAllConnections();
  await new Promise<void>((r) => s.close(() => r()));
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sidecar-process-'));
  bundle = path.join(dir, 'scanner.mjs');
  const built = await buildClient({ write: false });
  text = built.outputFiles[0].text;
  fs.writeFileSync(bundle, text);
  port = 0;
  await listen();
  port = (server!.address() as AddressInfo).port;
}, 60_000);
afterAll(async () => {
  await close();
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  heartbeats = 0;
  revoked = false;
  fs.writeFileSync(path.join(dir, 'token'), TOKEN);
  fs.rmSync(path.join(dir, 'state'), { recursive: true, force: true });
});

interface Proc {
  child: ChildProcess;
  stderr: () => string;
  exit: Promise<number | null>;
}

function start(): Proc {
  // umask 000: the state file's mode must come from its creation, not from the umask.
  const child = spawn(
    'sh',
    [
      '-c',
      'umask 000; exec "$0" "$@"',
      process.execPath,
      bundle,
      'sidecar',
      '--server',
      `http://127.0.0.1:${port}`,
      '--registration-token',
      path.join(dir, 'token'),
      '--state',
      path.join(dir, 'state', 'sidecar.json'),
    ],
    {
      env: { PATH: process.env.PATH, HOME: dir, SCANNER_RETRY_BASE_MS: '100', SCANNER_RETRY_MAX_MS: '300' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let err = '';
  let out = '';
  child.stderr!.on('data', (c) => (err += c));
  child.stdout!.on('data', (c) => (out += c));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stderr: () => err + out, exit };
}

async function until(what: string, cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('the agents are loaded only when their command runs (lazily initialised modules, like the other commands)', () => {
  for (const name of ['sidecar', 'gateway', 'loop', 'state', 'options'])
    expect(text).toMatch(new RegExp(`^var init_${name} = __esm\\(`, 'm'));
  const tail = text.slice(text.lastIndexOf('// src/client/cli.ts'));
  expect(tail).not.toMatch(/init_(sidecar|gateway|loop|state|options)\(\)/);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} stops it cleanly: exit 0`, async () => {
    const p = start();
    await until('a heartbeat', () => heartbeats >= 1);
    p.child.kill(signal);
    expect(await p.exit).toBe(0);
    expect(p.stderr()).toContain(`scanner: ${signal}: stopping`);
    expect(p.stderr()).not.toMatch(/svc_/);
    expect(fs.statSync(path.join(dir, 'state', 'sidecar.json')).mode & 0o777).toBe(0o600);
  });
}

test('the service closes its port and opens it again: one "unavailable" line, one "back" line, heartbeats go on; revoked: exit 3', async () => {
  const p = start();
  await until('two heartbeats', () => heartbeats >= 2);
  await close();
  await until('the "unavailable" line', () => / is unavailable /.test(p.stderr()));
  // A few backoff attempts (100 to 300 ms apart) meet the closed port.
  await new Promise((r) => setTimeout(r, 1500));
  const before = heartbeats;
  await listen();
  await until('heartbeats after the return', () => heartbeats >= before + 2);
  expect(p.stderr().match(/ is unavailable /g)).toHaveLength(1);
  expect(p.stderr().match(/ is back /g)).toHaveLength(1);
  // Most often a refused connection; a heartbeat caught by the closing could meet a reset.
  expect(p.stderr()).toMatch(/is unavailable \((connect ECONNREFUSED 127\.0\.0\.1:\d+|socket hang up|read ECONNRESET)/);
  expect(p.stderr()).toMatch(/the service is back \(unavailable for \d+ s, \d+ failed attempts\)/);
  revoked = true;
  expect(await p.exit).toBe(3);
  expect(p.stderr()).toMatch(/401 invalid_token: .*stopping/);
  expect(p.stderr()).not.toMatch(/svc_/);
}, 40_000);
