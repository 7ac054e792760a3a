// GET /v1/advisories/{advisoryId} over the real API, database and an in-process worker: the advisory as stored, found
// by its GHSA id, by its CVE alias in any case and by another record of its alias group; its severity and CVSS vectors
// (highest version first), KEV and EPSS (none imported); the organization's open alerts of it grouped by project (a
// fixed alert not listed, a suppressed one listed as such), paginated over projects in slug order; a restricted key
// sees its projects only; an advisory with no alert, a withdrawn one, one only alerts remember; 404 for an unknown id;
// every 200 valid against the OpenAPI document.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { importAdvisories } from '../../src/advisories/import';
import { moveAlerts } from '../../src/domain/alerts/move';
import { openApiDocument } from '../../src/http/openapi/document';
import { createLogger } from '../../src/logger';
import { advanceHead, insertState, pairIdOf } from '../../src/storage/alerts';
import { createProject } from '../../src/storage/projects';
import { installRuntime } from '../../workers/temporal-runtime';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';

const logger = createLogger('test', 'silent');

let t: TestContext;
let org: Org;
let key: string; // upload, read
let worker: TestWorker | undefined;
const projects: Record<string, string> = {}; // slug → id
const alerts: Record<string, string> = {}; // slug → its left-pad alert

// ------------------------------------------------------------------------------------------------- schemas --
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openApiDocument() as object, 'openapi.json');
const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
let documented: ReturnType<typeof ajv.compile> | undefined;
function expectDocumented(body: unknown): void {
  const pointer = `/paths/${esc('/v1/advisories/{advisoryId}')}/get/responses/200/content/${esc('application/json')}/schema`;
  documented ??= ajv.compile({ $ref: `openapi.json#${pointer}` });
  if (!documented(body)) throw new Error(`${JSON.stringify(documented.errors, null, 2)}\n${JSON.stringify(body)}`);
}

// --------------------------------------------------------------------------------------------- advisories --
const V3 = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const V4 = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N';
const V3_LOW = 'CVSS:3.1/AV:N/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N';

const npmRange = (fixed?: string) => [{ type: 'SEMVER', events: [{ introduced: '0' }, ...(fixed ? [{ fixed }] : [])] }];
const ADVISORIES = [
  {
    id: 'GHSA-page-0000-0001',
    modified: '2024-03-01T10:00:00Z',
    published: '2024-02-01T09:30:00Z',
    aliases: ['CVE-2024-4001'],
    summary: 'left-pad pads with the wrong character',
    details: 'left-pad before 1.4.0 pads with `\\0`.\n\nUpgrade to 1.4.0.',
    severity: [
      { type: 'CVSS_V3', score: V3 },
      { type: 'CVSS_V4', score: V4 },
    ],
    affected: [{ package: { ecosystem: 'npm', name: 'left-pad' }, ranges: npmRange('1.4.0') }],
    references: [
      { type: 'ADVISORY', url: 'https://github.com/advisories/GHSA-page-0000-0001' },
      { type: 'FIX', url: 'https://github.com/left-pad/left-pad/commit/1' },
    ],
  },
  // another record of the same alias group (through the CVE), for another package
  {
    id: 'OSV-2024-0001',
    modified: '2024-03-02T00:00:00Z',
    published: '2024-02-02T00:00:00Z',
    aliases: ['CVE-2024-4001'],
    summary: 'right-pad too',
    severity: [{ type: 'CVSS_V3', score: V3_LOW }],
    affected: [
      { package: { ecosystem: 'npm', name: 'right-pad' }, ranges: npmRange('2.0.0'), versions: ['1.0.0', '1.1.0'] },
    ],
  },
  {
    id: 'GHSA-page-0000-0002',
    modified: '2024-01-01T00:00:00Z',
    published: '2024-01-01T00:00:00Z',
    summary: 'nobody here uses it',
    affected: [{ package: { ecosystem: 'npm', name: 'unused-pkg' }, ranges: npmRange() }],
  },
  {
    id: 'GHSA-page-0000-0003',
    modified: '2024-01-05T00:00:00Z',
    published: '2024-01-01T00:00:00Z',
    withdrawn: '2024-01-05T00:00:00Z',
    aliases: ['CVE-2024-4003'],
    summary: 'a mistake',
    affected: [{ package: { ecosystem: 'npm', name: 'left-pad' }, ranges: npmRange() }],
  },
];

// ------------------------------------------------------------------------------------------------ helpers --
const node = (id: string, dependencies: string[] = []) => {
  const at = id.lastIndexOf('@');
  return { id, name: id.slice(0, at), version: id.slice(at + 1), relationship: 'transitive', dependencies };
};

