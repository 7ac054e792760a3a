// `scanner scan --format cyclonedx` (the built bundle) against a stand-in for the service: the SBOM of what it uploaded,
// byte for byte what the service's builder makes of that body and scan (src/shared/cyclonedx), valid CycloneDX 1.6;
// written to stdout (one document per line) or --output (one file per ecosystem when there are several); the gate and
// exit codes as for every format; no findings read; the builder loaded only for this format.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildSbom, serializeBom, TOOL_NAME } from '../../../src/shared/cyclonedx/sbom';
import { sbomFile } from '../../../src/client/commands/scan';
import { CLIENT_BUNDLE, runClient } from '../../helpers/client';
import { cyclonedxErrors } from '../../helpers/cyclonedx';
import { itWithSharedData } from '../../helpers/shared-data';

const VERSION: string = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')).version;

interface Seen {
  method: string;
  url: string;
  body: string;
}

let server: http.Server;
let url: string;
let seen: Seen[];
let counts: Record<string, number>;
let withProject: boolean;
let dir: string;

const scanOf = (id: string, ecosystem: string, status: string) => ({
  id,
  target: 'shop',
  ...(withProject ? { project: 'prj_0000000000000000SHOP' } : {}),
  ecosystem,
  status,
  findings: status === 'completed' ? counts : null,
  suppressed: status === 'completed' ? 0 : null,
  startedAt: `2026-11-23T10:00:0${id.endsWith('py') ? 1 : 0}.000Z`,
  finishedAt: null,
  failureReason: null,
  modules: [],
});

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, body });
      const at = req.url!.split('?')[0];
      let answer: { status: number; body: unknown };
      if (req.method === 'POST' && at === '/v1/scans/dependency-snapshots') {
        const eco = JSON.parse(body).ecosystem as string;
        answer = { status: 201, body: scanOf(eco === 'python' ? 'scn_py' : 'scn_js', eco, 'queued') };
      } else if (req.method === 'GET' && /^\/v1\/scans\/scn_(js|py)$/.test(at)) {
        const id = at.slice('/v1/scans/'.length);
        answer = { status: 200, body: scanOf(id, id === 'scn_py' ? 'python' : 'javascript', 'completed') };
      } else {
        answer = { status: 404, body: { error: { code: 'not_found', message: at } } };
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdx-client-'));
  fs.writeFileSync(
    path.join(dir, 'package-lock.json'),
    JSON.stringify({
      name: 'shop',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'shop', version: '1.0.0', dependencies: { '@acme/util': '^2.0.0', 'left-pad': '^1.0.0' } },
        'node_modules/@acme/util': { version: '2.0.0', dependencies: { 'left-pad': '^1.0.0' } },
        'node_modules/left-pad': { version: '1.3.0' },
      },
    }),
  );
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  seen = [];
  counts = { critical: 0, high: 1, medium: 0, low: 0 };
  withProject = true;
});

const run = (args: string[], cwd?: string) =>
  runClient(
    ['scan', dir, '--project', 'shop', '--format', 'cyclonedx', ...args],
    { SCANNER_URL: url, SCANNER_TOKEN: 'key_1', SCANNER_RETRY_BASE_MS: '0' },
    cwd,
  );

/** What the service's builder makes of an uploaded body and the scan it was answered. */
function serviceSbom(body: string, id: string, ecosystem: string): string {
  const scan = scanOf(id, ecosystem, 'completed');
  return serializeBom(
    buildSbom({
      scan: { id, projectId: scan.project!, project: scan.target, startedAt: scan.startedAt },
      snapshot: JSON.parse(body),
      tool: { name: TOOL_NAME, version: VERSION },
    }),
  );
}

itWithSharedData(
  "stdout: the SBOM of the uploaded snapshot, byte for byte the service's document; valid; no findings read",
  async () => {
    const r = await run(['--fail-on', 'critical']);
    expect(r.code).toBe(0);
    const post = seen.find((s) => s.method === 'POST')!;
    expect(r.stdout).toBe(serviceSbom(post.body, 'scn_js', 'javascript'));
    const doc = JSON.parse(r.stdout);
    expect(cyclonedxErrors(doc)).toEqual([]);
    expect(doc.metadata.tools.components).toEqual([
      { type: 'application', name: 'supply-chain-scanner', version: VERSION },
    ]);
    expect(doc.components.map((c: { purl: string }) => c.purl)).toEqual([
      'pkg:npm/%40acme/util@2.0.0',
      'pkg:npm/left-pad@1.3.0',
    ]);
    expect(seen.some((s) => s.url.includes('/findings'))).toBe(false);
    expect(r.stderr).toMatch(/nothing at or above --fail-on critical/);
  },
);

