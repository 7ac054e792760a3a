// `scanner sidecar` against a local stand-in for the service's host endpoints, run in-process with
// its waits recorded instead of slept: registration and the 0600 state file, restart without attesting again,
// re-attestation by hand with X-Svc-Host-Credential, refusal of a state file others can read, the backoff while the
// service is away (Retry-After honoured, one "unavailable" and one "back" line), stop on 401, and no secret printed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sidecarCommand } from '../../../src/client/commands/sidecar';
import type { AgentHooks } from '../../../src/client/agent/loop';
import type { Io } from '../../../src/client/io';

interface Host {
  id: string;
  machineId: string;
  credential: string;
  revoked: boolean;
  hostname: string;
  labels: Record<string, string>;
}
interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}
type Fault = { status: number; retryAfter?: string } | 'hang-up';

const TOKEN = 'svc_reg_tokenSECRET0123456789';
let server: http.Server;
let url: string;
let seen: Seen[];
let hosts: Host[];
let tokenUses: number;
/** Answers given instead of the service's, in order, before it answers again. */
let faults: Fault[];
/** Called on each heartbeat the service records (the tests stop the sidecar from here). */
let onHeartbeat: (n: number) => void;
let heartbeats: number;
let nextHeartbeatSeconds: number;
let dir: string;

const err = (res: http.ServerResponse, status: number, code: string, message: string) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { code, message, requestId: 'req_1' } }));
};
const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const present = (h: Host) => ({
  id: h.id,
  hostname: h.hostname,
  status: h.revoked ? 'revoked' : 'active',
  lastHeartbeatAt: new Date().toISOString(),
  labels: h.labels,
  connectivity: 'direct',
});

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const fault = faults.shift();
      if (fault === 'hang-up') return void req.socket.destroy();
      if (fault) {
        res.writeHead(fault.status, {
          'content-type': 'application/json',
          ...(fault.retryAfter ? { 'retry-after': fault.retryAfter } : {}),
        });
        return void res.end(
          JSON.stringify({
            error: { code: fault.status === 429 ? 'rate_limited' : 'unavailable', message: 'not now', requestId: 'r' },
          }),
        );
      }
      const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (req.method === 'POST' && req.url === '/v1/hosts/attestations') {
        if (bearer !== TOKEN || tokenUses <= 0)
          return err(
            res,
            401,
            'invalid_token',
            'Authorization: unknown, exhausted, expired or revoked registration token',
          );
        const same = hosts.find((h) => h.machineId === body.machineId && !h.revoked);
        const presented = req.headers['x-svc-host-credential'];
        if (same && presented !== same.credential)
          return err(res, 409, 'invalid_state', 'this machine is an active host: present its credential');
        tokenUses--;
        const credential = `svc_hst_${crypto.randomBytes(12).toString('hex')}`;
        let host = same;
        if (host) host.credential = credential;
        else {
          host = {
            id: `hst_${hosts.length + 1}`,
            machineId: String(body.machineId),
            credential,
            revoked: false,
            hostname: String(body.hostname),
            labels: (body.labels as Record<string, string>) ?? {},
          };
          hosts.push(host);
        }
        return json(res, 201, { host: present(host), credential });
      }
      const m = /^\/v1\/hosts\/([^/]+)\/heartbeats$/.exec(req.url ?? '');
      if (req.method === 'POST' && m) {
        const host = hosts.find((h) => h.credential === bearer);
        if (!host || host.revoked) return err(res, 401, 'invalid_token', 'Authorization: invalid host credential');
        if (host.id !== m[1]) return err(res, 404, 'not_found', 'no such host');
        heartbeats++;
        json(res, 200, { host: present(host), nextHeartbeatSeconds });
        return onHeartbeat(heartbeats);
      }
      err(res, 404, 'not_found', 'no route');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

