// GET /v1/dependencies/usages over the real API, database and an in-process worker: the organization's projects whose
// latest completed scan per ecosystem holds a package, names compared as each ecosystem compares them (npm case, PyPI
// PEP 503, Maven exact), direct and transitive with the shortest path, ordered by project slug, ecosystem and version;
// a newer scan of a project replaces its usage for the very next request; pagination with a stable order; a
// restricted key sees its projects only; 422 for a missing name and a bad cursor; the index is kept between requests
// and stays current through a scan completing while it is kept; every 200 valid against the OpenAPI document.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { newId } from '../../src/domain/ids';
import { dependencyId } from '../../src/domain/inventory';
import { openApiDocument } from '../../src/http/openapi/document';
import { createLogger } from '../../src/logger';
import { writeInventory } from '../../src/storage/inventory';
import { createProject } from '../../src/storage/projects';
import { insertScan, markCompleted } from '../../src/storage/scans';
import { touchOrgUsages } from '../../src/storage/usages';
import { installRuntime } from '../../workers/temporal-runtime';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';

const logger = createLogger('test', 'silent');

let t: TestContext;
let org: Org;
let key: string; // upload, scans and dependencies
let worker: TestWorker | undefined;
const projectIds: Record<string, string> = {};
const scanIds: Record<string, string> = {};

// ------------------------------------------------------------------------------------------------- schemas --
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openApiDocument() as object, 'openapi.json');
const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
let documented: ReturnType<typeof ajv.compile> | undefined;
function expectDocumented(body: unknown): void {
  const pointer = `/paths/${esc('/v1/dependencies/usages')}/get/responses/200/content/${esc('application/json')}/schema`;
  documented ??= ajv.compile({ $ref: `openapi.json#${pointer}` });
  if (!documented(body)) throw new Error(`${JSON.stringify(documented.errors, null, 2)}\n${JSON.stringify(body)}`);
}

// ------------------------------------------------------------------------------------------------ helpers --
const node = (id: string, dependencies: string[] = []) => {
  const at = id.lastIndexOf('@');
  return { id, name: id.slice(0, at), version: id.slice(at + 1), relationship: 'transitive', dependencies };
};

/** A v1 snapshot: the root declares `direct`; `nodes` maps each package id to its dependencies. */
function snapshot(project: string, ecosystem: string, direct: string[], nodes: Record<string, string[]>) {
  return {
    schemaVersion: 1,
    project,
    ecosystem,
    manifests: ['manifest.lock'],
    roots: [{ module: project, manifest: 'manifest.json', context: 'dependencies', dependencies: direct }],
    nodes: Object.entries(nodes)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([id, deps]) => node(id, deps)),
  };
}

/** Uploads a snapshot and waits until its scan has completed: the scan's id. */
async function scanned(body: ReturnType<typeof snapshot>): Promise<string> {
  const up = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(body);
  expect(up.status).toBe(201);
  const scanId: string = up.body.id;
  projectIds[body.project] = up.body.project;
  const until = Date.now() + 90_000;
  for (;;) {
    const res = await t.api.get(`/v1/scans/${scanId}?wait=10`).set(bearer(key));
    if (res.body.status === 'completed') break;
    if (res.body.status === 'failed' || Date.now() > until) throw new Error(`scan ${scanId}: ${res.body.status}`);
  }
  scanIds[body.project] = scanId;
  return scanId;
}

async function usages(query: string, token = key) {
  const res = await t.api.get(`/v1/dependencies/usages?${query}`).set(bearer(token));
  if (res.status === 200) expectDocumented(res.body);
  return res;
}

