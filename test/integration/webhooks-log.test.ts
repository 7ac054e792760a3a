// GET /v1/webhooks/{webhookId}/deliveries over real HTTP against the real database, with deliveries
// recorded as the event workflow records them: newest first, limit/cursor, roles, 404 for unknown, other
// organizations' and deleted webhooks, hostile input. Every answer is checked against the OpenAPI document.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type request from 'supertest';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { newId } from '../../src/domain/ids';
import { deliveryId } from '../../src/domain/webhooks/deliveries';
import { openApiDocument } from '../../src/http/openapi/document';
import type { WebhookDeliveryDoc } from '../../src/storage/documents/webhooks';
import { connectStore, ensureIndexes, type Store } from '../../src/storage/mongo';
import { revokeSession } from '../../src/storage/accounts';
import { secretBox } from '../../src/storage/secrets';
import { failDelivery, recordAttempt, recordDeliveries } from '../../src/storage/webhook-deliveries';
import { createWebhook, deleteWebhook } from '../../src/storage/webhooks';
import { appWithoutTemporal, bearer, newOrg, requireEnv, type Org } from '../helpers/context';

type Res = { status: number; body: any };

const box = secretBox(randomBytes(32));
let store: Store;
let app: { server: http.Server; api: ReturnType<typeof request> };
let org: Org;
let webhookId: string;
const ids: string[] = []; // oldest first
const noUploads = { prepare: async () => Promise.reject(new Error('no uploads here')), close: async () => undefined };

const path = '/v1/webhooks/{webhookId}/deliveries';
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openApiDocument() as object, 'openapi.json');
const docOf = openApiDocument() as any;

/** The answer, checked against the document's schema for its status. */
function documented(res: Res): Res {
  const r = docOf.paths[path].get.responses[String(res.status)];
  if (!r) throw new Error(`undocumented status ${res.status}: ${JSON.stringify(res.body)}`);
  const pointer = `openapi.json#/paths/${path.replace(/\//g, '~1')}/get/responses/${res.status}/content/application~1json/schema`;
  const validate = ajv.getSchema(pointer) ?? (ajv.addSchema({ $ref: pointer }, pointer), ajv.getSchema(pointer)!);
  if (!validate(res.body))
    throw new Error(
      `${res.status} does not match the document: ${JSON.stringify(validate.errors)} ${JSON.stringify(res.body)}`,
    );
  return res;
}

const log = async (token: string, id = webhookId, query = ''): Promise<Res> =>
  documented(await app.api.get(`/v1/webhooks/${encodeURIComponent(id)}/deliveries${query}`).set(bearer(token)));
const err = (res: Res) => ({ status: res.status, code: res.body?.error?.code });

function delivery(eventAt: number, whk: string, type = 'scan.completed'): WebhookDeliveryDoc {
  const eventId = newId('evt', eventAt);
  const at = new Date(eventAt);
  return {
    _id: deliveryId(eventId, whk),
    orgId: org.orgId,
    webhookId: whk,
    eventId,
    type,
    status: 'pending',
    attempts: [],
    body: '{"secret":"body"}',
    error: null,
    createdAt: at,
    updatedAt: at,
  };
}

beforeAll(async () => {
  store = await connectStore(requireEnv('MONGODB_URI'), `t_${randomBytes(6).toString('hex')}`);
  await ensureIndexes(store);
  app = await appWithoutTemporal(store, { uploads: noUploads });
  org = await newOrg(store);
  webhookId = (
    await createWebhook(store, box, {
      orgId: org.orgId,
      url: 'https://hooks.example.test/x',
      events: ['scan.completed', 'scan.failed'],
      createdBy: org.memberId,
    })
  ).doc._id;
  const other = (
    await createWebhook(store, box, {
      orgId: org.orgId,
      url: 'https://hooks.example.test/y',
      events: ['scan.completed'],
      createdBy: null,
    })
  ).doc._id;
  const base = Date.parse('2026-03-01T00:00:00Z');
  const docs = [0, 1, 2, 3, 4].map((i) =>
    delivery(base + i * 1000, webhookId, i % 2 ? 'scan.failed' : 'scan.completed'),
  );
  await recordDeliveries(store, [...docs, delivery(base + 10_000, other)]);
  await recordDeliveries(store, docs); // recorded again (a retried activity): nothing twice
  ids.push(...docs.map((d) => d._id));
  await recordAttempt(
    store,
    ids[0],
    { n: 1, at: new Date(base + 500), durationMs: 12, statusCode: null, error: 'connect ECONNREFUSED 127.0.0.1:443' },
    'pending',
  );
  await recordAttempt(
    store,
    ids[0],
    { n: 2, at: new Date(base + 30_500), durationMs: 40, statusCode: 204, error: null },
    'succeeded',
  );
  await recordAttempt(
    store,
    ids[0],
    { n: 3, at: new Date(base + 60_500), durationMs: 40, statusCode: 500, error: 'HTTP 500' },
    'pending',
  ); // late: not recorded
  await recordAttempt(
    store,
    ids[1],
    { n: 1, at: new Date(base + 1500), durationMs: 7, statusCode: 500, error: 'HTTP 500' },
    'pending',
  );
  await failDelivery(
    store,
    ids[1],
    'no 2xx answer within the retry window of 24 h; last: HTTP 500',
    new Date(base + 86_400_000),
  );
}, 60_000);

