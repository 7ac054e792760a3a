// POST /v1/projects/{projectId}/vex over the real API, database and an in-process worker, on alerts of real GitHub
// advisories (the Maven ones of the third-party data: log4j-core CVE-2021-45046, log4j CVE-2022-23302, spring-beans
// CVE-2022-22965). A round trip of each export format into another project keeps every decision's four fields; VEX
// written the way Dependency-Track's and Trivy's users write it (CycloneDX refs that are purls or bom-refs, OpenVEX
// products and subcomponents) applies by alias and purl; what cannot apply is reported with its reason; a person's
// analysis is kept without overwrite; every refusal (size, statements, JSON, kind, schema, parameters, access) writes
// nothing; answers match the OpenAPI document.
import fs from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { importAdvisories } from '../../src/advisories/import';
import { openApiDocument } from '../../src/http/openapi/document';
import { createLogger } from '../../src/logger';
import { installRuntime } from '../../workers/temporal-runtime';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { describeWithSharedData, sharedDataPath } from '../helpers/shared-data';
import { startTestWorker, type TestWorker } from '../helpers/worker';

const logger = createLogger('test', 'silent');

let t: TestContext;
let org: Org;
let key: string; // upload, read and triage
let worker: TestWorker | undefined;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openApiDocument() as object, 'openapi.json');
const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const documented = new Map<string, ReturnType<typeof ajv.compile>>();
function expectDocumented(status: number, body: unknown): void {
  const pointer = `/paths/${esc('/v1/projects/{projectId}/vex')}/post/responses/${status}/content/${esc('application/json')}/schema`;
  let v = documented.get(pointer);
  if (!v) documented.set(pointer, (v = ajv.compile({ $ref: `openapi.json#${pointer}` })));
  if (!v(body))
    throw new Error(`${status}: ${JSON.stringify(v.errors, null, 2)}\n${JSON.stringify(body).slice(0, 2000)}`);
}

const LOG4J = 'org.apache.logging.log4j:log4j-core';
const LOG4J1 = 'log4j:log4j';
const SPRING = 'org.springframework:spring-beans';

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  if (fs.existsSync(sharedDataPath('advisories', 'maven')))
    expect((await importAdvisories(t.store, [sharedDataPath('advisories', 'maven')])).rejected).toEqual([]);
  org = await newOrg(t.store, 'Acme Security');
  key = await org.key(['sca:upload', 'scans:read', 'findings:read', 'findings:triage']);
  worker = await startTestWorker(t, { logger });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

// ------------------------------------------------------------------------------------------------ helpers --
const node = (name: string, version: string, dependencies: string[] = []) => ({
  id: `${name}@${version}`,
  name,
  version,
  relationship: dependencies.length ? 'direct' : 'transitive',
  dependencies,
});

/** A Gradle service using log4j-core 2.14.1 (and the old log4j 1.2.17 through a reporting library) and spring-beans. */
const snapshot = (project: string) => ({
  schemaVersion: 1,
  project,
  ecosystem: 'gradle',
  manifests: ['build.gradle'],
  roots: [
    {
      module: 'app',
      manifest: 'app/build.gradle',
      context: 'runtimeClasspath',
      dependencies: [`${LOG4J}@2.14.1`, `${SPRING}@5.3.10`, 'com.acme:reports@1.0.0'],
    },
  ],
  nodes: [
    node(LOG4J, '2.14.1'),
    node(SPRING, '5.3.10'),
    node('com.acme:reports', '1.0.0', [`${LOG4J1}@1.2.17`]),
    node(LOG4J1, '1.2.17'),
  ],
});

interface Scanned {
  scanId: string;
  projectId: string;
  /** The alert id of a package. */
  alertOf: (pkg: string) => string;
}