function snapshot(project: string, direct: string[], nodes: Record<string, string[]>, extra: object = {}) {
  return {
    schemaVersion: 1,
    project,
    ecosystem: 'javascript',
    manifests: ['package-lock.json'],
    roots: [{ module: project, manifest: 'package.json', context: 'dependencies', dependencies: direct }],
    nodes: Object.entries(nodes)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([id, deps]) => node(id, deps)),
    ...extra,
  };
}

/** Uploads a snapshot, waits for its scan and its alerts: the alert of each finding, by package. */
async function scanned(body: ReturnType<typeof snapshot>): Promise<Record<string, string>> {
  const up = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(body);
  expect(up.status).toBe(201);
  projects[body.project] = up.body.project;
  const scanId: string = up.body.id;
  const until = Date.now() + 90_000;
  for (;;) {
    const res = await t.api.get(`/v1/scans/${scanId}?wait=10`).set(bearer(key));
    if (res.body.status === 'completed') break;
    if (res.body.status === 'failed' || Date.now() > until) throw new Error(`scan ${scanId}: ${res.body.status}`);
  }
  const list = await t.api.get(`/v1/scans/${scanId}/findings?suppressed=all&limit=200`).set(bearer(key));
  expect(list.status).toBe(200);
  const out: Record<string, string> = {};
  for (const f of list.body.findings) {
    out[f.package] = f.alertId;
    // the workflow moves the project's alerts after publishing the scan: wait until they are there
    for (;;) {
      const res = await t.api.get(`/v1/alerts/${f.alertId}`).set(bearer(key));
      if (res.status === 200) break;
      if (res.status !== 404 || Date.now() > until) throw new Error(`alert ${f.alertId}: ${res.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return out;
}

async function page(id: string, query = '', token = key) {
  const res = await t.api.get(`/v1/advisories/${encodeURIComponent(id)}${query ? `?${query}` : ''}`).set(bearer(token));
  if (res.status === 200) expectDocumented(res.body);
  return res;
}

const slugsOf = (body: any) => body.projects.map((p: any) => p.projectSlug);

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'advisory-page-'));
  for (const a of ADVISORIES) fs.writeFileSync(path.join(dir, `${a.id}.json`), JSON.stringify(a));
  expect((await importAdvisories(t.store, [dir])).rejected).toEqual([]);
  org = await newOrg(t.store, 'Advisory Page');
  key = await org.key(['sca:upload', 'scans:read', 'findings:read']);
  worker = await startTestWorker(t, { logger });
  // alpha: left-pad 1.2.0 directly; beta: 1.3.0 through @acme/util, suppressed by its snapshot; delta: both versions
  alerts.alpha = (await scanned(snapshot('alpha', ['left-pad@1.2.0'], { 'left-pad@1.2.0': [] })))['left-pad'];
  alerts.beta = (
    await scanned(
      snapshot(
        'beta',
        ['@acme/util@2.0.0'],
        { '@acme/util@2.0.0': ['left-pad@1.3.0'], 'left-pad@1.3.0': [] },
        { suppressions: [{ cve: 'CVE-2024-4001', reason: 'never called with user input' }] },
      ),
    )
  )['left-pad'];
  alerts.delta = (
    await scanned(
      snapshot('delta', ['left-pad@1.2.0', 'x@1.0.0'], {
        'left-pad@1.2.0': [],
        'left-pad@1.3.0': [],
        'x@1.0.0': ['left-pad@1.3.0'],
      }),
    )
  )['left-pad'];
  // gamma had it and upgraded: its alert is fixed
  alerts.gamma = (await scanned(snapshot('gamma', ['left-pad@1.0.0'], { 'left-pad@1.0.0': [] })))['left-pad'];
  await scanned(snapshot('gamma', ['left-pad@1.4.0'], { 'left-pad@1.4.0': [] }));
  const until = Date.now() + 60_000;
  while ((await t.api.get(`/v1/alerts/${alerts.gamma}`).set(bearer(key))).body.status !== 'fixed') {
    if (Date.now() > until) throw new Error('gamma alert not fixed');
    await new Promise((r) => setTimeout(r, 100));
  }
}, 240_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

// ------------------------------------------------------------------------------------------------- tests --
describe('an advisory and its open alerts by project', () => {
  test('by its GHSA id: the advisory as stored, its group, severity and vectors; the projects with open alerts', async () => {
    const res = await page('GHSA-page-0000-0001');
    expect(res.status).toBe(200);
    expect(res.body.advisory).toEqual({
      id: 'GHSA-page-0000-0001',
      aliases: ['CVE-2024-4001', 'OSV-2024-0001'],
      summary: 'left-pad pads with the wrong character',
      details: 'left-pad before 1.4.0 pads with `\\0`.\n\nUpgrade to 1.4.0.',
      severity: 'critical',
      cvss: [
        { version: '4.0', vector: V4, score: 9.3 },
        { version: '3.1', vector: V3, score: 9.8 },
        { version: '3.1', vector: V3_LOW, score: expect.any(Number) },
      ],
      kev: null,
      epss: null,
      published: '2024-02-01T09:30:00.000Z',
      modified: '2024-03-01T10:00:00.000Z',
      withdrawn: null,
      affected: [
        {
          ecosystem: 'npm',
          name: 'left-pad',
          ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.4.0' }] }],
        },
      ],
      references: [
        { type: 'ADVISORY', url: 'https://github.com/advisories/GHSA-page-0000-0001' },
        { type: 'FIX', url: 'https://github.com/left-pad/left-pad/commit/1' },
      ],
    });
    expect(res.body.advisory.cvss[2].score).toBeLessThan(4);
    // gamma's alert is fixed: not listed
    expect(res.body.projects).toEqual([
      {
        project: projects.alpha,
        projectSlug: 'alpha',
        openAlerts: 1,
        alerts: [
          {
            id: alerts.alpha,
            ecosystem: 'javascript',
            package: 'left-pad',
            installedVersions: ['1.2.0'],
            severity: 'critical',
            teams: [],
            suppressed: false,
          },
        ],
      },
      {
        project: projects.beta,
        projectSlug: 'beta',
        openAlerts: 1,
        alerts: [
          {
            id: alerts.beta,
            ecosystem: 'javascript',
            package: 'left-pad',
            installedVersions: ['1.3.0'],
            severity: 'critical',
            teams: [],
            suppressed: true, // by its snapshot: still open
          },
        ],
      },
      {
        project: projects.delta,
        projectSlug: 'delta',
        openAlerts: 1,
        alerts: [
          {
            id: alerts.delta,
            ecosystem: 'javascript',
            package: 'left-pad',
            installedVersions: ['1.2.0', '1.3.0'],
            severity: 'critical',
            teams: [],
            suppressed: false,
          },
        ],
      },
    ]);
    expect(res.body.nextCursor).toBeNull();
    expect((await t.api.get(`/v1/alerts/${alerts.gamma}`).set(bearer(key))).body.status).toBe('fixed');
  });

  test('by any id of its group, in any case: the CVE shows the display advisory, another record shows itself', async () => {
    const byGhsa = (await page('GHSA-page-0000-0001')).body;
    for (const id of ['CVE-2024-4001', 'cve-2024-4001', 'ghsa-PAGE-0000-0001']) {
      const res = await page(id);
      expect([id, res.status]).toEqual([id, 200]);
      expect(res.body).toEqual(byGhsa);
    }
    const other = await page('osv-2024-0001');
    expect(other.status).toBe(200);
    expect(other.body.advisory).toMatchObject({
      id: 'OSV-2024-0001',
      aliases: ['CVE-2024-4001', 'GHSA-page-0000-0001'],
      summary: 'right-pad too',
      severity: 'critical', // the group's
      affected: [
        {
          ecosystem: 'npm',
          name: 'right-pad',
          ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
          versions: ['1.0.0', '1.1.0'],
        },
      ],
      references: [],
    });
    expect(other.body.advisory).not.toHaveProperty('details');
    expect(other.body.projects).toEqual(byGhsa.projects);
  });

  test('pages over projects in slug order, and a cursor binds its advisory', async () => {
    const whole = (await page('CVE-2024-4001')).body.projects;
    for (const limit of [1, 2]) {
      const seen: any[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await page(
          'CVE-2024-4001',
          `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(res.status).toBe(200);
        expect(res.body.projects.length).toBeLessThanOrEqual(limit);
        expect(res.body.advisory.id).toBe('GHSA-page-0000-0001');
        seen.push(...res.body.projects);
        cursor = res.body.nextCursor;
        pages++;
      } while (cursor);
      expect(seen).toEqual(whole);
      expect(pages).toBe(Math.ceil(3 / limit));
    }
    const first = await page('CVE-2024-4001', 'limit=1');
    const cursor = encodeURIComponent(first.body.nextCursor);
    // the same advisory in another case is the same listing; another advisory is not
    expect(
      (await page('cve-2024-4001', `limit=1&cursor=${cursor}`)).body.projects.map((p: any) => p.projectSlug),
    ).toEqual(['beta']);
    const res = await page('GHSA-page-0000-0002', `cursor=${cursor}`);
    expect([res.status, res.body.error?.code]).toEqual([422, 'invalid_cursor']);
    const bad = await page('CVE-2024-4001', 'cursor=garbage');
    expect([bad.status, bad.body.error?.code]).toEqual([422, 'invalid_cursor']);
  });

  test('a restricted key sees its projects only', async () => {
    const deltaOnly = await org.key(['findings:read'], [projects.delta]);
    expect(slugsOf((await page('CVE-2024-4001', '', deltaOnly)).body)).toEqual(['delta']);
    // a project whose alert is fixed: the advisory, no project
    const gammaOnly = await org.key(['findings:read'], [projects.gamma]);
    const res = await page('GHSA-page-0000-0001', '', gammaOnly);
    expect(res.status).toBe(200);
    expect(res.body.projects).toEqual([]);
    // another organization: the advisory is public knowledge, its alerts are not
    const other = await newOrg(t.store, 'Elsewhere');
    const elsewhere = await page('GHSA-page-0000-0001', '', await other.key(['findings:read']));
    expect([elsewhere.status, elsewhere.body.projects]).toEqual([200, []]);
    const noScope = await org.key(['deps:read']);
    const refused = await page('GHSA-page-0000-0001', '', noScope);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'insufficient_scope']);
  });

  test('an advisory nobody is affected by, and a withdrawn one, are shown with no project', async () => {
    const unused = await page('GHSA-page-0000-0002');
    expect(unused.body).toEqual({
      advisory: expect.objectContaining({ id: 'GHSA-page-0000-0002', aliases: [], severity: 'medium', cvss: [] }),
      projects: [],
      nextCursor: null,
    });
    for (const id of ['GHSA-page-0000-0003', 'CVE-2024-4003']) {
      const withdrawn = await page(id);
      expect([id, withdrawn.status]).toEqual([id, 200]);
      expect(withdrawn.body.advisory).toMatchObject({
        id: 'GHSA-page-0000-0003',
        aliases: ['CVE-2024-4003'],
        withdrawn: '2024-01-05T00:00:00.000Z',
      });
      expect(withdrawn.body.projects).toEqual([]);
    }
  });

  test('an id only alerts remember is shown as they remember it; an unknown id is 404', async () => {
    for (const id of ['GHSA-none-0000-0000', 'CVE-2099-0001', 'x'.repeat(300)]) {
      const res = await page(id);
      expect([id.slice(0, 20), res.status, res.body.error?.code]).toEqual([id.slice(0, 20), 404, 'not_found']);
    }
    // an alert of an advisory the database does not have (one removed since), stored as a tracked scan's move stores it
    const project = await createProject(t.store, org.orgId, 'epsilon');
    const moved = moveAlerts(
      [],
      [
        {
          id: 'fnd_remembered',
          package: 'gone-pkg',
          installedVersion: '1.0.0',
          fixedVersion: null,
          severity: 'high',
          cve: 'CVE-2099-0001',
          aliases: ['CVE-2099-0001', 'GHSA-gone-0000-0001'],
          summary: 'a removed advisory',
          publishedAt: '2023-05-01T00:00:00.000Z',
          suppressed: false,
          attributions: [],
          cvss: { version: '3.1', vector: V3, score: 9.8 },
        },
      ],
      {
        projectId: project._id,
        ecosystem: 'javascript',
        scanId: 'scn_remembered',
        startedAt: new Date().toISOString(),
        at: new Date().toISOString(),
        generation: null,
      },
      () => null,
      true,
    );
    const head = {
      pairId: pairIdOf(project._id, 'javascript'),
      orgId: org.orgId,
      projectId: project._id,
      ecosystem: 'javascript',
      scanId: 'scn_remembered',
      startedAt: new Date(),
      seq: 1,
    };
    await insertState(t.store, {
      ...head,
      at: new Date(),
      generation: null,
      rematch: false,
      alerts: moved.alerts,
      move: { events: [], opened: [], fixed: [], reopened: [], announce: false },
    });
    await advanceHead(t.store, { ...head, at: new Date(), open: 1 });
    const res = await page('ghsa-gone-0000-0001');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      advisory: {
        id: 'GHSA-gone-0000-0001',
        aliases: ['CVE-2099-0001'],
        summary: 'a removed advisory',
        severity: 'high',
        cvss: [{ version: '3.1', vector: V3, score: 9.8 }],
        kev: null,
        epss: null,
        published: '2023-05-01T00:00:00.000Z',
        modified: null,
        withdrawn: null,
        affected: [],
        references: [],
      },
      projects: [
        {
          project: project._id,
          projectSlug: 'epsilon',
          openAlerts: 1,
          alerts: [
            expect.objectContaining({ id: moved.alerts[0].id, package: 'gone-pkg', installedVersions: ['1.0.0'] }),
          ],
        },
      ],
      nextCursor: null,
    });
    // out of a restricted key's reach it names nothing
    const alphaOnly = await org.key(['findings:read'], [projects.alpha]);
    const hidden = await page('CVE-2099-0001', '', alphaOnly);
    expect([hidden.status, hidden.body.error?.code]).toEqual([404, 'not_found']);
  });
});
