// Multipart upload over HTTP against the real database and Temporal server (no worker on this task queue: scans stay
// queued): create, parts, completion, read, idempotency, budgets crossed as parts arrive (concurrently too),
// whole-graph checks across parts, rejection, expiry and cleanup, reach; every answer checked against the OpenAPI
// document.
import { createHash } from 'node:crypto';
import type { PartBody } from '../../src/domain/snapshot/parts';
import { syntheticSnapshot } from '../../src/domain/snapshot/synthetic';
import type { Snapshot } from '../../src/shared/types';
import { getScan } from '../../src/storage/scans';
import { claimOutcome, cleanupUploads, UPLOAD_EXPIRY_MS } from '../../src/storage/uploads';
import { sweepOnce } from '../../src/sweepers/scans';
import { defaultPayloadConverter } from '@temporalio/common';
import { uploadPreparer } from '../../src/pool/upload-pool';
import {
  appWithoutTemporal,
  bearer,
  newOrg,
  scanSweep,
  testContext,
  type Org,
  type TestContext,
} from '../helpers/context';
import { v2Snapshot } from '../helpers/v2';
import { headerOf, prng, splitInto } from '../unit/domain/parts-helpers';
import { envelope, expectDocumented, uploadClient, UPLOADS } from './uploads-helpers';

let t: TestContext;
const sweep = () => scanSweep(t);
let org: Org;
let key: string;
const c = () => uploadClient(t, () => key);

beforeAll(async () => {
  t = await testContext();
  org = await newOrg(t.store);
  key = await org.key(['sca:upload', 'scans:read', 'findings:read']);
});
afterAll(() => t.close());

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** A small gradle monorepo: two modules, three roots, four packages. */
function monorepo(project = 'mono'): Snapshot {
  return v2Snapshot(
    [
      {
        module: ':app',
        context: 'runtimeClasspath',
        vertices: [
          ['r', ':app', 'l', 'y'],
          ['l', ':lib', 'j'],
          ['j', 'com.example:json@2.1', 'a'],
          ['a', 'com.example:ann@2.1'],
          ['y', 'org.example:yaml@1.3'],
        ],
      },
      {
        module: ':lib',
        context: 'runtimeClasspath',
        vertices: [
          ['r', ':lib', 'j'],
          ['j', 'com.example:json@2.1', 'a'],
          ['a', 'com.example:ann@2.1'],
        ],
      },
      {
        module: ':lib',
        context: 'testRuntimeClasspath',
        vertices: [
          ['r', ':lib', 'j', 'u'],
          ['j', 'com.example:json@2.1'],
          ['u', 'org.example:unit@5.0'],
        ],
      },
    ],
    [
      { path: ':app', dependencies: [':lib'], teamName: 'web' },
      { path: ':lib', dependencies: [], teamName: 'platform' },
    ],
    {
      project,
      metadata: { commit: 'abc123', ref: 'refs/heads/main' },
      suppressions: [{ cve: 'CVE-2020-0001', reason: 'not used' }],
    },
  );
}
/** modules | nodes | roots: three parts. */
const threeParts = (s: Snapshot): PartBody[] => [{ modules: s.modules }, { nodes: s.nodes }, { roots: s.roots }];

