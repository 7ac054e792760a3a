// GET /v1/scans/{scanId}/sbom and /vex over the real API, database and an in-process worker, for a v1
// scan, v2 inline scans and a v2 paged scan made by a real multipart upload: every answer valid against the official
// CycloneDX 1.6 schema and the OpenAPI document; the SBOM's bom-refs exactly the inventory's ids of that scan; every
// finding's packageRef a component of both documents; purls of a scoped npm name, a PyPI name needing normalisation
// and Maven names; CVSS ratings from the stored advisories; no analysis on findings whose alerts have none (the
// alerts' analyses: vex-export.test.ts), a suppressed finding's reason and expiry as properties; 409 for a scan not
// completed; 403 without the scope; 404 out of reach; 503 past EXPORTS_MAX_IN_FLIGHT; ETag and 304.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import type request from 'supertest';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { importAdvisories } from '../../src/advisories/import';
import { moduleRef } from '../../src/shared/cyclonedx/common';
import { dependencyId } from '../../src/domain/inventory';
import type { Snapshot } from '../../src/shared/types';
import { openApiDocument } from '../../src/http/openapi/document';
import { createLogger } from '../../src/logger';
import { uploadPreparer } from '../../src/pool/upload-pool';
import { markFailed, markRunning } from '../../src/storage/scans';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { appWithoutTemporal, bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { bomRefs, cyclonedxErrors } from '../helpers/cyclonedx';
import { describeWithSharedData } from '../helpers/shared-data';
import { v2Snapshot } from '../helpers/v2';
import { prng, splitInto } from '../unit/domain/parts-helpers';
import { uploadClient } from './uploads-helpers';

const MEDIA = 'application/vnd.cyclonedx+json; version=1.6';
const logger = createLogger('test', 'silent');
const quietUploads = uploadPreparer(1);

let t: TestContext;
let org: Org;
let key: string; // every scope this file needs, all projects
let worker: TestWorker | undefined;
let quiet: { server: http.Server; api: ReturnType<typeof request> };

// ------------------------------------------------------------------------------------------------- schemas --
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openApiDocument() as object, 'openapi.json');
const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
/** The answer as the OpenAPI document describes it for that status (and media type). */
function expectDocumented(kind: 'sbom' | 'vex', status: number, body: unknown, media = 'application/json'): void {
  const pointer = `/paths/${esc(`/v1/scans/{scanId}/${kind}`)}/get/responses/${status}/content/${esc(media)}/schema`;
  let v = validators.get(pointer);
  if (!v) validators.set(pointer, (v = ajv.compile({ $ref: `openapi.json#${pointer}` })));
  if (!v(body))
    throw new Error(`${kind} ${status}: ${JSON.stringify(v.errors, null, 2)}\n${JSON.stringify(body).slice(0, 2000)}`);
}

// --------------------------------------------------------------------------------------------- advisories --
const CRITICAL_V31 = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const V4 = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N';
const osv = (id: string, ecosystem: string, name: string, extra: Record<string, unknown> = {}, fixed?: string) => ({
  id,
  modified: '2024-01-01T00:00:00Z',
  published: '2024-01-02T00:00:00Z',
  summary: `${name} is vulnerable`,
  affected: [
    {
      package: { ecosystem, name },
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, ...(fixed ? [{ fixed }] : [])] }],
    },
  ],
  ...extra,
});

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exports-adv-'));
  for (const a of [
    osv(
      'GHSA-cdx1-0000-0001',
      'npm',
      '@acme/util',
      { aliases: ['CVE-2024-1001'], severity: [{ type: 'CVSS_V3', score: CRITICAL_V31 }] },
      '2.1.0',
    ),
    osv('GHSA-cdx1-0000-0002', 'npm', 'left-pad', { database_specific: { severity: 'MODERATE' } }),
    osv('GHSA-cdx1-0000-0003', 'PyPI', 'foo-bar', {}, '9.0'),
    osv('GHSA-cdx1-0000-0004', 'Maven', 'org.example:lib-a', { severity: [{ type: 'CVSS_V4', score: V4 }] }, '1.1'),
  ]) {
    fs.writeFileSync(path.join(dir, `${a.id}.json`), JSON.stringify(a));
  }
  expect((await importAdvisories(t.store, [dir])).rejected).toEqual([]);
  org = await newOrg(t.store);
  key = await org.key(['sca:upload', 'scans:read', 'findings:read', 'deps:read']);
  worker = await startTestWorker(t, { logger });
  quiet = await appWithoutTemporal(t.store, { uploads: quietUploads });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await new Promise((r) => quiet?.server.close(r));
  await quietUploads.close();
  await t?.close();
});

