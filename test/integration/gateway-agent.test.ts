// The built client's `scanner gateway` (dist/cli/scanner.mjs, a child process) against the real service on the real
// database: an enrollment token issued through the API, enrollment with the requested scope (pending
// in GET /v1/gateways), approval through the API (the agent says pending → active), heartbeats (lastSeenAt moves),
// a restart of the agent with the same single-use token that does not enroll again, the service restarted in the
// middle (one "unavailable" and one "back" line), and revocation: exit 3 on the 401.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_WINDOWS } from '../../src/domain/hosts/status';
import { createApp } from '../../src/http/app';
import { createLogger } from '../../src/logger';
import { cursorCodec, loadCursorSecret } from '../../src/storage/cursors';
import type { Store } from '../../src/storage/mongo';
import { CLIENT_BUNDLE } from '../helpers/client';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';

let t: TestContext;
let org: Org;
let dir: string;

/** The API the gateway talks to: another instance over the same database, on `port` (0: a free one), to restart. */
async function serve(store: Store, port: number): Promise<http.Server> {
  const app = createApp({
    store,
    cursors: cursorCodec(await loadCursorSecret(store)),
    starter: { start: async () => true, drain: async () => undefined },
    readiness: { temporal: async () => ({ ok: false, detail: 'not used' }) },
    logger: createLogger('test', process.env.TEST_LOG_LEVEL || 'silent'),
    maxBodyBytes: 1024 * 1024,
    uploads: { prepare: async () => Promise.reject(new Error('no uploads here')), close: async () => undefined },
    fleet: DEFAULT_WINDOWS,
  });
  const server = app.listen(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  return server;
}

async function stop(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
}

const running: ChildProcess[] = [];

interface Agent {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

function gateway(args: string[]): Agent {
  return agent('gateway', args);
}

function agent(command: 'gateway' | 'sidecar', args: string[]): Agent {
  if (!fs.existsSync(CLIENT_BUNDLE))
    throw new Error(`${CLIENT_BUNDLE} is not built: node tools/build-client.js (npm run build does it)`);
  const child = spawn(process.execPath, [CLIENT_BUNDLE, command, ...args], {
    env: { PATH: process.env.PATH, HOME: dir, SCANNER_RETRY_BASE_MS: '200', SCANNER_RETRY_MAX_MS: '500' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let text = '';
  child.stdout!.on('data', (c) => (text += c));
  child.stderr!.on('data', (c) => (text += c));
  return { child, output: () => text, exit: new Promise((resolve) => child.on('close', (code) => resolve(code))) };
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface ApiGateway {
  id: string;
  name: string;
  status: string;
  networkScope: string[];
  version: string;
  lastSeenAt: string;
}

async function gateways(): Promise<ApiGateway[]> {
  const res = await t.api.get('/v1/gateways').set(bearer(org.ownerToken));
  expect(res.status).toBe(200);
  return res.body.gateways;
}

beforeAll(async () => {
  t = await testContext();
  org = await newOrg(t.store);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-it-'));
}, 60_000);
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('enrolls (pending), is approved (active), heartbeats, restarts without enrolling, rides out a service restart, and stops with exit 3 once revoked', async () => {
  const issued = await t.api.post('/v1/gateways/enrollment-tokens').set(bearer(org.ownerToken)).send({ name: 'dc1' });
  expect(issued.status).toBe(201);
  const token: string = issued.body.token;
  const tokenFile = path.join(dir, 'gw-token');
  fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const stateFile = path.join(dir, 'state', 'gateway.json');

  let api = await serve(t.store, 0);
  const port = (api.address() as AddressInfo).port;
  const server = `http://127.0.0.1:${port}`;
  const args = [
    '--server',
    server,
    '--enrollment-token',
    tokenFile,
    '--network-scope',
    '10.20.0.0/16,fd00:20::/32',
    '--state',
    stateFile,
    '--interval',
    '1',
  ];
  try {
    // 1. Enrollment: pending with the scope it asked for.
    let a = gateway(args);
    const [pending] = await until('the gateway in GET /v1/gateways', async () => {
      const list = await gateways();
      return list.length === 1 && list;
    });
    expect(pending).toMatchObject({
      name: 'dc1',
      status: 'pending',
      networkScope: ['10.20.0.0/16', 'fd00:20::/32'],
      version: require('../../package.json').version,
    });
    await until('the pending line', () =>
      new RegExp(
        `gateway ${pending.id}: pending \\(network scope 10\\.20\\.0\\.0/16, fd00:20::/32\\); heartbeating every 1 s`,
      ).test(a.output()),
    );
    const state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
    expect(state).toMatchObject({ kind: 'gateway', serverUrl: server, gatewayId: pending.id });
    expect(state.credential).toMatch(/^svc_gwc_/);
    expect(fs.statSync(stateFile).mode & 0o777).toBe(0o600);

    // 2. Approval within the requested scope: the agent says so on its next heartbeat; heartbeats move lastSeenAt.
    const approved = await t.api
      .post(`/v1/gateways/${pending.id}/approval`)
      .set(bearer(org.ownerToken))
      .send({ networkScope: ['10.20.1.0/24'] });
    expect(approved.status).toBe(200);
    await until('the active line', () => / pending → active \(network scope 10\.20\.1\.0\/24\)/.test(a.output()));
    const seen = (await gateways())[0].lastSeenAt;
    await until('a later heartbeat', async () => (await gateways())[0].lastSeenAt > seen);
    a.child.kill('SIGTERM');
    expect(await a.exit).toBe(0);

    // 3. Restarted with the same command line: the (used) token is recognised, nothing is enrolled.
    a = gateway(args);
    await until('the restart', () => / gateway [^ ]+: active /.test(a.output()));
    expect(a.output()).toContain(`already enrolled as gateway ${pending.id} with this enrollment token`);
    expect((await gateways()).map((g) => g.id)).toEqual([pending.id]);

    // 4. The service restarts under the running gateway.
    await stop(api);
    await until('the "unavailable" line', () => / is unavailable /.test(a.output()));
    await new Promise((r) => setTimeout(r, 1500));
    const down = new Date().toISOString();
    api = await serve(t.store, port);
    await until('a heartbeat through the new service', async () => (await gateways())[0].lastSeenAt > down);
    await until('the "back" line', () => / is back /.test(a.output()));
    expect(a.output().match(/ is unavailable /g)).toHaveLength(1);
    expect(a.output().match(/ is back /g)).toHaveLength(1);

    // 5. Revoked: 401 on the next heartbeat, exit 3.
    expect((await t.api.delete(`/v1/gateways/${pending.id}`).set(bearer(org.ownerToken))).status).toBe(204);
    expect(await a.exit).toBe(3);
    expect(a.output()).toMatch(
      /heartbeat of gateway [^ ]+: the service refused it: 401 invalid_token.*The gateway was revoked, or stayed pending past its approval window: stopping/,
    );
    expect((await gateways()).map((g) => g.status)).toEqual(['revoked']);
    expect(a.output()).not.toContain(token);
    expect(a.output()).not.toContain(state.credential);
    expect(a.output()).not.toMatch(/svc_(gw|gwc)_/);
  } finally {
    for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await stop(api);
  }
}, 120_000);

test('a sidecar given --gateway reports its host as reached through that active gateway; an id that is not one exits 2', async () => {
  const issued = await t.api.post('/v1/gateways/enrollment-tokens').set(bearer(org.ownerToken)).send({ name: 'edge' });
  const enrolled = await t.api
    .post('/v1/gateways/enrollments')
    .set(bearer(issued.body.token))
    .send({ version: '1.0.0', networkScope: ['10.30.0.0/16'] });
  expect(enrolled.status).toBe(201);
  const gw: string = enrolled.body.gateway.id;
  const registration = await t.api
    .post('/v1/hosts/registration-tokens')
    .set(bearer(org.ownerToken))
    .send({ name: 'behind-edge', uses: 2 });
  expect(registration.status).toBe(201);
  const tokenFile = path.join(dir, 'reg-token');
  fs.writeFileSync(tokenFile, `${registration.body.token}\n`, { mode: 0o600 });
  const stateFile = path.join(dir, 'state', 'sidecar.json');
  const api = await serve(t.store, 0);
  const server = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  try {
    // The gateway is still pending: the service refuses the connectivity (422), the sidecar says why and exits 2.
    let a = agent('sidecar', [
      '--server',
      server,
      '--registration-token',
      tokenFile,
      '--state',
      stateFile,
      '--gateway',
      gw,
      '--once',
    ]);
    expect(await a.exit).toBe(2);
    expect(a.output()).toMatch(new RegExp(`422 invalid_parameter.*does not know ${gw} as one of its active gateways`));

    expect(
      (
        await t.api
          .post(`/v1/gateways/${gw}/approval`)
          .set(bearer(org.ownerToken))
          .send({ networkScope: ['10.30.0.0/24'] })
      ).status,
    ).toBe(200);
    a = agent('sidecar', ['--server', server, '--state', stateFile, '--gateway', gw, '--once']);
    expect(await a.exit).toBe(0);
    const hosts = await t.api.get('/v1/hosts').set(bearer(org.ownerToken));
    expect(hosts.status).toBe(200);
    expect(hosts.body.hosts).toHaveLength(1);
    expect(hosts.body.hosts[0]).toMatchObject({ connectivity: 'gateway', gatewayId: gw });

    // Without the flag, the next heartbeat says direct again.
    a = agent('sidecar', ['--server', server, '--state', stateFile, '--once']);
    expect(await a.exit).toBe(0);
    const after = (await t.api.get('/v1/hosts').set(bearer(org.ownerToken))).body.hosts[0];
    expect(after.connectivity).toBe('direct');
    expect(after).not.toHaveProperty('gatewayId');

    // Not a gateway id at all: refused before anything is sent.
    a = agent('sidecar', ['--server', server, '--state', stateFile, '--gateway', 'not-an-id', '--once']);
    expect(await a.exit).toBe(2);
  } finally {
    for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await stop(api);
  }
}, 60_000);