beforeEach(() => {
  seen = [];
  hosts = [];
  tokenUses = 10;
  faults = [];
  heartbeats = 0;
  nextHeartbeatSeconds = 5;
  onHeartbeat = () => undefined;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sidecar-'));
  fs.writeFileSync(path.join(dir, 'token'), `${TOKEN}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'machine-id'), '0123456789abcdef0123456789abcdef\n');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  out: string;
  err: string;
  delays: number[];
}

/** Runs the sidecar in-process until it returns; `stopAfter` heartbeats stop it as SIGTERM would. */
async function run(
  args: string[],
  opts: {
    stopAfter?: number;
    onBeat?: (n: number) => void;
    onSleep?: (ms: number, n: number) => void;
    env?: NodeJS.ProcessEnv;
    hooks?: Partial<AgentHooks>;
  } = {},
): Promise<Run> {
  let out = '';
  let errText = '';
  const delays: number[] = [];
  const controller = new AbortController();
  onHeartbeat = (count) => {
    opts.onBeat?.(count);
    if (opts.stopAfter !== undefined && count >= opts.stopAfter) controller.abort();
  };
  const io: Io = {
    out: (t) => void (out += t),
    err: (t) => void (errText += t),
    env: { HOME: dir, ...opts.env },
    cwd: dir,
    stdoutIsTTY: false,
    stderrIsTTY: false,
  };
  const hooks: AgentHooks = {
    signal: controller.signal,
    sleep: async (ms) => {
      delays.push(ms);
      opts.onSleep?.(ms, delays.length);
      await new Promise((r) => setImmediate(r));
    },
    random: () => 1,
    machineIdFiles: [path.join(dir, 'machine-id')],
    hostname: () => 'build-01.example',
    ...opts.hooks,
  };
  // These tests check the heartbeat exchange request by request: the hourly MCP report (on by default, tested in
  // mcp-sidecar.test.ts) is turned off here.
  const withoutMcp =
    args.includes('--mcp-interval') || args.includes('--help') ? args : [...args, '--mcp-interval', '0'];
  const code = await sidecarCommand(withoutMcp, io, hooks).catch((e: Error & { exitCode?: number }) => {
    // As main() prints them: the command's errors end as "scanner: message" and their exit code.
    errText += `scanner: ${e.message}\n`;
    return e.exitCode ?? 99;
  });
  return { code, out, err: errText, delays };
}

const stateFile = () => path.join(dir, 'state', 'sidecar.json');
const readStateFile = () => JSON.parse(fs.readFileSync(stateFile(), 'utf8'));
const secretsIn = (r: Run) => [r.out, r.err].join('\n').match(/svc_(reg|hst)_[A-Za-z0-9]+/g) ?? [];
const base = () => ['--server', url, '--state', stateFile()];

test('registers with the token from a file, keeps {serverUrl, hostId, credential} in a new 0600 file, heartbeats at the interval given', async () => {
  const r = await run(
    [...base(), '--registration-token', path.join(dir, 'token'), '--labels', 'team=payments,env=prod'],
    { stopAfter: 3 },
  );
  expect(r.code).toBe(0);
  const [attest, ...beats] = seen;
  expect(attest).toMatchObject({
    method: 'POST',
    url: '/v1/hosts/attestations',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(attest.headers['x-svc-host-credential']).toBeUndefined();
  // The machine id is not sent as such: an HMAC of it, stable for the machine.
  const machineId = crypto
    .createHmac('sha256', '0123456789abcdef0123456789abcdef')
    .update('scanner sidecar host id')
    .digest('hex');
  expect(attest.body).toEqual({
    hostname: 'build-01.example',
    machineId,
    os: process.platform,
    arch: process.arch,
    agentVersion: 'dev',
    labels: { team: 'payments', env: 'prod' },
  });
  expect(beats).toHaveLength(3);
  for (const b of beats) {
    expect(b).toMatchObject({
      method: 'POST',
      url: '/v1/hosts/hst_1/heartbeats',
      headers: { authorization: `Bearer ${hosts[0].credential}` },
    });
    expect(b.body).toEqual({ agentVersion: 'dev', labels: { team: 'payments', env: 'prod' }, connectivity: 'direct' });
  }
  // nextHeartbeatSeconds: 5 → a 5 s wait after each heartbeat (stopped as the third is answered).
  expect(r.delays).toEqual([5000, 5000]);
  expect(readStateFile()).toEqual({
    kind: 'sidecar',
    serverUrl: url,
    hostId: 'hst_1',
    credential: hosts[0].credential,
  });
  if (process.platform !== 'win32') {
    expect(fs.statSync(stateFile()).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(stateFile())).mode & 0o777).toBe(0o700);
  }
  expect(fs.readdirSync(path.dirname(stateFile()))).toEqual(['sidecar.json']); // no temporary file left
  expect(r.err).toMatch(/registered as host hst_1 \(build-01\.example, active\); state in /);
  expect(r.err).toMatch(/host hst_1 \(active\): heartbeating every 5 s\n/);
  expect(r.err.match(/heartbeating/g)).toHaveLength(1); // no line per heartbeat
  expect(secretsIn(r)).toEqual([]);
});

test('the interval follows the service: a new nextHeartbeatSeconds is used (and said) from the next wait', async () => {
  const r = await run([...base(), '--registration-token', path.join(dir, 'token')], {
    stopAfter: 4,
    onBeat: (n) => {
      if (n === 1) nextHeartbeatSeconds = 1;
    },
  });
  expect(r.code).toBe(0);
  expect(r.delays).toEqual([5000, 1000, 1000]);
  expect(r.err).toMatch(/heartbeating every 5 s\n[^]*heartbeating every 1 s\n/);
});

test('a restart with the state file heartbeats with the stored credential and does not attest again', async () => {
  expect((await run([...base(), '--registration-token', path.join(dir, 'token')], { stopAfter: 1 })).code).toBe(0);
  const credential = hosts[0].credential;
  seen = [];
  heartbeats = 0;
  const r = await run(base(), { stopAfter: 2 });
  expect(r.code).toBe(0);
  expect(seen.map((s) => s.url)).toEqual(['/v1/hosts/hst_1/heartbeats', '/v1/hosts/hst_1/heartbeats']);
  expect(seen[0].headers.authorization).toBe(`Bearer ${credential}`);
  // Without --labels it does not send any: the host's labels stay as they are.
  expect(seen[0].body).toEqual({ agentVersion: 'dev', connectivity: 'direct' });
  expect(tokenUses).toBe(9);
  // The server comes from the state file when neither --server nor SCANNER_URL is given.
  seen = [];
  heartbeats = 0;
  expect((await run(['--state', stateFile()], { stopAfter: 1 })).code).toBe(0);
  expect(seen).toHaveLength(1);
  expect(secretsIn(r)).toEqual([]);
});

test('attesting again by hand sends the current credential in X-Svc-Host-Credential: same host, new credential in the state file', async () => {
  expect((await run([...base(), '--registration-token', path.join(dir, 'token')], { stopAfter: 1 })).code).toBe(0);
  const first = hosts[0].credential;
  seen = [];
  heartbeats = 0;
  const r = await run([...base(), '--registration-token', path.join(dir, 'token')], { stopAfter: 1 });
  expect(r.code).toBe(0);
  expect(seen[0]).toMatchObject({ url: '/v1/hosts/attestations', headers: { 'x-svc-host-credential': first } });
  expect(hosts).toHaveLength(1);
  expect(hosts[0].credential).not.toBe(first);
  expect(readStateFile()).toMatchObject({ hostId: 'hst_1', credential: hosts[0].credential });
  expect(seen[1].headers.authorization).toBe(`Bearer ${hosts[0].credential}`);
  expect(r.err).toMatch(/attested again: host hst_1 keeps its id, with a new credential/);
  expect(secretsIn(r)).toEqual([]);
});

test('the token can come from stdin (-); an empty token file is an input error (exit 2) and nothing is sent', async () => {
  const r = await run([...base(), '--registration-token', '-'], {
    stopAfter: 1,
    hooks: { readStdin: () => `\n  ${TOKEN}  \n` },
  });
  expect(r.code).toBe(0);
  expect(seen[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
  fs.rmSync(stateFile());
  seen = [];
  fs.writeFileSync(path.join(dir, 'empty'), '\n');
  const e = await run([...base(), '--registration-token', path.join(dir, 'empty')]);
  expect(e.code).toBe(2);
  expect(e.err).toMatch(/--registration-token .*empty: the file is empty/);
  const missing = await run([...base(), '--registration-token', path.join(dir, 'nope')]);
  expect(missing.code).toBe(2);
  expect(missing.err).toMatch(/no such file/);
  expect(seen).toEqual([]);
});

test('no state file and no token: exit 2 saying how to register; a state of another service needs a token', async () => {
  const r = await run(base());
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/no state file at .*sidecar\.json: register first with --registration-token FILE/);
  expect((await run([...base(), '--registration-token', path.join(dir, 'token')], { stopAfter: 1 })).code).toBe(0);
  const other = await run(['--server', 'http://127.0.0.1:1', '--state', stateFile()]);
  expect(other.code).toBe(2);
  expect(other.err).toMatch(
    /is of a host of http:\/\/127\.0\.0\.1:\d+, not of http:\/\/127\.0\.0\.1:1: pass --registration-token FILE/,
  );
  expect(seen).toHaveLength(2);
});

(process.getuid?.() === 0 ? test : test.skip)(
  'a state file of another user is refused (run as root: the file is given away)',
  async () => {
    expect((await run([...base(), '--registration-token', path.join(dir, 'token')], { stopAfter: 1 })).code).toBe(0);
    fs.chownSync(stateFile(), 4242, 4242);
    seen = [];
    const r = await run(base());
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/belongs to user 4242, not to this user \(0\)/);
    expect(seen).toEqual([]);
  },
);

test('a state file group or others can read (or write) is refused, with the fix, and not used', async () => {
  expect((await run([...base(), '--registration-token', path.join(dir, 'token')], { stopAfter: 1 })).code).toBe(0);
  for (const mode of [0o640, 0o604, 0o620]) {
    fs.chmodSync(stateFile(), mode);
    seen = [];
    const r = await run(base(), { stopAfter: 1 });
    expect(r.code).toBe(2);
    expect(r.err).toContain(`state file ${stateFile()} has mode 0${mode.toString(8)}`);
    expect(r.err).toContain(`Fix: chmod 600 "${stateFile()}"`);
    expect(seen).toEqual([]);
    expect(secretsIn(r)).toEqual([]);
  }
  fs.chmodSync(stateFile(), 0o600);
  expect((await run(base(), { stopAfter: 1 })).code).toBe(0);
});

test('a state file that is not a sidecar state (a gateway state, broken JSON) is refused with exit 2', async () => {
  fs.mkdirSync(path.dirname(stateFile()), { recursive: true });
  fs.writeFileSync(
    stateFile(),
    JSON.stringify({ kind: 'gateway', serverUrl: url, gatewayId: 'gw_1', credential: 'x' }),
    { mode: 0o600 },
  );
  const r = await run(base());
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/is not the state of a scanner sidecar \(it is a gateway's\)/);
  fs.writeFileSync(stateFile(), '{', { mode: 0o600 });
  expect((await run(base())).err).toMatch(/is not readable JSON/);
});

test('while the service is away: backoff (doubling, capped, at least Retry-After), one "unavailable" line and one "back" line, then heartbeats go on', async () => {
  expect((await run([...base(), '--registration-token', path.join(dir, 'token')], { stopAfter: 1 })).code).toBe(0);
  seen = [];
  heartbeats = 0;
  const r = await run(base(), {
    stopAfter: 3,
    env: { SCANNER_RETRY_BASE_MS: '1000', SCANNER_RETRY_MAX_MS: '8000' },
    // During the wait after the first heartbeat the service goes away: the next heartbeat meets 503, a dropped
    // connection, 429 with Retry-After 20, 502, 503 with an HTTP-date Retry-After in the past, 500 and 500; then the
    // service answers again.
    onSleep: (_ms, n) => {
      if (n === 1)
        faults = [
          { status: 503 },
          'hang-up',
          { status: 429, retryAfter: '20' },
          { status: 502 },
          { status: 503, retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT' },
          { status: 500 },
          { status: 500 },
        ];
    },
  });
  expect(r.code).toBe(0);
  // 5 s after the first heartbeat; then 1, 2, max(4, 20), 8, 8 (capped), 8, 8 s; then 5 s after the second.
  expect(r.delays).toEqual([5000, 1000, 2000, 20000, 8000, 8000, 8000, 8000, 5000]);
  const lines = r.err.split('\n').filter(Boolean);
  expect(lines.filter((l) => / is unavailable /.test(l))).toEqual([
    expect.stringMatching(
      /^scanner: the service at http:\/\/127\.0\.0\.1:\d+ is unavailable \(503 unavailable: not now\): trying again with backoff until it answers$/,
    ),
  ]);
  expect(lines.filter((l) => / is back /.test(l))).toEqual([
    expect.stringMatching(/^scanner: the service is back \(unavailable for \d+ s, 7 failed attempts\)$/),
  ]);
  expect(heartbeats).toBe(3);
  expect(seen).toHaveLength(10); // 3 heartbeats and 7 attempts that failed
  expect(secretsIn(r)).toEqual([]);
});

test('equal jitter: each wait is between half and all of its step', async () => {
  const { backoffDelay } = await import('../../../src/client/agent/loop');
  const o = { baseMs: 1000, capMs: 60_000 };
  expect([1, 2, 3, 7, 8, 30].map((n) => backoffDelay(n, o, 0))).toEqual([500, 1000, 2000, 30000, 30000, 30000]);
  expect([1, 2, 3, 7, 8, 30].map((n) => backoffDelay(n, o, 1))).toEqual([1000, 2000, 4000, 60000, 60000, 60000]);
  // Retry-After is a floor, obeyed up to an hour.
  expect(backoffDelay(1, o, 0, 90_000)).toBe(90_000);
  expect(backoffDelay(1, o, 0, 86_400_000)).toBe(3_600_000);
});

test('401 on a heartbeat (host revoked): exit 3 with a clear message, never attests again by itself, the state file kept', async () => {
  expect((await run([...base(), '--registration-token', path.join(dir, 'token')], { stopAfter: 1 })).code).toBe(0);
  const before = fs.readFileSync(stateFile(), 'utf8');
  seen = [];
  heartbeats = 0;
  // Revoked after the second heartbeat.
  const r = await run(base(), {
    onBeat: (n) => {
      if (n === 2) hosts[0].revoked = true;
    },
  });
  expect(r.code).toBe(3);
  expect(r.err).toMatch(
    /heartbeat of host hst_1: the service refused it: 401 invalid_token: .*The host was revoked or its credential replaced: stopping\. It does not register again by itself/,
  );
  expect(seen.map((s) => s.url)).toEqual([
    '/v1/hosts/hst_1/heartbeats',
    '/v1/hosts/hst_1/heartbeats',
    '/v1/hosts/hst_1/heartbeats',
  ]);
  expect(r.delays).toEqual([5000, 5000]); // no backoff on 401: it stops at once
  expect(fs.readFileSync(stateFile(), 'utf8')).toBe(before);
  expect(secretsIn(r)).toEqual([]);
});

test('401 on attestation (token used up) is exit 3 and writes nothing; 409 (an active host without its credential) says what to do', async () => {
  tokenUses = 0;
  const r = await run([...base(), '--registration-token', path.join(dir, 'token')]);
  expect(r.code).toBe(3);
  expect(r.err).toMatch(/attesting: the service refused it: 401 invalid_token: .*ask for a new one/);
  expect(fs.existsSync(stateFile())).toBe(false);
  tokenUses = 10;
  expect((await run([...base(), '--registration-token', path.join(dir, 'token')], { stopAfter: 1 })).code).toBe(0);
  // The state file is lost; the machine registers again without its credential.
  fs.rmSync(stateFile());
  const c = await run([...base(), '--registration-token', path.join(dir, 'token')]);
  expect(c.code).toBe(3);
  expect(c.err).toMatch(
    /409 invalid_state: .*already an active host of the organization and .* does not hold its credential/,
  );
  expect(secretsIn(r)).toEqual([]);
  expect(secretsIn(c)).toEqual([]);
});

test('no machine id on the machine: a random one, kept in the state file and sent again on the next attestation', async () => {
  const hooks = { machineIdFiles: [path.join(dir, 'none')] };
  expect((await run([...base(), '--registration-token', path.join(dir, 'token')], { stopAfter: 1, hooks })).code).toBe(
    0,
  );
  const state = readStateFile();
  expect(state.machineId).toMatch(/^[0-9a-f-]{36}$/);
  expect(seen[0].body.machineId).toBe(state.machineId);
  seen = [];
  expect((await run([...base(), '--registration-token', path.join(dir, 'token')], { stopAfter: 1, hooks })).code).toBe(
    0,
  );
  expect(seen[0].body.machineId).toBe(state.machineId);
  expect(hosts).toHaveLength(1); // the same host, attested again
});

test('a secret echoed back by the service (or a proxy) is redacted from every line and error', async () => {
  const echo = http.createServer((req, res) => {
    res.writeHead(req.url === '/v1/hosts/attestations' ? 422 : 500, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: { code: 'invalid_parameter', message: `bad request with ${req.headers.authorization}`, requestId: 'r' },
      }),
    );
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  try {
    const r = await run([
      '--server',
      `http://127.0.0.1:${(echo.address() as AddressInfo).port}`,
      '--state',
      stateFile(),
      '--registration-token',
      path.join(dir, 'token'),
    ]);
    expect(r.code).toBe(2); // 422: the caller's input
    expect(r.err).toMatch(/422 invalid_parameter: bad request with Bearer \[redacted\]/);
    expect(secretsIn(r)).toEqual([]);
  } finally {
    await new Promise<void>((r) => echo.close(() => r()));
  }
});

