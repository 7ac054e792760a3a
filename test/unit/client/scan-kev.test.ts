// `scanner scan --fail-on-kev` against a local stand-in for the service, in-process: exit 1 on an unsuppressed
// finding listed in CISA KEV whatever `--fail-on` says, read from every page of the findings; with `--gate new` only
// on an added one (the comparison's `added` class); SCANNER_FAIL_ON_KEV as the default; an older service's findings
// (no kev, no epss) never fail it.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../../src/client/main';

type Body = Record<string, unknown>;
type Route = (url: URL) => { status: number; body: unknown };

let server: http.Server;
let url: string;
let dir: string;
let routes: Record<string, Route>;
let requests: string[];

const KEV = { dateAdded: '2022-03-28', dueDate: '2022-04-18', knownRansomwareCampaignUse: 'Known' };
const EPSS = { score: 0.943, percentile: 0.998, date: '2026-11-27' };
const COUNTS = { critical: 0, high: 0, medium: 1, low: 1 };

const scanBody = (status: string) => ({
  id: 'scn_1',
  target: 'shop',
  project: 'prj_1',
  status,
  findings: status === 'completed' ? COUNTS : null,
  suppressed: 0,
  startedAt: '2026-11-23T10:00:00.000Z',
  finishedAt: status === 'completed' ? '2026-11-23T10:00:01.000Z' : null,
  failureReason: null,
  modules: [],
  advisoryGeneration: 'gen_1',
});

function finding(pkg: string, severity: string, intel: { kev?: unknown; epss?: unknown } | 'omitted'): Body {
  return {
    id: `fnd_${pkg}`,
    scanId: 'scn_1',
    severity,
    cve: `CVE-2024-${pkg.length}`,
    publishedAt: '2024-01-01T00:00:00.000Z',
    package: pkg,
    installedVersion: pkg === 'left-pad' ? '1.0.0' : '2.0.0',
    fixedVersion: null,
    path: ['package.json', `${pkg}@1.0.0`],
    suppressed: false,
    suppressionReason: null,
    attributions: [],
    summary: `${pkg} is vulnerable`,
    aliases: [`CVE-2024-${pkg.length}`],
    ...(intel === 'omitted' ? {} : { kev: intel.kev ?? null, epss: intel.epss ?? null }),
  };
}

/** The findings list, two pages: is-odd (medium, no KEV) first, left-pad (low, KEV) on the second page. */
function servePages(first: Body[], second: Body[], suppressed: Body[] = []): void {
  routes['GET /v1/scans/scn_1/findings'] = (u) => {
    if (u.searchParams.get('suppressed') === 'true')
      return { status: 200, body: { findings: suppressed, nextCursor: null } };
    return u.searchParams.get('cursor') === 'page2'
      ? { status: 200, body: { findings: second, nextCursor: null } }
      : { status: 200, body: { findings: first, nextCursor: 'page2' } };
  };
}

/** The comparison: `added` and `unchanged` as given (the light shape), no cut part. */
function serveCompare(added: Body[], unchanged: Body[], baseline: 'found' | 'missing' = 'found'): void {
  const light = (f: Body) => ({
    ...f,
    attributions: [],
    cvss: null,
    alertId: null,
    firstSeenAt: null,
    attributionCount: 0,
    modules: [],
    teams: [],
  });
  const counts = (list: Body[]) => {
    const c: Record<string, number> = { critical: 0, high: 0, medium: 0, low: 0 };
    for (const f of list) if (!f.suppressed) c[f.severity as string]++;
    return c;
  };
  const none = { critical: 0, high: 0, medium: 0, low: 0 };
  const part = (n: number) => ({ count: n, nextCursor: null });
  routes['GET /v1/scans/scn_1/compare'] = () => ({
    status: 200,
    body: {
      scanId: 'scn_1',
      baseline:
        baseline === 'found'
          ? { id: 'scn_0', ref: 'refs/heads/main', commit: 'b'.repeat(40), startedAt: '2026-11-22T09:00:00.000Z' }
          : null,
      baselineMissing: baseline === 'found' ? null : 'no_tracked_scan',
      counts: { added: counts(added), unchanged: counts(unchanged), disclosed: none, removed: none },
      findings: { added: added.map(light), unchanged: unchanged.map(light), disclosed: [], removed: [] },
      suppressionsAdded: [],
      dependencies: { added: [], removed: [], changed: [] },
      parts: {
        'findings.added': part(added.length),
        'findings.unchanged': part(unchanged.length),
        'findings.disclosed': part(0),
        'findings.removed': part(0),
        'dependencies.added': part(0),
        'dependencies.removed': part(0),
        'dependencies.changed': part(0),
      },
    },
  });
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const u = new URL(req.url!, 'http://localhost');
      requests.push(`${req.method} ${req.url}`);
      const route = routes[`${req.method} ${u.pathname}`];
      const a = route ? route(u) : { status: 404, body: { error: { code: 'not_found', message: u.pathname } } };
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-kev-'));
  fs.writeFileSync(
    path.join(dir, 'package-lock.json'),
    JSON.stringify({
      name: 'shop',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'shop', version: '1.0.0', dependencies: { 'left-pad': '^1.0.0', 'is-odd': '^2.0.0' } },
        'node_modules/left-pad': { version: '1.0.0' },
        'node_modules/is-odd': { version: '2.0.0' },
      },
    }),
  );
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  fs.rmSync(dir, { recursive: true, force: true });
});

