// GET /v1/scans/{scanId}/vex with the alerts' triage analyses, over the real API, database and an in-process worker:
// a real scan whose alerts are triaged with PUT /v1/alerts/{id}/analysis; the CycloneDX VEX (the default, and
// format=cyclonedx) carries each finding's analysis in force and none for a finding without one (nor for an analysis
// covering another installed version), a suppression only as properties; format=openvex gives an OpenVEX 0.2.0
// document of the triaged findings only; every answer valid against its official schema and the OpenAPI document;
// format=bogus is 422 invalid_parameter; the ETag follows the analyses; a scan with nothing triaged has no OpenVEX.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { importAdvisories } from '../../src/advisories/import';
import { dependencyId } from '../../src/domain/inventory';
import { openApiDocument } from '../../src/http/openapi/document';
import { createLogger } from '../../src/logger';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { cyclonedxErrors } from '../helpers/cyclonedx';
import { describeWithSharedData, sharedDataPath } from '../helpers/shared-data';

const CDX = 'application/vnd.cyclonedx+json; version=1.6';
const logger = createLogger('test', 'silent');

let t: TestContext;
let org: Org;
let key: string; // upload, read and triage
let worker: TestWorker | undefined;

// ------------------------------------------------------------------------------------------------- schemas --
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openApiDocument() as object, 'openapi.json');
const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const documented = new Map<string, ReturnType<typeof ajv.compile>>();
/** The answer as the OpenAPI document describes it for that status and media type. */
function expectDocumented(status: number, body: unknown, media = 'application/json'): void {
  const pointer = `/paths/${esc('/v1/scans/{scanId}/vex')}/get/responses/${status}/content/${esc(media)}/schema`;
  let v = documented.get(pointer);
  if (!v) documented.set(pointer, (v = ajv.compile({ $ref: `openapi.json#${pointer}` })));
  if (!v(body))
    throw new Error(`${status}: ${JSON.stringify(v.errors, null, 2)}\n${JSON.stringify(body).slice(0, 2000)}`);
}

/** The official OpenVEX 0.2.0 schema (the third-party data), `iri` checked as an absolute IRI; read at first use. */
let openVexSchema: ReturnType<Ajv2020['compile']> | undefined;
function openVexErrors(doc: unknown): unknown[] {
  if (!openVexSchema) {
    const own = new Ajv2020({ strict: false, allErrors: true });
    addFormats(own);
    own.addFormat('iri', (s: string) => {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(s) || /[\s\u0000-\u001f\u007f<>"{}|\\^`]/u.test(s)) return false;
      try {
        new URL(s);
        return true;
      } catch {
        return false;
      }
    });
    openVexSchema = own.compile(
      JSON.parse(fs.readFileSync(sharedDataPath('schemas', 'openvex-0.2.0.schema.json'), 'utf8')),
    );
  }
  return openVexSchema(doc) ? [] : (openVexSchema.errors ?? ['invalid']);
}

// --------------------------------------------------------------------------------------------- advisories --
const osv = (id: string, name: string, aliases: string[] = [], fixed?: string) => ({
  id,
  modified: '2024-01-01T00:00:00Z',
  published: '2024-01-02T00:00:00Z',
  summary: `${name} is vulnerable`,
  aliases,
  affected: [
    {
      package: { ecosystem: 'npm', name },
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, ...(fixed ? [{ fixed }] : [])] }],
    },
  ],
});

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vex-adv-'));
  for (const a of [
    osv('GHSA-vex1-0000-0001', 'left-pad', ['CVE-2024-3001'], '1.4.0'),
    osv('GHSA-vex1-0000-0002', '@acme/util', [], '2.1.0'),
    osv('GHSA-vex1-0000-0003', 'ok'),
  ])
    fs.writeFileSync(path.join(dir, `${a.id}.json`), JSON.stringify(a));
  expect((await importAdvisories(t.store, [dir])).rejected).toEqual([]);
  org = await newOrg(t.store, 'Acme Security');
  key = await org.key(['sca:upload', 'scans:read', 'findings:read', 'findings:triage']);
  worker = await startTestWorker(t, { logger });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

// ------------------------------------------------------------------------------------------------ helpers --
const node = (id: string, dependencies: string[] = []) => {
  const at = id.lastIndexOf('@');
  return { id, name: id.slice(0, at), version: id.slice(at + 1), relationship: 'transitive', dependencies };
};

/** web declares @acme/util (→ left-pad 1.3.0), left-pad 1.2.0 and ok; ok's advisory is suppressed by the snapshot. */
const snapshot = (project: string) => ({
  schemaVersion: 1,
  project,
  ecosystem: 'javascript',
  manifests: ['package-lock.json'],
  roots: [
    {
      module: 'web',
      manifest: 'web/package.json',
      context: 'dependencies',
      dependencies: ['@acme/util@2.0.0', 'left-pad@1.2.0', 'ok@1.0.0'],
    },
  ],
  nodes: [
    node('@acme/util@2.0.0', ['left-pad@1.3.0']),
    node('left-pad@1.3.0'),
    node('left-pad@1.2.0'),
    node('ok@1.0.0'),
  ],
  suppressions: [{ cve: 'GHSA-vex1-0000-0003', reason: 'ok only runs in tests' }],
});

