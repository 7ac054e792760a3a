// Bounded memory under load at the upload route: a bounded number of large uploads in flight (past it 503
// service_unavailable with Retry-After and the envelope, never a 500), a slot given back on every path (stored,
// refused, aborted mid-body), and a full upload pool answered the same way. No worker and no Temporal: the starter is
// a stub, scans stay queued. Waits are on conditions (slots taken or given back), never on durations.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type request from 'supertest';
import { UploadSlots } from '../../src/http/upload-slots';
import { syntheticSnapshot } from '../../src/domain/snapshot';
import { INLINE_LIMIT, uploadPreparer, type UploadPreparer } from '../../src/pool/upload-pool';
import { connectStore, ensureIndexes, type Store } from '../../src/storage/mongo';
import { appWithoutTemporal, bearer, newOrg, requireEnv } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

const SLOTS = 2;
let store: Store;
let server: http.Server;
let api: ReturnType<typeof request>;
let key: string;
let slots: UploadSlots;
let pool: UploadPreparer;
/** What the app's preparer does for the next large upload; the real pool by default. */
let prepare: UploadPreparer['prepare'];

const large = (project: string) =>
  Buffer.from(JSON.stringify(syntheticSnapshot({ schemaVersion: 1, nodes: 4000, roots: 10, depsPerNode: 3, project })));

beforeAll(async () => {
  store = await connectStore(requireEnv('MONGODB_URI'), `t_${randomBytes(6).toString('hex')}`);
  await ensureIndexes(store);
  slots = new UploadSlots(SLOTS);
  pool = uploadPreparer(1, { maxQueue: 8 });
  prepare = (raw) => pool.prepare(raw);
  ({ server, api } = await appWithoutTemporal(store, {
    uploads: { prepare: (raw) => prepare(raw), close: () => pool.close() },
    uploadSlots: slots,
  }));
  key = await (await newOrg(store)).key(['sca:upload', 'scans:read']);
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await pool.close();
  await store.db.dropDatabase().catch(() => undefined);
  await store.close();
});
afterEach(() => {
  prepare = (raw) => pool.prepare(raw);
});

// As a string: supertest would serialize a Buffer as JSON.
const post = (body: Buffer | string) =>
  api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(key))
    .set('Content-Type', 'application/json')
    .send(body.toString());

async function until(what: string, done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await new Promise((r) => setImmediate(r));
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 20));
  if (!done()) throw new Error(`never happened: ${what}`);
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/** An upload sent by hand: `sent` bytes now (with Content-Length, or chunked), the rest on finish(). */
function partialUpload(body: Buffer, sent: number, chunked = false) {
  const { port } = server.address() as AddressInfo;
  const headers: http.OutgoingHttpHeaders = { ...bearer(key), 'Content-Type': 'application/json' };
  if (!chunked) headers['Content-Length'] = body.length;
  const req = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/v1/scans/dependency-snapshots',
    headers,
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          body: JSON.parse(Buffer.concat(parts).toString('utf8')),
        }),
      );
    });
    req.on('error', reject);
  });
  req.write(body.subarray(0, sent));
  return {
    answer,
    finish: () => req.end(body.subarray(sent)),
    abort: () => {
      answer.catch(() => undefined);
      req.destroy();
    },
  };
}

const busy = (res: { status: number; headers: Record<string, unknown>; body: unknown }) => {
  expect(res.body).toEqual({ error: { code: 'service_unavailable', message: expect.any(String) } });
  expect(res.status).toBe(503);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
};

test(`${SLOTS} large uploads in flight: one more gets 503 with Retry-After (by Content-Length, or once a chunked body passes ${INLINE_LIMIT} bytes); small ones pass; all slots come back`, async () => {
  const bodies = Array.from({ length: SLOTS }, (_, i) => large(`load-${i}`));
  expect(bodies[0].length).toBeGreaterThan(INLINE_LIMIT);
  const held = bodies.map((b) => partialUpload(b, 64 * 1024));
  await until('every slot taken', () => slots.inUse === SLOTS);

  busy(await post(large('one-more')));
  const chunked = partialUpload(large('one-more-chunked'), 0, true);
  chunked.finish();
  busy(await chunked.answer);
  // Small uploads take no slot, chunked or not.
  expect((await post(JSON.stringify(v1Snapshot('small')))).status).toBe(201);
  const smallChunked = partialUpload(Buffer.from(JSON.stringify(v1Snapshot('small-chunked'))), 0, true);
  smallChunked.finish();
  expect((await smallChunked.answer).status).toBe(201);
  expect(slots.inUse).toBe(SLOTS);

  for (const h of held) h.finish();
  const answers = await Promise.all(held.map((h) => h.answer));
  expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 201));
  expect(slots.inUse).toBe(0);
  // Accepted again, by Content-Length and chunked.
  expect((await post(large('after'))).status).toBe(201);
  const after = partialUpload(large('after-chunked'), 0, true);
  after.finish();
  expect((await after.answer).status).toBe(201);
  expect(slots.inUse).toBe(0);
});

test('a client that aborts mid-body gives its slot back', async () => {
  const body = large('aborted');
  const held = Array.from({ length: SLOTS }, () => partialUpload(body, 64 * 1024));
  await until('every slot taken', () => slots.inUse === SLOTS);
  busy(await post(large('refused')));
  for (const h of held) h.abort();
  await until('every slot given back', () => slots.inUse === 0);
  expect((await post(large('after-abort'))).status).toBe(201);
  // A chunked body aborted after its slot was taken.
  const chunked = partialUpload(body, INLINE_LIMIT + 64 * 1024, true);
  await until('the chunked body holds a slot', () => slots.inUse === 1);
  chunked.abort();
  await until('its slot given back', () => slots.inUse === 0);
});

test('a refused or failed large upload gives its slot back: 422, 413, an error of the preparer', async () => {
  const broken = JSON.parse(large('broken').toString('utf8'));
  broken.nodes[3999].dependencies = ['nope@0'];
  const res = await post(JSON.stringify(broken));
  expect(res.status).toBe(422);
  expect(slots.inUse).toBe(0);
  const tooBig = partialUpload(Buffer.alloc(10 * 1024 * 1024 + 10, 0x20), 0, true);
  tooBig.finish();
  expect((await tooBig.answer).status).toBe(413);
  tooBig.abort(); // the server stopped reading past the cap: the rest is never sent
  await until('its slot given back', () => slots.inUse === 0);
  prepare = async () => {
    throw new Error('boom');
  };
  expect((await post(large('boom'))).status).toBe(500);
  expect(slots.inUse).toBe(0);
});

test('a full upload pool gets the same 503 with Retry-After, and takes uploads again once it has room', async () => {
  const full = uploadPreparer(1, { maxQueue: 0 });
  const other = large('other');
  const waiting: Array<Promise<unknown>> = [];
  // The pool's only place is taken by another task at the moment this upload reaches it.
  prepare = (raw) => {
    waiting.push(full.prepare(Buffer.from(other)));
    return full.prepare(raw);
  };
  try {
    busy(await post(large('pool-full')));
    expect(slots.inUse).toBe(0);
    await Promise.all(waiting);
    prepare = (raw) => full.prepare(raw);
    expect((await post(large('pool-room'))).status).toBe(201);
  } finally {
    await full.close();
  }
});