const IS_ODD = finding('is-odd', 'medium', {});
const LEFT_PAD_KEV = finding('left-pad', 'low', { kev: KEV, epss: EPSS });

beforeEach(() => {
  requests = [];
  routes = {
    'POST /v1/scans/dependency-snapshots': () => ({ status: 201, body: scanBody('queued') }),
    'GET /v1/scans/scn_1': () => ({ status: 200, body: scanBody('completed') }),
  };
  servePages([IS_ODD], [LEFT_PAD_KEV]);
});

async function run(args: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const code = await main(['scan', dir, '--project', 'shop', ...args], {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    env: { SCANNER_URL: url, SCANNER_TOKEN: 'key_1', SCANNER_RETRY_BASE_MS: '0', ...env },
    cwd: dir,
    stdoutIsTTY: false,
    stderrIsTTY: false,
  });
  return { code, out, err };
}

test('--fail-on none --fail-on-kev: exit 1 on the KEV finding of the second page; 0 without the flag', async () => {
  const r = await run(['--fail-on', 'none', '--fail-on-kev']);
  expect(r.code).toBe(1);
  expect(requests.filter((q) => q.startsWith('GET /v1/scans/scn_1/findings'))).toHaveLength(2);
  expect(r.err).toContain('scanner: 1 KEV finding(s) (--fail-on-kev): exit 1\n');
  expect(r.out).toContain('gate: --fail-on none --fail-on-kev → FAILED (1 KEV finding)');
  expect(r.out).toMatch(/left-pad +1\.0\.0 +no fix +CVE-2024-8 +KEV +94\.3% /);

  const without = await run(['--fail-on', 'none']);
  expect(without.code).toBe(0);
  expect(without.out).toContain('gate: --fail-on none → passed (no gate)');
});

test('--fail-on-kev adds to --fail-on: either fails the gate', async () => {
  // medium and low findings, the low one in KEV: --fail-on high alone passes, with --fail-on-kev it fails.
  expect((await run(['--fail-on', 'high'])).code).toBe(0);
  const both = await run(['--fail-on', 'high', '--fail-on-kev']);
  expect(both.code).toBe(1);
  expect(both.err).toContain('scanner: nothing at or above --fail-on high; 1 KEV finding(s) (--fail-on-kev): exit 1\n');
  // --fail-on low fails on the counts whatever KEV says.
  servePages([IS_ODD], [finding('left-pad', 'low', {})]);
  const low = await run(['--fail-on', 'low', '--fail-on-kev']);
  expect(low.code).toBe(1);
  expect(low.err).toContain(
    'scanner: 2 finding(s) at or above --fail-on low; no KEV finding (--fail-on-kev): exit 1\n',
  );
});

test('a suppressed KEV finding does not fail the gate; neither does a finding without KEV', async () => {
  // The service leaves a suppressed finding out of the default list (the client reads suppressed=true apart).
  servePages([IS_ODD], [], [{ ...LEFT_PAD_KEV, suppressed: true, suppressionReason: 'not reachable' }]);
  const suppressed = await run(['--fail-on', 'none', '--fail-on-kev']);
  expect(suppressed.code).toBe(0);
  expect(suppressed.err).toContain('scanner: no KEV finding (--fail-on-kev)\n');
  // One marked suppressed on the unsuppressed list would not count either.
  servePages([IS_ODD], [{ ...LEFT_PAD_KEV, suppressed: true, suppressionReason: 'not reachable' }]);
  expect((await run(['--fail-on', 'none', '--fail-on-kev'])).code).toBe(0);
  servePages([IS_ODD], [finding('left-pad', 'low', { epss: EPSS })]);
  expect((await run(['--fail-on', 'none', '--fail-on-kev'])).code).toBe(0);
});

