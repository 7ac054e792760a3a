// A database that cannot be reached is a 503 service_unavailable envelope with Retry-After, never a 500.
import Koa from 'koa';
import request from 'supertest';
import {
  MongoError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import { ApiError } from '../../../src/domain/errors';
import { errorEnvelope, unavailable } from '../../../src/http/middleware/errors';
import { createLogger } from '../../../src/logger';

const selection = () =>
  new MongoServerSelectionError('Server selection timed out after 500 ms', {
    type: 'Unknown',
    servers: new Map(),
  } as never);
/** An error of another copy of the driver: only its name says what it is. */
function foreign(name: string): Error {
  const e = new Error('pool cleared');
  Object.defineProperty(e, 'name', { value: name });
  return e;
}

test.each([
  ['MongoServerSelectionError', selection()],
  ['MongoNetworkError', new MongoNetworkError('connection 3 to 127.0.0.1:27017 closed')],
  ['MongoNetworkTimeoutError', new MongoNetworkTimeoutError('connection timed out')],
  ['MongoNotConnectedError', new MongoNotConnectedError('client must be connected')],
  ['MongoTopologyClosedError', new MongoTopologyClosedError()],
  ['MongoPoolClearedError (by name)', foreign('MongoPoolClearedError')],
  ['ShutdownInProgress', new MongoServerError({ message: 'shutdown in progress', code: 91 })],
  ['NotWritablePrimary', new MongoServerError({ message: 'not primary', code: 10107 })],
  ['InterruptedDueToReplStateChange', new MongoServerError({ message: 'interrupted', code: 11602 })],
  [
    'an error whose cause is a network error',
    new Error('storing the snapshot failed', { cause: new MongoNetworkError('connection 3 closed') }),
  ],
  ['an AggregateError of parallel writes', new AggregateError([new Error('boom'), selection()], 'writes failed')],
  // What FerretDB answered, word for word, to commands in flight while it shut down (SIGTERM under load).
  [
    'FerretDB shutting down (insert)',
    new MongoServerError({
      message: '[msg_insert.go:168 handler.(*Handler).MsgInsert] [db.go:134 fsql.(*DB).InTransaction] context canceled',
      code: 1,
      codeName: 'InternalError',
    }),
  ],
  [
    'FerretDB shutting down (update)',
    new MongoServerError({
      message:
        '[msg_update.go:117 handler.(*Handler).updateDocument] [collection.go:94 sqlite.(*collection).Query] context canceled',
      code: 1,
      codeName: 'InternalError',
    }),
  ],
  [
    'FerretDB over PostgreSQL shutting down',
    new MongoServerError({
      message: '[pool.go:72 postgresql.(*Pool).Get] closed pool',
      code: 1,
      codeName: 'InternalError',
    }),
  ],
  [
    'FerretDB over SQLite with its database handle closed (Go database/sql)',
    new MongoServerError({
      message:
        '[msg_find.go:98 handler.(*Handler).MsgFind] [collection.go:80 sqlite.(*collection).Query] sql: database is closed',
      code: 1,
      codeName: 'InternalError',
    }),
  ],
])('%s maps to 503 service_unavailable', (_name, err) => {
  const e = unavailable(err);
  expect(e).toBeInstanceOf(ApiError);
  expect([e?.status, e?.code]).toEqual([503, 'service_unavailable']);
});

test.each([
  ['duplicate key', new MongoServerError({ message: 'E11000 duplicate key', code: 11000 })],
  ['a server error without a code', new MongoServerError({ message: 'bad query' })],
  [
    'another InternalError',
    new MongoServerError({ message: '[msg_find.go:12] invalid document', code: 1, codeName: 'InternalError' }),
  ],
  ['a generic driver error', new MongoError('something else')],
  ['a plain error', new Error('boom')],
  ['an ApiError', new ApiError(422, 'invalid_parameter', 'limit: not a number')],
  ['not an error', 'boom'],
  [
    'an error caused by a duplicate key',
    new Error('insert failed', { cause: new MongoServerError({ message: 'E11000 duplicate key', code: 11000 }) }),
  ],
])('%s is not a database outage', (_name, err) => {
  expect(unavailable(err)).toBeNull();
});

function appThrowing(err: unknown) {
  const app = new Koa();
  app.use(errorEnvelope(createLogger('test', 'silent')) as never);
  app.use(() => {
    throw err;
  });
  return app.callback();
}

test.each([
  ['a dropped connection', new MongoNetworkError('connection closed')],
  ['server selection timing out', selection()],
])('%s reaches the client as the envelope with Retry-After: 5', async (_name, err) => {
  const res = await request(appThrowing(err)).get('/v1/scans');
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.body).toEqual({
    error: { code: 'service_unavailable', message: 'the database is unreachable; retry later' },
  });
  expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|timed out|closed/); // no raw driver message leaks
});

test('any other error stays a 500 internal_error without its raw message', async () => {
  const res = await request(
    appThrowing(new MongoServerError({ message: 'E11000 duplicate key error collection: t.scans', code: 11000 })),
  ).get('/v1/scans');
  expect(res.status).toBe(500);
  expect(res.headers['retry-after']).toBeUndefined();
  expect(res.body).toEqual({ error: { code: 'internal_error', message: 'internal error' } });
});
