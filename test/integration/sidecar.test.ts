// The built client's `scanner sidecar` (dist/cli/scanner.mjs, a child process) against the real service on the real
// database: a registration token issued through the API, attestation, heartbeats seen in GET
// /v1/hosts, a restart of the sidecar that does not attest again, a re-attestation by hand that keeps the host's id,
// the service restarted in the middle (its port closed, a new API opened on the same port: one "unavailable" and one
// "back" line, heartbeats go on), and the host revoked: exit 3 on the 401, never attesting again by itself; registered
// again by hand, the machine is a new host.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fleetWindowsFromEnv } from '../../src/config';
import type { FleetWindows } from '../../src/domain/hosts/status';
import { createApp } from '../../src/http/app';
import { createLogger } from '../../src/logger';
import { cursorCodec, loadCursorSecret } from '../../src/storage/cursors';
import type { Store } from '../../src/storage/mongo';
import { CLIENT_BUNDLE } from '../helpers/client';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';

let t: TestContext;
let org: Org;
let dir: string;
let fleet: FleetWindows;
const previousExpiry = process.env.HOST_EXPIRY;

/**
 * The API the sidecar talks to: another instance of the service over the same database, on `port` (0: a free one),
 * so that it can be stopped and a new one opened on the same port, as a restarted service would be.
 */
