// A store on a fresh database whose reads are counted per collection, from the driver's command monitoring: for
// tests that assert how much a request reads.
import { randomBytes } from 'node:crypto';
import { MongoClient, type CommandSucceededEvent } from 'mongodb';
import { ensureIndexes, type Collections, type Store } from '../../src/storage/mongo';
import { requireEnv } from './context';

export interface ReadCounts {
  /** Documents answered per collection since the last reset. */
  docs: Map<string, number>;
  /** find commands per collection since the last reset. */
  queries: Map<string, number>;
  reset(): void;
}

export async function countedStore(): Promise<{ store: Store; reads: ReadCounts }> {
  const reads: ReadCounts = {
    docs: new Map(),
    queries: new Map(),
    reset() {
      this.docs.clear();
      this.queries.clear();
    },
  };
  const client = new MongoClient(requireEnv('MONGODB_URI'), { monitorCommands: true, retryWrites: false });
  await client.connect();
  client.on('commandSucceeded', (ev: CommandSucceededEvent) => {
    const cursor = (ev.reply as { cursor?: { ns?: string; firstBatch?: unknown[]; nextBatch?: unknown[] } }).cursor;
    if (!cursor?.ns || (ev.commandName !== 'find' && ev.commandName !== 'getMore')) return;
    const coll = cursor.ns.slice(cursor.ns.indexOf('.') + 1);
    reads.docs.set(coll, (reads.docs.get(coll) ?? 0) + (cursor.firstBatch ?? cursor.nextBatch ?? []).length);
    if (ev.commandName === 'find') reads.queries.set(coll, (reads.queries.get(coll) ?? 0) + 1);
  });
  const db = client.db(`t_${randomBytes(6).toString('hex')}`);
  // The store's collections carry their own names (storage/mongo.ts).
  const c = new Proxy({} as Collections, { get: (_, name) => db.collection(String(name)) });
  const store: Store = { client, db, c, close: () => client.close() };
  await ensureIndexes(store);
  return { store, reads };
}