// ------------------------------------------------------------------------------------------------ helpers --
async function upload(snapshot: object, api = t.api): Promise<string> {
  const res = await api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(snapshot);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function completed(id: string): Promise<Record<string, any>> {
  const until = Date.now() + 90_000;
  while (Date.now() < until) {
    const res = await t.api.get(`/v1/scans/${id}?wait=10`).set(bearer(key));
    if (res.body.status === 'completed') return res.body;
    if (res.body.status === 'failed') throw new Error(`scan ${id} failed: ${JSON.stringify(res.body)}`);
  }
  throw new Error(`scan ${id} did not complete`);
}

/** An export answered 200: its media type, both schemas, the document. */
async function exported(
  kind: 'sbom' | 'vex',
  scanId: string,
  token = key,
): Promise<{ doc: any; text: string; etag: string }> {
  const res = await t.api.get(`/v1/scans/${scanId}/${kind}`).set(bearer(token));
  expect({ status: res.status, body: res.status === 200 ? undefined : res.body }).toEqual({
    status: 200,
    body: undefined,
  });
  expect(res.headers['content-type']).toBe(MEDIA);
  const doc = JSON.parse(res.text);
  expect(cyclonedxErrors(doc)).toEqual([]);
  expectDocumented(kind, 200, doc, MEDIA);
  return { doc, text: res.text, etag: res.headers.etag };
}

async function envelope(url: string, status: number, code: string, token = key) {
  const res = await t.api.get(url).set(bearer(token));
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expectDocumented(url.endsWith('/vex') ? 'vex' : 'sbom', status, res.body);
  return res;
}

async function inventoryOf(project: string): Promise<{ ids: string[]; scans: Record<string, string> }> {
  const res = await t.api.get(`/v1/dependencies?project=${project}&limit=200`).set(bearer(key));
  expect(res.status).toBe(200);
  expect(res.body.nextCursor).toBeNull();
  return { ids: res.body.dependencies.map((d: { id: string }) => d.id), scans: res.body.scans };
}

async function findingsOf(scanId: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const res: any = await t.api
      .get(
        `/v1/scans/${scanId}/findings?suppressed=all&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      )
      .set(bearer(key));
    expect(res.status).toBe(200);
    out.push(...res.body.findings);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

/** The checks every completed scan's pair of documents passes. */
async function checkPair(scanId: string, project: string, ecosystem: string) {
  const [sbom, vex, inventory, findings] = await Promise.all([
    exported('sbom', scanId),
    exported('vex', scanId),
    inventoryOf(project),
    findingsOf(scanId),
  ]);
  expect(inventory.scans[ecosystem]).toBe(scanId);
  const components = sbom.doc.components.map((c: any) => c['bom-ref']);
  expect([...components].sort()).toEqual([...inventory.ids].sort());
  bomRefs(sbom.doc); // no bom-ref twice
  const vexRefs = bomRefs(vex.doc);
  expect(findings.length).toBeGreaterThan(0);
  for (const f of findings) {
    expect(components).toContain(f.packageRef);
    expect(vexRefs.has(f.packageRef)).toBe(true);
  }
  expect(vex.doc.vulnerabilities.map((v: any) => v['bom-ref'])).toEqual(findings.map((f) => f.id));
  expect(vex.doc.vulnerabilities.map((v: any) => v.affects[0].ref)).toEqual(findings.map((f) => f.packageRef));
  // The VEX's components are the SBOM's, field for field.
  const inSbom = new Map(sbom.doc.components.map((c: any) => [c['bom-ref'], c]));
  for (const c of vex.doc.components) expect(c).toEqual(inSbom.get(c['bom-ref']));
  return { sbom, vex, findings };
}

// ---------------------------------------------------------------------------------------------- snapshots --
const node = (id: string, dependencies: string[] = []) => {
  const at = id.lastIndexOf('@');
  return { id, name: id.slice(0, at), version: id.slice(at + 1), relationship: 'transitive', dependencies };
};

/** v1 npm: web declares @acme/util (→ left-pad) and left-pad; left-pad's advisory is suppressed until 2999. */
const npmV1 = (project: string) => ({
  schemaVersion: 1,
  project,
  ecosystem: 'javascript',
  manifests: ['package-lock.json'],
  roots: [
    {
      module: 'web',
      manifest: 'web/package.json',
      context: 'dependencies',
      dependencies: ['@acme/util@2.0.0', 'left-pad@1.3.0'],
    },
  ],
  nodes: [node('@acme/util@2.0.0', ['left-pad@1.3.0']), node('left-pad@1.3.0'), node('ok@1.0.0')],
  suppressions: [
    { cve: 'GHSA-cdx1-0000-0002', reason: 'left-pad only runs in tests', package: 'left-*', expires: '2999-12-31' },
  ],
});

/** v2 python: :svc declares Foo_Bar (PEP 503: foo-bar) and requests. */
const pyV2 = (project: string) =>
  v2Snapshot(
    [
      {
        module: ':svc',
        context: 'main',
        vertices: [
          ['r', ':svc', 'f', 'q'],
          ['f', 'Foo_Bar@1.0', 'u'],
          ['q', 'requests@2.31.0', 'u'],
          ['u', 'urllib3@2.0.0'],
        ],
      },
    ],
    [{ path: ':svc', dependencies: [], teamName: 'data' }],
    {
      project,
      ecosystem: 'python',
      manifests: ['pyproject.toml'],
    },
  );

/** v2 gradle monorepo: :app depends on :lib; :lib declares lib-a (→ lib-b); :app declares lib-c. */
const gradleV2 = (project: string): Snapshot =>
  v2Snapshot(
    [
      {
        module: ':app',
        context: 'runtimeClasspath',
        vertices: [
          ['r', ':app', 'lib', 'c'],
          ['lib', ':lib', 'a'],
          ['a', 'org.example:lib-a@1.0', 'b'],
          ['b', 'org.example:lib-b@1.0'],
          ['c', 'org.example:lib-c@3.0'],
        ],
      },
      {
        module: ':lib',
        context: 'runtimeClasspath',
        vertices: [
          ['r', ':lib', 'a'],
          ['a', 'org.example:lib-a@1.0', 'b'],
          ['b', 'org.example:lib-b@1.0'],
        ],
      },
    ],
    [
      { path: ':app', dependencies: [':lib'], teamName: 'web' },
      { path: ':lib', dependencies: [], teamName: 'platform' },
    ],
    { project },
  );

// ------------------------------------------------------------------------------------------------- tests --
describeWithSharedData('a v1 npm scan', () => {
  let scanId: string;
  let projectId: string;
  beforeAll(async () => {
    scanId = await upload(npmV1('cdx-v1'));
    projectId = (await completed(scanId)).project;
  });

  test("SBOM and VEX: valid, the inventory's ids, every finding resolves; the scoped npm purl", async () => {
    const { sbom, vex, findings } = await checkPair(scanId, 'cdx-v1', 'javascript');
    const util = sbom.doc.components.find((c: any) => c.purl === 'pkg:npm/%40acme/util@2.0.0');
    expect(util).toEqual({
      type: 'library',
      'bom-ref': dependencyId(projectId, 'javascript', '@acme/util', '2.0.0'),
      group: '@acme',
      name: 'util',
      version: '2.0.0',
      purl: 'pkg:npm/%40acme/util@2.0.0',
    });
    expect(sbom.doc.metadata.component).toMatchObject({
      'bom-ref': projectId,
      name: 'cdx-v1',
      components: [{ name: 'web/package.json', 'bom-ref': moduleRef(projectId, 'javascript', 'web/package.json') }],
    });
    expect(sbom.doc.metadata.timestamp).toBe((await t.api.get(`/v1/scans/${scanId}`).set(bearer(key))).body.startedAt);
    expect(findings.map((f) => f.package).sort()).toEqual(['@acme/util', 'left-pad']);
    // The CVSS vector of the stored GHSA advisory, scored; the finding's own severity first.
    const utilVuln = vex.doc.vulnerabilities.find((v: any) => v.affects[0].ref === util['bom-ref']);
    expect(utilVuln).toMatchObject({
      id: 'CVE-2024-1001',
      source: { name: 'NVD' },
      references: [
        {
          id: 'GHSA-cdx1-0000-0001',
          source: { name: 'GITHUB', url: 'https://github.com/advisories/GHSA-cdx1-0000-0001' },
        },
      ],
      recommendation: 'Upgrade @acme/util to 2.1.0.',
    });
    // nothing triaged: no analysis (the service says nothing about exploitability on its own)
    for (const v of vex.doc.vulnerabilities) expect(v).not.toHaveProperty('analysis');
    expect(utilVuln.ratings).toEqual([
      expect.objectContaining({ severity: 'critical', method: 'other' }),
      {
        source: { name: 'GITHUB', url: 'https://github.com/advisories/GHSA-cdx1-0000-0001' },
        score: 9.8,
        severity: 'critical',
        method: 'CVSSv31',
        vector: CRITICAL_V31,
      },
    ]);
  });

  test("a suppressed finding has no analysis: the suppression's source, reason and expiry are properties", async () => {
    const { doc } = await exported('vex', scanId);
    const leftPad = doc.vulnerabilities.find((v: any) => v.id === 'GHSA-cdx1-0000-0002');
    expect(leftPad).not.toHaveProperty('analysis');
    expect(leftPad.properties).toEqual([
      { name: 'scanner:path', value: expect.any(String) },
      { name: 'scanner:suppressed', value: 'true' },
      { name: 'scanner:suppressionSource', value: 'snapshot' },
      { name: 'scanner:suppressionReason', value: 'left-pad only runs in tests' },
      { name: 'scanner:suppressionExpires', value: '2999-12-31' },
    ]);
    expect(leftPad.ratings).toEqual([expect.objectContaining({ severity: 'medium', method: 'other' })]); // no vector stored
    expect(leftPad).not.toHaveProperty('recommendation');
  });

  test('the same bytes every time; ETag and If-None-Match answer 304 with no body', async () => {
    for (const kind of ['sbom', 'vex'] as const) {
      const a = await exported(kind, scanId);
      const b = await exported(kind, scanId);
      expect(b.text).toBe(a.text);
      expect(a.etag).toMatch(/^"[a-z]+-[0-9a-f]{32}"$/);
      expect(b.etag).toBe(a.etag);
      const again = await t.api.get(`/v1/scans/${scanId}/${kind}`).set(bearer(key)).set('If-None-Match', a.etag);
      expect(again.status).toBe(304);
      expect(again.text ?? '').toBe('');
      const other = await t.api
        .get(`/v1/scans/${scanId}/${kind}`)
        .set(bearer(key))
        .set('If-None-Match', '"something-else"');
      expect(other.status).toBe(200);
    }
    expect((await exported('sbom', scanId)).etag).not.toBe((await exported('vex', scanId)).etag);
  });
});

describeWithSharedData('a v2 python scan', () => {
  test('the PyPI name needing normalisation: one component, its PEP 503 purl; the module with its team', async () => {
    const scanId = await upload(pyV2('cdx-py'));
    const projectId = (await completed(scanId)).project;
    const { sbom, findings } = await checkPair(scanId, 'cdx-py', 'python');
    expect(sbom.doc.components.find((c: any) => c.name === 'Foo_Bar')).toEqual({
      type: 'library',
      'bom-ref': dependencyId(projectId, 'python', 'foo-bar', '1.0'),
      name: 'Foo_Bar',
      version: '1.0',
      purl: 'pkg:pypi/foo-bar@1.0',
    });
    expect(findings.map((f) => f.package)).toEqual(['Foo_Bar']);
    expect(sbom.doc.metadata.component.components).toEqual([
      {
        type: 'application',
        'bom-ref': moduleRef(projectId, 'python', ':svc'),
        name: ':svc',
        properties: [{ name: 'scanner:team', value: 'data' }],
      },
    ]);
  });
});

describeWithSharedData(
  'a v2 gradle graph scanned inline and as a paged scan (a real multipart upload, parts regrouped)',
  () => {
    let inline: string;
    let paged: string;
    let projectId: string;
    beforeAll(async () => {
      const s = gradleV2('cdx-gradle');
      inline = await upload(s);
      projectId = (await completed(inline)).project;
      // The parts carry the items in reverse order: the documents must not depend on how an upload groups them.
      const reversed: Snapshot = {
        ...s,
        modules: [...s.modules!].reverse(),
        roots: [...s.roots].reverse(),
        nodes: [...s.nodes].reverse(),
      };
      const { completion } = await uploadClient(t, () => key).all(reversed, splitInto(reversed, 3, prng(7)));
      expect(completion.status).toBe(201);
      expect(completion.body.attributionMode).toBe('paged');
      paged = completion.body.id;
      await completed(paged);
      // its snapshot is the upload's parts, merged when read (no single body stored)
      expect(await t.store.c.snapshots.countDocuments({ _id: paged })).toBe(0);
    });

    test("both: valid, the inventory's ids, every finding resolves; Maven purls; a CVSS v4 rating", async () => {
      const a = await checkPair(paged, 'cdx-gradle', 'gradle'); // the newer scan is the project's inventory
      const purls = a.sbom.doc.components.map((c: any) => c.purl);
      expect(purls).toEqual([
        'pkg:maven/org.example/lib-a@1.0',
        'pkg:maven/org.example/lib-b@1.0',
        'pkg:maven/org.example/lib-c@3.0',
      ]);
      expect(a.sbom.doc.components[0]).toMatchObject({
        group: 'org.example',
        name: 'lib-a',
        'bom-ref': dependencyId(projectId, 'gradle', 'org.example:lib-a', '1.0'),
      });
      const vuln = a.vex.doc.vulnerabilities[0];
      expect(vuln.ratings[1]).toMatchObject({ method: 'CVSSv4', vector: V4, severity: 'critical' });
      // the inline scan's documents pass the same checks against the same inventory ids (the same graph)
      const [sbom, vex] = await Promise.all([exported('sbom', inline), exported('vex', inline)]);
      expect(sbom.doc.components).toEqual(a.sbom.doc.components);
      expect(vex.doc.vulnerabilities.map((v: any) => v.affects)).toEqual(
        a.vex.doc.vulnerabilities.map((v: any) => v.affects),
      );
    });

    test("the same SBOM from the merged parts as from the inline body, but for the scan's own serial number, time and id", async () => {
      const [x, y] = await Promise.all([exported('sbom', inline), exported('sbom', paged)]);
      expect(y.doc.serialNumber).not.toBe(x.doc.serialNumber);
      const strip = (d: any) => ({
        ...d,
        serialNumber: undefined,
        metadata: {
          ...d.metadata,
          timestamp: undefined,
          properties: d.metadata.properties.filter((p: any) => p.name !== 'scanner:scan'),
        },
      });
      expect(strip(y.doc)).toEqual(strip(x.doc));
      const app = moduleRef(projectId, 'gradle', ':app');
      const lib = moduleRef(projectId, 'gradle', ':lib');
      const d = new Map<string, string[]>(y.doc.dependencies.map((e: any) => [e.ref, e.dependsOn ?? []]));
      expect(d.get(projectId)).toEqual([app, lib].sort());
      expect(d.get(app)).toEqual([lib, dependencyId(projectId, 'gradle', 'org.example:lib-c', '3.0')].sort());
      expect(d.get(lib)).toEqual([dependencyId(projectId, 'gradle', 'org.example:lib-a', '1.0')]);
    });
  },
);

describeWithSharedData('scans not completed', () => {
  test('queued, running, failed: the SBOM answers (the snapshot is stored at upload); the VEX is 409 invalid_state', async () => {
    const id = await upload(npmV1('cdx-pending'), quiet.api); // no workflow behind this API: it stays queued
    const sbom = await exported('sbom', id);
    expect(sbom.doc.components.map((c: any) => c.name)).toEqual(['util', 'left-pad', 'ok']);
    const queued = await envelope(`/v1/scans/${id}/vex`, 409, 'invalid_state');
    expect(queued.body.error.message).toMatch(/is queued/);
    await markRunning(t.store, id, null);
    expect((await envelope(`/v1/scans/${id}/vex`, 409, 'invalid_state')).body.error.message).toMatch(/is running/);
    expect((await exported('sbom', id)).text).toBe(sbom.text);
    await markFailed(t.store, id, 'internal_error', 'test');
    await envelope(`/v1/scans/${id}/vex`, 409, 'invalid_state');
    await exported('sbom', id);
  });
});

describeWithSharedData('access', () => {
  let scanId: string;
  beforeAll(async () => {
    scanId = await upload(npmV1('cdx-access'));
    await completed(scanId);
  });

  test('403 without deps:read (SBOM) or findings:read (VEX), naming the scope', async () => {
    const noDeps = await org.key(['scans:read', 'findings:read']);
    const noFindings = await org.key(['scans:read', 'deps:read']);
    expect(
      (await envelope(`/v1/scans/${scanId}/sbom`, 403, 'insufficient_scope', noDeps)).body.error.message,
    ).toContain('deps:read');
    expect(
      (await envelope(`/v1/scans/${scanId}/vex`, 403, 'insufficient_scope', noFindings)).body.error.message,
    ).toContain('findings:read');
    await exported('sbom', scanId, noFindings);
    await exported('vex', scanId, noDeps);
  });

  test("404 for an unknown scan, a scan of another project for a restricted key, and another organization's scan", async () => {
    await envelope('/v1/scans/scn_00000000000000000000000000/sbom', 404, 'not_found');
    await envelope('/v1/scans/scn_00000000000000000000000000/vex', 404, 'not_found');
    await envelope('/v1/scans/scn_%00/sbom', 404, 'not_found');
    const other = await newOrg(t.store, 'other');
    const outsider = await other.key(['deps:read', 'findings:read']);
    await envelope(`/v1/scans/${scanId}/sbom`, 404, 'not_found', outsider);
    await envelope(`/v1/scans/${scanId}/vex`, 404, 'not_found', outsider);
    const py = await upload(pyV2('cdx-access-other'));
    const projectId = (await completed(py)).project;
    const restricted = await org.key(['deps:read', 'findings:read'], [projectId]);
    await envelope(`/v1/scans/${scanId}/sbom`, 404, 'not_found', restricted);
    await envelope(`/v1/scans/${scanId}/vex`, 404, 'not_found', restricted);
    await exported('sbom', py, restricted);
  });

  test('401 without a credential', async () => {
    const res = await t.api.get(`/v1/scans/${scanId}/sbom`);
    expect(res.status).toBe(401);
    expectDocumented('sbom', 401, res.body);
  });
});

describeWithSharedData('EXPORTS_MAX_IN_FLIGHT', () => {
  test('past the bound: 503 service_unavailable with Retry-After at once, for either export; a slot freed serves again', async () => {
    const scanId = await upload(npmV1('cdx-busy'));
    await completed(scanId);
    // An API whose snapshot reads wait at a gate: the first export holds the one slot until the test opens it.
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const snapshots = t.store.c.snapshots;
    const gated = new Proxy(snapshots, {
      get(target, prop, receiver) {
        if (prop !== 'findOne') return Reflect.get(target, prop, receiver);
        return async (...args: unknown[]) => {
          entered();
          await gate;
          return (target.findOne as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const store = { ...t.store, c: { ...t.store.c, snapshots: gated } };
    const before = process.env.EXPORTS_MAX_IN_FLIGHT;
    process.env.EXPORTS_MAX_IN_FLIGHT = '1';
    const busyApp = await appWithoutTemporal(store, { uploads: quietUploads }).finally(() => {
      if (before === undefined) delete process.env.EXPORTS_MAX_IN_FLIGHT;
      else process.env.EXPORTS_MAX_IN_FLIGHT = before;
    });
    try {
      const first = busyApp.api
        .get(`/v1/scans/${scanId}/sbom`)
        .set(bearer(key))
        .then((r) => r);
      await inside;
      for (const kind of ['sbom', 'vex'] as const) {
        const res = await busyApp.api.get(`/v1/scans/${scanId}/${kind}`).set(bearer(key));
        expect({ status: res.status, code: res.body?.error?.code }).toEqual({
          status: 503,
          code: 'service_unavailable',
        });
        expect(res.headers['retry-after']).toBe('5');
        expect(res.headers.etag).toBeUndefined();
        expectDocumented(kind, 503, res.body);
      }
      open();
      const done = await first;
      expect(done.status).toBe(200);
      expect(cyclonedxErrors(JSON.parse(done.text))).toEqual([]);
      expect((await busyApp.api.get(`/v1/scans/${scanId}/vex`).set(bearer(key))).status).toBe(200);
    } finally {
      open();
      await new Promise((r) => busyApp.server.close(r));
    }
  });
});