test('the gate and exit codes are unchanged: findings at or above --fail-on exit 1, the SBOM written all the same', async () => {
  const r = await run([]);
  expect(r.code).toBe(1);
  expect(JSON.parse(r.stdout).bomFormat).toBe('CycloneDX');
  expect(r.stderr).toMatch(/1 finding\(s\) at or above --fail-on low: exit 1/);
  counts = { critical: 0, high: 0, medium: 0, low: 0 };
  expect((await run([])).code).toBe(0);
});

test('--output FILE holds the document; stdout stays empty', async () => {
  const out = path.join(dir, 'sbom.cdx.json');
  const r = await run(['--output', out, '--fail-on', 'none']);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe('');
  expect(fs.readFileSync(out, 'utf8')).toBe(
    serviceSbom(seen.find((s) => s.method === 'POST')!.body, 'scn_js', 'javascript'),
  );
  expect(r.stderr).toContain(`CycloneDX SBOM of scan scn_js → ${out}`);
  fs.rmSync(out);
});

itWithSharedData(
  'several ecosystems: one document per line on stdout; one file per ecosystem with --output',
  async () => {
    const two = fs.mkdtempSync(path.join(os.tmpdir(), 'cdx-two-'));
    try {
      fs.copyFileSync(path.join(dir, 'package-lock.json'), path.join(two, 'package-lock.json'));
      fs.writeFileSync(path.join(two, 'requirements.txt'), 'Foo_Bar==1.0\nrequests==2.31.0\n');
      const env = { SCANNER_URL: url, SCANNER_TOKEN: 'key_1', SCANNER_RETRY_BASE_MS: '0' };
      const r = await runClient(['scan', two, '--project', 'shop', '--format', 'cyclonedx', '--fail-on', 'none'], env);
      expect(r.code).toBe(0);
      const posts = seen.filter((s) => s.method === 'POST');
      expect(posts).toHaveLength(2);
      const expected = posts.map((p) => {
        const eco = JSON.parse(p.body).ecosystem;
        return serviceSbom(p.body, eco === 'python' ? 'scn_py' : 'scn_js', eco);
      });
      expect(r.stdout).toBe(expected.join(''));
      const lines = r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((d) => cyclonedxErrors(d))).toEqual([[], []]);
      expect(lines.flatMap((d) => d.components.map((c: { purl: string }) => c.purl))).toContain('pkg:pypi/foo-bar@1.0');

      seen = [];
      const out = path.join(two, 'out', 'bom.json');
      fs.mkdirSync(path.dirname(out));
      const w = await runClient(
        ['scan', two, '--project', 'shop', '--format', 'cyclonedx', '--fail-on', 'none', '--output', out],
        env,
      );
      expect(w.code).toBe(0);
      expect(w.stdout).toBe('');
      expect(fs.readdirSync(path.dirname(out)).sort()).toEqual(['bom.javascript.json', 'bom.python.json']);
      expect(fs.readFileSync(path.join(two, 'out', 'bom.python.json'), 'utf8')).toBe(
        expected.find((e) => e.includes('"scanner:ecosystem","value":"python"'))!,
      );
    } finally {
      fs.rmSync(two, { recursive: true, force: true });
    }
  },
);

test("a service that does not give the scan's project id: exit 3, nothing written", async () => {
  withProject = false;
  const r = await run(['--fail-on', 'none']);
  expect(r.code).toBe(3);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(/project id/);
});

test('the builder is bundled as a lazily initialised module, loaded for this format only; the usage names the format', async () => {
  const text = fs.readFileSync(CLIENT_BUNDLE, 'utf8');
  expect(text).toMatch(/^var init_sbom = __esm\(/m);
  const tail = text.slice(text.lastIndexOf('// src/client/cli.ts'));
  expect(tail).not.toMatch(/init_sbom\(\)/);
  const help = await runClient(['scan', '--help'], {});
  expect(help.stdout).toMatch(/--format table\|json\|sarif\|cyclonedx/);
  const bad = await run(['--format', 'spdx']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/expected one of table, json, sarif, cyclonedx/);
});

test("sbomFile puts the ecosystem after the file's stem", () => {
  expect(sbomFile('/x/bom.json', 'python')).toBe('/x/bom.python.json');
  expect(sbomFile('/x/sbom.cdx.json', 'gradle')).toBe('/x/sbom.gradle.cdx.json');
  expect(sbomFile('/x/bom', 'javascript')).toBe('/x/bom.javascript');
  expect(sbomFile('/x/.bom', 'javascript')).toBe('/x/.bom.javascript');
});
