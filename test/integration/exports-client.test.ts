// The built client's `scanner scan --format cyclonedx` against the real service: for each scan it made (a pnpm
// workspace's v2 snapshot, a gradle.lockfile's v1 snapshot, a poetry.lock's v2 snapshot; and a project above the
// single-document limits, sent as a multipart upload), the SBOM it writes is byte for byte the service's
// GET /v1/scans/{id}/sbom, valid against the official CycloneDX 1.6 schema, with the inventory's ids as bom-refs; and
// the VEX's refs resolve to the same components.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importAdvisories } from '../../src/advisories/import';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { runClient } from '../helpers/client';
import { bearer, newOrg, testContext, type TestContext } from '../helpers/context';
import { bomRefs, cyclonedxErrors } from '../helpers/cyclonedx';
import { itWithSharedData, sharedDataDir } from '../helpers/shared-data';

const SHARED = sharedDataDir();
const LOCKFILES = path.join(SHARED, 'lockfiles');

let t: TestContext;
let worker: TestWorker | undefined;
let key: string;
let env: Record<string, string>;
const dirs: string[] = [];

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  for (const dir of ['npm', 'maven'])
    expect((await importAdvisories(t.store, [path.join(SHARED, 'advisories', dir)])).rejected).toEqual([]);
  worker = await startTestWorker(t);
  key = await (await newOrg(t.store)).key(['sca:upload', 'scans:read', 'findings:read', 'deps:read']);
  env = { SCANNER_URL: `http://127.0.0.1:${(t.server.address() as { port: number }).port}`, SCANNER_TOKEN: key };
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

const scanIdOf = (doc: any): string =>
  doc.metadata.properties.find((p: { name: string }) => p.name === 'scanner:scan').value;

