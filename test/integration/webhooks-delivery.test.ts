// Webhook delivery end to end, against the real Temporal and FerretDB: a scan ends, its event
// workflow posts to a loopback https receiver that verifies X-Svc-Signature as a receiver would (HMAC recomputed here
// with node:crypto from the secret createWebhook returned), retries follow the policy, and the delivery log shows
// every attempt. No request leaves loopback: the policy allows 127.0.0.0/8 only, and its resolver knows one name
// outside it (refused before any connection) and puts every other on 127.0.0.1.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { WorkflowNotFoundError } from '@temporalio/client';
import { newId } from '../../src/domain/ids';
import { openApiDocument } from '../../src/http/openapi/document';
import type { DestinationPolicy } from '../../src/infra/webhooks/destination';
import { createLogger } from '../../src/logger';
import { insertScan, markRunning } from '../../src/storage/scans';
import { secretBox } from '../../src/storage/secrets';
import { createWebhook, deleteWebhook, type WebhookEvent } from '../../src/storage/webhooks';
import { getDelivery } from '../../src/storage/webhook-deliveries';
import { sweepOnce } from '../../src/sweepers/scans';
import { scanRuns, startScanWorkflow } from '../../src/temporal/client';
import { scanEvents, type ScanEvents } from '../../src/temporal/events';
import {
  eventWorkflowId,
  type DeliveryRetry,
  type WebhookEventInput,
  type WebhookEventResult,
} from '../../src/temporal/webhook-workflow-contract';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { startHttpsServer, type TestHttpsServer } from '../helpers/https-server';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** What the receiver answers on a path, request after request (the last status repeats). */
const scripts = new Map<string, number[]>();
const received: Received[] = [];
const at = (path: string) => received.filter((r) => r.path === path);

function receiver(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const path = req.url ?? '/';
    received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    const script = scripts.get(path) ?? [200];
    const status = script.length > 1 ? script.shift()! : script[0];
    res.writeHead(status, { 'Content-Type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
  });
}

