// The upload route over HTTP against the real database and Temporal server (no worker on this task queue: scans
// stay queued, which is what these tests look at).
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';
import { getScan, markFailed } from '../../src/storage/scans';

let t: TestContext;
let org: Org;
let uploader: string;

beforeAll(async () => {
  t = await testContext();
  org = await newOrg(t.store);
  uploader = await org.key(['sca:upload', 'scans:read', 'findings:read']);
});
afterAll(() => t.close());

const post = (body: unknown, headers: Record<string, string> = {}, token = uploader) =>
  t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(token))
    .set('Content-Type', 'application/json')
    .set(headers)
    .send(typeof body === 'string' ? body : JSON.stringify(body));

const envelope = (res: { status: number; body: unknown }, status: number, code: string) => {
  expect(res.body).toEqual({ error: { code, message: expect.any(String) } });
  expect(res.status).toBe(status);
};

test('201 with a queued scan; the workflow is started with the scan id', async () => {
  const res = await post(v1Snapshot());
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({
    id: expect.stringMatching(/^scn_/),
    target: 'web-app',
    project: expect.stringMatching(/^prj_/),
    status: 'queued',
    findings: null,
    suppressed: null,
    finishedAt: null,
    failureReason: null,
    modules: [],
  });
  expect(new Date(res.body.startedAt).toISOString()).toBe(res.body.startedAt);
  const handle = t.temporal.client.workflow.getHandle(res.body.id);
  // The workflow starts just after the 201 (off the response path): wait for it.
  let described = await handle.describe().catch(() => null);
  for (let i = 0; !described && i < 100; i++)
    described = await new Promise((r) => setTimeout(r, 20)).then(() => handle.describe().catch(() => null));
  if (!described) throw new Error('workflow not started');
  expect(described.taskQueue).toBe(t.taskQueue);
  expect(described.searchAttributes.ScanId).toEqual([res.body.id]);
  const got = await t.api.get(`/v1/scans/${res.body.id}`).set(bearer(uploader));
  expect(got.status).toBe(200);
  expect(got.body.id).toBe(res.body.id);
  const findings = await t.api.get(`/v1/scans/${res.body.id}/findings`).set(bearer(uploader));
  expect(findings.status).toBe(200);
  expect(findings.body).toEqual({ findings: [], nextCursor: null, counts: null });
});

test('the same slug maps to the same project; the scan stores the compressed body', async () => {
  const a = await post(v1Snapshot('same'));
  const b = await post(v1Snapshot('same'));
  expect(a.body.project).toBe(b.body.project);
  const snap = await t.store.c.snapshots.findOne({ _id: a.body.id });
  expect(snap?.encoding).toBe('gzip');
});

