// API processes keep the scan list's groups and re-use them while their tokens stay put (storage/scan-list-cache.ts):
// a repeated page decodes no scan document, and yet every write (an upload, a status move, a withdrawn upload, from
// this process or another) is listed by the next page. Documents read are counted from the driver's command
// monitoring on the first API's connection.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { MongoClient, type CommandSucceededEvent } from 'mongodb';
import type request from 'supertest';
import { uploadPreparer } from '../../src/pool/upload-pool';
import { connectStore, ensureIndexes, type Collections, type Store } from '../../src/storage/mongo';
import { deleteQueuedScan, getScan, markCompleted, markFailed, markRunning } from '../../src/storage/scans';
import { appWithoutTemporal, bearer, newOrg, requireEnv } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

const done = {
  findings: { critical: 1, high: 0, medium: 0, low: 0 },
  suppressed: 0,
  advisoryGeneration: null,
  unmatchedVersions: 0,
  resultChunks: 0,
  findingCount: 1,
};

let store: Store; // the first API's, monitored
let other: Store; // a second API process (and the worker's writes), with caches of its own
let servers: http.Server[];
let api: ReturnType<typeof request>;
let api2: ReturnType<typeof request>;
const uploads = uploadPreparer(1);
let key: string;
const scanDocsRead = { n: 0 };

beforeAll(async () => {
  const dbName = `t_${randomBytes(6).toString('hex')}`;
  const client = new MongoClient(requireEnv('MONGODB_URI'), { monitorCommands: true, retryWrites: false });
  await client.connect();
  client.on('commandSucceeded', (ev: CommandSucceededEvent) => {
    const cursor = (ev.reply as { cursor?: { ns?: string; firstBatch?: unknown[]; nextBatch?: unknown[] } }).cursor;
    if (cursor?.ns?.endsWith('.scans') && (ev.commandName === 'find' || ev.commandName === 'getMore'))
      scanDocsRead.n += (cursor.firstBatch ?? cursor.nextBatch ?? []).length;
  });
  const db = client.db(dbName);
  store = {
    client,
    db,
    c: new Proxy({} as Collections, { get: (_, name) => db.collection(String(name)) }),
    close: () => client.close(),
  };
  other = await connectStore(requireEnv('MONGODB_URI'), dbName);
  await ensureIndexes(store);
  const a = await appWithoutTemporal(store, { uploads });
  const b = await appWithoutTemporal(other, { uploads });
  servers = [a.server, b.server];
  [api, api2] = [a.api, b.api];
  key = await (await newOrg(store, 'cache')).key(['sca:upload', 'scans:read']);
  for (let i = 0; i < 40; i += 10)
    await Promise.all(Array.from({ length: 10 }, (_, j) => upload(j % 2 ? 'one' : 'two')));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  await uploads.close();
  await store.db.dropDatabase().catch(() => undefined);
  await Promise.all([store.close(), other.close()]);
});

async function upload(project: string, via = api): Promise<string> {
  const res = await via.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(v1Snapshot(project));
  expect(res.status).toBe(201);
  return res.body.id;
}

/** One page from the first API, and how many scan documents it read. */
async function list(query = 'limit=30'): Promise<{ scans: Array<{ id: string; status: string }>; read: number }> {
  const before = scanDocsRead.n;
  const res = await api.get(`/v1/scans?${query}`).set(bearer(key));
  expect(res.status).toBe(200);
  return { scans: res.body.scans, read: scanDocsRead.n - before };
}

const statusOf = (page: { scans: Array<{ id: string; status: string }> }, id: string) =>
  page.scans.find((s) => s.id === id)?.status;

test('a repeated page decodes no scan document and answers the same', async () => {
  const first = await list();
  expect(first.scans).toHaveLength(30);
  const again = await list();
  expect(again.read).toBe(0);
  expect(again.scans).toEqual(first.scans);
  const ofProject = await list('limit=10&project=one');
  expect((await list('limit=10&project=one')).read).toBe(0);
  expect((await list('limit=30&status=queued')).read).toBe(0); // a status filter over kept groups
  expect(ofProject.scans).toHaveLength(10);
});

test('an upload through either API is listed first by the next page', async () => {
  await list();
  const mine = await upload('one');
  const page = await list();
  expect(page.scans[0].id).toBe(mine);
  expect(page.read).toBeGreaterThan(0); // its group was read again...
  expect(page.read).toBeLessThan(30); // ...not the whole page
  const theirs = await upload('two', api2);
  expect((await list()).scans[0].id).toBe(theirs);
  expect((await list('limit=5&project=two')).scans[0].id).toBe(theirs);
});

test('status moves written by another process (the worker) are listed by the next page', async () => {
  const ids = (await list()).scans.map((s) => s.id);
  const [a, b, c] = [ids[3], ids[17], ids[25]];
  await markRunning(other, a, null);
  await markRunning(other, b, null);
  expect(statusOf(await list(), a)).toBe('running');
  await markCompleted(other, a, done);
  await markFailed(other, b, 'internal_error', 'boom');
  let page = await list();
  expect([statusOf(page, a), statusOf(page, b), statusOf(page, c)]).toEqual(['completed', 'failed', 'queued']);
  expect((await list('limit=30&status=completed')).scans.map((s) => s.id)).toContain(a);
  page = await list();
  expect(page.read).toBe(0);
});

test('a withdrawn upload leaves the list at once', async () => {
  const id = await upload('one');
  expect((await list()).scans[0].id).toBe(id);
  expect(await deleteQueuedScan(other, id)).toBe(true);
  expect((await list()).scans.map((s) => s.id)).not.toContain(id);
  expect(await deleteQueuedScan(other, id)).toBe(false);
});

test('a move retried after a crash before its tokens: the retry makes the list catch up', async () => {
  const id = (await list()).scans[5].id;
  await markRunning(other, id, null);
  expect(statusOf(await list(), id)).toBe('running');
  // The completion lands, then its process dies before moving the tokens: kept groups still show the scan running...
  await other.c.scans.updateOne({ _id: id }, { $set: { status: 'completed' } });
  expect(statusOf(await list(), id)).toBe('running');
  // ...until the activity is retried: the move itself is then a no-op, and the tokens move anyway.
  await markCompleted(other, id, done);
  expect((await getScan(store, id))!.status).toBe('completed');
  expect(statusOf(await list(), id)).toBe('completed');
});