async function inventoryIds(project: string, ecosystem: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const res: any = await t.api
      .get(
        `/v1/dependencies?project=${project}&ecosystem=${ecosystem}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      )
      .set(bearer(key));
    expect(res.status).toBe(200);
    ids.push(...res.body.dependencies.map((d: { id: string }) => d.id));
    cursor = res.body.nextCursor;
  } while (cursor);
  return ids;
}

/** The client's document for one scan equals the service's, byte for byte; it is valid; its refs are the inventory's. */
async function sameAsService(line: string, project: string): Promise<any> {
  const doc = JSON.parse(line);
  expect(cyclonedxErrors(doc, { large: doc.components.length > 1000 })).toEqual([]);
  const scanId = scanIdOf(doc);
  const res = await t.api.get(`/v1/scans/${scanId}/sbom`).set(bearer(key));
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/vnd.cyclonedx+json; version=1.6');
  expect(res.text).toBe(`${line}\n`);
  const ecosystem = doc.metadata.properties.find((p: { name: string }) => p.name === 'scanner:ecosystem').value;
  const ids = await inventoryIds(project, ecosystem);
  expect(doc.components.map((c: any) => c['bom-ref']).sort()).toEqual(ids.sort());
  return doc;
}

itWithSharedData(
  "three ecosystems, three scans: each SBOM line is the service's document; the VEX resolves into it",
  async () => {
    const dir = tempDir('cdx-eco-');
    fs.copyFileSync(path.join(LOCKFILES, 'npm/vuejs__core__pnpm-lock.yaml'), path.join(dir, 'pnpm-lock.yaml'));
    fs.copyFileSync(path.join(LOCKFILES, 'maven/JabRef__jabref__gradle.lockfile'), path.join(dir, 'gradle.lockfile'));
    fs.copyFileSync(path.join(LOCKFILES, 'pypi/python-poetry__poetry__poetry.lock'), path.join(dir, 'poetry.lock'));
    fs.writeFileSync(path.join(dir, 'requirements.txt'), 'Zope.Interface==5.4.0\n');
    const run = await runClient(
      ['scan', dir, '--project', 'cdx-client', '--format', 'cyclonedx', '--fail-on', 'none', '--timeout', '120'],
      env,
    );
    expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
    const lines = run.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(3);
    const docs = [];
    for (const line of lines) docs.push(await sameAsService(line, 'cdx-client'));
    const byEcosystem = new Map(
      docs.map((d) => [d.metadata.properties.find((p: { name: string }) => p.name === 'scanner:ecosystem').value, d]),
    );
    expect([...byEcosystem.keys()].sort()).toEqual(['gradle', 'javascript', 'python']);

    // pnpm workspace members are the v2 snapshot's modules: the project's sub-components
    expect(byEcosystem.get('javascript').metadata.component.components.length).toBeGreaterThan(5);
    expect(byEcosystem.get('python').components.map((c: { purl: string }) => c.purl)).toContain(
      'pkg:pypi/zope-interface@5.4.0',
    );
    const gradle = byEcosystem.get('gradle');
    expect(gradle.components.map((c: { purl: string }) => c.purl)).toContain(
      'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.13.3',
    );

    // The gradle scan has findings (JabRef's jackson, guava, snakeyaml): its VEX is valid and points into this SBOM.
    const vex = await t.api.get(`/v1/scans/${scanIdOf(gradle)}/vex`).set(bearer(key));
    expect(vex.status).toBe(200);
    const v = JSON.parse(vex.text);
    expect(cyclonedxErrors(v)).toEqual([]);
    expect(v.vulnerabilities.length).toBeGreaterThanOrEqual(5);
    const inSbom = bomRefs(gradle);
    for (const x of v.vulnerabilities) expect(inSbom.has(x.affects[0].ref)).toBe(true);
    const rated = v.vulnerabilities.find((x: any) => x.id === 'CVE-2022-1471');
    expect(rated.ratings.some((r: { method: string }) => r.method.startsWith('CVSS'))).toBe(true);
  },
  180_000,
);

itWithSharedData(
  "a project above the single-document limits (its attribution work), sent in parts: the SBOM is the service's, read from the merged parts",
  async () => {
    const dir = tempDir('cdx-big-');
    const PACKAGES = 5_100;
    const FANOUT = 100;
    const name = (i: number) => `gen-pkg-${String(i).padStart(5, '0')}`;
    const deps = Object.fromEntries(Array.from({ length: FANOUT }, (_, i) => [name(i), '^1.0.0']));
    const packages: Record<string, unknown> = { '': { name: 'big-app', version: '1.0.0', dependencies: deps } };
    for (let i = 0; i < PACKAGES; i++)
      packages[`node_modules/${name(i)}`] = {
        version: '1.0.0',
        ...(i + FANOUT < PACKAGES ? { dependencies: { [name(i + FANOUT)]: '^1.0.0' } } : {}),
      };
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'big-app', version: '1.0.0', dependencies: deps }),
    );
    fs.writeFileSync(
      path.join(dir, 'package-lock.json'),
      JSON.stringify({ name: 'big-app', version: '1.0.0', lockfileVersion: 3, requires: true, packages }),
    );
    const out = path.join(dir, 'sbom.json');
    const run = await runClient(
      [
        'scan',
        dir,
        '--project',
        'cdx-big',
        '--format',
        'cyclonedx',
        '--output',
        out,
        '--fail-on',
        'none',
        '--timeout',
        '240',
      ],
      { ...env, SCANNER_PART_BYTES: String(1024 * 1024) },
    );
    expect({ code: run.code, stderr: run.code === 0 ? '' : run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stderr).toMatch(/sent as multipart upload upl_\w+ in \d+ parts/);
    const text = fs.readFileSync(out, 'utf8');
    const doc = await sameAsService(text.trimEnd(), 'cdx-big');
    expect(doc.components).toHaveLength(PACKAGES);
    const scan = await t.api.get(`/v1/scans/${scanIdOf(doc)}`).set(bearer(key));
    expect(scan.body.attributionMode).toBe('paged');
  },
  300_000,
);