/** What a receiver does with X-Svc-Signature: recompute HMAC-SHA256(secret, "<t>.<raw body>"), compare, check t. */
function verifyAsReceiver(secret: string, header: string, rawBody: string): { ok: boolean; t: number } {
  const parts = Object.fromEntries(
    header.split(',').map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]),
  );
  const t = Number(parts.t);
  const expected = createHmac('sha256', secret).update(`${parts.t}.${rawBody}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return { ok: given.length === expected.length && timingSafeEqual(given, expected), t };
}

const box = secretBox(randomBytes(32));
// Minutes, so that a slow machine never decides a test by the window; the window test has an emitter of its own.
const RETRY: DeliveryRetry = {
  initialMs: 300,
  backoffCoefficient: 2,
  maxIntervalMs: 1000,
  windowMs: 10 * 60_000,
  attemptTimeoutMs: 5000,
};

let t: TestContext;
let server: TestHttpsServer;
let policy: DestinationPolicy;
let events: ScanEvents;
let worker: TestWorker | undefined;

beforeAll(async () => {
  installRuntime('error');
  server = await startHttpsServer(receiver);
  t = await testContext();
  const names: Record<string, Array<{ address: string; family: 4 | 6 }>> = {
    'internal.example.test': [{ address: '10.0.0.5', family: 4 }],
  };
  policy = {
    allowedCidrs: ['127.0.0.0/8'],
    extraCa: server.ca,
    resolve: async (host) => names[host] ?? [{ address: '127.0.0.1', family: 4 }],
  };
  const logger = createLogger('worker', 'silent');
  events = scanEvents({ store: t.store, logger, taskQueue: t.taskQueue, client: t.temporal.client, retry: RETRY });
  worker = await startTestWorker(t, { logger, events, webhooks: { box, policy } });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
  await server?.close();
});

async function orgWithWebhook(path: string | null, types: WebhookEvent[] = ['scan.completed']) {
  const org = await newOrg(t.store);
  const key = await org.key(['sca:upload', 'scans:read']);
  if (path === null) return { org, key, webhookId: '', secret: '' };
  const { doc, secret } = await createWebhook(t.store, box, {
    orgId: org.orgId,
    url: `${server.base}${path}`,
    events: types,
    createdBy: org.memberId,
  });
  return { org, key, webhookId: doc._id, secret };
}

/** Waits for a scan's workflow to close (its start may still be in flight when the upload is answered). */
async function scanClosed(scanId: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await t.temporal.client.workflow.getHandle(scanId).result();
      return;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError) || i === 200) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Uploads a small snapshot and waits for its scan workflow to close (the fast path: one local activity). */
async function completedScan(key: string, project: string): Promise<string> {
  const res = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(v1Snapshot(project));
  expect(res.status).toBe(201);
  await scanClosed(res.body.id);
  return res.body.id as string;
}

const eventResult = (scanId: string, type: WebhookEvent) =>
  t.temporal.client.workflow.getHandle(eventWorkflowId(scanId, type)).result() as Promise<WebhookEventResult>;

async function notStarted(scanId: string, type: WebhookEvent): Promise<void> {
  await expect(t.temporal.client.workflow.getHandle(eventWorkflowId(scanId, type)).describe()).rejects.toBeInstanceOf(
    WorkflowNotFoundError,
  );
}

async function deliveryLog(org: Org, webhookId: string) {
  const res = await t.api.get(`/v1/webhooks/${webhookId}/deliveries`).set(bearer(org.ownerToken));
  expect(res.status).toBe(200);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(openApiDocument(), 'openapi.json');
  const valid = ajv.compile({
    $ref: 'openapi.json#/paths/~1v1~1webhooks~1{webhookId}~1deliveries/get/responses/200/content/application~1json/schema',
  });
  if (!valid(res.body)) throw new Error(JSON.stringify(valid.errors));
  return res.body as { deliveries: any[]; nextCursor: string | null };
}

test('500 then 200: two signed attempts with the same X-Svc-Delivery and body; the log shows both; succeeded', async () => {
  const { org, key, webhookId, secret } = await orgWithWebhook('/retry');
  scripts.set('/retry', [500, 200]);
  const scanId = await completedScan(key, 'hooked');
  expect(await eventResult(scanId, 'scan.completed')).toMatchObject({ deliveries: 1, succeeded: 1, failed: 0 });

  const got = at('/retry');
  expect(got).toHaveLength(2);
  const [first, second] = got;
  expect(second.headers['x-svc-delivery']).toBe(first.headers['x-svc-delivery']);
  expect(first.headers['x-svc-delivery']).toMatch(/^dlv_/);
  expect(second.body).toBe(first.body);
  for (const r of got) {
    expect(r.headers['x-svc-event']).toBe('scan.completed');
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const v = verifyAsReceiver(secret, String(r.headers['x-svc-signature']), r.body);
    expect(v.ok).toBe(true);
    expect(Math.abs(Date.now() / 1000 - v.t)).toBeLessThan(300); // recent: a receiver refuses old timestamps
    expect(verifyAsReceiver(`${secret}x`, String(r.headers['x-svc-signature']), r.body).ok).toBe(false);
    expect(
      verifyAsReceiver(secret, String(r.headers['x-svc-signature']), r.body.replace('"completed"', '"failed"')).ok,
    ).toBe(false);
  }

  // The payload: {id, type, createdAt, data: {scan}}, the scan exactly as GET /v1/scans/{id} presents it.
  const payload = JSON.parse(first.body);
  expect(Object.keys(payload)).toEqual(['id', 'type', 'createdAt', 'data']);
  expect(payload).toMatchObject({
    id: expect.stringMatching(/^evt_/),
    type: 'scan.completed',
    createdAt: expect.any(String),
  });
  const scan = await t.api.get(`/v1/scans/${scanId}`).set(bearer(key));
  expect(payload.data).toEqual({ scan: scan.body });
  expect(payload.data.scan.status).toBe('completed');

  const log = await deliveryLog(org, webhookId);
  expect(log.nextCursor).toBeNull();
  expect(log.deliveries).toEqual([
    {
      id: first.headers['x-svc-delivery'],
      eventId: payload.id,
      type: 'scan.completed',
      status: 'succeeded',
      attempts: [
        { n: 1, at: expect.any(String), statusCode: 500, error: 'HTTP 500', durationMs: expect.any(Number) },
        { n: 2, at: expect.any(String), statusCode: 200, error: null, durationMs: expect.any(Number) },
      ],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    },
  ]);
  const [a1, a2] = log.deliveries[0].attempts;
  expect(Date.parse(a2.at)).toBeGreaterThan(Date.parse(a1.at));
  expect(Date.parse(log.deliveries[0].updatedAt)).toBe(Date.parse(a2.at));

  // The workflow is findable by its id, with its current details; emitting again (a retried activity, another
  // path) starts nothing and sends nothing: the event, its evt_ id, were made once.
  const handle = t.temporal.client.workflow.getHandle(eventWorkflowId(scanId, 'scan.completed'));
  const desc = await handle.describe();
  expect(desc).toMatchObject({
    workflowId: `scan-event-${scanId}-scan.completed`,
    type: 'webhookEventWorkflow',
    taskQueue: t.taskQueue,
    status: { name: 'COMPLETED' },
  });
  const fresh = scanEvents({
    store: t.store,
    logger: createLogger('x', 'silent'),
    taskQueue: t.taskQueue,
    client: t.temporal.client,
    retry: RETRY,
  });
  expect(await fresh.emit(scanId, org.orgId, 'scan.completed')).toBe(false);
  const history = await handle.fetchHistory();
  const input = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
  expect((JSON.parse(Buffer.from(input.data!).toString('utf8')) as WebhookEventInput).eventId).toBe(payload.id);
  expect(at('/retry')).toHaveLength(2);
}, 60_000);

test('a failed scan sends scan.failed to a webhook subscribed to it', async () => {
  const { org, key, secret } = await orgWithWebhook('/failed', ['scan.completed', 'scan.failed']);
  // A scan whose ecosystem no rules exist for fails at once, unsupported_ecosystem, without retries.
  const s = await insertScan(t.store, {
    _id: newId('scn'),
    orgId: org.orgId,
    projectId: newId('prj'),
    target: 'cobol-app',
    ecosystem: 'cobol',
    schemaVersion: 1,
    status: 'queued',
    startedAt: new Date(),
    finishedAt: null,
    failureReason: null,
    findings: null,
    suppressed: null,
    nodeCount: 1,
    bodyBytes: 10,
  });
  expect(await startScanWorkflow(t.temporal, s)).toBe(true);
  await t.temporal.client.workflow
    .getHandle(s._id)
    .result()
    .catch(() => undefined); // the run fails, after failScan
  expect(await eventResult(s._id, 'scan.failed')).toMatchObject({ deliveries: 1, succeeded: 1 });
  await notStarted(s._id, 'scan.completed');
  const [r] = at('/failed');
  expect(r.headers['x-svc-event']).toBe('scan.failed');
  expect(verifyAsReceiver(secret, String(r.headers['x-svc-signature']), r.body).ok).toBe(true);
  const payload = JSON.parse(r.body);
  expect(payload.type).toBe('scan.failed');
  expect(payload.data.scan).toMatchObject({
    id: s._id,
    status: 'failed',
    failureReason: 'unsupported_ecosystem',
    findings: null,
  });
  const scan = await t.api.get(`/v1/scans/${s._id}`).set(bearer(key));
  expect(payload.data.scan).toEqual(scan.body);
}, 60_000);

test('an organization without webhooks starts no event workflow', async () => {
  const { key } = await orgWithWebhook(null);
  const scanId = await completedScan(key, 'quiet');
  await notStarted(scanId, 'scan.completed');
  await notStarted(scanId, 'scan.failed');
});

test('a webhook subscribed only to scan.failed gets nothing for a completed scan', async () => {
  const { key } = await orgWithWebhook('/only-failed', ['scan.failed']);
  const scanId = await completedScan(key, 'only-failed');
  await notStarted(scanId, 'scan.completed');
  await notStarted(scanId, 'scan.failed');
  expect(at('/only-failed')).toHaveLength(0);
});

test('a webhook deleted while its delivery is retrying stops: failed "webhook deleted", no more attempts', async () => {
  const { org, key, webhookId } = await orgWithWebhook('/deleted');
  scripts.set('/deleted', [503]);
  const res = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(v1Snapshot('deleted'));
  expect(res.status).toBe(201);
  const scanId = res.body.id as string;
  for (let i = 0; at('/deleted').length === 0 && i < 600; i++) await new Promise((r) => setTimeout(r, 50));
  expect(at('/deleted').length).toBeGreaterThan(0);
  expect(await deleteWebhook(t.store, org.orgId, webhookId)).toBe(true);
  expect(await eventResult(scanId, 'scan.completed')).toMatchObject({ deliveries: 1, succeeded: 0, failed: 1 });
  const id = String(at('/deleted')[0].headers['x-svc-delivery']);
  const d = await getDelivery(t.store, id);
  expect(d).toMatchObject({ status: 'failed', error: 'webhook deleted' });
  expect(d!.attempts.map((a) => a.statusCode)).toEqual(at('/deleted').map(() => 503)); // each request recorded, none after
  // Its log is gone with it.
  const log = await t.api.get(`/v1/webhooks/${webhookId}/deliveries`).set(bearer(org.ownerToken));
  expect([log.status, log.body.error?.code]).toEqual([404, 'not_found']);
}, 60_000);

test('the retry window: past it the delivery ends failed, with every attempt in the log; a refused destination too', async () => {
  const { org, key } = await orgWithWebhook(null);
  // The scan completes before the webhook exists (nothing is emitted then); an emitter with a 5 s window, as
  // WEBHOOKS_RETRY_WINDOW_MS=5000 would configure it, then emits its event.
  const scanId = await completedScan(key, 'window');
  await notStarted(scanId, 'scan.completed');
  const hook = await createWebhook(t.store, box, {
    orgId: org.orgId,
    url: `${server.base}/window`,
    events: ['scan.completed'],
    createdBy: null,
  });
  const refused = await createWebhook(t.store, box, {
    orgId: org.orgId,
    url: 'https://internal.example.test/hook',
    events: ['scan.completed'],
    createdBy: null,
  });
  scripts.set('/window', [500]);
  const short = scanEvents({
    store: t.store,
    logger: createLogger('x', 'silent'),
    taskQueue: t.taskQueue,
    client: t.temporal.client,
    retry: { ...RETRY, windowMs: 5000 },
  });
  expect(await short.emit(scanId, org.orgId, 'scan.completed')).toBe(true);
  expect(await eventResult(scanId, 'scan.completed')).toMatchObject({ deliveries: 2, succeeded: 0, failed: 2 });
  // An attempt in flight when the window closed ends the delivery's activity for Temporal, yet still reaches the
  // receiver and is logged a moment later: the log holds every attempt the receiver saw once that one is written.
  let log = await deliveryLog(org, hook.doc._id);
  for (let i = 0; i < 50 && log.deliveries[0]?.attempts.length !== at('/window').length; i++) {
    await new Promise((r) => setTimeout(r, 100));
    log = await deliveryLog(org, hook.doc._id);
  }
  expect(log.deliveries).toHaveLength(1);
  const [d] = log.deliveries;
  expect(d.status).toBe('failed');
  expect(d.attempts.length).toBeGreaterThanOrEqual(1); // about six; fewer on a loaded machine (retries: the first test)
  expect(d.attempts.length).toBe(at('/window').length);
  expect(
    d.attempts.every((a: { statusCode: number; error: string }) => a.statusCode === 500 && a.error === 'HTTP 500'),
  ).toBe(true);
  const stored = await getDelivery(t.store, d.id);
  expect(stored!.error).toMatch(/^no 2xx answer within the retry window of 5 s; last: /);
  // The refused destination: every attempt stopped at the address check (no connection), each in the log.
  const [r] = (await deliveryLog(org, refused.doc._id)).deliveries;
  expect(r.status).toBe('failed');
  expect(r.attempts.length).toBeGreaterThanOrEqual(1);
  for (const a of r.attempts)
    expect(a).toMatchObject({
      statusCode: null,
      error: expect.stringContaining('internal.example.test resolves to 10.0.0.5'),
    });
  expect(received.filter((x) => x.path === '/hook')).toHaveLength(0);
}, 60_000);

test("the sweeper's failure of an orphaned scan emits scan.failed", async () => {
  const { org } = await orgWithWebhook('/orphan', ['scan.failed']);
  // Running, with no workflow: an orphan once stale (staleMs 0 below).
  const s = await insertScan(t.store, {
    _id: newId('scn'),
    orgId: org.orgId,
    projectId: newId('prj'),
    target: 'orphan',
    ecosystem: 'javascript',
    schemaVersion: 1,
    status: 'queued',
    startedAt: new Date(),
    finishedAt: null,
    failureReason: null,
    findings: null,
    suppressed: null,
    nodeCount: 1,
    bodyBytes: 10,
  });
  await markRunning(t.store, s._id, null);
  expect(
    await sweepOnce({
      store: t.store,
      runs: scanRuns(t.temporal),
      events,
      logger: createLogger('sweeper', 'silent'),
      graceMs: 5000,
      staleMs: 0,
    }),
  ).toEqual({ started: 0, failed: 1 });
  expect(await eventResult(s._id, 'scan.failed')).toMatchObject({ deliveries: 1, succeeded: 1 });
  const payload = JSON.parse(at('/orphan')[0].body);
  expect(payload.data.scan).toMatchObject({ id: s._id, status: 'failed', failureReason: 'internal_error' });
}, 60_000);