async function serve(store: Store, port: number): Promise<http.Server> {
  const app = createApp({
    store,
    cursors: cursorCodec(await loadCursorSecret(store)),
    starter: { start: async () => true, drain: async () => undefined },
    readiness: { temporal: async () => ({ ok: false, detail: 'not used' }) },
    logger: createLogger('test', process.env.TEST_LOG_LEVEL || 'silent'),
    maxBodyBytes: 1024 * 1024,
    uploads: { prepare: async () => Promise.reject(new Error('no uploads here')), close: async () => undefined },
    fleet,
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

function sidecar(args: string[]): Agent {
  if (!fs.existsSync(CLIENT_BUNDLE))
    throw new Error(`${CLIENT_BUNDLE} is not built: node tools/build-client.js (npm run build does it)`);
  const child = spawn(process.execPath, [CLIENT_BUNDLE, 'sidecar', ...args], {
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

async function hosts(): Promise<
  Array<{
    id: string;
    hostname: string;
    status: string;
    lastHeartbeatAt: string;
    labels: Record<string, string>;
    agentVersion: string | null;
  }>
> {
  const res = await t.api.get('/v1/hosts').set(bearer(org.ownerToken));
  expect(res.status).toBe(200);
  return res.body.hosts;
}

const usesLeft = async (id: string): Promise<number> => {
  const res = await t.api.get('/v1/hosts/registration-tokens').set(bearer(org.ownerToken));
  return res.body.registrationTokens.find((x: { id: string }) => x.id === id).usesLeft;
};

beforeAll(async () => {
  // HOST_EXPIRY 3 s: the service tells hosts to heartbeat every second (a third of it).
  process.env.HOST_EXPIRY = '3s';
  fleet = fleetWindowsFromEnv();
  t = await testContext();
  org = await newOrg(t.store);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sidecar-it-'));
}, 60_000);
afterAll(async () => {
  if (previousExpiry === undefined) delete process.env.HOST_EXPIRY;
  else process.env.HOST_EXPIRY = previousExpiry;
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('registers, heartbeats, restarts without attesting, attests again by hand, rides out a service restart, and stops with exit 3 once revoked', async () => {
  const issued = await t.api
    .post('/v1/hosts/registration-tokens')
    .set(bearer(org.ownerToken))
    .send({ name: 'runners', uses: 3, labels: { fleet: 'ci' } });
  expect(issued.status).toBe(201);
  const tokenId: string = issued.body.registrationToken.id;
  const token: string = issued.body.token;
  const tokenFile = path.join(dir, 'reg-token');
  fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const stateFile = path.join(dir, 'state', 'sidecar.json');

  let api = await serve(t.store, 0);
  const port = (api.address() as AddressInfo).port;
  const server = `http://127.0.0.1:${port}`;
  const secrets = () => [token, JSON.parse(fs.readFileSync(stateFile, 'utf8')).credential as string];
  try {
    // 1. Attestation and heartbeats.
    let a = sidecar([
      '--server',
      server,
      '--registration-token',
      tokenFile,
      '--state',
      stateFile,
      '--labels',
      'role=runner,fleet=mine',
    ]);
    const [host] = await until('the host in GET /v1/hosts', async () => {
      const list = await hosts();
      return list.length === 1 && list;
    });
    expect(host).toMatchObject({
      hostname: os.hostname().slice(0, 253),
      status: 'active',
      agentVersion: require('../../package.json').version,
    });
    // The token's labels win over the host's own.
    expect(host.labels).toEqual({ fleet: 'ci', role: 'runner' });
    await until('a later heartbeat', async () => (await hosts())[0].lastHeartbeatAt > host.lastHeartbeatAt);
    const state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
    expect(state).toMatchObject({ kind: 'sidecar', serverUrl: server, hostId: host.id });
    expect(state.credential).toMatch(/^svc_hst_/);
    expect(fs.statSync(stateFile).mode & 0o777).toBe(0o600);
    expect(a.output()).toMatch(new RegExp(`registered as host ${host.id} .*heartbeating every 1 s`, 's'));
    expect(await usesLeft(tokenId)).toBe(2);
    a.child.kill('SIGTERM');
    expect(await a.exit).toBe(0);

    // 2. A restart with the state file: heartbeats with the stored credential, no attestation (no use taken).
    a = sidecar(['--state', stateFile]);
    const seen = (await hosts())[0].lastHeartbeatAt;
    await until('a heartbeat of the restarted sidecar', async () => (await hosts())[0].lastHeartbeatAt > seen);
    expect(await usesLeft(tokenId)).toBe(2);
    a.child.kill('SIGINT');
    expect(await a.exit).toBe(0);
    expect(a.output()).not.toMatch(/registered|attested/);

    // 3. Attesting again by hand: the current credential goes in X-Svc-Host-Credential; same host, new credential.
    const before = JSON.parse(fs.readFileSync(stateFile, 'utf8')).credential;
    a = sidecar(['--server', server, '--registration-token', tokenFile, '--state', stateFile]);
    await until('the re-attestation', () => / attested again: /.test(a.output()));
    const after = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
    expect(after.hostId).toBe(host.id);
    expect(after.credential).not.toBe(before);
    expect((await hosts()).map((h) => h.id)).toEqual([host.id]);
    expect(await usesLeft(tokenId)).toBe(1);
    // The previous credential was revoked by the re-attestation.
    const old = await t.api.post(`/v1/hosts/${host.id}/heartbeats`).set(bearer(before)).send({});
    expect(old.status).toBe(401);

    // 4. The service restarts under the running sidecar.
    await until('heartbeats after the re-attestation', () => /heartbeating every 1 s/.test(a.output()));
    await stop(api);
    await until('the "unavailable" line', () => / is unavailable /.test(a.output()));
    await new Promise((r) => setTimeout(r, 1500)); // a few attempts meet the closed port
    const down = new Date().toISOString();
    api = await serve(t.store, port);
    await until('a heartbeat through the new service', async () => (await hosts())[0].lastHeartbeatAt > down);
    await until('the "back" line', () => / is back /.test(a.output()));
    expect(a.output().match(/ is unavailable /g)).toHaveLength(1);
    expect(a.output().match(/ is back /g)).toHaveLength(1);
    expect((await hosts())[0].status).toBe('active');

    // 5. Revoked: the next heartbeat gets 401, the sidecar stops with exit 3 and does not attest again.
    expect((await t.api.delete(`/v1/hosts/${host.id}`).set(bearer(org.ownerToken))).status).toBe(204);
    expect(await a.exit).toBe(3);
    expect(a.output()).toMatch(
      /401 invalid_token.*The host was revoked or its credential replaced: stopping\. It does not register again by itself/,
    );
    expect(await usesLeft(tokenId)).toBe(1);
    expect((await hosts()).map((h) => [h.id, h.status])).toEqual([[host.id, 'revoked']]);
    for (const s of secrets()) expect(a.output()).not.toContain(s);
    expect(a.output()).not.toMatch(/svc_(reg|hst)_/);

    // Started again with the revoked host's state: 401 at once, exit 3.
    const again = sidecar(['--state', stateFile]);
    expect(await again.exit).toBe(3);
    expect(again.output()).toMatch(/401 invalid_token/);

    // 6. Registering again by hand, as the message says: a revoked host is never revived, the machine is a new host.
    const fresh = sidecar(['--server', server, '--registration-token', tokenFile, '--state', stateFile, '--once']);
    expect(await fresh.exit).toBe(0);
    const now = await hosts();
    expect(now.map((h) => h.status).sort()).toEqual(['active', 'revoked']);
    const newer = now.find((h) => h.status === 'active')!;
    expect(newer.id).not.toBe(host.id);
    expect(JSON.parse(fs.readFileSync(stateFile, 'utf8')).hostId).toBe(newer.id);
    expect(fresh.output()).toMatch(new RegExp(`registered as host ${newer.id} `));
    expect(await usesLeft(tokenId)).toBe(0);
  } finally {
    for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await stop(api);
  }
}, 120_000);