describe('the whole flow', () => {
  test('create → parts → completion: a queued paged scan; the documented shapes', async () => {
    const s = monorepo('flow');
    const created = await c().create(headerOf(s, 3));
    expect(created.status).toBe(201);
    expectDocumented(UPLOADS, 'post', created);
    const u = created.body.upload;
    expect(u).toEqual({
      id: expect.stringMatching(/^upl_/),
      project: expect.stringMatching(/^prj_/),
      status: 'open',
      parts: 3,
      received: [],
      expiresAt: expect.any(String),
      budgets: {
        nodes: 100_000,
        modules: 10_000,
        roots: 10_000,
        vertices: 1_000_000,
        edges: 5_000_000,
        parts: 1_000,
        partBytes: 10_485_760,
      },
      scanId: null,
    });
    const ttl = Date.parse(u.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(UPLOAD_EXPIRY_MS - 600_000);
    expect(ttl).toBeLessThanOrEqual(UPLOAD_EXPIRY_MS);

    // parts in any order; each answered with its counts and the SHA-256 of its bytes
    const bodies = threeParts(s).map((p) => JSON.stringify(p));
    for (const n of [3, 1]) {
      const r = await c().put(u.id, n, bodies[n - 1]);
      expect(r.status).toBe(201);
      expectDocumented(`${UPLOADS}/{uploadId}/parts/{n}`, 'put', r);
      expect(r.body.part).toEqual({
        n,
        sha256: sha(bodies[n - 1]),
        modules: n === 1 ? 2 : 0,
        nodes: 0,
        roots: n === 3 ? 3 : 0,
      });
    }
    const midway = await c().get(u.id);
    expect(midway.status).toBe(200);
    expectDocumented(`${UPLOADS}/{uploadId}`, 'get', midway);
    expect(midway.body.upload).toMatchObject({ status: 'open', received: [1, 3] });
    envelope(await c().complete(u.id), 409, 'upload_incomplete', `upload ${u.id}: 1 of 3 parts missing: 2`);
    expect((await c().put(u.id, 2, bodies[1])).body.part).toEqual({
      n: 2,
      sha256: sha(bodies[1]),
      modules: 0,
      nodes: 4,
      roots: 0,
    });

    const done = await c().complete(u.id);
    expect(done.status).toBe(201);
    expectDocumented(`${UPLOADS}/{uploadId}/completion`, 'post', done);
    expect(done.body).toMatchObject({
      id: expect.stringMatching(/^scn_/),
      target: 'flow',
      project: u.project,
      ecosystem: 'gradle',
      status: 'queued',
      findings: null,
      modules: [],
      attributionMode: 'paged',
      moduleCount: 2,
      metadata: { commit: 'abc123', ref: 'refs/heads/main' },
    });
    const stored = await getScan(t.store, done.body.id);
    expect(stored).toMatchObject({
      attributionMode: 'paged',
      uploadId: u.id,
      moduleCount: 2,
      nodeCount: 4,
      schemaVersion: 2,
    });
    expect(stored!.graphSize).toBe(11 + 8); // vertices + edges of the three resolutions
    const got = await t.api.get(`/v1/scans/${done.body.id}`).set(bearer(key));
    expect(got.body).toEqual(done.body);

    // the workflow was started with the scan id (off the response path: wait for it)
    const handle = t.temporal.client.workflow.getHandle(done.body.id);
    let described = await handle.describe().catch(() => null);
    for (let i = 0; !described && i < 100; i++)
      described = await new Promise((r) => setTimeout(r, 20)).then(() => handle.describe().catch(() => null));
    expect(described?.searchAttributes.ScanId).toEqual([done.body.id]);

    const again = await c().complete(u.id);
    expect(again.status).toBe(200);
    expectDocumented(`${UPLOADS}/{uploadId}/completion`, 'post', again);
    expect(again.body.id).toBe(done.body.id);
    const after = await c().get(u.id);
    expect(after.body.upload).toMatchObject({ status: 'completed', received: [1, 2, 3], scanId: done.body.id });
    envelope(await c().put(u.id, 1, bodies[0]), 409, 'upload_not_open', `upload ${u.id} is completed, not open`);
    expect(await t.store.c.scans.countDocuments({ projectId: u.project })).toBe(1);
  });
});

describe('create', () => {
  const h = () => headerOf(monorepo('create'), 2);

  test.each([
    ['malformed JSON', '{"schemaVersion": 2,', 422, 'invalid_snapshot', '/: body is not valid JSON'],
    ['a JSON array', '[]', 422, 'invalid_snapshot', '/: must be a JSON object'],
    [
      'schemaVersion 1',
      { ...h(), schemaVersion: 1 },
      422,
      'invalid_snapshot',
      '/schemaVersion: 1: a multipart upload carries a snapshot v2 (schemaVersion 2)',
    ],
    ['no parts', { ...h(), parts: undefined }, 422, 'invalid_snapshot', '/parts: is required'],
    ['parts 0', { ...h(), parts: 0 }, 422, 'invalid_snapshot', '/parts: must be >= 1'],
    ['parts "2"', { ...h(), parts: '2' }, 422, 'invalid_snapshot', '/parts: must be integer'],
    [
      'parts over the budget',
      { ...h(), parts: 1001 },
      413,
      'snapshot_too_large',
      '/parts: 1001 parts, over the budget of 1000',
    ],
    ['a project of the wrong type', { ...h(), project: 7 }, 422, 'invalid_snapshot', '/project: must be string'],
    [
      'the graph in the create body',
      { ...h(), nodes: [] },
      422,
      'invalid_snapshot',
      '/nodes: belongs in the parts of a multipart upload, not in its create body',
    ],
    [
      'an unknown project id',
      { ...h(), project: 'prj_doesnotexist' },
      422,
      'unknown_project',
      '/project: "prj_doesnotexist" is not a project this credential may upload to',
    ],
  ])('%s is refused; nothing stored', async (_, body, status, code, message) => {
    const before = await t.store.c.uploads.countDocuments({});
    const res = await c().create(body);
    envelope(res, status, code, message);
    expectDocumented(UPLOADS, 'post', res);
    expect(await t.store.c.uploads.countDocuments({})).toBe(before);
  });

  test('wrong Content-Type, a body over 10 MB, a long Idempotency-Key', async () => {
    envelope(
      await t.api.post(UPLOADS).set(bearer(key)).set('Content-Type', 'text/plain').send(JSON.stringify(h())),
      422,
      'invalid_snapshot',
      '/: Content-Type must be application/json',
    );
    envelope(await c().create(`{"pad":"${'a'.repeat(10 * 1024 * 1024)}"}`), 413, 'snapshot_too_large');
    envelope(await c().create(h(), { 'Idempotency-Key': 'k'.repeat(129) }), 422, 'invalid_idempotency_key');
  });

  test('a new slug creates the project; the same slug reaches the same project', async () => {
    const a = await c().create({ ...h(), project: 'slug-new' });
    const b = await c().create({ ...h(), project: 'slug-new' });
    expect(a.status).toBe(201);
    expect(b.body.upload.project).toBe(a.body.upload.project);
    const byId = await c().create({ ...h(), project: a.body.upload.project });
    expect(byId.body.upload.project).toBe(a.body.upload.project);
  });

  test('idempotency: the same key and create body → 200 with the upload as it is now; another body → 409; keys per organization', async () => {
    const body = JSON.stringify(headerOf(monorepo('idem'), 3));
    const first = await c().create(body, { 'Idempotency-Key': 'idem-1' });
    expect(first.status).toBe(201);
    await c().put(first.body.upload.id, 2, threeParts(monorepo('idem'))[1]);
    const replay = await c().create(body, { 'Idempotency-Key': 'idem-1' });
    expect(replay.status).toBe(200);
    expectDocumented(UPLOADS, 'post', replay);
    expect(replay.body.upload).toMatchObject({ id: first.body.upload.id, received: [2] });
    envelope(
      await c().create(JSON.stringify(headerOf(monorepo('idem'), 4)), { 'Idempotency-Key': 'idem-1' }),
      409,
      'idempotency_conflict',
    );
    const other = await newOrg(t.store, 'other');
    const theirs = await c().create(body, { 'Idempotency-Key': 'idem-1' }, await other.key(['sca:upload']));
    expect(theirs.status).toBe(201);
    expect(theirs.body.upload.id).not.toBe(first.body.upload.id);
    // a single upload's key is not a multipart one: the same token names different things on the two endpoints
    const single = await t.api
      .post('/v1/scans/dependency-snapshots')
      .set(bearer(key))
      .set('Idempotency-Key', 'idem-1')
      .send(monorepo('idem'));
    expect(single.status).toBe(201);
  });

  test('concurrent creates with one key make one upload', async () => {
    const body = JSON.stringify(headerOf(monorepo('idem-race'), 2));
    const results = await Promise.all(Array.from({ length: 5 }, () => c().create(body, { 'Idempotency-Key': 'race' })));
    expect(new Set(results.map((r) => r.body.upload.id)).size).toBe(1);
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
  });

  test('a restricted key creates uploads of its projects only, never a project', async () => {
    const home = await c().create({ ...h(), project: 'restricted-home' });
    const restricted = await org.key(['sca:upload'], [home.body.upload.project]);
    expect((await c().create({ ...h(), project: 'restricted-home' }, {}, restricted)).status).toBe(201);
    envelope(await c().create({ ...h(), project: 'restricted-elsewhere' }, {}, restricted), 422, 'unknown_project');
    expect(await t.store.c.projects.countDocuments({ slug: 'restricted-elsewhere' })).toBe(0);
  });

  test('a key revoked before the create commits stores nothing', async () => {
    const { revokeApiKey, findApiKeyByHash } = await import('../../src/storage/api-keys');
    const doomed = await org.key(['sca:upload']);
    const doc = await findApiKeyByHash(t.store, createHash('sha256').update(doomed).digest('hex'));
    await revokeApiKey(t.store, org.orgId, doc!.id);
    envelope(await c().create({ ...h(), project: 'revoked-create' }, {}, doomed), 401, 'invalid_token');
    expect(await t.store.c.projects.countDocuments({ slug: 'revoked-create' })).toBe(0);
  });
});

describe('parts', () => {
  async function open(parts = 3, project = 'parts') {
    const r = await c().create(headerOf(monorepo(project), parts));
    expect(r.status).toBe(201);
    return r.body.upload.id as string;
  }

  test.each(['0', '-1', '4', 'abc', '1.5', '01', '1e2', '99999999999999999999', '%00', '2%20'])(
    'part number %s of 3 → 404 not_found',
    async (n) => {
      const id = await open();
      const res = await c().put(id, n, {});
      envelope(res, 404, 'not_found');
      expectDocumented(`${UPLOADS}/{uploadId}/parts/{n}`, 'put', res);
    },
  );

  test('the same bytes again → 200; other bytes for a received part → 409; the stored part stays', async () => {
    const id = await open();
    const body = JSON.stringify({ modules: monorepo().modules });
    expect((await c().put(id, 1, body)).status).toBe(201);
    const again = await c().put(id, 1, body);
    expect(again.status).toBe(200);
    expectDocumented(`${UPLOADS}/{uploadId}/parts/{n}`, 'put', again);
    expect(again.body.part).toEqual({ n: 1, sha256: sha(body), modules: 2, nodes: 0, roots: 0 });
    // the same items, other bytes (whitespace): a different part
    const res = await c().put(id, 1, JSON.stringify({ modules: monorepo().modules }, null, 1));
    envelope(res, 409, 'idempotency_conflict', 'part 1: already received with other bytes');
    expectDocumented(`${UPLOADS}/{uploadId}/parts/{n}`, 'put', res);
    expect((await c().get(id)).body.upload.received).toEqual([1]);
    const part = await t.store.c.uploadParts.findOne({ _id: `${id}:1` });
    expect(part?.sha256).toBe(sha(body));
  });

  const badVertexIds = () => ({
    roots: [
      {
        module: ':a',
        context: 'c',
        dependencies: [],
        resolution: {
          root: 'v0',
          vertices: Array.from({ length: 8 }, (_, i) => ({
            id: i === 7 ? '' : `v${i}`,
            node: 'p@1',
            dependencies: [],
          })),
        },
      },
    ],
  });

  test.each([
    ['malformed JSON', '{"nodes": [', 'part 2: /: body is not valid JSON'],
    ['a JSON array', '[1]', 'part 2: /: must be a JSON object'],
    ['nodes of the wrong type', { nodes: 'x' }, 'part 2: /nodes: must be array'],
    [
      'a node with a numeric version',
      { nodes: [{ id: 'a@1', name: 'a', version: 1, relationship: 'direct', dependencies: [] }] },
      'part 2: /nodes/0/version: must be string',
    ],
    ['an empty vertex id', badVertexIds(), 'part 2: /roots/0/resolution/vertices/7/id: must not be empty'],
    [
      'a NUL in a module path',
      { modules: [{ path: 'a\u0000b' }] },
      'part 2: /modules/0/path: must not contain control characters (U+0000 to U+001F, U+007F)',
    ],
  ])('%s → 422 naming the part and a pointer; nothing stored', async (_, body, message) => {
    const id = await open();
    const res = await c().put(id, 2, body);
    envelope(res, 422, 'invalid_snapshot', message);
    expectDocumented(`${UPLOADS}/{uploadId}/parts/{n}`, 'put', res);
    expect((await c().get(id)).body.upload.received).toEqual([]);
    expect(await t.store.c.uploadLedger.countDocuments({ uploadId: id })).toBe(0);
  });

  test('wrong Content-Type → 422; a body over 10 MB is refused while streaming → 413', async () => {
    const id = await open();
    envelope(
      await t.api.put(`${UPLOADS}/${id}/parts/1`).set(bearer(key)).set('Content-Type', 'text/plain').send('{}'),
      422,
      'invalid_snapshot',
      'part 1: /: Content-Type must be application/json',
    );
    const big = await c().put(id, 1, `{"nodes":[],"pad":"${'a'.repeat(10 * 1024 * 1024)}"}`);
    envelope(big, 413, 'snapshot_too_large', 'part 1: /: body: larger than 10485760 bytes');
    expect((await c().get(id)).body.upload.received).toEqual([]);
  });

  test('unknown upload ids → 404 on every route', async () => {
    for (const id of ['upl_unknown', 'scn_x', '%00']) {
      envelope(await c().get(id), 404, 'not_found');
      envelope(await c().put(id, 1, {}), 404, 'not_found');
      envelope(await c().complete(id), 404, 'not_found');
    }
  });

  test("an upload of another organization, or out of a restricted key's reach, is 404 everywhere; within reach it answers", async () => {
    const id = await open(1, 'reach');
    const part = JSON.stringify({});
    const other = await newOrg(t.store, 'foreign');
    const foreign = await other.key(['sca:upload', 'scans:read']);
    const elsewhere = await c().create(headerOf(monorepo('reach-elsewhere'), 1));
    const restricted = await org.key(['sca:upload'], [elsewhere.body.upload.project]);
    for (const who of [foreign, restricted]) {
      envelope(await c().get(id, who), 404, 'not_found');
      envelope(await c().put(id, 1, part, who), 404, 'not_found');
      envelope(await c().complete(id, who), 404, 'not_found');
    }
    expect((await c().get(id)).body.upload.received).toEqual([]);
    const mine = await org.key(['sca:upload'], [(await c().get(id)).body.upload.project]);
    expect((await c().put(id, 1, part, mine)).status).toBe(201);
  });
});

describe('expiry and cleanup', () => {
  const expiring = async (project: string, parts = 2, headers: Record<string, string> = {}) => {
    process.env.UPLOADS_EXPIRY_MS = '300';
    try {
      const r = await c().create(headerOf(monorepo(project), parts), headers);
      expect(r.status).toBe(201);
      expect(Date.parse(r.body.upload.expiresAt) - Date.now()).toBeLessThanOrEqual(300);
      return r.body.upload.id as string;
    } finally {
      delete process.env.UPLOADS_EXPIRY_MS;
    }
  };
  const pastExpiry = async (id: string) => {
    const u = await t.store.c.uploads.findOne({ _id: id });
    while (Date.now() <= u!.expiresAt.getTime()) await new Promise((r) => setTimeout(r, 50));
  };

  test('an upload not completed in time reads expired, takes no part, never completes; the cleanup deletes its parts', async () => {
    const id = await expiring('expiry');
    const parts = threeParts(monorepo('expiry'));
    expect((await c().put(id, 1, parts[0])).status).toBe(201);
    await pastExpiry(id);
    const read = await c().get(id);
    expect(read.body.upload).toMatchObject({ status: 'expired', received: [1] });
    expectDocumented(`${UPLOADS}/{uploadId}`, 'get', read);
    envelope(await c().put(id, 2, parts[1]), 409, 'upload_not_open', `upload ${id} is expired, not open`);
    envelope(await c().complete(id), 409, 'upload_not_open', `upload ${id} is expired, not open`);
    expect(await t.store.c.uploadParts.countDocuments({ uploadId: id })).toBe(2); // the create body and part 1

    expect(await cleanupUploads(t.store, new Date(), 60_000)).toBe(0); // within the grace: left alone
    expect(await cleanupUploads(t.store, new Date(), 0)).toBeGreaterThanOrEqual(1);
    expect(await t.store.c.uploadParts.countDocuments({ uploadId: id })).toBe(0);
    expect(await t.store.c.uploadLedger.countDocuments({ uploadId: id })).toBe(0);
    expect((await c().get(id)).body.upload).toMatchObject({ status: 'expired', received: [1] });
    envelope(await c().complete(id), 409, 'upload_not_open');
  });

  test('the sweeper runs the cleanup', async () => {
    const id = await expiring('expiry-sweeper', 1);
    await pastExpiry(id);
    await t.store.c.uploads.updateOne({ _id: id }, { $set: { expiresAt: new Date(Date.now() - 3_600_000) } }); // past the grace too
    await sweepOnce(sweep());
    expect(await t.store.c.uploads.findOne({ _id: id })).toMatchObject({ status: 'expired', partsDeleted: true });
    expect(await t.store.c.uploadParts.countDocuments({ uploadId: id })).toBe(0);
  });

  test('a replayed key of an expired upload starts a new one', async () => {
    const id = await expiring('expiry-key', 2, { 'Idempotency-Key': 'expiring-key' });
    await pastExpiry(id);
    const again = await c().create(headerOf(monorepo('expiry-key'), 2), { 'Idempotency-Key': 'expiring-key' });
    expect(again.status).toBe(201);
    expect(again.body.upload.id).not.toBe(id);
    const replay = await c().create(headerOf(monorepo('expiry-key'), 2), { 'Idempotency-Key': 'expiring-key' });
    expect([replay.status, replay.body.upload.id]).toEqual([200, again.body.upload.id]);
  });

  test('a part arriving as the upload is closed deletes itself and answers 409', async () => {
    const id = (await c().create(headerOf(monorepo('closing'), 2))).body.upload.id;
    // the cleanup claimed the upload expired while this part was on its way (the document still says open)
    await claimOutcome(t.store, id, { kind: 'expired' });
    envelope(await c().put(id, 1, { nodes: [] }), 409, 'upload_not_open', `upload ${id} is expired, not open`);
    expect(await t.store.c.uploadParts.countDocuments({ uploadId: id, n: 1 })).toBe(0);
  });
});

describe('completion, decided once', () => {
  test('a completion that died between its claim and its scan is finished by the next one, with the claimed id', async () => {
    const s = monorepo('crashed');
    const created = await c().create(headerOf(s, 3));
    const id = created.body.upload.id;
    for (const [i, p] of threeParts(s).entries()) await c().put(id, i + 1, p);
    const scanId = 'scn_claimedbeforeacrash0';
    await claimOutcome(t.store, id, {
      kind: 'scan',
      scanId,
      stats: { nodes: 4, roots: 3, modules: 2, vertices: 11, edges: 8 },
      bytes: 1000,
    });
    const done = await c().complete(id);
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({
      id: scanId,
      attributionMode: 'paged',
      moduleCount: 2,
      metadata: { commit: 'abc123' },
    });
    const again = await c().complete(id);
    expect([again.status, again.body.id]).toEqual([200, scanId]);
    expect(await t.store.c.scans.countDocuments({ projectId: created.body.upload.project })).toBe(1);
  });

  test('concurrent completions make one scan: one 201, the others 200 with it', async () => {
    const s = syntheticSnapshot({
      schemaVersion: 2,
      nodes: 3_000,
      roots: 30,
      modules: 10,
      depsPerNode: 3,
      rootDeps: 2,
      project: 'concurrent-completion',
    });
    const parts = splitInto(s, 4, prng(11));
    const created = await c().create(headerOf(s, 4));
    const id = created.body.upload.id;
    for (let n = 1; n <= 4; n++) expect((await c().put(id, n, parts[n - 1])).status).toBe(201);
    const results = await Promise.all(Array.from({ length: 4 }, () => c().complete(id)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results[0].body).toMatchObject({ attributionMode: 'paged', moduleCount: 10 });
    expect(await t.store.c.scans.countDocuments({ projectId: created.body.upload.project })).toBe(1);
  });
});

test("Temporal away at completion: the 201 stands, and the sweeper starts the paged scan's workflow (paged: true)", async () => {
  // an API whose workflow starts never get through (the starter reports failure, as when Temporal is down)
  const uploads = uploadPreparer(1);
  const away = await appWithoutTemporal(t.store, {
    uploads,
    starter: { start: async () => false, drain: async () => undefined },
  });
  try {
    const s = monorepo('temporal-away');
    const created = await away.api.post(UPLOADS).set(bearer(key)).send(headerOf(s, 3));
    const id = created.body.upload.id;
    for (const [i, p] of threeParts(s).entries())
      expect(
        (
          await away.api
            .put(`${UPLOADS}/${id}/parts/${i + 1}`)
            .set(bearer(key))
            .send(p)
        ).status,
      ).toBe(201);
    const done = await away.api.post(`${UPLOADS}/${id}/completion`).set(bearer(key));
    expect(done.status).toBe(201);
    await expect(t.temporal.client.workflow.getHandle(done.body.id).describe()).rejects.toThrow();
    await sweepOnce({ ...sweep(), graceMs: 0 });
    const history = await t.temporal.client.workflow.getHandle(done.body.id).fetchHistory();
    const started = history.events!.find(
      (e) => e.workflowExecutionStartedEventAttributes,
    )!.workflowExecutionStartedEventAttributes!;
    expect(defaultPayloadConverter.fromPayload(started.input!.payloads![0])).toEqual({
      scanId: done.body.id,
      nodeCount: 4,
      graphSize: 19,
      paged: true,
    });
  } finally {
    await new Promise<void>((r) => away.server.close(() => r()));
    await uploads.close();
  }
});
