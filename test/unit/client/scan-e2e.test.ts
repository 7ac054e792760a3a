// The built client bundle against a local stand-in for the service: 429 then 503 then 201 on upload (retries,
// Retry-After), a held ?wait= answer, findings, and the client's exit codes for the gate and for each kind of failure.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runClient } from '../../helpers/client';

interface Seen {
  method: string;
  url: string;
  at: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Route = (req: Seen, n: number) => { status: number; body?: unknown; headers?: Record<string, string> };

let server: http.Server;
let url: string;
let seen: Seen[];
let routes: Record<string, Route>;
let dir: string;

const scan = (status: string, counts: Record<string, number> | null = null) => ({
  id: 'scn_1',
  target: 'shop',
  status,
  findings: counts,
  suppressed: counts ? 0 : null,
  startedAt: '2026-11-23T10:00:00.000Z',
  finishedAt: counts ? '2026-11-23T10:00:01.000Z' : null,
  failureReason: status === 'failed' ? 'internal_error' : null,
  modules: [],
});
const finding = (severity: string, pkg: string, version: string, cve: string) => ({
  id: `fnd_${pkg}`,
  scanId: 'scn_1',
  severity,
  cve,
  publishedAt: '2024-01-01T00:00:00.000Z',
  package: pkg,
  installedVersion: version,
  fixedVersion: null,
  path: ['package.json', `${pkg}@${version}`],
  suppressed: false,
  suppressionReason: null,
  attributions: [],
  summary: `${pkg} is vulnerable`,
  aliases: [cve],
});
const COUNTS = { critical: 0, high: 1, medium: 1, low: 0 };
const FINDINGS = [
  finding('high', 'left-pad', '1.0.0', 'CVE-2024-1'),
  finding('medium', 'is-odd', '2.0.0', 'CVE-2024-2'),
];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const s: Seen = { method: req.method!, url: req.url!, at: Date.now(), headers: req.headers, body };
      seen.push(s);
      const key = `${req.method} ${req.url!.split('?')[0]}`;
      const route = routes[key];
      const a = route
        ? route(s, seen.filter((x) => `${x.method} ${x.url.split('?')[0]}` === key).length)
        : { status: 404, body: { error: { code: 'not_found', message: key } } };
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(a.body === undefined ? '' : JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-e2e-'));
  fs.writeFileSync(
    path.join(dir, 'package-lock.json'),
    JSON.stringify(
      {
        name: 'shop',
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { name: 'shop', version: '1.0.0', dependencies: { 'left-pad': '^1.0.0', 'is-odd': '^2.0.0' } },
          'node_modules/left-pad': { version: '1.0.0' },
          'node_modules/is-odd': { version: '2.0.0' },
        },
      },
      null,
      2,
    ),
  );
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  seen = [];
  routes = {
    'POST /v1/scans/dependency-snapshots': (_s, n) =>
      n === 1
        ? {
            status: 429,
            headers: { 'retry-after': '1' },
            body: { error: { code: 'rate_limited', message: 'slow down' } },
          }
        : n === 2
          ? { status: 503, body: { error: { code: 'service_unavailable', message: 'later' } } }
          : { status: 201, body: scan('queued') },
    'GET /v1/scans/scn_1': () => ({ status: 200, body: scan('completed', COUNTS) }),
    'GET /v1/scans/scn_1/findings': () => ({ status: 200, body: { findings: FINDINGS, nextCursor: null } }),
  };
});

const run = (args: string[], env: Record<string, string> = {}) =>
  runClient(['scan', dir, '--project', 'shop', ...args], {
    SCANNER_URL: url,
    SCANNER_TOKEN: 'key_1',
    SCANNER_RETRY_BASE_MS: '0',
    ...env,
  });

test('429 (Retry-After 1) then 503 then 201: the same body and key three times, the second after at least 1 s; then a held wait', async () => {
  const r = await run(['--fail-on', 'critical']);
  expect(r.code).toBe(0);
  const posts = seen.filter((s) => s.method === 'POST');
  expect(posts).toHaveLength(3);
  expect(new Set(posts.map((p) => p.body)).size).toBe(1);
  expect(new Set(posts.map((p) => p.headers['idempotency-key'])).size).toBe(1);
  expect(posts[0].headers['idempotency-key']).toMatch(/^[0-9a-f]{64}$/);
  expect(posts[0].headers.authorization).toBe('Bearer key_1');
  expect(posts[1].at - posts[0].at).toBeGreaterThanOrEqual(1000);
  expect(r.stderr).toMatch(/429 rate_limited: slow down; retrying in 1\.0 s/);
  expect(r.stderr).toMatch(/503 service_unavailable: later; retrying/);
  expect(seen.find((s) => s.url.startsWith('/v1/scans/scn_1?'))!.url).toMatch(/^\/v1\/scans\/scn_1\?wait=\d+$/);
  const snapshot = JSON.parse(posts[0].body);
  expect(snapshot).toMatchObject({ schemaVersion: 2, project: 'shop', ecosystem: 'javascript' });
  expect(snapshot.nodes.map((n: { id: string }) => n.id)).toEqual(['is-odd@2.0.0', 'left-pad@1.0.0']);
});

test.each([
  ['critical', 0],
  ['high', 1],
  ['medium', 1],
  ['low', 1],
  ['none', 0],
])('--fail-on %s exits %i', async (failOn, code) => {
  const r = await run(['--fail-on', failOn]);
  expect(r.code).toBe(code);
  expect(r.stdout).toContain('left-pad');
});

