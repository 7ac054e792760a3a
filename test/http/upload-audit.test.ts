// Scan uploads in the audit trail over HTTP against the real database (no worker: scans stay queued): every accepted
// upload, a snapshot answered 201 or a multipart upload's completion answered 201, is one `scan.uploaded` event with
// its actor and target; a replayed Idempotency-Key, a repeated completion and a refused upload add none, and an
// upload withdrawn after its scan's insert failed leaves none.
import type { PartBody } from '../../src/domain/snapshot/parts';
import { uploadPreparer } from '../../src/pool/upload-pool';
import { appWithoutTemporal, bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';
import { v2Snapshot } from '../helpers/v2';
import { uploadClient } from './uploads-helpers';

let t: TestContext;
let org: Org;
let key: string;
const c = () => uploadClient(t, () => key);

beforeAll(async () => {
  t = await testContext();
  org = await newOrg(t.store);
  key = await org.key(['sca:upload', 'scans:read']);
});
afterAll(() => t.close());

const post = (body: unknown, headers: Record<string, string> = {}, token = key) =>
  t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(token))
    .set('Content-Type', 'application/json')
    .set(headers)
    .send(JSON.stringify(body));

/** Every scan.uploaded event of the organization, newest first (read as an owner, through the API). */
async function uploaded(): Promise<any[]> {
  const res = await t.api.get('/v1/audit-events?type=scan.uploaded&limit=100').set(bearer(org.ownerToken));
  expect(res.status).toBe(200);
  return res.body.auditEvents;
}
const eventsOf = async (scanId: string) => (await uploaded()).filter((e) => e.target.id === scanId);

test("an upload by an API key: one event, the key's creator and the key as actor, the scan as target", async () => {
  const res = await post(v1Snapshot('audited', { metadata: { ref: 'main', commit: 'abc' } }));
  expect(res.status).toBe(201);
  const events = await eventsOf(res.body.id);
  expect(events).toEqual([
    {
      id: expect.stringMatching(/^aud_/),
      type: 'scan.uploaded',
      actor: { memberId: org.memberId, userId: null, email: null, apiKeyId: expect.stringMatching(/^key_/) },
      target: { kind: 'scan', id: res.body.id, project: res.body.project, ecosystem: 'javascript', ref: 'main' },
      at: expect.any(String),
      requestId: res.headers['x-request-id'],
    },
  ]);
  // without a ref in the snapshot's metadata, the target has none
  const bare = await post(v1Snapshot('audited'));
  expect(bare.status).toBe(201);
  expect((await eventsOf(bare.body.id))[0].target).toEqual({
    kind: 'scan',
    id: bare.body.id,
    project: res.body.project,
    ecosystem: 'javascript',
  });
});

test("an upload in a member's session: the member as actor, found by ?actor=", async () => {
  const session = await org.session('member');
  const res = await post(v1Snapshot('audited-by-session'), {}, session);
  expect(res.status).toBe(201);
  const [event] = await eventsOf(res.body.id);
  expect(event.actor).toEqual({ memberId: expect.any(String), userId: expect.any(String), email: expect.any(String) });
  const byActor = await t.api
    .get(`/v1/audit-events?type=scan.uploaded&actor=${encodeURIComponent(event.actor.email)}`)
    .set(bearer(org.ownerToken));
  expect(byActor.body.auditEvents.map((e: any) => e.target.id)).toEqual([res.body.id]);
});

test('a replayed Idempotency-Key adds no second event; a refused upload adds none', async () => {
  const body = v1Snapshot('audited-idem');
  const first = await post(body, { 'Idempotency-Key': 'audit-k1' });
  expect(first.status).toBe(201);
  const replay = await post(body, { 'Idempotency-Key': 'audit-k1' });
  expect([replay.status, replay.body.id]).toEqual([200, first.body.id]);
  expect(await eventsOf(first.body.id)).toHaveLength(1);

  const before = (await uploaded()).length;
  // 422: invalid snapshots; 409: the key again with another body
  expect((await post({ ...body, nodes: 'x' })).status).toBe(422);
  expect((await post({ ...body, schemaVersion: 1, ecosystem: 'cobol' })).status).toBe(422);
  expect((await post(v1Snapshot('audited-idem-2'), { 'Idempotency-Key': 'audit-k1' })).status).toBe(409);
  // 403: a key without sca:upload
  const reader = await org.key(['scans:read']);
  expect((await post(body, {}, reader)).status).toBe(403);
  expect(await uploaded()).toHaveLength(before);
  expect(await t.store.c.auditEvents.countDocuments({ orgId: org.orgId, type: 'scan.uploaded' })).toBe(before);
});

