// The module and attribution reads over the real API, database and an in-process worker:
// the same graph scanned inline and as a paged scan answers the same modules (with per-module counts), findings
// (paged: the light shape with attributionCount), attributions (deterministic att_ ids) and paths, in every view and
// scope; v1 and unfinished scans answer empty lists; bad input gets the error envelope. Every answer validates
// against the OpenAPI document.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { importAdvisories } from '../../src/advisories/import';
import { attributionInScope, type Scope } from '../../src/domain/attribution/views';
import { syntheticSnapshot } from '../../src/domain/snapshot/synthetic';
import type { Snapshot } from '../../src/shared/types';
import { openApiDocument } from '../../src/http/openapi/document';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { bearer, newOrg, testContext, type Org, type TestContext, workflowClosed } from '../helpers/context';
import { createPagedScan } from '../helpers/paged';
import { v1Snapshot } from '../helpers/snapshots';
import { v2Snapshot } from '../helpers/v2';
import { itWithSharedData, sharedDataDir } from '../helpers/shared-data';

const SHARED = sharedDataDir();
const JACKSON = 'com.fasterxml.jackson.core:jackson-databind@2.13.3';
const SNAKEYAML = 'org.yaml:snakeyaml@1.30';

let t: TestContext;
let org: Org;
let key: string;
let worker: TestWorker | undefined;

// ------------------------------------------------------------------------------------------- the document --
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openApiDocument() as object, 'openapi.json');
const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
/** The body validates against the documented response of the route template (and status). */
function expectDocumented(template: string, status: number, body: unknown): void {
  const pointer = `/paths/${esc(template)}/get/responses/${status}/content/application~1json/schema`;
  let v = validators.get(pointer);
  if (!v) validators.set(pointer, (v = ajv.compile({ $ref: `openapi.json#${pointer}` })));
  if (!v(body))
    throw new Error(
      `${template} ${status}: ${JSON.stringify(v.errors, null, 2)}\n${JSON.stringify(body).slice(0, 2000)}`,
    );
}
const MODULES = '/v1/scans/{scanId}/modules';
const FINDINGS = '/v1/scans/{scanId}/findings';
const ATTRIBUTIONS = '/v1/scans/{scanId}/findings/{findingId}/attributions';
const PATH = '/v1/scans/{scanId}/findings/{findingId}/attributions/{attributionId}/path';

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  // Real Maven advisories (jackson-databind, snakeyaml), synthetic ones for org.example:lib-* (every 10th package)
  // and one npm advisory for the v1 snapshot's lodash.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reads-adv-'));
  for (let i = 0; i < 1000; i += 10) {
    const name = `org.example:lib-${String(i).padStart(5, '0')}`;
    const id = `GHSA-read-${String(i).padStart(4, '0')}-v2v2`;
    const severity = i % 30 === 0 ? [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }] : [];
    const osv = {
      id,
      modified: '2024-01-01T00:00:00Z',
      published: '2024-01-01T00:00:00Z',
      summary: `synthetic ${i}`,
      severity,
      affected: [
        { package: { ecosystem: 'Maven', name }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }] }] },
      ],
    };
    fs.writeFileSync(path.join(dir, `${id}.json`), JSON.stringify(osv));
  }
  const lodash = {
    id: 'GHSA-read-lodash',
    modified: '2024-01-01T00:00:00Z',
    published: '2024-01-01T00:00:00Z',
    summary: 'lodash',
    affected: [
      {
        package: { ecosystem: 'npm', name: 'lodash' },
        ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '4.17.21' }] }],
      },
    ],
  };
  fs.writeFileSync(path.join(dir, 'lodash.json'), JSON.stringify(lodash));
  const report = await importAdvisories(t.store, [path.join(SHARED, 'advisories/maven'), dir]);
  expect(report.rejected).toEqual([]);
  org = await newOrg(t.store);
  key = await org.key(['sca:upload', 'scans:read', 'findings:read']);
  worker = await startTestWorker(t);
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

// ------------------------------------------------------------------------------------------------ helpers --
async function upload(snapshot: unknown): Promise<string> {
  const res = await t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(key))
    .send(snapshot as object);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function finished(id: string): Promise<Record<string, any>> {
  const until = Date.now() + 90_000;
  while (Date.now() < until) {
    const got = await t.api.get(`/v1/scans/${id}?wait=5`).set(bearer(key));
    if (got.body.status === 'completed' || got.body.status === 'failed') return got.body;
  }
  throw new Error(`scan ${id} did not finish`);
}