async function scanned(project: string): Promise<Scanned> {
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
  const alerts = new Map<string, string>();
  for (const f of list.body.findings) if (f.alertId) alerts.set(f.package, f.alertId);
  for (const alertId of new Set(alerts.values())) {
    for (;;) {
      const res = await t.api.get(`/v1/alerts/${alertId}`).set(bearer(key));
      if (res.status === 200) break;
      if (res.status !== 404 || Date.now() > until) throw new Error(`alert ${alertId}: ${res.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  expect([...alerts.keys()].sort()).toEqual([LOG4J1, LOG4J, SPRING].sort());
  return { scanId, projectId: up.body.project, alertOf: (pkg) => alerts.get(pkg)! };
}

const analysisOf = async (alertId: string) => {
  const res = await t.api.get(`/v1/alerts/${alertId}`).set(bearer(key));
  expect(res.status).toBe(200);
  return res.body.analysis;
};
const fourFields = (a: any) =>
  a && { state: a.state, justification: a.justification, response: a.response, detail: a.detail };

async function importVex(projectId: string, doc: unknown, o: { query?: string; token?: string; type?: string } = {}) {
  return t.api
    .post(`/v1/projects/${projectId}/vex${o.query ?? ''}`)
    .set(bearer(o.token ?? key))
    .set('Content-Type', o.type ?? 'application/json')
    .send(typeof doc === 'string' ? doc : JSON.stringify(doc));
}

async function imported(projectId: string, doc: unknown, query = '') {
  const res = await importVex(projectId, doc, { query });
  expect([res.status, res.body.error]).toEqual([200, undefined]);
  expectDocumented(200, res.body);
  return res.body;
}

const put = async (alertId: string, body: object) => {
  const res = await t.api.put(`/v1/alerts/${alertId}/analysis`).set(bearer(key)).send(body);
  expect([res.status, res.body.error]).toEqual([200, undefined]);
};

// The decisions of a round trip: every state, the justification, responses and a detail where they can be.
const DECISIONS: Record<string, object> = {
  [LOG4J]: {
    state: 'not_affected',
    justification: 'requires_environment',
    response: ['will_not_fix', 'update'],
    detail: 'JNDI lookups are disabled with log4j2.formatMsgNoLookups in every environment',
  },
  [LOG4J1]: { state: 'false_positive', detail: 'reports never configures a JMSAppender' },
  [SPRING]: { state: 'exploitable', response: ['update'] },
};

// ------------------------------------------------------------------------------------------------- tests --
describeWithSharedData('VEX import', () => {
  let a: Scanned;
  beforeAll(async () => {
    a = await scanned('vex-source');
    for (const [pkg, d] of Object.entries(DECISIONS)) await put(a.alertOf(pkg), d);
  }, 180_000);

  test.each(['cyclonedx', 'openvex'])(
    'a round trip of the %s export into another project keeps every decision (state, justification, response, detail)',
    async (format) => {
      const exported = await t.api.get(`/v1/scans/${a.scanId}/vex?format=${format}`).set(bearer(key));
      expect(exported.status).toBe(200);
      const b = await scanned(`vex-target-${format}`);
      const body = await imported(b.projectId, JSON.parse(exported.text));
      expect(body.format).toBe(format);
      expect(body.applied).toBe(3);
      expect(body.changed).toBe(3);
      expect(body.unmatched).toEqual([]);
      for (const pkg of Object.keys(DECISIONS))
        expect(fourFields(await analysisOf(b.alertOf(pkg)))).toEqual(fourFields(await analysisOf(a.alertOf(pkg))));
      // the same import again changes nothing
      const again = await imported(b.projectId, JSON.parse(exported.text));
      expect([again.applied, again.changed]).toEqual([3, 0]);
    },
    180_000,
  );

  test('CycloneDX as Dependency-Track users write it: refs that are purls or bom-refs, matched by CVE alias', async () => {
    const p = await scanned('vex-dt');
    const doc = {
      bomFormat: 'CycloneDX',
      specVersion: '1.4',
      version: 1,
      components: [
        {
          type: 'library',
          'bom-ref': 'log4j-core-ref',
          group: 'org.apache.logging.log4j',
          name: 'log4j-core',
          version: '2.14.1',
          purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar',
        },
      ],
      vulnerabilities: [
        {
          id: 'CVE-2021-45046',
          source: { name: 'NVD' },
          analysis: { state: 'not_affected', justification: 'code_not_reachable', detail: 'lookups disabled' },
          affects: [{ ref: 'log4j-core-ref' }],
        },
        {
          id: 'CVE-2022-22965',
          analysis: { state: 'resolved_with_pedigree', detail: 'patched in our fork' },
          affects: [{ ref: 'pkg:maven/org.springframework/spring-beans@5.3.10' }],
        },
        // a version the project does not have
        {
          id: 'CVE-2022-23302',
          analysis: { state: 'in_triage' },
          affects: [{ ref: 'pkg:maven/log4j/log4j@1.2.16' }],
        },
        // not_affected without a justification: what an analysis requires is missing
        {
          id: 'GHSA-w9p3-5cr8-m3jj',
          analysis: { state: 'not_affected', detail: 'x' },
          affects: [{ ref: 'pkg:maven/log4j/log4j@1.2.17' }],
        },
        // an advisory the project has no alert for; a vulnerability with no analysis
        { id: 'CVE-2099-0001', analysis: { state: 'in_triage' }, affects: [{ ref: 'pkg:maven/a/b@1' }] },
        { id: 'CVE-2021-45046', affects: [{ ref: 'log4j-core-ref' }] },
      ],
    };
    const body = await imported(p.projectId, doc);
    expect(body).toMatchObject({ format: 'cyclonedx', specVersion: '1.4', statements: 6, applied: 2, changed: 2 });
    expect(body.alerts.map((x: any) => [x.statement, x.package, x.state, x.versions])).toEqual([
      [0, LOG4J, 'not_affected', ['2.14.1']],
      [1, SPRING, 'resolved', ['5.3.10']],
    ]);
    expect(body.unmatched.map((u: any) => [u.statement, u.code])).toEqual([
      [2, 'version_not_installed'],
      [3, 'missing_field'],
      [4, 'no_alert'],
      [5, 'no_analysis'],
    ]);
    expect(body.unmatched[0].reason).toContain('1.2.16');
    expect(body.unmatched[1].reason).toContain('justification');
    expect(await analysisOf(p.alertOf(LOG4J))).toMatchObject({
      state: 'not_affected',
      justification: 'code_not_reachable',
      detail: 'lookups disabled',
      versions: ['2.14.1'],
    });
    expect(await analysisOf(p.alertOf(LOG4J1))).toBeNull();
  }, 180_000);

  test('OpenVEX as Trivy users write it: the product a purl, the packages its subcomponents, or the product itself', async () => {
    const p = await scanned('vex-trivy');
    const doc = {
      '@context': 'https://openvex.dev/ns/v0.2.0',
      '@id': 'https://openvex.dev/docs/public/vex-acme-2024',
      author: 'Acme Security',
      timestamp: '2024-03-01T00:00:00Z',
      version: 1,
      statements: [
        {
          vulnerability: { name: 'CVE-2021-45046' },
          products: [
            {
              '@id': 'pkg:oci/acme-app@sha256%3Aabc',
              subcomponents: [{ '@id': 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' }],
            },
          ],
          status: 'not_affected',
          justification: 'vulnerable_code_not_in_execute_path',
          impact_statement: 'The vulnerable lookup is never reached',
        },
        {
          vulnerability: { name: 'GHSA-36p3-wjmg-h94x' },
          products: [{ '@id': 'pkg:maven/org.springframework/spring-beans' }],
          status: 'affected',
          action_statement: 'Upgrade to 5.3.18',
        },
        // the same alert decided twice: the later statement wins
        {
          vulnerability: { name: 'CVE-2022-23302', aliases: ['GHSA-w9p3-5cr8-m3jj'] },
          timestamp: '2024-03-02T00:00:00Z',
          products: [{ '@id': 'pkg:maven/log4j/log4j@1.2.17' }],
          status: 'under_investigation',
        },
        {
          vulnerability: { name: 'CVE-2022-23302' },
          timestamp: '2024-03-05T00:00:00Z',
          products: [{ '@id': 'pkg:maven/log4j/log4j@1.2.17' }],
          status: 'fixed',
          status_notes: 'removed from the reports build',
        },
        // an OpenVEX fixed statement with no notes has no detail, which resolved requires
        {
          vulnerability: { name: 'CVE-2021-45046' },
          products: [{ '@id': 'pkg:npm/left-pad@1.0.0' }],
          status: 'fixed',
        },
      ],
    };
    const body = await imported(p.projectId, doc);
    expect(body.alerts.map((x: any) => [x.statement, x.package, x.state, x.versions])).toEqual([
      [0, LOG4J, 'not_affected', ['2.14.1']],
      [1, SPRING, 'exploitable', null],
      [3, LOG4J1, 'resolved', ['1.2.17']],
    ]);
    expect(body.unmatched.map((u: any) => [u.statement, u.code])).toEqual([
      [2, 'superseded'],
      [4, 'missing_field'],
    ]);
    expect(fourFields(await analysisOf(p.alertOf(LOG4J)))).toEqual({
      state: 'not_affected',
      justification: 'code_not_reachable',
      response: [],
      detail: 'The vulnerable lookup is never reached',
    });
    expect((await analysisOf(p.alertOf(SPRING))).detail).toBe('Upgrade to 5.3.18');
    expect((await analysisOf(p.alertOf(LOG4J1))).detail).toBe('removed from the reports build');
  }, 180_000);

  test("a person's analysis is kept unless overwrite=true; an earlier import's is replaced; the audit trail has the import", async () => {
    const p = await scanned('vex-overwrite');
    await put(p.alertOf(LOG4J), { state: 'exploitable', detail: 'reachable from the search API' });
    const doc = (state: string, detail: string) => ({
      '@context': 'https://openvex.dev/ns/v0.2.0',
      '@id': `https://example.test/vex/${state}`,
      author: 'vendor',
      timestamp: '2024-03-01T00:00:00Z',
      version: 1,
      statements: [
        {
          vulnerability: { name: 'CVE-2021-45046' },
          products: [{ '@id': 'pkg:maven/org.apache.logging.log4j/log4j-core' }],
          status: 'under_investigation',
          status_notes: detail,
        },
        {
          vulnerability: { name: 'CVE-2022-22965' },
          products: [{ '@id': 'pkg:maven/org.springframework/spring-beans' }],
          status: state,
          status_notes: detail,
        },
      ],
    });
    const first = await imported(p.projectId, doc('under_investigation', 'vendor looking'));
    expect(first.alerts.map((x: any) => x.package)).toEqual([SPRING]);
    expect(first.unmatched).toEqual([
      expect.objectContaining({ statement: 0, code: 'person_analysis', package: LOG4J }),
    ]);
    expect((await analysisOf(p.alertOf(LOG4J))).detail).toBe('reachable from the search API');
    // a later import replaces what the first wrote, without overwrite
    const second = await imported(p.projectId, doc('fixed', 'vendor fixed it'));
    expect(second.alerts.map((x: any) => [x.package, x.changed])).toEqual([[SPRING, true]]);
    expect((await analysisOf(p.alertOf(SPRING))).state).toBe('resolved');
    // overwrite=true replaces the person's too
    const third = await imported(p.projectId, doc('fixed', 'vendor fixed it'), '?overwrite=true');
    expect(third.alerts.map((x: any) => [x.package, x.changed])).toEqual([
      [LOG4J, true],
      [SPRING, false],
    ]);
    expect(await analysisOf(p.alertOf(LOG4J))).toMatchObject({ state: 'in_triage', detail: 'vendor fixed it' });
    const audit = await t.api.get('/v1/audit-events?type=project.vex_imported').set(bearer(org.ownerToken));
    expect(audit.status).toBe(200);
    const mine = audit.body.auditEvents.filter((e: any) => e.target.id === p.projectId);
    expect(mine).toHaveLength(3);
    expect(mine[0].target).toMatchObject({ importId: third.importId, format: 'openvex', applied: 2, overwrite: true });
    // the alert's history names the import
    const history = await t.api.get(`/v1/alerts/${p.alertOf(LOG4J)}/history`).set(bearer(key));
    expect(history.status).toBe(200);
    expect(JSON.stringify(history.body)).toContain(third.importId);
  }, 180_000);

  describe('refusals write nothing', () => {
    let p: Scanned;
    const valid = {
      '@context': 'https://openvex.dev/ns/v0.2.0',
      '@id': 'https://example.test/vex/refused',
      author: 'x',
      timestamp: '2024-03-01T00:00:00Z',
      version: 1,
      statements: [
        {
          vulnerability: { name: 'CVE-2022-22965' },
          products: [{ '@id': 'pkg:maven/org.springframework/spring-beans' }],
          status: 'under_investigation',
        },
      ],
    };
    beforeAll(async () => {
      p = await scanned('vex-refusals');
    }, 180_000);
    afterEach(async () => {
      expect(await analysisOf(p.alertOf(SPRING))).toBeNull();
    });

    const refused = async (res: any, status: number, code: string, message?: RegExp) => {
      expect([res.status, res.body.error?.code]).toEqual([status, code]);
      if (message) expect(res.body.error.message).toMatch(message);
      if (status === 413 || status === 422) expectDocumented(status, res.body);
    };

    test('over 5 MB: 413; over 10,000 statements: 413', async () => {
      const big = { ...valid, statements: [{ ...valid.statements[0], status_notes: 'x'.repeat(5 * 1024 * 1024) }] };
      await refused(await importVex(p.projectId, big), 413, 'invalid_parameter', /5 MB/);
      const many = { ...valid, statements: Array.from({ length: 10_001 }, () => valid.statements[0]) };
      await refused(await importVex(p.projectId, many), 413, 'invalid_parameter', /10,001 statements/);
    });

    test('not JSON, not VEX, an unsupported version, invalid against the schema: 422 naming why', async () => {
      await refused(await importVex(p.projectId, '{"statements": ['), 422, 'invalid_parameter', /not valid JSON/);
      await refused(await importVex(p.projectId, { hello: 'world' }), 422, 'invalid_parameter', /neither/);
      await refused(
        await importVex(p.projectId, { bomFormat: 'CycloneDX', specVersion: '1.3', version: 1 }),
        422,
        'invalid_parameter',
        /1\.4, 1\.5, 1\.6/,
      );
      const badStatus = { ...valid, statements: [valid.statements[0], { ...valid.statements[0], status: 'maybe' }] };
      await refused(await importVex(p.projectId, badStatus), 422, 'invalid_parameter', /\/statements\/1\/status/);
      const cdx = {
        bomFormat: 'CycloneDX',
        specVersion: '1.6',
        version: 1,
        vulnerabilities: [
          {
            id: 'CVE-2022-22965',
            analysis: { state: 'in_triage' },
            affects: [{ ref: 'pkg:maven/org.springframework/spring-beans' }],
          },
          { id: 'CVE-2022-22965', analysis: { state: 'sure' }, affects: [] },
        ],
      };
      await refused(
        await importVex(p.projectId, cdx),
        422,
        'invalid_parameter',
        /CycloneDX 1\.6.*\/vulnerabilities\/1/,
      );
      await refused(
        await importVex(p.projectId, valid, { type: 'text/plain' }),
        422,
        'invalid_parameter',
        /Content-Type/,
      );
      await refused(
        await importVex(p.projectId, valid, { query: '?overwrite=yes' }),
        422,
        'invalid_parameter',
        /overwrite/,
      );
    });

    test('access: another project of a restricted key and an unknown project are 404; without findings:triage 403; an auditor 403', async () => {
      const other = await org.key(['findings:triage'], ['prj_someotherproject']);
      await refused(await importVex(p.projectId, valid, { token: other }), 404, 'not_found');
      await refused(await importVex('prj_nope', valid), 404, 'not_found');
      await refused(
        await importVex(p.projectId, valid, { token: await org.key(['findings:read']) }),
        403,
        'insufficient_scope',
      );
      await refused(
        await importVex(p.projectId, valid, { token: await org.session('auditor') }),
        403,
        'insufficient_scope',
      );
    });
  });
});