/** A two-module graph in two parts; `change` breaks it (a rejected completion). */
function graph(project: string) {
  const s = v2Snapshot(
    [
      {
        module: ':app',
        context: 'runtime',
        vertices: [
          ['r', ':app', 'a'],
          ['a', 'a@1'],
        ],
      },
      {
        module: ':lib',
        context: 'runtime',
        vertices: [
          ['r', ':lib', 'b'],
          ['b', 'b@1'],
        ],
      },
    ],
    [{ path: ':app', dependencies: [':lib'] }, { path: ':lib' }],
    { project, metadata: { ref: 'feature/x' } },
  );
  const parts: PartBody[] = [
    { modules: s.modules, nodes: s.nodes.slice(0, 1) },
    { nodes: s.nodes.slice(1), roots: s.roots },
  ];
  return { s, parts };
}

test('a multipart completion answered 201: one event; a repeated completion (200) none; a rejected upload none', async () => {
  const { s, parts } = graph('audited-multipart');
  const { id, completion } = await c().all(s, parts);
  expect(completion.status).toBe(201);
  const [event, ...more] = await eventsOf(completion.body.id);
  expect(more).toEqual([]);
  expect(event).toMatchObject({
    type: 'scan.uploaded',
    actor: { memberId: org.memberId, userId: null, email: null },
    target: {
      kind: 'scan',
      id: completion.body.id,
      project: completion.body.project,
      ecosystem: 'gradle',
      ref: 'feature/x',
    },
    requestId: completion.headers['x-request-id'],
  });
  // the completion again: 200 with the same scan, no second event
  const again = await c().complete(id);
  expect([again.status, again.body.id]).toEqual([200, completion.body.id]);
  expect(await eventsOf(completion.body.id)).toHaveLength(1);

  const before = (await uploaded()).length;
  const broken = graph('audited-rejected');
  broken.parts[0].nodes![0].dependencies = ['zz@1'];
  const rejected = await c().all(broken.s, broken.parts);
  expect(rejected.completion.status).toBe(422);
  expect((await c().complete(rejected.id)).status).toBe(422);
  expect(await uploaded()).toHaveLength(before);
});

test('an upload whose scan insert failed is withdrawn with its event: none is left', async () => {
  // An API whose scan inserts fail once the scan has landed (as when the answer is lost): the upload is answered 500
  // and withdrawn (the scan was still queued), and its audit event, written beside the insert, goes with it.
  let scanId = '';
  const scans = t.store.c.scans;
  const failing = new Proxy(scans, {
    get(target, prop, receiver) {
      if (prop !== 'insertOne') return Reflect.get(target, prop, receiver);
      return async (doc: { _id: string }, ...rest: unknown[]) => {
        scanId = doc._id;
        await (target.insertOne as (...a: unknown[]) => Promise<unknown>).apply(target, [doc, ...rest]);
        throw new Error('connection lost after the insert');
      };
    },
  });
  const uploads = uploadPreparer(1);
  const broken = await appWithoutTemporal({ ...t.store, c: { ...t.store.c, scans: failing } }, { uploads });
  try {
    const res = await broken.api
      .post('/v1/scans/dependency-snapshots')
      .set(bearer(key))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(v1Snapshot('audited-withdrawn')));
    expect(res.status).toBe(500);
    expect(scanId).toMatch(/^scn_/);
    // withdrawn off the response path: the scan, then its snapshot, then its event
    const withdrawn = async () =>
      !(await t.store.c.scans.findOne({ _id: scanId })) &&
      !(await t.store.c.snapshots.findOne({ _id: scanId })) &&
      (await t.store.c.auditEvents.countDocuments({ 'target.id': scanId })) === 0;
    for (let i = 0; i < 100 && !(await withdrawn()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await withdrawn()).toBe(true);
    expect(await eventsOf(scanId)).toEqual([]);
  } finally {
    await new Promise<void>((r) => broken.server.close(() => r()));
    await uploads.close();
  }
});