/** Inline upload and paged scan of the same snapshot, in the same project (so packageRef agrees), both completed. */
async function both(snapshot: Snapshot): Promise<{ inline: string; paged: string }> {
  const inline = await upload(snapshot);
  const paged = (await createPagedScan(t.store, org.orgId, snapshot, t.temporal))._id;
  const [a, b] = await Promise.all([finished(inline), finished(paged)]);
  expect([a.status, b.status]).toEqual(['completed', 'completed']);
  expect(b).toMatchObject({ attributionMode: 'paged', modules: [], findings: a.findings, suppressed: a.suppressed });
  // the paged scan's attributions are stored apart, the inline one's inside its findings; no intermediate results left
  expect(await t.store.c.scanAttributions.countDocuments({ scanId: paged })).toBeGreaterThan(0);
  expect(await t.store.c.scanAttributions.countDocuments({ scanId: inline })).toBe(0);
  await Promise.all([workflowClosed(t, inline), workflowClosed(t, paged)]);
  expect(await t.store.c.scanWork.countDocuments({ scanId: { $in: [inline, paged] } })).toBe(0);
  return { inline, paged };
}

async function get(url: string, template: string, status = 200) {
  const res = await t.api.get(url).set(bearer(key));
  expect({ status: res.status, url, body: res.status === status ? undefined : res.body }).toEqual({
    status,
    url,
    body: undefined,
  });
  expectDocumented(template, status, res.body);
  return res.body;
}

/** Every item of a paged list, following nextCursor. */
async function all(url: string, template: string, items: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const sep = url.includes('?') ? '&' : '?';
    const body: any = await get(`${url}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`, template);
    out.push(...body[items]);
    cursor = body.nextCursor;
  } while (cursor);
  return out;
}

const findingKey = (f: any) => `${f.cve} ${f.package}@${f.installedVersion}`;
const byKey = (fs: any[]) => new Map(fs.map((f) => [findingKey(f), f]));
// firstSeenAt: each scan is the first of its project to see the alerts here (no move runs between them), at its own time.
const strip = ({ id: _i, scanId: _s, attributions: _a, attributionCount: _c, firstSeenAt: _f, ...rest }: any) => rest;

/** :app depends on :lib; :lib declares jackson-databind; :app declares snakeyaml and gets jackson through :lib. */
function monorepo(project: string): Snapshot {
  return v2Snapshot(
    [
      {
        module: ':app',
        context: 'runtimeClasspath',
        vertices: [
          ['r', ':app', 'lib', 'y'],
          ['lib', ':lib', 'j'],
          ['j', JACKSON, 'a'],
          ['a', 'com.fasterxml.jackson.core:jackson-annotations@2.13.3'],
          ['y', SNAKEYAML],
        ],
      },
      {
        module: ':lib',
        context: 'runtimeClasspath',
        vertices: [
          ['r', ':lib', 'j'],
          ['j', JACKSON, 'a'],
          ['a', 'com.fasterxml.jackson.core:jackson-annotations@2.13.3'],
        ],
      },
      {
        module: ':lib',
        context: 'testRuntimeClasspath',
        vertices: [
          ['r', ':lib', 'j'],
          ['j', JACKSON],
        ],
      },
    ],
    [
      { path: ':app', dependencies: [':lib'], teamName: 'web' },
      { path: ':lib', dependencies: [], teamName: 'platform', attributes: { tier: 'backend' } },
    ],
    { project, suppressions: [{ cve: 'CVE-2022-25857', reason: 'not reachable' }] },
  );
}

/** Module counts from the inline findings (affected view): each finding once per module its attributions name. */
function expectedCounts(findings: any[], module: string) {
  const c = { critical: 0, high: 0, medium: 0, low: 0, suppressed: 0 };
  for (const f of findings) {
    if (!f.attributions.some((a: any) => a.module === module)) continue;
    if (f.suppressed) c.suppressed++;
    else (c as any)[f.severity]++;
  }
  return c;
}

