// How activity failures are retried (activities/outage.ts): a database outage is waited out, anything else gets
// FAULT_ATTEMPTS attempts, and a decision the activity made itself passes through untouched.
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { MongoNetworkError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { outageAware } from '../../../activities/outage';
import { DATABASE_UNAVAILABLE, FAULT_ATTEMPTS } from '../../../src/temporal/scan-workflow-contract';

const failingWith = (err: unknown) => outageAware(async () => Promise.reject(err));
const attempt = (n: number) => new MockActivityEnvironment({ attempt: n });
const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e) => e,
  );

test.each([
  [
    'server selection timing out',
    new MongoServerSelectionError('Server selection timed out after 10000 ms', {
      type: 'Unknown',
      servers: new Map(),
    } as never),
  ],
  ['a dropped connection', new MongoNetworkError('connection 4 to 127.0.0.1:27017 closed')],
  [
    'FerretDB shutting down',
    new MongoServerError({ message: '[msg_insert.go:168] context canceled', code: 1, codeName: 'InternalError' }),
  ],
  [
    'an outage wrapped in a cause',
    new Error('storing shard 3 failed', { cause: new MongoNetworkError('connection closed') }),
  ],
])('%s is retried, however many attempts it has taken', async (_name, err) => {
  for (const n of [1, FAULT_ATTEMPTS, 50]) {
    const e = await caught(attempt(n).run(failingWith(err)));
    expect(e).toBeInstanceOf(ApplicationFailure);
    expect(e).toMatchObject({ type: DATABASE_UNAVAILABLE, nonRetryable: false });
  }
});

test(`any other error is retried as it is until attempt ${FAULT_ATTEMPTS}, which fails the step for good`, async () => {
  const boom = new TypeError("Cannot read properties of undefined (reading 'nodes')");
  for (let n = 1; n < FAULT_ATTEMPTS; n++) expect(await caught(attempt(n).run(failingWith(boom)))).toBe(boom);
  const last = await caught(attempt(FAULT_ATTEMPTS).run(failingWith(boom)));
  expect(last).toBeInstanceOf(ApplicationFailure);
  expect(last).toMatchObject({ type: 'internal_error', nonRetryable: true, message: boom.message, cause: boom });
});

test("the activity's own decisions pass through untouched", async () => {
  const decided = ApplicationFailure.nonRetryable('ecosystem "cobol" is not supported', 'unsupported_ecosystem');
  expect(await caught(attempt(1).run(failingWith(decided)))).toBe(decided);
  expect(await caught(attempt(FAULT_ATTEMPTS + 3).run(failingWith(decided)))).toBe(decided);
});

test('results and arguments go through', async () => {
  const double = outageAware(async (x: number) => x * 2);
  expect(await attempt(1).run(double, 21)).toBe(42);
});
