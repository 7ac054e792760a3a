// `scanner gateway` against a local stand-in for the service's gateway endpoints, in-process with
// its waits recorded: single-use enrollment with the requested scope, the 0600 state file, heartbeats at --interval,
// the status said when it changes (pending → active on approval), a restart with the same token not enrolling again,
// backoff while the service is away, stop on 401 (revoked), and no secret printed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gatewayCommand } from '../../../src/client/commands/gateway';
import type { AgentHooks } from '../../../src/client/agent/loop';
import type { Io } from '../../../src/client/io';

interface Gateway {
  id: string;
  name: string;
  credential: string;
  status: 'pending' | 'active' | 'revoked';
  requested: string[];
  approved: string[] | null;
  version: string;
}
interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

let server: http.Server;
let url: string;
let seen: Seen[];
let gateways: Gateway[];
/** Enrollment tokens: token → used. */
let tokens: Map<string, boolean>;
let faults: Array<{ status: number; retryAfter?: string } | 'hang-up'>;
let onHeartbeat: (n: number) => void;
let heartbeats: number;
let dir: string;

const TOKEN = 'svc_gw_enrollSECRET0001';
const TOKEN2 = 'svc_gw_enrollSECRET0002';

const send = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const fail = (res: http.ServerResponse, status: number, code: string, message: string) =>
  send(res, status, { error: { code, message, requestId: 'r' } });