/**
 * Inline and paged answer alike: the findings list in each scope (the paged one light, with the inline finding's
 * attributions in scope counted), counts, attribution lists (same ids) in each scope, and every path.
 */
async function expectSameReads(inline: string, paged: string, scopes: Scope[], pathSample = 1): Promise<void> {
  const modulesA = await all(`/v1/scans/${inline}/modules?limit=7`, MODULES, 'modules');
  const modulesB = await all(`/v1/scans/${paged}/modules?limit=7`, MODULES, 'modules');
  expect(modulesB).toEqual(modulesA);
  const full = await all(`/v1/scans/${inline}/findings?suppressed=all&limit=200`, FINDINGS, 'findings');
  for (const m of modulesA) expect(m.counts).toEqual(expectedCounts(full, m.path));
  const teams = new Map(modulesA.map((m: any) => [m.path, m.teamName ?? null]));
  const teamOf = (m: string) => teams.get(m);
  for (const scope of [{ view: 'affected' } as Scope, ...scopes]) {
    const q = `&attribution=${scope.view}${scope.module ? `&module=${encodeURIComponent(scope.module)}` : ''}${scope.team ? `&team=${encodeURIComponent(scope.team)}` : ''}`;
    const a = await get(`/v1/scans/${inline}/findings?suppressed=all&limit=200${q}`, FINDINGS);
    const b = await get(`/v1/scans/${paged}/findings?suppressed=all&limit=200${q}`, FINDINGS);
    const summary = await get(`/v1/scans/${inline}/findings?suppressed=all&limit=200&details=summary${q}`, FINDINGS);
    expect(b.counts).toEqual(a.counts);
    // ids (and so the order within a severity) differ between scans: compared by advisory and package
    const sorted = (fs: any[]) => fs.map(strip).sort((x, y) => (findingKey(x) < findingKey(y) ? -1 : 1));
    expect(sorted(b.findings)).toEqual(sorted(a.findings));
    expect(summary.findings.map(strip)).toEqual(a.findings.map(strip));
    const fullByKey = byKey(full);
    const summaryByKey = byKey(summary.findings);
    for (const f of b.findings) {
      const inScope = fullByKey
        .get(findingKey(f))
        .attributions.filter((x: any) => attributionInScope(x, scope, teamOf)).length;
      expect(f.attributions).toEqual([]);
      expect(f.attributionCount).toBe(inScope);
      expect(summaryByKey.get(findingKey(f))).toMatchObject({ attributions: [], attributionCount: inScope });
    }
    for (const f of a.findings) expect(f.attributionCount).toBeUndefined(); // the full shape, as before
  }
  const pagedByKey = byKey(await all(`/v1/scans/${paged}/findings?suppressed=all&limit=200`, FINDINGS, 'findings'));
  let sampled = 0;
  for (const f of full) {
    const g = pagedByKey.get(findingKey(f));
    for (const scope of [{ view: 'affected' } as Scope, ...scopes]) {
      const q = `?limit=50&attribution=${scope.view}${scope.module ? `&module=${encodeURIComponent(scope.module)}` : ''}${scope.team ? `&team=${encodeURIComponent(scope.team)}` : ''}`;
      const listA = await all(`/v1/scans/${inline}/findings/${f.id}/attributions${q}`, ATTRIBUTIONS, 'attributions');
      const listB = await all(`/v1/scans/${paged}/findings/${g.id}/attributions${q}`, ATTRIBUTIONS, 'attributions');
      expect(listB).toEqual(listA);
      // the inline finding's attributions in the scope, in order, without paths
      const want = f.attributions
        .filter((x: any) => attributionInScope(x, scope, teamOf))
        .map((x: any) => ({
          module: x.module,
          context: x.context,
          relationship: x.relationship,
          origins: x.origins.map((o: any) => ({ module: o.module, dependency: o.dependency })),
        }));
      expect(listA.map(({ id: _id, ...rest }: any) => rest)).toEqual(want);
    }
    const ids = (
      await all(`/v1/scans/${inline}/findings/${f.id}/attributions?limit=200`, ATTRIBUTIONS, 'attributions')
    ).map((x: any) => x.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [k, id] of ids.entries()) {
      if (sampled++ % pathSample !== 0) continue;
      const pa = await get(`/v1/scans/${inline}/findings/${f.id}/attributions/${id}/path`, PATH);
      const pb = await get(`/v1/scans/${paged}/findings/${g.id}/attributions/${id}/path`, PATH);
      expect(pa).toEqual({ path: f.attributions[k].path, origins: f.attributions[k].origins });
      expect(pb).toEqual(pa);
    }
  }
}

