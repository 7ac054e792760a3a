// GET /v1/dependencies over the real database: scans processed by a real worker (Temporal) or, where
// the order of completions matters, by the worker's own engine steps called in the order the test needs. The union of
// the latest completed scan per ecosystem, the item fields, order and filters, cursors bound to the filters and to the
// scans of the first page, restricted keys, every 422, and findings' packageRef equal to their package's item id.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import type request from 'supertest';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import * as engine from '../../activities/scan-steps';
import { importAdvisories } from '../../src/advisories/import';
import { compareCodePoints, dependencyId, normalizedName } from '../../src/domain/inventory';
import { openApiDocument } from '../../src/http/openapi/document';
import { syntheticSnapshot } from '../../src/domain/snapshot/synthetic';
import { createLogger } from '../../src/logger';
import { uploadPreparer } from '../../src/pool/upload-pool';
import { INVENTORY_CHUNK_SIZE, writeInventory } from '../../src/storage/inventory';
import { createProject } from '../../src/storage/projects';
import { getScan, markFailed } from '../../src/storage/scans';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { appWithoutTemporal, bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { v2Snapshot } from '../helpers/v2';

let t: TestContext;
let org: Org;
let key: string; // every scope this file needs, all projects
let worker: TestWorker | undefined;
// The same database behind an API that starts no workflow: its scans are processed by the test itself.
let quiet: { server: http.Server; api: ReturnType<typeof request> };
const quietUploads = uploadPreparer(1);
const logger = createLogger('test', 'silent');

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inventory-adv-'));
  const osv = (id: string, ecosystem: string, name: string, fixed: string) => ({
    id,
    modified: '2024-01-01T00:00:00Z',
    published: '2024-01-01T00:00:00Z',
    summary: `${name} is vulnerable`,
    affected: [
      { package: { ecosystem, name }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed }] }] },
    ],
  });
  for (const a of [
    osv('GHSA-inv1-0000-0001', 'npm', 'left-pad', '9.0.0'),
    osv('GHSA-inv1-0000-0002', 'PyPI', 'foo-bar', '9.0'),
    osv('GHSA-inv1-0000-0003', 'npm', 'Zeta', '9.0.0'),
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

async function upload(snapshot: object, api = t.api): Promise<string> {
  const res = await api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(snapshot);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function completed(id: string): Promise<Record<string, any>> {
  const res = await t.api.get(`/v1/scans/${id}?wait=60`).set(bearer(key));
  expect(res.body.status).toBe('completed');
  return res.body;
}

/** The worker's steps for one scan, in this process (what its fast path runs), at the moment the test chooses. */
async function processScan(id: string): Promise<void> {
  const ctx = { store: t.store, logger };
  const r = await engine.prepare(ctx, id);
  if (r.kind !== 'ok') throw new Error(r.message);
  const m = await engine.computeMatches(ctx, id, r.inputs, r.summary.generation);
  const p = engine.computePaths(r.inputs, m.matches);
  await r.running;
  if (p.kind !== 'ok') throw new Error(p.message);
  await engine.publish(ctx, id, r.inputs, m, p, r.summary.generation, false);
}

// Every answer is checked against the OpenAPI document's schema of its status.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openApiDocument() as object, 'openapi.json');
const documented = (status: number) =>
  ajv.compile({
    $ref: `openapi.json#/paths/~1v1~1dependencies/get/responses/${status}/content/application~1json/schema`,
  });
const schemas = new Map([200, 401, 403, 422].map((s) => [s, documented(s)]));

async function deps(query: string, token = key) {
  const res = await t.api.get(`/v1/dependencies?${query}`).set(bearer(token));
  const validate = schemas.get(res.status);
  if (!validate) throw new Error(`undocumented status ${res.status}: ${JSON.stringify(res.body)}`);
  if (!validate(res.body))
    throw new Error(
      `${res.status} does not match the document: ${JSON.stringify(validate.errors)} ${JSON.stringify(res.body)}`,
    );
  return res;
}

/** Every page of a listing, following nextCursor. */
async function allPages(
  query: string,
  token = key,
): Promise<{ items: Record<string, any>[]; pages: Record<string, any>[] }> {
  const items: Record<string, any>[] = [];
  const pages: Record<string, any>[] = [];
  let cursor: string | null = null;
  do {
    const res: any = await deps(`${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, token);
    expect(res.status).toBe(200);
    pages.push(res.body);
    items.push(...res.body.dependencies);
    cursor = res.body.nextCursor;
  } while (cursor);
  return { items, pages };
}

const node = (id: string, dependencies: string[] = [], relationship: 'direct' | 'transitive' = 'transitive') => {
  const at = id.lastIndexOf('@');
  return { id, name: id.slice(0, at), version: id.slice(at + 1), relationship, dependencies };
};

/** A v1 npm project: web/package.json declares Zeta and left-pad; api/package.json declares alpha. */
const npmSnapshot = (project: string, extra: object = {}) => ({
  schemaVersion: 1,
  project,
  ecosystem: 'javascript',
  manifests: ['package.json'],
  roots: [
    {
      module: 'web',
      manifest: 'web/package.json',
      context: 'dependencies',
      dependencies: ['Zeta@1.0.0', 'left-pad@1.3.0'],
    },
    { module: 'api', manifest: 'api/package.json', context: 'dependencies', dependencies: ['alpha@2.0.0'] },
  ],
  nodes: [
    node('Zeta@1.0.0', ['left-pad@1.3.0', 'mid@1.0.0'], 'direct'),
    node('alpha@2.0.0', ['mid@1.0.0'], 'direct'),
    node('left-pad@1.3.0', [], 'direct'),
    node('mid@1.0.0', ['deep@0.1.0']),
    node('deep@0.1.0'),
  ],
  ...extra,
});

/** A v2 python project: :svc declares Foo_Bar (PEP 503: foo-bar) and requests, which brings urllib3. */
const pySnapshot = (project: string) =>
  v2Snapshot(
    [
      {
        module: ':svc',
        context: 'main',
        vertices: [
          ['r', ':svc', 'f', 'q'],
          ['f', 'Foo_Bar@1.0'],
          ['q', 'requests@2.31.0', 'u'],
          ['u', 'urllib3@2.0.0'],
        ],
      },
    ],
    undefined,
    { project, ecosystem: 'python', manifests: ['pyproject.toml'] },
  );

describe('a project with a javascript and a python scan, processed by the worker', () => {
  let projectId: string;
  let jsScan: string;
  let pyScan: string;
  beforeAll(async () => {
    jsScan = await upload(npmSnapshot('inventory-app'));
    pyScan = await upload(pySnapshot('inventory-app'));
    projectId = (await completed(jsScan)).project;
    await completed(pyScan);
  });

  test('the union of both, ordered by name, version, ecosystem, id; each item shaped as the inventory contract says', async () => {
    const res = await deps('project=inventory-app');
    expect(res.status).toBe(200);
    expect(res.body.scans).toEqual({ javascript: jsScan, python: pyScan });
    expect(res.body.nextCursor).toBeNull();
    const items = res.body.dependencies as Record<string, any>[];
    expect(items.map((d) => `${d.ecosystem}:${d.name}@${d.version}`)).toEqual([
      'python:Foo_Bar@1.0',
      'javascript:Zeta@1.0.0',
      'javascript:alpha@2.0.0',
      'javascript:deep@0.1.0',
      'javascript:left-pad@1.3.0',
      'javascript:mid@1.0.0',
      'python:requests@2.31.0',
      'python:urllib3@2.0.0',
    ]);
    const byName = Object.fromEntries(items.map((d) => [d.name, d]));
    expect(byName.mid).toEqual({
      id: dependencyId(projectId, 'javascript', 'mid', '1.0.0'),
      project: projectId,
      ecosystem: 'javascript',
      name: 'mid',
      version: '1.0.0',
      direct: false,
      path: ['api/package.json', 'alpha@2.0.0', 'mid@1.0.0'], // api/… sorts before web/…
      manifest: 'api/package.json',
    });
    expect(byName.deep).toMatchObject({
      direct: false,
      path: ['api/package.json', 'alpha@2.0.0', 'mid@1.0.0', 'deep@0.1.0'],
      manifest: 'api/package.json',
    });
    expect(byName['left-pad']).toMatchObject({
      direct: true,
      path: ['web/package.json', 'left-pad@1.3.0'],
      manifest: 'web/package.json',
    });
    expect(byName.urllib3).toEqual({
      id: dependencyId(projectId, 'python', 'urllib3', '2.0.0'),
      project: projectId,
      ecosystem: 'python',
      name: 'urllib3',
      version: '2.0.0',
      direct: false,
      path: [':svc', 'requests@2.31.0', 'urllib3@2.0.0'],
      manifest: 'pyproject.toml', // the root has none: the snapshot's first
    });
    expect(byName.Foo_Bar.id).toBe(dependencyId(projectId, 'python', 'foo.bar', '1.0'));
    // the same answer by project id
    expect((await deps(`project=${projectId}`)).body).toEqual(res.body);
  });

  test('filters: ecosystem, name as the ecosystem compares names, direct', async () => {
    const names = async (q: string) => {
      const res = await deps(`project=inventory-app&${q}`);
      expect(res.status).toBe(200);
      return { names: res.body.dependencies.map((d: { name: string }) => d.name), scans: res.body.scans };
    };
    expect(await names('ecosystem=python')).toEqual({
      names: ['Foo_Bar', 'requests', 'urllib3'],
      scans: { python: pyScan },
    });
    expect(await names('ecosystem=typescript')).toEqual({ names: [], scans: {} });
    expect((await names('name=foo-bar')).names).toEqual(['Foo_Bar']); // PEP 503
    expect((await names('name=FOO.bar')).names).toEqual(['Foo_Bar']);
    expect((await names('name=zeta')).names).toEqual(['Zeta']); // npm names compared lowercased
    expect((await names('name=zeta&ecosystem=python')).names).toEqual([]);
    expect((await names('name=left_pad')).names).toEqual([]); // not a PyPI name: exact for npm
    expect((await names('direct=true')).names).toEqual(['Foo_Bar', 'Zeta', 'alpha', 'left-pad', 'requests']);
    expect((await names('direct=false&ecosystem=javascript')).names).toEqual(['deep', 'mid']);
    expect((await names('direct=false&name=URLLIB3')).names).toEqual(['urllib3']);
  });

  test('pages of any size give the whole list in order; a cursor is bound to its filters', async () => {
    const whole = (await deps('project=inventory-app&limit=200')).body.dependencies;
    for (const limit of [1, 2, 3, 7]) {
      const { items, pages } = await allPages(`project=inventory-app&limit=${limit}`);
      expect(items).toEqual(whole);
      expect(pages.length).toBe(Math.ceil(whole.length / limit));
      for (const p of pages) expect(p.scans).toEqual({ javascript: jsScan, python: pyScan });
    }
    const filtered = await allPages('project=inventory-app&limit=2&direct=true');
    expect(filtered.items.map((d) => d.name)).toEqual(['Foo_Bar', 'Zeta', 'alpha', 'left-pad', 'requests']);
    const first = await deps('project=inventory-app&limit=2');
    const cursor = encodeURIComponent(first.body.nextCursor);
    for (const other of ['direct=true', 'ecosystem=javascript', 'name=mid', 'direct=false']) {
      const res = await deps(`project=inventory-app&limit=2&${other}&cursor=${cursor}`);
      expect([other, res.status, res.body.error?.code]).toEqual([other, 422, 'invalid_cursor']);
    }
    const elsewhere = await upload(npmSnapshot('inventory-other'));
    await completed(elsewhere);
    expect((await deps(`project=inventory-other&limit=2&cursor=${cursor}`)).body.error.code).toBe('invalid_cursor');
    const tampered = first.body.nextCursor.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A'));
    expect((await deps(`project=inventory-app&limit=2&cursor=${encodeURIComponent(tampered)}`)).body.error.code).toBe(
      'invalid_cursor',
    );
    // the limit is not part of the listing: another page size goes on from the same place
    expect((await deps(`project=inventory-app&limit=200&cursor=${cursor}`)).body.dependencies).toEqual(whole.slice(2));
  });

  test('a listing keeps reading the scans of its first page while a newer scan completes; the next listing reads the newer one', async () => {
    const first = await deps('project=inventory-app&limit=3&ecosystem=javascript');
    const newer = await upload(
      npmSnapshot('inventory-app', {
        nodes: [...npmSnapshot('x').nodes, node('extra@1.0.0')],
        roots: [
          ...npmSnapshot('x').roots,
          { module: 'tools', manifest: 'tools/package.json', context: 'dependencies', dependencies: ['extra@1.0.0'] },
        ],
      }),
    );
    await completed(newer);
    const rest = await allPages(
      `project=inventory-app&limit=3&ecosystem=javascript&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    expect([...first.body.dependencies, ...rest.items].map((d) => d.name)).toEqual([
      'Zeta',
      'alpha',
      'deep',
      'left-pad',
      'mid',
    ]);
    expect(rest.pages.every((p) => p.scans.javascript === jsScan)).toBe(true);
    const now = await deps('project=inventory-app');
    expect(now.body.scans).toEqual({ javascript: newer, python: pyScan });
    expect(now.body.dependencies.map((d: { name: string }) => d.name)).toContain('extra');
    // ids are the same across the two scans
    const ids = (body: any) =>
      Object.fromEntries(
        body.dependencies.filter((d: any) => d.ecosystem === 'javascript').map((d: any) => [d.name, d.id]),
      );
    const before = ids({ dependencies: [...first.body.dependencies, ...rest.items] });
    const after = ids(now.body);
    for (const name of Object.keys(before)) expect(after[name]).toBe(before[name]);
    jsScan = newer;
  });

  test("findings carry packageRef: the id of their package's item, whose path is the finding's path", async () => {
    const inventory = (await deps('project=inventory-app&limit=200')).body.dependencies as Record<string, any>[];
    const byId = new Map(inventory.map((d) => [d.id, d]));
    let seen = 0;
    for (const scanId of [jsScan, pyScan]) {
      const res = await t.api.get(`/v1/scans/${scanId}/findings?suppressed=all&limit=200`).set(bearer(key));
      expect(res.status).toBe(200);
      expect(res.body.findings.length).toBeGreaterThan(0);
      for (const f of res.body.findings) {
        const item = byId.get(f.packageRef);
        expect(item).toBeDefined();
        expect(normalizedName(item.ecosystem, item.name)).toBe(normalizedName(item.ecosystem, f.package));
        expect(item.version).toBe(f.installedVersion);
        expect(item.path).toEqual(f.path);
        seen++;
      }
    }
    expect(seen).toBe(3); // left-pad and Zeta (npm), Foo_Bar (PyPI)
  });
});

describe('the latest completed scan of an ecosystem', () => {
  test('newest startedAt wins: an older scan completing later, a scan still publishing and a failed scan never replace it', async () => {
    const snap = (dep: string) =>
      npmSnapshot('ordering', {
        roots: [{ module: 'web', manifest: 'package.json', context: 'dependencies', dependencies: [dep] }],
        nodes: [node(dep, [], 'direct')],
      });
    // Four scans accepted in this order (startedAt ascending); none of them is started by this API.
    const [older1, older2, newest, publishing] = [
      await upload(snap('a@1.0.0'), quiet.api),
      await upload(snap('b@1.0.0'), quiet.api),
      await upload(snap('c@1.0.0'), quiet.api),
      await upload(snap('d@1.0.0'), quiet.api),
    ];
    const projectId = (await getScan(t.store, older1))!.projectId;
    const listed = async () => {
      const res = await deps('project=ordering');
      expect(res.status).toBe(200);
      return { scans: res.body.scans, names: res.body.dependencies.map((d: { name: string }) => d.name) };
    };
    expect(await listed()).toEqual({ scans: {}, names: [] }); // none completed yet
    await processScan(older1);
    expect(await listed()).toEqual({ scans: { javascript: older1 }, names: ['a'] });
    await processScan(newest);
    expect(await listed()).toEqual({ scans: { javascript: newest }, names: ['c'] });
    await processScan(older2); // completes after the newer one: it is not the latest
    expect((await getScan(t.store, older2))!.status).toBe('completed');
    expect(await listed()).toEqual({ scans: { javascript: newest }, names: ['c'] });
    // The newest scan's inventory written, its completion not yet landed (publish in progress), then failed.
    const doc = (await getScan(t.store, publishing))!;
    await writeInventory(t.store, doc, [
      {
        id: dependencyId(projectId, 'javascript', 'd', '1.0.0'),
        name: 'd',
        version: '1.0.0',
        direct: true,
        path: ['package.json', 'd@1.0.0'],
        manifest: 'package.json',
      },
    ]);
    expect(await listed()).toEqual({ scans: { javascript: newest }, names: ['c'] });
    await markFailed(t.store, publishing, 'internal_error', 'publishing failed');
    expect(await listed()).toEqual({ scans: { javascript: newest }, names: ['c'] });
    // Head entries of scans that can never be the latest again go once the next scan has completed: the older ones,
    // the failed one and the previous latest (pruned just after the completion, without holding it up).
    const third = await upload(snap('e@1.0.0'), quiet.api);
    await processScan(third);
    expect(await listed()).toEqual({ scans: { javascript: third }, names: ['e'] });
    const heads = async () => (await t.store.c.inventoryHeads.find({ projectId }).toArray()).map((h) => h._id);
    for (let i = 0; i < 100 && (await heads()).length > 1; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await heads()).toEqual([third]);
  });

  test('a project with no completed scan (or no scan at all) has an empty inventory', async () => {
    await createProject(t.store, org.orgId, 'never-scanned');
    expect((await deps('project=never-scanned')).body).toEqual({ dependencies: [], nextCursor: null, scans: {} });
    await upload(npmSnapshot('only-queued'), quiet.api);
    expect((await deps('project=only-queued')).body).toEqual({ dependencies: [], nextCursor: null, scans: {} });
  });
});

describe('bad requests and reach', () => {
  test('422: missing project, unknown project, bad filters, limit and cursor', async () => {
    const cases: Array<[string, string]> = [
      ['', 'missing_parameter'],
      ['limit=10', 'missing_parameter'],
      ['project=nope', 'unknown_project'],
      ['project=prj_00000000000000000000000000', 'unknown_project'],
      ['project=', 'unknown_project'],
      ['project=inventory-app&ecosystem=cobol', 'invalid_parameter'],
      ['project=inventory-app&ecosystem=', 'invalid_parameter'],
      ['project=inventory-app&direct=yes', 'invalid_parameter'],
      ['project=inventory-app&direct=TRUE', 'invalid_parameter'],
      ['project=inventory-app&direct=1', 'invalid_parameter'],
      ['project=inventory-app&limit=0', 'invalid_parameter'],
      ['project=inventory-app&limit=x', 'invalid_parameter'],
      ['project=inventory-app&project=inventory-app', 'invalid_parameter'],
      ['project=inventory-app&name=a&name=b', 'invalid_parameter'],
      ['project=inventory-app&name=%00', 'invalid_parameter'],
      ['project=inventory-app&cursor=', 'invalid_cursor'],
      ['project=inventory-app&cursor=abc.def', 'invalid_cursor'],
    ];
    for (const [query, code] of cases) {
      const res = await deps(query);
      expect([query, res.status, res.body.error?.code, typeof res.body.error?.message]).toEqual([
        query,
        422,
        code,
        'string',
      ]);
    }
    expect((await deps('')).body.error.message).toMatch(/^project/);
    // limit above 200 is clamped, not refused
    expect((await deps('project=inventory-app&limit=500')).status).toBe(200);
  });

  test("restricted keys reach their projects only; another organization's project is unknown, by id and by slug", async () => {
    const app = (await deps('project=inventory-app')).body.dependencies[0].project as string;
    const other = (await createProject(t.store, org.orgId, 'unrelated'))._id;
    const reaching = await org.key(['deps:read'], [app]);
    const elsewhere = await org.key(['deps:read'], [other]);
    expect((await deps('project=inventory-app', reaching)).status).toBe(200);
    expect((await deps(`project=${app}`, reaching)).body.dependencies.length).toBeGreaterThan(0);
    for (const ref of ['inventory-app', app]) {
      const res = await deps(`project=${ref}`, elsewhere);
      expect([res.status, res.body.error.code]).toEqual([422, 'unknown_project']);
    }
    const b = await newOrg(t.store, 'other-org');
    const bKey = await b.key(['deps:read']);
    await createProject(t.store, b.orgId, 'inventory-app-b');
    for (const ref of ['inventory-app', app]) {
      const res = await deps(`project=${ref}`, bKey);
      expect([res.status, res.body.error.code]).toEqual([422, 'unknown_project']);
    }
    const res = await deps('project=inventory-app-b');
    expect([res.status, res.body.error.code]).toEqual([422, 'unknown_project']);
    // a key without deps:read
    const noScope = await org.key(['scans:read']);
    const denied = await deps('project=inventory-app', noScope);
    expect([denied.status, denied.body.error.code, denied.body.error.message]).toEqual([
      403,
      'insufficient_scope',
      expect.stringContaining('deps:read'),
    ]);
  });
});

test('item order is code-point order, also where UTF-16 order differs', async () => {
  const names = ['\u{1F600}pkg', '\uFF5Apkg', 'b', 'Ab', 'a'];
  const id = await upload({
    schemaVersion: 1,
    project: 'unicode',
    ecosystem: 'javascript',
    roots: [
      { module: '.', manifest: 'package.json', context: 'dependencies', dependencies: names.map((n) => `${n}@1.0.0`) },
    ],
    nodes: names.map((n) => node(`${n}@1.0.0`, [], 'direct')),
  });
  await completed(id);
  const got = (await deps('project=unicode')).body.dependencies.map((d: { name: string }) => d.name);
  expect(got).toEqual([...names].sort(compareCodePoints));
  expect(got).toEqual(['Ab', 'a', 'b', '\uFF5Apkg', '\u{1F600}pkg']);
});

test('an inventory stored in several chunks pages through whole, in order, once per package', async () => {
  const nodes = INVENTORY_CHUNK_SIZE + 1500;
  const id = await upload(
    syntheticSnapshot({
      schemaVersion: 1,
      nodes,
      roots: 10,
      depsPerNode: 3,
      project: 'chunked',
      ecosystem: 'javascript',
    }),
    quiet.api,
  );
  await processScan(id);
  expect(await t.store.c.inventoryChunks.countDocuments({ scanId: id })).toBe(2);
  const { items, pages } = await allPages('project=chunked&limit=200');
  expect(pages).toHaveLength(Math.ceil(nodes / 200));
  expect(items).toHaveLength(nodes);
  expect(new Set(items.map((d) => d.id)).size).toBe(nodes);
  const keys = items.map((d) => [d.name, d.version, d.id]);
  const sorted = [...keys].sort(
    (a, b) => compareCodePoints(a[0], b[0]) || compareCodePoints(a[1], b[1]) || compareCodePoints(a[2], b[2]),
  );
  expect(keys).toEqual(sorted);
  expect(items.every((d) => d.path.length >= 2 && d.manifest === d.path[0])).toBe(true);
}, 120_000);