describe('idempotency', () => {
  test('same key + same body → 200 with the original scan; different body → 409', async () => {
    const body = JSON.stringify(v1Snapshot('idem'));
    const first = await post(body, { 'Idempotency-Key': 'k-1' });
    expect(first.status).toBe(201);
    const replay = await post(body, { 'Idempotency-Key': 'k-1' });
    expect(replay.status).toBe(200);
    expect(replay.body.id).toBe(first.body.id);
    envelope(
      await post(JSON.stringify(v1Snapshot('idem2')), { 'Idempotency-Key': 'k-1' }),
      409,
      'idempotency_conflict',
    );
    const count = await t.store.c.scans.countDocuments({ projectId: first.body.project });
    expect(count).toBe(1);
  });

  test('keys are scoped to the organization', async () => {
    const other = await newOrg(t.store, 'other');
    const otherKey = await other.key(['sca:upload']);
    const body = JSON.stringify(v1Snapshot('idem-org'));
    const a = await post(body, { 'Idempotency-Key': 'shared' });
    const b = await post(body, { 'Idempotency-Key': 'shared' }, otherKey);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
  });

  test('a key over 128 characters → 422 invalid_idempotency_key', async () => {
    envelope(await post(v1Snapshot(), { 'Idempotency-Key': 'x'.repeat(129) }), 422, 'invalid_idempotency_key');
  });

  test('concurrent requests with one key create one scan', async () => {
    const body = JSON.stringify(v1Snapshot('race'));
    const results = await Promise.all(Array.from({ length: 5 }, () => post(body, { 'Idempotency-Key': 'race-key' })));
    const ids = new Set(results.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
  });
});

describe('bad input never stores anything', () => {
  test('non-JSON body and wrong content type → 422 invalid_snapshot', async () => {
    envelope(await post('{not json'), 422, 'invalid_snapshot');
    const res = await t.api
      .post('/v1/scans/dependency-snapshots')
      .set(bearer(uploader))
      .set('Content-Type', 'text/plain')
      .send('{}');
    envelope(res, 422, 'invalid_snapshot');
  });

  test('a body over 10 MB is refused while streaming → 413 snapshot_too_large', async () => {
    const big = '{"pad":"' + 'a'.repeat(10 * 1024 * 1024 + 10) + '"}';
    envelope(await post(big), 413, 'snapshot_too_large');
  });

  test('unknown schemaVersion → 422 naming /schemaVersion', async () => {
    const res = await post(v1Snapshot('x', { schemaVersion: 3 }));
    envelope(res, 422, 'invalid_snapshot');
    expect(res.body.error.message).toContain('/schemaVersion');
  });

  test('a dangling reference → 422 with a JSON pointer', async () => {
    const s = v1Snapshot('dangling');
    s.nodes[1].dependencies = ['ghost@1.0.0'];
    const res = await post(s);
    envelope(res, 422, 'invalid_snapshot');
    expect(res.body.error.message).toMatch(/^\/nodes\/1\/dependencies\/0/);
    expect(await t.store.c.projects.countDocuments({ slug: 'dangling' })).toBe(0);
  });
});

describe('project restrictions', () => {
  test('a restricted key uploads to its project, never creates one, never reaches others', async () => {
    const created = await post(v1Snapshot('restricted-home'));
    const projectId = created.body.project;
    const restricted = await org.key(['sca:upload', 'scans:read'], [projectId]);
    expect((await post(v1Snapshot('restricted-home'), {}, restricted)).status).toBe(201);
    expect((await post(v1Snapshot(projectId), {}, restricted)).status).toBe(201);
    envelope(await post(v1Snapshot('brand-new'), {}, restricted), 422, 'unknown_project');
    envelope(await post(v1Snapshot('same'), {}, restricted), 422, 'unknown_project');
    expect(await t.store.c.projects.countDocuments({ slug: 'brand-new' })).toBe(0);

    const other = await post(v1Snapshot('not-mine'));
    envelope(await t.api.get(`/v1/scans/${other.body.id}`).set(bearer(restricted)), 404, 'not_found');
    const list = await t.api.get('/v1/scans?limit=200').set(bearer(restricted));
    expect(list.body.scans.every((s: { project: string }) => s.project === projectId)).toBe(true);
    envelope(await t.api.get('/v1/scans?project=not-mine').set(bearer(restricted)), 422, 'unknown_project');
  });

  test('a scan of another organization is 404 like a missing one', async () => {
    const other = await newOrg(t.store, 'other2');
    const created = await post(v1Snapshot('private'));
    envelope(await t.api.get(`/v1/scans/${created.body.id}`).set(bearer(other.ownerToken)), 404, 'not_found');
    envelope(await t.api.get(`/v1/scans/${created.body.id}/findings`).set(bearer(other.ownerToken)), 404, 'not_found');
    envelope(await t.api.get('/v1/scans/scn_missing').set(bearer(uploader)), 404, 'not_found');
  });

  test('a key revoked before the upload commits stores nothing', async () => {
    const key = await org.key(['sca:upload']);
    const { revokeApiKey, findApiKeyByHash } = await import('../../src/storage/api-keys');
    const { sha256Hex } = await import('../../src/domain/ids');
    const doc = await findApiKeyByHash(t.store, sha256Hex(key));
    await revokeApiKey(t.store, org.orgId, doc!.id);
    envelope(await post(v1Snapshot('revoked-upload'), {}, key), 401, 'invalid_token');
    expect(await t.store.c.projects.countDocuments({ slug: 'revoked-upload' })).toBe(0);
  });
});

describe('listing', () => {
  test('newest first, paginated with signed cursors bound to the filters', async () => {
    const o = await newOrg(t.store, 'lister');
    const key = await o.key(['sca:upload', 'scans:read']);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await post(v1Snapshot(i % 2 ? 'odd' : 'even'), {}, key)).body.id);
    const p1 = await t.api.get('/v1/scans?limit=2').set(bearer(key));
    expect(p1.body.scans.map((s: { id: string }) => s.id)).toEqual([ids[4], ids[3]]);
    const p2 = await t.api.get(`/v1/scans?limit=2&cursor=${p1.body.nextCursor}`).set(bearer(key));
    expect(p2.body.scans.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1]]);
    const p3 = await t.api.get(`/v1/scans?limit=2&cursor=${p2.body.nextCursor}`).set(bearer(key));
    expect(p3.body.scans.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
    expect(p3.body.nextCursor).toBeNull();
    envelope(
      await t.api.get(`/v1/scans?limit=2&status=queued&cursor=${p1.body.nextCursor}`).set(bearer(key)),
      422,
      'invalid_cursor',
    );
    const even = await t.api.get('/v1/scans?project=even').set(bearer(key));
    expect(even.body.scans.map((s: { id: string }) => s.id)).toEqual([ids[4], ids[2], ids[0]]);
    const queued = await t.api.get('/v1/scans?status=completed').set(bearer(key));
    expect(queued.body.scans).toEqual([]);
  });
});