/** Every page of a query, `limit` at a time: the items, and how many pages it took. */
async function allPages(query: string, limit: number, token = key): Promise<{ items: any[]; pages: number }> {
  const items: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await usages(`${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, token);
    expect(res.status).toBe(200);
    expect(res.body.usages.length).toBeLessThanOrEqual(limit);
    items.push(...res.body.usages);
    cursor = res.body.nextCursor;
    pages++;
  } while (cursor);
  return { items, pages };
}

const brief = (u: any) => `${u.projectSlug}/${u.ecosystem}/${u.name}@${u.version}`;

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  org = await newOrg(t.store, 'Where Used');
  key = await org.key(['sca:upload', 'scans:read', 'deps:read']);
  worker = await startTestWorker(t, { logger });
  // npm: "Lodash" as web-a installs it, lodash through express in web-b, lodash directly in a typescript project
  await scanned(snapshot('web-a', 'javascript', ['Lodash@4.17.20'], { 'Lodash@4.17.20': [] }));
  await scanned(
    snapshot('web-b', 'javascript', ['express@4.18.0'], {
      'express@4.18.0': ['lodash@4.17.21', 'qs@6.0.0'],
      'lodash@4.17.21': [],
      'qs@6.0.0': ['lodash@4.17.21'],
    }),
  );
  await scanned(snapshot('app-ts', 'typescript', ['lodash@4.17.21'], { 'lodash@4.17.21': [] }));
  // PyPI: one package written three ways
  await scanned(snapshot('py-one', 'python', ['Zope.Interface@5.4.0'], { 'Zope.Interface@5.4.0': [] }));
  await scanned(
    snapshot('py-two', 'python', ['twisted@22.0.0'], {
      'twisted@22.0.0': ['zope_interface@6.0'],
      'zope_interface@6.0': [],
    }),
  );
  // Maven: group:artifact compared as written
  await scanned(snapshot('jvm', 'gradle', ['org.Example:Lib@1.0'], { 'org.Example:Lib@1.0': [] }));
}, 240_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

// ------------------------------------------------------------------------------------------------- tests --
describe('where a package is used', () => {
  test('npm names compared lowercased, across javascript and typescript, direct and transitive with their path', async () => {
    const res = await usages('name=LODASH');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      usages: [
        {
          project: projectIds['app-ts'],
          projectSlug: 'app-ts',
          ecosystem: 'typescript',
          name: 'lodash',
          version: '4.17.21',
          direct: true,
          path: ['manifest.json', 'lodash@4.17.21'],
          scanId: scanIds['app-ts'],
        },
        {
          project: projectIds['web-a'],
          projectSlug: 'web-a',
          ecosystem: 'javascript',
          name: 'Lodash', // as the project installs it
          version: '4.17.20',
          direct: true,
          path: ['manifest.json', 'Lodash@4.17.20'],
          scanId: scanIds['web-a'],
        },
        {
          project: projectIds['web-b'],
          projectSlug: 'web-b',
          ecosystem: 'javascript',
          name: 'lodash',
          version: '4.17.21',
          direct: false,
          // the shortest path from the root (not through qs)
          path: ['manifest.json', 'express@4.18.0', 'lodash@4.17.21'],
          scanId: scanIds['web-b'],
        },
      ],
      nextCursor: null,
    });
    // the same as GET /v1/dependencies holds it
    const inv = await t.api.get(`/v1/dependencies?project=web-b&name=lodash`).set(bearer(key));
    expect(inv.body.dependencies.map((d: any) => d.path)).toEqual([res.body.usages[2].path]);
  });

  test('filters: version (exact) and ecosystem', async () => {
    expect((await usages('name=lodash&version=4.17.21')).body.usages.map(brief)).toEqual([
      'app-ts/typescript/lodash@4.17.21',
      'web-b/javascript/lodash@4.17.21',
    ]);
    expect((await usages('name=lodash&ecosystem=javascript')).body.usages.map(brief)).toEqual([
      'web-a/javascript/Lodash@4.17.20',
      'web-b/javascript/lodash@4.17.21',
    ]);
    expect((await usages('name=lodash&version=9.9.9')).body).toEqual({ usages: [], nextCursor: null });
    expect((await usages('name=no-such-package')).body).toEqual({ usages: [], nextCursor: null });
  });

  test('PyPI names compared as PEP 503 normalises them; Maven coordinates exactly', async () => {
    for (const name of ['zope.interface', 'ZOPE_interface', 'zope--interface', 'Zope.Interface']) {
      const res = await usages(`name=${encodeURIComponent(name)}`);
      expect([name, res.body.usages.map(brief)]).toEqual([
        name,
        ['py-one/python/Zope.Interface@5.4.0', 'py-two/python/zope_interface@6.0'],
      ]);
    }
    expect((await usages('name=zope.interface')).body.usages[1]).toMatchObject({
      direct: false,
      path: ['manifest.json', 'twisted@22.0.0', 'zope_interface@6.0'],
    });
    expect((await usages('name=org.Example:Lib')).body.usages.map(brief)).toEqual(['jvm/gradle/org.Example:Lib@1.0']);
    expect((await usages('name=org.example:lib')).body.usages).toEqual([]);
  });

  test('a newer scan of a project replaces its usage for the very next request', async () => {
    expect((await usages('name=lodash&ecosystem=javascript')).body.usages.map(brief)).toContain(
      'web-a/javascript/Lodash@4.17.20',
    );
    const newer = await scanned(
      snapshot('web-a', 'javascript', ['react@18.0.0'], { 'react@18.0.0': ['lodash@4.17.21'], 'lodash@4.17.21': [] }),
    );
    const res = await usages('name=lodash&ecosystem=javascript');
    expect(res.body.usages.map(brief)).toEqual(['web-a/javascript/lodash@4.17.21', 'web-b/javascript/lodash@4.17.21']);
    expect(res.body.usages[0]).toMatchObject({
      scanId: newer,
      direct: false,
      path: ['manifest.json', 'react@18.0.0', 'lodash@4.17.21'],
    });
    expect((await usages('name=lodash&version=4.17.20')).body.usages).toEqual([]);
    // a package the newer scan dropped is no longer used there; one it added is
    expect((await usages('name=react')).body.usages.map(brief)).toEqual(['web-a/javascript/react@18.0.0']);
  });

  test('pages in a stable order, with or without a filter, and a cursor of another query is refused', async () => {
    // several projects with several versions of one package
    for (const [slug, versions] of [
      ['pad-c', ['1.0.0', '2.0.0']],
      ['pad-a', ['1.0.0']],
      ['pad-e', ['3.0.0']],
      ['pad-b', ['2.0.0', '1.5.0']],
      ['pad-d', ['1.0.0']],
    ] as const) {
      const ids = versions.map((v) => `padder@${v}`);
      await scanned(snapshot(slug, 'javascript', ids, Object.fromEntries(ids.map((id) => [id, []]))));
    }
    const whole = await usages('name=padder&limit=200');
    expect(whole.body.usages.map((u: any) => `${u.projectSlug}@${u.version}`)).toEqual([
      'pad-a@1.0.0',
      'pad-b@1.5.0',
      'pad-b@2.0.0',
      'pad-c@1.0.0',
      'pad-c@2.0.0',
      'pad-d@1.0.0',
      'pad-e@3.0.0',
    ]);
    expect(whole.body.nextCursor).toBeNull();
    for (const limit of [1, 2, 3]) {
      const { items, pages } = await allPages('name=padder', limit);
      expect(items).toEqual(whole.body.usages);
      expect(pages).toBe(Math.ceil(7 / limit));
    }
    const filtered = await allPages('name=padder&version=1.0.0', 2);
    expect(filtered.items.map((u: any) => u.projectSlug)).toEqual(['pad-a', 'pad-c', 'pad-d']);
    // a cursor binds its query: another name, version or ecosystem refuses it
    const first = await usages('name=padder&limit=2');
    const cursor = encodeURIComponent(first.body.nextCursor);
    for (const q of ['name=lodash', 'name=padder&version=1.0.0', 'name=padder&ecosystem=javascript']) {
      const res = await usages(`${q}&limit=2&cursor=${cursor}`);
      expect([q, res.status, res.body.error?.code]).toEqual([q, 422, 'invalid_cursor']);
    }
  });

  test('a restricted key sees its projects only, on every page', async () => {
    const restricted = await org.key(['deps:read'], [projectIds['pad-b'], projectIds['pad-d'], projectIds['web-b']]);
    const { items } = await allPages('name=padder', 1, restricted);
    expect(items.map((u: any) => `${u.projectSlug}@${u.version}`)).toEqual([
      'pad-b@1.5.0',
      'pad-b@2.0.0',
      'pad-d@1.0.0',
    ]);
    expect((await usages('name=lodash', restricted)).body.usages.map(brief)).toEqual([
      'web-b/javascript/lodash@4.17.21',
    ]);
    // its cursor is not another credential's listing
    const own = await usages('name=padder&limit=1', restricted);
    const res = await usages(`name=padder&limit=1&cursor=${encodeURIComponent(own.body.nextCursor)}`);
    expect([res.status, res.body.error?.code]).toEqual([422, 'invalid_cursor']);
    // another organization's key sees none of them
    const other = await newOrg(t.store, 'Elsewhere');
    expect((await usages('name=lodash', await other.key(['deps:read']))).body).toEqual({
      usages: [],
      nextCursor: null,
    });
  });

  test('422: a missing or empty name, a bad version, ecosystem, limit or cursor; 403 without deps:read', async () => {
    const cases: Array<[string, string]> = [
      ['', 'missing_parameter'],
      ['version=1.0.0', 'missing_parameter'],
      ['name=', 'missing_parameter'],
      ['name=%20', 'missing_parameter'],
      ['name=a&name=b', 'invalid_parameter'],
      ['name=lodash&version=', 'invalid_parameter'],
      ['name=lodash&ecosystem=cobol', 'invalid_parameter'],
      ['name=lodash&limit=0', 'invalid_parameter'],
      ['name=lodash&cursor=', 'invalid_cursor'],
      ['name=lodash&cursor=garbage', 'invalid_cursor'],
      ['name=lodash&cursor=eyJsIjoieCJ9.c2ln', 'invalid_cursor'],
    ];
    for (const [q, code] of cases) {
      const res = await usages(q);
      expect([q, res.status, res.body.error?.code]).toEqual([q, 422, code]);
    }
    expect((await usages('')).body.error.message).toMatch(/^name: /);
    const noScope = await org.key(['scans:read']);
    const res = await usages('name=lodash', noScope);
    expect([res.status, res.body.error.code]).toEqual([403, 'insufficient_scope']);
  });
});

describe('the index kept between requests', () => {
  test('a repeated request rebuilds nothing; a completed scan makes the next one take it in', async () => {
    // A rebuild lists the organization's projects (findOne, which finds projects by id or slug, goes through find too).
    const find = jest.spyOn(t.store.c.projects, 'find');
    const refreshes = () => find.mock.calls.filter(([filter]) => Object.keys(filter ?? {}).join() === 'orgId').length;
    try {
      await usages('name=lodash');
      find.mockClear();
      await usages('name=lodash');
      await usages('name=padder&version=2.0.0');
      expect(refreshes()).toBe(0);
      await scanned(snapshot('web-c', 'javascript', ['lodash@4.17.21'], { 'lodash@4.17.21': [] }));
      expect((await usages('name=lodash&ecosystem=javascript')).body.usages.map(brief)).toEqual([
        'web-a/javascript/lodash@4.17.21',
        'web-b/javascript/lodash@4.17.21',
        'web-c/javascript/lodash@4.17.21',
      ]);
      expect(refreshes()).toBe(1);
    } finally {
      find.mockRestore();
    }
  });

  test('a scan seen in flight by the index is read again: its completion is taken in without a new version', async () => {
    // A scan being published: its project, inventory and head entry written, the version set, not completed yet.
    const project = await createProject(t.store, org.orgId, 'in-flight');
    const scan = await insertScan(t.store, {
      _id: newId('scn'),
      orgId: org.orgId,
      projectId: project._id,
      target: 'in-flight',
      ecosystem: 'javascript',
      schemaVersion: 1,
      status: 'running',
      startedAt: new Date(),
      finishedAt: null,
      failureReason: null,
      findings: null,
      suppressed: null,
      nodeCount: 1,
      bodyBytes: 1,
    });
    await writeInventory(t.store, scan, [
      {
        id: dependencyId(project._id, 'javascript', 'flight', '1.0.0'),
        name: 'flight',
        version: '1.0.0',
        direct: true,
        path: ['package.json', 'flight@1.0.0'],
        manifest: 'package.json',
      },
    ]);
    await touchOrgUsages(t.store, org.orgId);
    expect((await usages('name=flight')).body.usages).toEqual([]); // built now: the scan is in flight
    expect((await usages('name=flight')).body.usages).toEqual([]); // kept
    await markCompleted(t.store, scan._id, {
      findings: { critical: 0, high: 0, medium: 0, low: 0 },
      suppressed: 0,
      advisoryGeneration: null,
      unmatchedVersions: 0,
      resultChunks: 0,
      findingCount: 0,
    });
    // no new version since the index was built: the scan's status, read again, says it completed
    expect((await usages('name=flight')).body.usages).toEqual([
      {
        project: project._id,
        projectSlug: 'in-flight',
        ecosystem: 'javascript',
        name: 'flight',
        version: '1.0.0',
        direct: true,
        path: ['package.json', 'flight@1.0.0'],
        scanId: scan._id,
      },
    ]);
  });
});
