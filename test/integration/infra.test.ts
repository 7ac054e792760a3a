// The local infrastructure the tests and `npm start` run on: a MongoDB-wire server the driver accepts, a Temporal
// dev server with our search attributes and its UI, and data that survives a restart on the same DATA_DIR.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startLocalInfra } from '../../src/infra/local';
import { SA } from '../../src/temporal/keys';
import { registerSearchAttributes, SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';

const skip = process.env.SCANNER_SKIP_INFRA === '1';
const d = skip ? describe.skip : describe;
const quiet = { info: () => undefined, warn: (m: string) => console.warn(m) };
const { IndexedValueType } = temporal.api.enums.v1;

async function roundTrip(uri: string, db: string, doc: Record<string, unknown>) {
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    const col = client.db(db).collection<{ _id: string }>('probe');
    await col.insertOne({ ...doc, _id: doc._id as string });
    return await col.findOne({ _id: doc._id as string });
  } finally {
    await client.close();
  }
}

/** Processes whose command line mentions dir: after stop() there must be none. */
function processesUsing(dir: string): string[] {
  return fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).flatMap((p) => {
    try {
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').join(' ');
      return cmd.includes(dir) ? [`${p}: ${cmd}`] : [];
    } catch {
      return [];
    }
  });
}

d('local infrastructure (jest global setup)', () => {
  test('the MongoDB URI accepts a driver connection: insert and find', async () => {
    const db = `infra_${randomBytes(4).toString('hex')}`;
    const found = await roundTrip(process.env.MONGODB_URI!, db, { _id: 'a', n: 1, nested: { list: [1, 2] } });
    expect(found).toEqual({ _id: 'a', n: 1, nested: { list: [1, 2] } });
    const client = await MongoClient.connect(process.env.MONGODB_URI!);
    await client.db(db).dropDatabase();
    await client.close();
  });

  test('Temporal accepts a client and has the custom search attributes', async () => {
    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    try {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
        const want = type === 'Int' ? IndexedValueType.INDEXED_VALUE_TYPE_INT : IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
        expect([name, customAttributes?.[name]]).toEqual([name, want]);
      }
      // Registering again (what the worker does at start) is a no-op.
      await expect(registerSearchAttributes(connection, 'default')).resolves.toEqual([]);
    } finally {
      await connection.close();
    }
  });

  test('the search attributes registered are exactly the typed keys the workflow uses', () => {
    const fromKeys = Object.fromEntries(Object.values(SA).map((k) => [k.name, k.type === 'INT' ? 'Int' : 'Keyword']));
    expect(fromKeys).toEqual(SEARCH_ATTRIBUTES);
  });

  test('the Temporal UI answers HTTP 200', async () => {
    const url = process.env.TEMPORAL_UI_URL;
    if (!url) return; // an external Temporal (SCANNER_TEST_TEMPORAL_ADDRESS) has no UI we know of
    const res = await fetch(url);
    await res.body?.cancel();
    expect(res.status).toBe(200);
  });
});

d('startLocalInfra on one DATA_DIR, twice', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-infra-'));
    fs.chmodSync(dataDir, 0o755);
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('keeps documents and workflows across a stop and a start, and leaves no process behind', async () => {
    // Only this test's own servers: the run's shared ones must not be reused here.
    const env = { ...process.env, MONGODB_URI: undefined, TEMPORAL_ADDRESS: undefined };
    const workflowId = `persist-${randomBytes(4).toString('hex')}`;

    const first = await startLocalInfra({ dataDir, log: quiet, env });
    try {
      expect(first.started).toContain('temporal');
      await roundTrip(first.mongoUri, 'persist', { _id: 'kept', v: 42 });
      const connection = await Connection.connect({ address: first.temporalAddress });
      // No worker polls this queue, so the workflow stays open: the second server must still know it.
      await new Client({ connection }).workflow.start('neverPolled', { taskQueue: 'nobody', workflowId });
      await connection.close();
    } finally {
      await first.stop();
    }
    expect(processesUsing(dataDir)).toEqual([]);

    const second = await startLocalInfra({ dataDir, log: quiet, env });
    try {
      expect([...second.started].sort()).toEqual([...first.started].sort());
      const client = await MongoClient.connect(second.mongoUri);
      expect(await client.db('persist').collection<{ _id: string; v: number }>('probe').findOne({ _id: 'kept' })).toEqual({ _id: 'kept', v: 42 });
      await client.close();
      const connection = await Connection.connect({ address: second.temporalAddress });
      const described = await new Client({ connection }).workflow.getHandle(workflowId).describe();
      expect(described.status.name).toBe('RUNNING');
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      expect(Object.keys(customAttributes ?? {})).toEqual(expect.arrayContaining(Object.keys(SEARCH_ATTRIBUTES)));
      await connection.close();
    } finally {
      await second.stop();
    }
    expect(processesUsing(dataDir)).toEqual([]);
  }, 180_000);
});