// ------------------------------------------------------------------------------------------------------ tests --

itWithSharedData(
  'a gradle monorepo scanned inline and paged: modules with counts, attributions with ids and origins, paths, views',
  async () => {
    const { inline, paged } = await both(monorepo('reads-monorepo'));
    const modules = await get(`/v1/scans/${paged}/modules`, MODULES);
    const full = await all(`/v1/scans/${inline}/findings?suppressed=all`, FINDINGS, 'findings');
    const jackson = full.filter((f) => `${f.package}@${f.installedVersion}` === JACKSON);
    const yaml = full.filter((f) => `${f.package}@${f.installedVersion}` === SNAKEYAML);
    expect(jackson.length).toBeGreaterThan(0);
    expect(yaml.some((f) => f.suppressed)).toBe(true);
    // each finding carries the CVSS that decided its severity (the real advisories have vectors)
    const band = (score: number) => (score >= 9 ? 'critical' : score >= 7 ? 'high' : score >= 4 ? 'medium' : 'low');
    const scored = full.filter((f) => f.cvss);
    expect(scored.length).toBeGreaterThan(0);
    for (const f of scored) {
      expect(f.cvss.vector.startsWith(f.cvss.version === '2.0' ? 'AV:' : `CVSS:${f.cvss.version}/`)).toBe(true);
      expect(band(f.cvss.score)).toBe(f.severity);
    }
    // the paged scan's findings carry the same
    const pagedFull = await all(`/v1/scans/${paged}/findings?suppressed=all`, FINDINGS, 'findings');
    expect(new Map(pagedFull.map((f) => [f.cve + f.package, f.cvss]))).toEqual(
      new Map(full.map((f) => [f.cve + f.package, f.cvss])),
    );
    expect(modules).toEqual({
      modules: [
        {
          path: ':lib',
          dependencies: [],
          teamName: 'platform',
          attributes: { tier: 'backend' },
          counts: expectedCounts(jackson, ':lib'),
        },
        { path: ':app', dependencies: [':lib'], teamName: 'web', counts: expectedCounts(full, ':app') },
      ],
      nextCursor: null,
    });
    expect(modules.modules[1].counts.suppressed).toBe(yaml.filter((f) => f.suppressed).length);

    // jackson: three attributions (both :lib contexts direct, :app through :lib), each with the origin :lib
    const pagedJackson = (await get(`/v1/scans/${paged}/findings?suppressed=all&limit=200`, FINDINGS)).findings.find(
      (f: any) => f.cve === jackson[0].cve && f.package === jackson[0].package,
    );
    expect(pagedJackson).toMatchObject({ attributions: [], attributionCount: 3, path: [':lib', JACKSON] });
    const list = await get(`/v1/scans/${paged}/findings/${pagedJackson.id}/attributions`, ATTRIBUTIONS);
    expect(list.attributions.map(({ id: _id, ...rest }: any) => rest)).toEqual([
      {
        module: ':lib',
        context: 'runtimeClasspath',
        relationship: 'direct',
        origins: [{ module: ':lib', dependency: JACKSON }],
      },
      {
        module: ':lib',
        context: 'testRuntimeClasspath',
        relationship: 'direct',
        origins: [{ module: ':lib', dependency: JACKSON }],
      },
      {
        module: ':app',
        context: 'runtimeClasspath',
        relationship: 'transitive',
        origins: [{ module: ':lib', dependency: JACKSON }],
      },
    ]);
    expect(list.attributions.every((a: any) => /^att_[0-9a-f]{24}$/.test(a.id))).toBe(true);
    expect(list.nextCursor).toBeNull();
    const app = list.attributions[2].id;
    expect(await get(`/v1/scans/${paged}/findings/${pagedJackson.id}/attributions/${app}/path`, PATH)).toEqual({
      path: [':app', ':lib', JACKSON],
      origins: [{ module: ':lib', dependency: JACKSON, path: [':lib', JACKSON] }],
    });
    // views: module/team select the attribution's module (affected) or its origins' modules (introduced)
    const count = async (q: string) =>
      (await get(`/v1/scans/${paged}/findings/${pagedJackson.id}/attributions?${q}`, ATTRIBUTIONS)).attributions.length;
    expect(await count('module=:app')).toBe(1);
    expect(await count('team=platform')).toBe(2);
    expect(await count('attribution=introduced&module=:lib')).toBe(3);
    expect(await count('attribution=introduced&team=web')).toBe(0);
    expect(await count('module=:app&team=platform')).toBe(0);
    expect(await count('module=:nope')).toBe(0);
    const inScope = async (q: string) =>
      (await get(`/v1/scans/${paged}/findings?suppressed=all${q}`, FINDINGS)).findings.find(
        (f: any) => f.id === pagedJackson.id,
      )?.attributionCount;
    expect(await inScope('&module=:app')).toBe(1);
    expect(await inScope('&attribution=introduced&team=platform')).toBe(3);
    expect(await inScope('&attribution=introduced&module=:app')).toBeUndefined(); // :app introduces only snakeyaml

    await expectSameReads(inline, paged, [
      { view: 'affected', module: ':app' },
      { view: 'affected', module: ':lib' },
      { view: 'affected', team: 'web' },
      { view: 'affected', module: ':app', team: 'web' },
      { view: 'affected', module: ':app', team: 'platform' },
      { view: 'introduced', module: ':app' },
      { view: 'introduced', module: ':lib' },
      { view: 'introduced', team: 'platform' },
      { view: 'introduced', module: ':nope' },
    ]);
  },
  120_000,
);