const present = (g: Gateway) => ({
  id: g.id,
  name: g.name,
  status: g.status,
  networkScope: g.approved ?? g.requested,
  version: g.version,
  lastSeenAt: new Date().toISOString(),
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
        return void res.end(JSON.stringify({ error: { code: 'unavailable', message: 'not now', requestId: 'r' } }));
      }
      const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (req.method === 'POST' && req.url === '/v1/gateways/enrollments') {
        if (tokens.get(bearer) !== false)
          return fail(res, 401, 'invalid_token', 'Authorization: used, expired, revoked or unknown enrollment token');
        const scope = body.networkScope as string[];
        if (!Array.isArray(scope) || scope.some((c) => c === '10.0.0.1/8'))
          return fail(
            res,
            422,
            'invalid_parameter',
            'networkScope[0]: "10.0.0.1/8" is not a network address (10.0.0.0/8)',
          );
        tokens.set(bearer, true);
        const g: Gateway = {
          id: `gw_${gateways.length + 1}`,
          name: String(body.name ?? 'token-name'),
          credential: `svc_gwc_${crypto.randomBytes(10).toString('hex')}`,
          status: 'pending',
          requested: scope,
          approved: null,
          version: String(body.version),
        };
        gateways.push(g);
        return send(res, 201, { gateway: present(g), credential: g.credential });
      }
      const m = /^\/v1\/gateways\/([^/]+)\/heartbeats$/.exec(req.url ?? '');
      if (req.method === 'POST' && m) {
        const g = gateways.find((x) => x.credential === bearer);
        if (!g || g.status === 'revoked')
          return fail(res, 401, 'invalid_token', 'Authorization: invalid gateway credential');
        if (g.id !== m[1]) return fail(res, 404, 'not_found', 'no such gateway');
        g.version = String(body.version);
        heartbeats++;
        send(res, 200, { gateway: present(g) });
        return onHeartbeat(heartbeats);
      }
      fail(res, 404, 'not_found', 'no route');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

beforeEach(() => {
  seen = [];
  gateways = [];
  tokens = new Map([
    [TOKEN, false],
    [TOKEN2, false],
  ]);
  faults = [];
  heartbeats = 0;
  onHeartbeat = () => undefined;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-'));
  fs.writeFileSync(path.join(dir, 'token'), `${TOKEN}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'token2'), `${TOKEN2}\n`, { mode: 0o600 });
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  out: string;
  err: string;
  delays: number[];
}

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
  heartbeats = 0; // counted per run
  onHeartbeat = (n) => {
    opts.onBeat?.(n);
    if (opts.stopAfter !== undefined && n >= opts.stopAfter) controller.abort();
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
    ...opts.hooks,
  };
  const code = await gatewayCommand(args, io, hooks).catch((e: Error & { exitCode?: number }) => {
    errText += `scanner: ${e.message}\n`;
    return e.exitCode ?? 99;
  });
  return { code, out, err: errText, delays };
}

const stateFile = () => path.join(dir, 'gw', 'gateway.json');
const readStateFile = () => JSON.parse(fs.readFileSync(stateFile(), 'utf8'));
const secretsIn = (r: Run) => [r.out, r.err].join('\n').match(/svc_(gw|gwc)_[A-Za-z0-9]+/g) ?? [];
const base = () => ['--server', url, '--state', stateFile()];
const enrollArgs = () => [
  ...base(),
  '--enrollment-token',
  path.join(dir, 'token'),
  '--network-scope',
  '10.0.0.0/8, fd00::/8',
  '--name',
  'dc1',
];

test('enrolls once with the requested scope, keeps its credential in a new 0600 file, heartbeats every --interval, says pending → active on approval', async () => {
  const r = await run([...enrollArgs(), '--interval', '30'], {
    stopAfter: 4,
    onBeat: (n) => {
      if (n === 2) Object.assign(gateways[0], { status: 'active', approved: ['10.1.0.0/16'] });
    },
  });
  expect(r.code).toBe(0);
  expect(seen[0]).toMatchObject({
    method: 'POST',
    url: '/v1/gateways/enrollments',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(seen[0].body).toEqual({ name: 'dc1', version: 'dev', networkScope: ['10.0.0.0/8', 'fd00::/8'] });
  expect(seen.slice(1).map((s) => [s.url, s.headers.authorization, s.body])).toEqual(
    Array(4).fill(['/v1/gateways/gw_1/heartbeats', `Bearer ${gateways[0].credential}`, { version: 'dev' }]),
  );
  expect(r.delays).toEqual([30000, 30000, 30000]);
  const state = readStateFile();
  expect(state).toEqual({
    kind: 'gateway',
    serverUrl: url,
    gatewayId: 'gw_1',
    credential: gateways[0].credential,
    enrollmentTokenSha256: crypto.createHash('sha256').update(TOKEN).digest('hex'),
  });
  expect(fs.statSync(stateFile()).mode & 0o777).toBe(0o600);
  const lines = r.err.trim().split('\n');
  expect(lines).toEqual([
    expect.stringMatching(
      /^scanner: enrolled as gateway gw_1 \(dc1\), pending: waiting for an admin to approve its network scope 10\.0\.0\.0\/8, fd00::\/8; state in .*gateway\.json$/,
    ),
    'scanner: gateway gw_1: pending (network scope 10.0.0.0/8, fd00::/8); heartbeating every 30 s',
    'scanner: gateway gw_1: pending → active (network scope 10.1.0.0/16)',
  ]);
  expect(secretsIn(r)).toEqual([]);
});

test('a restart with the same token does not enroll again (the token is single use); without a token it heartbeats from the state file', async () => {
  expect((await run(enrollArgs(), { stopAfter: 1 })).code).toBe(0);
  seen = [];
  const same = await run(enrollArgs(), { stopAfter: 1 });
  expect(same.code).toBe(0);
  expect(seen.map((s) => s.url)).toEqual(['/v1/gateways/gw_1/heartbeats']);
  expect(same.err).toMatch(/already enrolled as gateway gw_1 with this enrollment token/);
  seen = [];
  const plain = await run(base(), { stopAfter: 1 });
  expect(plain.code).toBe(0);
  expect(seen.map((s) => s.url)).toEqual(['/v1/gateways/gw_1/heartbeats']);
  // The default interval is 60 s.
  expect((await run(base(), { stopAfter: 2 })).delays).toEqual([60000]);
  expect(gateways).toHaveLength(1);
});

test('a new enrollment token enrolls a new gateway and replaces the state file, saying the old gateway stays until revoked', async () => {
  expect((await run(enrollArgs(), { stopAfter: 1 })).code).toBe(0);
  seen = [];
  const r = await run(
    [...base(), '--enrollment-token', path.join(dir, 'token2'), '--network-scope', '192.168.0.0/24'],
    { stopAfter: 1 },
  );
  expect(r.code).toBe(0);
  expect(seen.map((s) => s.url)).toEqual(['/v1/gateways/enrollments', '/v1/gateways/gw_2/heartbeats']);
  expect(readStateFile().gatewayId).toBe('gw_2');
  expect(r.err).toMatch(
    /The previous gateway of this state file, gw_1, stays in the service until it is revoked or expires/,
  );
});

test('a used or unknown enrollment token: exit 3, nothing written; a scope the service refuses: exit 2 with its words', async () => {
  tokens.set(TOKEN, true);
  const used = await run(enrollArgs());
  expect(used.code).toBe(3);
  expect(used.err).toMatch(/enrolling: the service refused it: 401 invalid_token: .*ask for a new one/);
  expect(fs.existsSync(stateFile())).toBe(false);
  const bad = await run([...base(), '--enrollment-token', path.join(dir, 'token2'), '--network-scope', '10.0.0.1/8']);
  expect(bad.code).toBe(2);
  expect(bad.err).toMatch(/422 invalid_parameter: networkScope\[0\]: "10\.0\.0\.1\/8" is not a network address/);
  expect(secretsIn(used)).toEqual([]);
  expect(secretsIn(bad)).toEqual([]);
});

test('the flags: --network-scope needed to enroll, CIDR-shaped; --interval 1 to 3600; no state and no token says how to enroll', async () => {
  expect((await run([...base(), '--enrollment-token', path.join(dir, 'token')])).err).toMatch(
    /--network-scope CIDR\[,CIDR\.\.\.\] is needed to enroll/,
  );
  expect((await run([...enrollArgs(), '--network-scope', 'example.com'])).err).toMatch(
    /--network-scope "example\.com": a CIDR/,
  );
  expect((await run([...enrollArgs(), '--network-scope', ','])).err).toMatch(/at least one CIDR/);
  for (const bad of ['0', '3601', 'soon', '-5'])
    expect((await run([...enrollArgs(), `--interval=${bad}`])).err).toMatch(
      /--interval .*: a number of seconds from 1 to 3600/,
    );
  const none = await run(base());
  expect(none.code).toBe(2);
  expect(none.err).toMatch(
    /no state file at .*gateway\.json: enroll first with --enrollment-token FILE --network-scope/,
  );
  const help = await run(['--help']);
  expect(help.out).toMatch(/^usage: scanner gateway /);
  expect(seen).toEqual([]);
});

test('a gateway state file group or others can read is refused (exit 2) with the fix', async () => {
  expect((await run(enrollArgs(), { stopAfter: 1 })).code).toBe(0);
  fs.chmodSync(stateFile(), 0o644);
  seen = [];
  const r = await run(base());
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/has mode 0644: readable by group or others, .*Fix: chmod 600 /);
  expect(r.err).toMatch(/revoke the gateway in the service/);
  expect(seen).toEqual([]);
});

test('while the service is away it backs off (Retry-After honoured) with one "unavailable" and one "back" line; then 401 (revoked) stops it with exit 3', async () => {
  expect((await run(enrollArgs(), { stopAfter: 1 })).code).toBe(0);
  seen = [];
  const r = await run(['--state', stateFile(), '--interval', '10'], {
    onSleep: (_ms, n) => {
      if (n === 1) faults = ['hang-up', { status: 503, retryAfter: '9' }, { status: 429 }];
    },
    onBeat: (n) => {
      if (n === 3) gateways[0].status = 'revoked';
    },
  });
  expect(r.code).toBe(3);
  expect(r.delays).toEqual([10000, 1000, 9000, 4000, 10000, 10000]);
  const lines = r.err.trim().split('\n');
  expect(lines.filter((l) => / is unavailable /.test(l))).toHaveLength(1);
  expect(lines.filter((l) => / is back /.test(l))).toEqual([
    expect.stringMatching(/^scanner: the service is back \(unavailable for \d+ s, 3 failed attempts\)$/),
  ]);
  expect(lines[lines.length - 1]).toMatch(
    /heartbeat of gateway gw_1: the service refused it: 401 invalid_token: .*The gateway was revoked, or stayed pending past its approval window: stopping/,
  );
  // 1 + 3 failed + 2 + the refused one; never an enrollment.
  expect(seen.map((s) => s.url)).toEqual(Array(7).fill('/v1/gateways/gw_1/heartbeats'));
  expect(secretsIn(r)).toEqual([]);
});

test('--once: enrolls, sends one heartbeat and exits 0', async () => {
  const r = await run([...enrollArgs(), '--once']);
  expect(r.code).toBe(0);
  expect(seen.map((s) => s.url)).toEqual(['/v1/gateways/enrollments', '/v1/gateways/gw_1/heartbeats']);
  expect(r.err).toMatch(/gateway gw_1: pending \(network scope 10\.0\.0\.0\/8, fd00::\/8\)\n$/);
});