afterAll(async () => {
  await new Promise((r) => app?.server.close(r));
  await store?.db.dropDatabase().catch(() => undefined);
  await store?.close();
});

test('newest first, with attempts, status codes and times; bodies never shown', async () => {
  const res = await log(org.ownerToken);
  expect(res.status).toBe(200);
  expect(res.body.nextCursor).toBeNull();
  expect(res.body.deliveries.map((d: { id: string }) => d.id)).toEqual([...ids].reverse());
  expect(res.body.deliveries[4]).toEqual({
    id: ids[0],
    eventId: expect.stringMatching(/^evt_/),
    type: 'scan.completed',
    status: 'succeeded',
    attempts: [
      {
        n: 1,
        at: '2026-03-01T00:00:00.500Z',
        statusCode: null,
        error: 'connect ECONNREFUSED 127.0.0.1:443',
        durationMs: 12,
      },
      { n: 2, at: '2026-03-01T00:00:30.500Z', statusCode: 204, error: null, durationMs: 40 },
    ],
    createdAt: '2026-03-01T00:00:00.000Z',
    updatedAt: '2026-03-01T00:00:30.500Z',
  });
  expect(res.body.deliveries[3]).toMatchObject({
    id: ids[1],
    type: 'scan.failed',
    status: 'failed',
    attempts: [{ n: 1, statusCode: 500, error: 'HTTP 500' }],
    updatedAt: '2026-03-02T00:00:00.000Z',
  });
  expect(res.body.deliveries[0]).toMatchObject({ status: 'pending', attempts: [] });
  expect(JSON.stringify(res.body)).not.toContain('secret');
});

test('limit and cursor page through the log; a cursor of another log or a tampered one is 422 invalid_cursor', async () => {
  const admin = await org.session('admin');
  const seen: string[] = [];
  let query = '?limit=2';
  for (let pages = 0; ; pages++) {
    const res = await log(admin, webhookId, query);
    expect(res.status).toBe(200);
    seen.push(...res.body.deliveries.map((d: { id: string }) => d.id));
    if (!res.body.nextCursor) break;
    expect(res.body.deliveries).toHaveLength(2);
    query = `?limit=2&cursor=${encodeURIComponent(res.body.nextCursor)}`;
    expect(pages).toBeLessThan(3);
  }
  expect(seen).toEqual([...ids].reverse());
  const first = await log(admin, webhookId, '?limit=1');
  const cursor = first.body.nextCursor as string;
  const other = (await store.c.webhooks.find({ orgId: org.orgId, _id: { $ne: webhookId } }).toArray())[0]._id;
  expect(err(await log(admin, other, `?cursor=${encodeURIComponent(cursor)}`))).toEqual({
    status: 422,
    code: 'invalid_cursor',
  });
  expect(err(await log(admin, webhookId, `?cursor=${encodeURIComponent(cursor.slice(0, -2) + 'xx')}`))).toEqual({
    status: 422,
    code: 'invalid_cursor',
  });
  expect(err(await log(admin, webhookId, '?cursor='))).toEqual({ status: 422, code: 'invalid_cursor' });
  for (const q of ['?limit=0', '?limit=abc', '?limit=1&limit=2', '?limit=1.5'])
    expect(err(await log(admin, webhookId, q))).toEqual({ status: 422, code: 'invalid_parameter' });
  expect((await log(admin, webhookId, '?limit=1000')).body.deliveries).toHaveLength(5); // clamped to 200
});

test('only owners and admins of the organization read it', async () => {
  for (const role of ['member', 'auditor'] as const) {
    const res = await log(await org.session(role));
    expect(err(res)).toEqual({ status: 403, code: 'insufficient_scope' });
  }
  expect(err(await log(await org.key(['scans:read', 'findings:read', 'deps:read'])))).toEqual({
    status: 403,
    code: 'insufficient_scope',
  });
  expect(err(await log('svc_ses_' + '0'.repeat(40)))).toEqual({ status: 401, code: 'invalid_token' });
  const revoked = await org.session('admin');
  await revokeSession(store, revoked);
  expect(err(await log(revoked))).toEqual({ status: 401, code: 'invalid_token' });
});

test("unknown, another organization's, deleted and NUL-bearing webhook ids are 404 not_found", async () => {
  const stranger = await newOrg(store, 'other');
  expect(err(await log(stranger.ownerToken))).toEqual({ status: 404, code: 'not_found' });
  expect(err(await log(org.ownerToken, 'whk_00000000000000000000000000'))).toEqual({ status: 404, code: 'not_found' });
  expect(err(await log(org.ownerToken, 'whk_\u0000'))).toEqual({ status: 404, code: 'not_found' });
  expect(err(await log(org.ownerToken, 'x'.repeat(3000)))).toEqual({ status: 404, code: 'not_found' });
  const gone = (
    await createWebhook(store, box, {
      orgId: org.orgId,
      url: 'https://hooks.example.test/z',
      events: ['scan.failed'],
      createdBy: null,
    })
  ).doc._id;
  await recordDeliveries(store, [delivery(Date.now(), gone, 'scan.failed')]);
  expect((await log(org.ownerToken, gone)).body.deliveries).toHaveLength(1);
  await deleteWebhook(store, org.orgId, gone);
  expect(err(await log(org.ownerToken, gone))).toEqual({ status: 404, code: 'not_found' });
});