itWithSharedData(
  'a wide graph (300 roots over 30 modules, 300 attributions a package): inline and paged read alike across pages and path chunks',
  async () => {
    const snapshot = syntheticSnapshot({
      schemaVersion: 2,
      nodes: 100,
      roots: 300,
      modules: 30,
      packagesPerRoot: 100,
      depsPerNode: 3,
      rootDeps: 2,
      project: 'reads-wide',
    });
    snapshot.suppressions = [{ cve: 'GHSA-read-0020-v2v2', reason: 'accepted' }];
    const { inline, paged } = await both(snapshot);
    const findings = (await get(`/v1/scans/${paged}/findings?suppressed=all&limit=200`, FINDINGS)).findings;
    expect(findings).toHaveLength(10);
    expect(findings.every((f: any) => f.attributionCount === 300)).toBe(true);
    const modules = (await get(`/v1/scans/${paged}/modules?limit=200`, MODULES)).modules;
    expect(modules).toHaveLength(30);
    await expectSameReads(
      inline,
      paged,
      [
        { view: 'affected', module: modules[3].path },
        { view: 'affected', team: 'team-1' },
        { view: 'introduced', module: modules[0].path },
        { view: 'introduced', team: 'team-4' },
        { view: 'introduced', module: modules[5].path, team: modules[5].teamName ?? 'none' },
      ],
      7,
    );
  },
  240_000,
);