test('a scan matched against no advisories (advisoryGeneration null) is reported with a warning; one with a generation, or from a service without the field, is not', async () => {
  routes['POST /v1/scans/dependency-snapshots'] = () => ({ status: 201, body: scan('queued') });
  const noAdvisories = { ...scan('completed', { critical: 0, high: 0, medium: 0, low: 0 }), advisoryGeneration: null };
  routes['GET /v1/scans/scn_1'] = () => ({ status: 200, body: noAdvisories });
  routes['GET /v1/scans/scn_1/findings'] = () => ({ status: 200, body: { findings: [], nextCursor: null } });
  const warned = await run([]);
  expect(warned.code).toBe(0);
  expect(warned.stderr).toContain(
    'warning: the service has no advisories imported, so this scan could not find anything',
  );
  routes['GET /v1/scans/scn_1'] = () => ({ status: 200, body: { ...noAdvisories, advisoryGeneration: 'gen_1' } });
  expect((await run([])).stderr).not.toContain('no advisories');
  routes['GET /v1/scans/scn_1'] = () => ({
    status: 200,
    body: scan('completed', { critical: 0, high: 0, medium: 0, low: 0 }),
  });
  expect((await run([])).stderr).not.toContain('no advisories');
});

test('usage errors exit 2: a bad flag value, an unknown flag, no token, nothing to scan', async () => {
  expect((await run(['--fail-on', 'severe'])).code).toBe(2);
  expect((await run(['--format', 'xml'])).stderr).toMatch(/--format "xml": expected one of table, json, sarif/);
  expect((await run(['--frobnicate'])).code).toBe(2);
  expect((await runClient(['scan', dir, '--project', 'shop'], { SCANNER_URL: url })).code).toBe(2);
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'empty-'));
  const nothing = await runClient(['scan', empty, '--project', 'shop'], { SCANNER_URL: url, SCANNER_TOKEN: 'k' });
  fs.rmSync(empty, { recursive: true });
  expect(nothing.code).toBe(2);
  expect(nothing.stderr).toMatch(/nothing to scan/);
  expect(seen).toEqual([]);
});

test('a refused snapshot (413, 422) exits 2; 401, 403, a failed scan and 5xx after the retries exit 3', async () => {
  const refuse =
    (status: number, code: string): Route =>
    () => ({ status, body: { error: { code, message: 'no' } } });
  for (const [status, code, exit] of [
    [413, 'snapshot_too_large', 2],
    [422, 'invalid_snapshot', 2],
    [401, 'unauthorized', 3],
    [403, 'forbidden', 3],
  ] as const) {
    routes['POST /v1/scans/dependency-snapshots'] = refuse(status, code);
    const r = await run([]);
    expect({ status, code: r.code }).toEqual({ status, code: exit });
    expect(r.stderr).toContain(`${status} ${code}: no`);
  }
  routes['POST /v1/scans/dependency-snapshots'] = () => ({ status: 201, body: scan('queued') });
  routes['GET /v1/scans/scn_1'] = () => ({ status: 200, body: scan('failed') });
  const failed = await run([]);
  expect(failed.code).toBe(3);
  expect(failed.stderr).toMatch(/scan scn_1 failed: internal_error/);

  routes['POST /v1/scans/dependency-snapshots'] = refuse(500, 'internal_error');
  const down = await run([], { SCANNER_MAX_ATTEMPTS: '3' });
  expect(down.code).toBe(3);
  expect(down.stderr).toMatch(/gave up after 3 attempts/);
});

test('a scan that does not finish before --timeout exits 3', async () => {
  routes['POST /v1/scans/dependency-snapshots'] = () => ({ status: 201, body: scan('queued') });
  routes['GET /v1/scans/scn_1'] = () => ({ status: 200, body: scan('running') });
  const r = await run(['--timeout', '1']);
  expect(r.code).toBe(3);
  expect(r.stderr).toMatch(/timed out|not finished before the timeout/);
});

test('progress on stderr only when it is a terminal: one line rewritten in place, cleared at the end', async () => {
  const { main } = await import('../../../src/client/main');
  routes['POST /v1/scans/dependency-snapshots'] = () => ({ status: 201, body: scan('queued') });
  routes['GET /v1/scans/scn_1'] = (_s, n) => ({
    status: 200,
    body: n < 2 ? scan('running') : scan('completed', COUNTS),
  });
  const runWith = async (tty: boolean) => {
    let err = '';
    let out = '';
    const code = await main(['scan', dir, '--project', 'shop', '--fail-on', 'none'], {
      out: (t) => void (out += t),
      err: (t) => void (err += t),
      env: { SCANNER_URL: url, SCANNER_TOKEN: 'key_1' },
      cwd: dir,
      stdoutIsTTY: false,
      stderrIsTTY: tty,
    });
    return { code, err, out };
  };
  // The stand-in answers at once, so the second read comes after the 5 s polling pause: one run is enough.
  const tty = await runWith(true);
  expect(tty.code).toBe(0);
  expect(tty.err).toMatch(/\r\x1b\[Kscanner: scan scn_1 running · \d+ s/);
  expect(tty.err).toMatch(/\r\x1b\[Kscanner: scan scn_1 completed · \d+ s\r\x1b\[K/);
  expect(tty.out).toContain('left-pad');
  seen = [];
  routes['GET /v1/scans/scn_1'] = () => ({ status: 200, body: scan('completed', COUNTS) });
  const pipe = await runWith(false);
  expect(pipe.err).not.toContain('\r');
  expect(pipe.err).not.toContain('\x1b[');
}, 30_000);
