// A database that cannot be reached is a 503 service_unavailable envelope with Retry-After, never a 500.
import Koa from 'koa';
import request from 'supertest';
import { MongoNetworkError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { errorEnvelope, unavailable } from '../../../src/http/middleware/errors';
import { createLogger } from '../../../src/logger';

test('driver connectivity errors map to 503; server errors do not', () => {
  expect(unavailable(new MongoNetworkError('connection reset'))?.status).toBe(503);
  expect(unavailable(new MongoServerSelectionError('no server', { type: 'Unknown', servers: new Map() } as never))?.code).toBe('service_unavailable');
  expect(unavailable(new MongoServerError({ message: 'E11000', code: 11000 }))).toBeNull();
  expect(unavailable(new Error('boom'))).toBeNull();
});

test('the envelope and Retry-After reach the client', async () => {
  const app = new Koa();
  app.use(errorEnvelope(createLogger('test', 'silent')) as never);
  app.use(() => {
    throw new MongoNetworkError('connection closed');
  });
  const res = await request(app.callback()).get('/v1/scans');
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.body).toEqual({ error: { code: 'service_unavailable', message: 'the database is unreachable; retry later' } });
});