test('--once: one heartbeat and exit 0; the service away: gives up after SCANNER_MAX_ATTEMPTS with exit 3', async () => {
  const r = await run([...base(), '--registration-token', path.join(dir, 'token'), '--once']);
  expect(r.code).toBe(0);
  expect(seen.map((s) => s.url)).toEqual(['/v1/hosts/attestations', '/v1/hosts/hst_1/heartbeats']);
  expect(r.err).toMatch(/host hst_1 \(active\): heartbeat sent/);
  seen = [];
  faults = [{ status: 503 }, { status: 503 }, { status: 503 }];
  const down = await run([...base(), '--once'], { env: { SCANNER_MAX_ATTEMPTS: '3' } });
  expect(down.code).toBe(3);
  expect(down.err).toMatch(/gave up after 3 attempts \(last: 503 unavailable: not now\)/);
  expect(seen).toHaveLength(3);
});

test('bad flags and labels are usage errors (exit 2)', async () => {
  expect((await run([...base(), '--nope'])).code).toBe(2);
  expect((await run([...base(), 'extra'])).err).toMatch(/takes no arguments/);
  expect((await run([...base(), '--labels', 'no-equals'])).err).toMatch(/--labels "no-equals": expected key=value/);
  expect((await run(['--server', 'ftp://x', '--state', stateFile()])).err).toMatch(/an http\(s\) URL/);
  const help = await run(['--help']);
  expect(help.code).toBe(0);
  expect(help.out).toMatch(/^usage: scanner sidecar /);
  expect(seen).toEqual([]);
});