/** A completed scan of a new project: its id, project id and findings (with their alerts). */
async function scanned(project: string): Promise<{ scanId: string; projectId: string; findings: any[] }> {
  const up = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(snapshot(project));
  expect(up.status).toBe(201);
  const scanId: string = up.body.id;
  const until = Date.now() + 90_000;
  for (;;) {
    const res = await t.api.get(`/v1/scans/${scanId}?wait=10`).set(bearer(key));
    if (res.body.status === 'completed') break;
    if (res.body.status === 'failed' || Date.now() > until) throw new Error(`scan ${scanId}: ${res.body.status}`);
  }
  const list = await t.api.get(`/v1/scans/${scanId}/findings?suppressed=all&limit=200`).set(bearer(key));
  expect(list.status).toBe(200);
  // the workflow moves the project's alerts after publishing the scan: wait until they are there
  for (const alertId of new Set<string>(list.body.findings.map((f: any) => f.alertId))) {
    for (;;) {
      const res = await t.api.get(`/v1/alerts/${alertId}`).set(bearer(key));
      if (res.status === 200) break;
      if (res.status !== 404 || Date.now() > until) throw new Error(`alert ${alertId}: ${res.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { scanId, projectId: up.body.project, findings: list.body.findings };
}

const put = async (alertId: string, body: object) => {
  const res = await t.api.put(`/v1/alerts/${alertId}/analysis`).set(bearer(key)).send(body);
  expect([res.status, res.body.error]).toEqual([200, undefined]);
  return res.body;
};

/** A VEX answered 200 in `format`: its headers, official schema, OpenAPI response schema; the document. */
async function vex(scanId: string, format?: string, headers: Record<string, string> = {}) {
  const res = await t.api
    .get(`/v1/scans/${scanId}/vex${format ? `?format=${format}` : ''}`)
    .set(bearer(key))
    .set(headers);
  expect({ status: res.status, body: res.status === 200 ? undefined : res.body }).toEqual({
    status: 200,
    body: undefined,
  });
  const doc = JSON.parse(res.text);
  if (format === 'openvex') {
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${scanId}.openvex.json"`);
    expect(openVexErrors(doc)).toEqual([]);
    expectDocumented(200, doc, 'application/json');
  } else {
    expect(res.headers['content-type']).toBe(CDX);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${scanId}.vex.cdx.json"`);
    expect(cyclonedxErrors(doc)).toEqual([]);
    expectDocumented(200, doc, CDX);
  }
  return { doc, text: res.text as string, etag: res.headers.etag as string };
}

// ------------------------------------------------------------------------------------------------- tests --
describeWithSharedData('a scan whose alerts are triaged: the VEX carries their analyses', () => {
  let scanId: string;
  let projectId: string;
  let findingOf: (pkg: string, version: string) => any;
  beforeAll(async () => {
    const s = await scanned('vex-triaged');
    ({ scanId, projectId } = s);
    findingOf = (pkg, version) => s.findings.find((f) => f.package === pkg && f.installedVersion === version)!;
    expect(s.findings.map((f) => `${f.package}@${f.installedVersion}`).sort()).toEqual([
      '@acme/util@2.0.0',
      'left-pad@1.2.0',
      'left-pad@1.3.0',
      'ok@1.0.0',
    ]);
    // left-pad's alert holds both installed versions; its analysis covers 1.3.0 only
    const leftPad = findingOf('left-pad', '1.3.0');
    expect(findingOf('left-pad', '1.2.0').alertId).toBe(leftPad.alertId);
    await put(leftPad.alertId, {
      state: 'not_affected',
      justification: 'code_not_reachable',
      response: ['will_not_fix'],
      detail: 'we never call the padding with user input',
      versions: ['1.3.0'],
      ticketUrl: 'https://jira.example.test/browse/SEC-7',
    });
  }, 120_000);

  test('CycloneDX: the analysis in force on its finding, none on the others; the suppression as properties', async () => {
    const { doc, text } = await vex(scanId);
    expect((await vex(scanId, 'cyclonedx')).text).toBe(text); // the default, asked for by name
    const byId = new Map<string, any>(doc.vulnerabilities.map((v: any) => [v['bom-ref'], v]));
    const covered = byId.get(findingOf('left-pad', '1.3.0').id);
    expect(covered).toMatchObject({
      id: 'CVE-2024-3001',
      affects: [{ ref: dependencyId(projectId, 'javascript', 'left-pad', '1.3.0') }],
      analysis: {
        state: 'not_affected',
        justification: 'code_not_reachable',
        response: ['will_not_fix'],
        detail: 'we never call the padding with user input',
      },
    });
    expect(Object.keys(covered.analysis).sort()).toEqual(['detail', 'justification', 'response', 'state']);
    // the same alert's other installed version is not covered; the other alerts have no analysis
    expect(byId.get(findingOf('left-pad', '1.2.0').id)).not.toHaveProperty('analysis');
    expect(byId.get(findingOf('@acme/util', '2.0.0').id)).not.toHaveProperty('analysis');
    const ok = byId.get(findingOf('ok', '1.0.0').id);
    expect(ok).not.toHaveProperty('analysis');
    expect(ok.properties).toEqual([
      { name: 'scanner:path', value: expect.any(String) },
      { name: 'scanner:suppressed', value: 'true' },
      { name: 'scanner:suppressionSource', value: 'snapshot' },
      { name: 'scanner:suppressionReason', value: 'ok only runs in tests' },
    ]);
  });

  test('OpenVEX: one statement, for the triaged finding only; the project as product, the purl as subcomponent', async () => {
    const { doc } = await vex(scanId, 'openvex');
    const scan = (await t.api.get(`/v1/scans/${scanId}`).set(bearer(key))).body;
    expect(doc).toMatchObject({
      '@context': 'https://openvex.dev/ns/v0.2.0',
      '@id': `urn:supply-chain-scanner:scan:${scanId}:openvex`,
      author: 'Acme Security',
      timestamp: scan.finishedAt,
      version: 1,
      tooling: expect.stringMatching(/^supply-chain-scanner \d/),
    });
    expect(doc.statements).toEqual([
      {
        vulnerability: { name: 'CVE-2024-3001', aliases: ['GHSA-vex1-0000-0001'] }, // Finding.cve: the CVE
        timestamp: expect.any(String),
        products: [
          {
            '@id': `urn:supply-chain-scanner:project:${projectId}`,
            subcomponents: [{ '@id': 'pkg:npm/left-pad@1.3.0' }],
          },
        ],
        status: 'not_affected',
        justification: 'vulnerable_code_not_in_execute_path',
        impact_statement: 'we never call the padding with user input',
        status_notes:
          'Triage analysis (CycloneDX): state not_affected; justification code_not_reachable; response will_not_fix.',
      },
    ]);
    // the analysis was made after the scan
    expect(doc.last_updated).toBe(doc.statements[0].timestamp);
  });

  test('format=bogus, or format given twice: 422 invalid_parameter naming format, in the error envelope', async () => {
    for (const query of ['format=bogus', 'format=OpenVEX', 'format=', 'format=openvex&format=cyclonedx']) {
      const res = await t.api.get(`/v1/scans/${scanId}/vex?${query}`).set(bearer(key));
      expect([query, res.status, res.body.error?.code]).toEqual([query, 422, 'invalid_parameter']);
      expect(res.body.error.message).toMatch(/^format: /);
      expectDocumented(422, res.body);
    }
  });

  test('the ETag follows the analyses: 304 while they stand, the new analysis once one changes', async () => {
    const before = { cdx: await vex(scanId), open: await vex(scanId, 'openvex') };
    expect(before.open.etag).not.toBe(before.cdx.etag);
    for (const [format, x] of [
      [undefined, before.cdx],
      ['openvex', before.open],
    ] as const) {
      const again = await t.api
        .get(`/v1/scans/${scanId}/vex${format ? `?format=${format}` : ''}`)
        .set(bearer(key))
        .set('If-None-Match', x.etag);
      expect(again.status).toBe(304);
    }
    // another alert triaged: both documents change
    await put(findingOf('@acme/util', '2.0.0').alertId, {
      state: 'exploitable',
      response: ['update'],
    });
    const cdx = await vex(scanId, undefined, { 'If-None-Match': before.cdx.etag });
    expect(cdx.etag).not.toBe(before.cdx.etag);
    const util = cdx.doc.vulnerabilities.find((v: any) => v.id === 'GHSA-vex1-0000-0002');
    expect(util.analysis).toEqual({ state: 'exploitable', response: ['update'] });
    const open = await vex(scanId, 'openvex', { 'If-None-Match': before.open.etag });
    expect(open.doc.statements.map((s: any) => [s.vulnerability.name, s.status])).toEqual(
      expect.arrayContaining([
        ['CVE-2024-3001', 'not_affected'],
        ['GHSA-vex1-0000-0002', 'affected'],
      ]),
    );
    const affected = open.doc.statements.find((s: any) => s.status === 'affected');
    expect(affected.action_statement).toBe('Update the package to a version without the vulnerability.');
  });
});

describeWithSharedData('a scan with nothing triaged', () => {
  test('CycloneDX: no analysis anywhere; OpenVEX: 409 invalid_state (a document needs a statement)', async () => {
    const { scanId } = await scanned('vex-untriaged');
    const { doc } = await vex(scanId);
    expect(doc.vulnerabilities.length).toBe(4);
    for (const v of doc.vulnerabilities) expect(v).not.toHaveProperty('analysis');
    const res = await t.api.get(`/v1/scans/${scanId}/vex?format=openvex`).set(bearer(key));
    expect([res.status, res.body.error?.code]).toEqual([409, 'invalid_state']);
    expect(res.body.error.message).toMatch(/no finding whose alert has an analysis/);
    expect(res.headers.etag).toBeUndefined();
    expectDocumented(409, res.body);
  });
});
