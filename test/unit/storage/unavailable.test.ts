// The outage classification (src/storage/unavailable.ts) on errors the real driver raises when the database is gone:
// a read, and a bulk write, whose MongoBulkWriteError carries the server selection error as its errorResponse (the
// API answered such an upload 500 instead of 503 during a database restart).
import { MongoClient } from 'mongodb';
import { isDatabaseUnavailable } from '../../../src/storage/unavailable';

let client: MongoClient;
beforeAll(() => {
  // A Unix socket that does not exist: every server selection fails fast.
  client = new MongoClient('mongodb://%2Ftmp%2Fscanner-no-such-database.sock', { serverSelectionTimeoutMS: 200 });
});
afterAll(() => client.close());

const failure = (p: Promise<unknown>) =>
  p.then(
    () => new Error('no failure'),
    (err: unknown) => err,
  );

test('a read and a bulk write to a database that is not there are outages', async () => {
  const c = client.db('x').collection('y');
  const read = await failure(c.findOne({ _id: 'a' as never }));
  expect(isDatabaseUnavailable(read)).toBe(true);
  const bulk = await failure(c.bulkWrite([{ insertOne: { document: { a: 1 } } }], { ordered: false }));
  expect((bulk as Error).name).toBe('MongoBulkWriteError');
  expect(isDatabaseUnavailable(bulk)).toBe(true);
});

test('a plain error, or a bulk write refused for a duplicate key, is not', async () => {
  expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
  const dup = Object.assign(new Error('E11000 duplicate key'), { errorResponse: { code: 11000 } });
  expect(isDatabaseUnavailable(dup)).toBe(false);
});