itWithSharedData(
  'bad input: unknown ids 404, bad parameters and cursors 422, another organization 404',
  async () => {
    const { paged } = await both(monorepo('reads-errors'));
    const f = (await get(`/v1/scans/${paged}/findings?suppressed=all`, FINDINGS)).findings.find(
      (x: any) => x.attributionCount > 1,
    );
    const a = (await get(`/v1/scans/${paged}/findings/${f.id}/attributions`, ATTRIBUTIONS)).attributions[0];
    const expectError = async (url: string, status: number, code: string, template: string) => {
      const res = await t.api.get(url).set(bearer(key));
      expect({ url, status: res.status, code: res.body.error?.code }).toEqual({ url, status, code });
      expectDocumented(template, status, res.body);
    };
    await expectError(`/v1/scans/${paged}/findings/fnd_nope/attributions`, 404, 'not_found', ATTRIBUTIONS);
    await expectError(`/v1/scans/${paged}/findings/fnd_nope/attributions/${a.id}/path`, 404, 'not_found', PATH);
    await expectError(
      `/v1/scans/${paged}/findings/${f.id}/attributions/att_000000000000000000000000/path`,
      404,
      'not_found',
      PATH,
    );
    await expectError(`/v1/scans/scn_nope/modules`, 404, 'not_found', MODULES);
    await expectError(
      `/v1/scans/${paged}/findings/${f.id}/attributions?attribution=consumed`,
      422,
      'invalid_parameter',
      ATTRIBUTIONS,
    );
    await expectError(
      `/v1/scans/${paged}/findings/${f.id}/attributions?module=:a&module=:b`,
      422,
      'invalid_parameter',
      ATTRIBUTIONS,
    );
    await expectError(
      `/v1/scans/${paged}/findings/${f.id}/attributions?limit=0`,
      422,
      'invalid_parameter',
      ATTRIBUTIONS,
    );
    await expectError(`/v1/scans/${paged}/modules?limit=x`, 422, 'invalid_parameter', MODULES);
    await expectError(`/v1/scans/${paged}/findings?details=full`, 422, 'invalid_parameter', FINDINGS);
    await expectError(`/v1/scans/${paged}/modules?cursor=garbage`, 422, 'invalid_cursor', MODULES);
    // a cursor is bound to its listing: another scope, another finding, another endpoint
    const page = await get(`/v1/scans/${paged}/findings/${f.id}/attributions?limit=1`, ATTRIBUTIONS);
    expect(page.nextCursor).toEqual(expect.any(String));
    const cursor = encodeURIComponent(page.nextCursor);
    await expectError(
      `/v1/scans/${paged}/findings/${f.id}/attributions?limit=1&module=:lib&cursor=${cursor}`,
      422,
      'invalid_cursor',
      ATTRIBUTIONS,
    );
    await expectError(`/v1/scans/${paged}/modules?cursor=${cursor}`, 422, 'invalid_cursor', MODULES);
    const second = await get(`/v1/scans/${paged}/findings/${f.id}/attributions?limit=1&cursor=${cursor}`, ATTRIBUTIONS);
    expect(second.attributions[0].id).not.toBe(page.attributions[0].id);
    // another organization's owner: the scan is out of reach, 404 as for one that does not exist
    const other = await newOrg(t.store, 'other');
    for (const url of [
      `/v1/scans/${paged}/modules`,
      `/v1/scans/${paged}/findings/${f.id}/attributions`,
      `/v1/scans/${paged}/findings/${f.id}/attributions/${a.id}/path`,
    ]) {
      const res = await t.api.get(url).set(bearer(other.ownerToken));
      expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
    }
  },
  120_000,
);

itWithSharedData(
  'v1 scans answer empty lists, scans not completed empty lists and 404 for a path',
  async () => {
    const v1 = await upload(v1Snapshot('reads-v1'));
    expect((await finished(v1)).status).toBe('completed');
    const findings = await get(`/v1/scans/${v1}/findings?details=summary`, FINDINGS);
    expect(findings.findings.length).toBeGreaterThan(0);
    for (const f of findings.findings) expect(f).toMatchObject({ attributions: [], attributionCount: 0 });
    expect(await get(`/v1/scans/${v1}/modules`, MODULES)).toEqual({ modules: [], nextCursor: null });
    const f = findings.findings[0];
    expect(await get(`/v1/scans/${v1}/findings/${f.id}/attributions`, ATTRIBUTIONS)).toEqual({
      attributions: [],
      nextCursor: null,
    });
    expect((await get(`/v1/scans/${v1}/findings?module=web-app`, FINDINGS)).findings).toEqual([]);

    // queued (no workflow started): nothing to read yet
    const queued = (await createPagedScan(t.store, org.orgId, monorepo('reads-queued')))._id;
    expect(await get(`/v1/scans/${queued}/modules`, MODULES)).toEqual({ modules: [], nextCursor: null });
    expect(await get(`/v1/scans/${queued}/findings`, FINDINGS)).toEqual({
      findings: [],
      nextCursor: null,
      counts: null,
    });
    expect(await get(`/v1/scans/${queued}/findings/fnd_any/attributions`, ATTRIBUTIONS)).toEqual({
      attributions: [],
      nextCursor: null,
    });
    const res = await t.api.get(`/v1/scans/${queued}/findings/fnd_any/attributions/att_any/path`).set(bearer(key));
    expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
  },
  120_000,
);