test('an older service (no kev, no epss on findings): nothing fails, the JSON report gives null', async () => {
  servePages([finding('is-odd', 'medium', 'omitted')], [finding('left-pad', 'low', 'omitted')]);
  const r = await run(['--fail-on', 'none', '--fail-on-kev', '--format', 'json']);
  expect(r.code).toBe(0);
  const report = JSON.parse(r.out);
  expect(report.scans[0].findings.map((f: Body) => [f.package, f.kev, f.epss])).toEqual([
    ['is-odd', null, null],
    ['left-pad', null, null],
  ]);
  expect(report.gate).toMatchObject({ failOn: 'none', failed: false, failOnKev: true, kevFindings: 0 });
});

test('--format json: kev and epss per finding, the gate with failOnKev and kevFindings', async () => {
  const r = await run(['--fail-on', 'none', '--fail-on-kev', '--format', 'json']);
  expect(r.code).toBe(1);
  const report = JSON.parse(r.out);
  expect(report.scans[0].findings.map((f: Body) => [f.package, f.kev, f.epss])).toEqual([
    ['is-odd', null, null],
    ['left-pad', KEV, EPSS],
  ]);
  expect(report.gate).toMatchObject({ failed: true, failOnKev: true, kevFindings: 1 });
  expect(JSON.parse((await run(['--fail-on', 'none', '--format', 'json'])).out).gate).toMatchObject({
    failed: false,
    failOnKev: false,
    kevFindings: 1,
  });
});

test('--gate new: only an added KEV finding fails; an unchanged one does not', async () => {
  serveCompare([LEFT_PAD_KEV], [IS_ODD]);
  const added = await run(['--gate', 'new', '--fail-on', 'none', '--fail-on-kev']);
  expect(added.code).toBe(1);
  expect(added.err).toContain('scanner: 1 new KEV finding(s) (--fail-on-kev): exit 1\n');
  expect(added.out).toContain('gate: --fail-on none --fail-on-kev → FAILED (1 new KEV finding)');

  serveCompare([IS_ODD], [LEFT_PAD_KEV]);
  const unchanged = await run(['--gate', 'new', '--fail-on', 'none', '--fail-on-kev']);
  expect(unchanged.code).toBe(0);
  expect(unchanged.err).toContain('scanner: no new KEV finding (--fail-on-kev)\n');
  // --gate all on the same comparison: every unsuppressed KEV finding counts.
  expect((await run(['--gate', 'all', '--format', 'markdown', '--fail-on', 'none', '--fail-on-kev'])).code).toBe(1);
});

test("--gate new: a comparison whose findings carry no kev reads the findings list's by id", async () => {
  const { kev: _kev, epss: _epss, ...bare } = LEFT_PAD_KEV;
  serveCompare([bare], [IS_ODD]);
  expect((await run(['--gate', 'new', '--fail-on', 'none', '--fail-on-kev'])).code).toBe(1);
});

test('--gate new without a baseline: --baseline-missing all counts every KEV finding, pass none', async () => {
  serveCompare([], [], 'missing');
  expect((await run(['--gate', 'new', '--fail-on', 'none', '--fail-on-kev'])).code).toBe(1);
  const pass = await run(['--gate', 'new', '--baseline-missing', 'pass', '--fail-on', 'none', '--fail-on-kev']);
  expect(pass.code).toBe(0);
});

test('SCANNER_FAIL_ON_KEV=1|true sets the default; 0, false or empty leave it off; anything else exits 2', async () => {
  for (const v of ['1', 'true', 'TRUE'])
    expect({ v, code: (await run(['--fail-on', 'none'], { SCANNER_FAIL_ON_KEV: v })).code }).toEqual({ v, code: 1 });
  for (const v of ['0', 'false', ''])
    expect({ v, code: (await run(['--fail-on', 'none'], { SCANNER_FAIL_ON_KEV: v })).code }).toEqual({ v, code: 0 });
  // The flag wins over an "off" default.
  expect((await run(['--fail-on', 'none', '--fail-on-kev'], { SCANNER_FAIL_ON_KEV: '0' })).code).toBe(1);
  const bad = await run(['--fail-on', 'none'], { SCANNER_FAIL_ON_KEV: 'yes' });
  expect(bad.code).toBe(2);
  expect(bad.err).toContain('SCANNER_FAIL_ON_KEV="yes": expected 1, true, 0 or false');
});

test('--format cyclonedx --fail-on-kev: the findings are read for the gate, the SBOM is the output', async () => {
  const r = await run(['--format', 'cyclonedx', '--fail-on', 'none', '--fail-on-kev']);
  expect(r.code).toBe(1);
  expect(JSON.parse(r.out)).toMatchObject({ bomFormat: 'CycloneDX' });
  requests = [];
  expect((await run(['--format', 'cyclonedx', '--fail-on', 'none'])).code).toBe(0);
  // Without the flag the findings are not read at all.
  expect(requests.some((q) => q.startsWith('GET /v1/scans/scn_1/findings'))).toBe(false);
});