describe('large bodies are prepared on the thread pool', () => {
  test('a 10,000-node snapshot is accepted; a broken one gets the same 422 envelope as inline', async () => {
    const { syntheticSnapshot } = await import('../../src/domain/snapshot');
    const big = syntheticSnapshot({ schemaVersion: 1, nodes: 10000, roots: 20, depsPerNode: 3, project: 'big' });
    const body = JSON.stringify(big);
    expect(body.length).toBeGreaterThan(256 * 1024);
    const ok = await post(body);
    expect(ok.status).toBe(201);
    expect((await getScan(t.store, ok.body.id))?.nodeCount).toBe(10000);
    const broken = JSON.parse(body);
    broken.nodes[9999].dependencies = ['nope@0'];
    const res = await post(broken);
    envelope(res, 422, 'invalid_snapshot');
    expect(res.body.error.message).toMatch(/^\/nodes\/9999\/dependencies\/0/);
  });
});

describe('listing across list buckets', () => {
  test('130 scans page in arrival order with no gap or repeat, for the org and for one project', async () => {
    const o = await newOrg(t.store, 'many');
    const key = await o.key(['sca:upload', 'scans:read']);
    const ids: string[] = [];
    const projectIds: string[] = [];
    for (let i = 0; i < 130; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, (_, k) => post(v1Snapshot(k % 3 === 0 ? 'p-a' : 'p-b'), {}, key)),
      );
      ids.push(...batch.map((r) => r.body.id));
      projectIds.push(...batch.map((r) => r.body.project));
    }
    const walk = async (query: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: { body: { scans: Array<{ id: string }>; nextCursor: string | null } } = await t.api
          .get(`/v1/scans?limit=30${query}${cursor ? `&cursor=${cursor}` : ''}`)
          .set(bearer(key));
        seen.push(...res.body.scans.map((s) => s.id));
        cursor = res.body.nextCursor;
      } while (cursor);
      return seen;
    };
    const all = await walk('');
    expect(all).toHaveLength(130);
    expect(new Set(all).size).toBe(130);
    expect(new Set(all)).toEqual(new Set(ids));
    // Batches were sent concurrently, so within a batch arrival order may differ from id order; batches in order.
    const batchOf = (id: string) => Math.floor(ids.indexOf(id) / 10);
    const batches = all.map(batchOf);
    expect(batches).toEqual([...batches].sort((a, b) => b - a));
    const pa = projectIds[0];
    const onlyA = await walk(`&project=${pa}`);
    expect(new Set(onlyA)).toEqual(new Set(ids.filter((_, i) => projectIds[i] === pa)));
  });
});

test('a key whose scan failed with internal_error is released: the same key and body start a new scan', async () => {
  const body = JSON.stringify(v1Snapshot('retry-later'));
  const first = await post(body, { 'Idempotency-Key': 'retry-key' });
  expect(first.status).toBe(201);
  await markFailed(t.store, first.body.id, 'internal_error', 'retries exhausted');
  const again = await post(body, { 'Idempotency-Key': 'retry-key' });
  expect(again.status).toBe(201);
  expect(again.body.id).not.toBe(first.body.id);
  const replay = await post(body, { 'Idempotency-Key': 'retry-key' });
  expect(replay.status).toBe(200);
  expect(replay.body.id).toBe(again.body.id);
  // Any other failure replays as it is.
  await markFailed(t.store, again.body.id, 'unsupported_ecosystem', 'not yet');
  const failed = await post(body, { 'Idempotency-Key': 'retry-key' });
  expect(failed.status).toBe(200);
  expect(failed.body).toMatchObject({ id: again.body.id, status: 'failed', failureReason: 'unsupported_ecosystem' });
});
