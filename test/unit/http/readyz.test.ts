// GET /readyz is public: it says ready or not and which check failed, never a driver's message, a host or a port.
// The details go to the log.
import { Writable } from 'node:stream';
import Koa from 'koa';
import pino from 'pino';
import request from 'supertest';
import { MongoNetworkError, MongoServerSelectionError } from 'mongodb';
import { healthRoutes } from '../../../src/http/health/routes';
import type { AppDeps } from '../../../src/http/deps';

function appWith(
  ping: () => Promise<unknown>,
  temporal: () => Promise<{ ok: boolean; detail: string }>,
  warming?: { done(): boolean },
) {
  const lines: any[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()));
      cb();
    },
  });
  const deps = {
    store: { db: { command: ping } },
    readiness: { temporal },
    warming,
    logger: pino({ level: 'info' }, sink),
  } as unknown as AppDeps;
  const app = new Koa();
  app.use(healthRoutes(deps).routes());
  return { server: app.callback(), lines };
}

const reachable = async () => ({ ok: 1 });
const polled = async () => ({ ok: true, detail: '1 worker(s) polling scans' });
/** What drivers really say: addresses, ports, user names, sometimes a whole URI. */
const LEAKS = /10\.0\.0|27017|7233|ECONNREFUSED|secretpw|postgres|timed out|UNAVAILABLE|worker|detail/;

test('ready: 200 with names and booleans only', async () => {
  const { server, lines } = appWith(reachable, polled);
  const res = await request(server).get('/readyz');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    status: 'ready',
    checks: [
      { name: 'mongodb', ok: true },
      { name: 'temporal', ok: true },
    ],
  });
  expect(lines).toEqual([]);
});

test.each([
  [
    'a server selection error naming the address',
    () =>
      Promise.reject(
        new MongoServerSelectionError('connect ECONNREFUSED 10.0.0.5:27017', {
          type: 'Unknown',
          servers: new Map(),
        } as never),
      ),
  ],
  [
    'a network error naming the address',
    () => Promise.reject(new MongoNetworkError('connection 3 to 10.0.0.5:27017 timed out')),
  ],
  [
    'an error carrying a whole URI with its password',
    () => Promise.reject(new Error('auth failed for mongodb://postgres:secretpw@10.0.0.5:27017/')),
  ],
  ['something thrown that is not an Error', () => Promise.reject('ECONNREFUSED 10.0.0.5:27017')],
])('database down (%s): 503 not_ready without the message; the log has it', async (_name, ping) => {
  const { server, lines } = appWith(ping, polled);
  const res = await request(server).get('/readyz');
  expect(res.status).toBe(503);
  expect(res.body).toEqual({
    status: 'not_ready',
    checks: [
      { name: 'mongodb', ok: false },
      { name: 'temporal', ok: true },
    ],
  });
  expect(res.text).not.toMatch(LEAKS);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({
    level: 40,
    msg: 'not ready',
    checks: [{ name: 'mongodb', ok: false, detail: expect.stringContaining('10.0.0.5') }],
  });
});

test.each([
  [
    'Temporal unreachable',
    () =>
      Promise.reject(
        new Error('14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 10.0.0.7:7233'),
      ),
  ],
  ['no worker polling', async () => ({ ok: false, detail: 'no worker polling scans' })],
])('%s: 503 not_ready without the detail; the log has it', async (_name, temporal) => {
  const { server, lines } = appWith(reachable, temporal);
  const res = await request(server).get('/readyz');
  expect(res.status).toBe(503);
  expect(res.body).toEqual({
    status: 'not_ready',
    checks: [
      { name: 'mongodb', ok: true },
      { name: 'temporal', ok: false },
    ],
  });
  expect(res.text).not.toMatch(LEAKS);
  expect(lines[0]).toMatchObject({ level: 40, checks: [{ name: 'temporal', ok: false, detail: expect.any(String) }] });
});

test('the log says when readiness changes, not on every probe: one line down, one line back', async () => {
  let up = false;
  const { server, lines } = appWith(reachable, async () =>
    up ? { ok: true, detail: '1 worker(s) polling scans' } : { ok: false, detail: 'no worker polling scans' },
  );
  for (let i = 0; i < 5; i++) expect((await request(server).get('/readyz')).status).toBe(503);
  up = true;
  for (let i = 0; i < 3; i++) expect((await request(server).get('/readyz')).status).toBe(200);
  up = false;
  expect((await request(server).get('/readyz')).status).toBe(503);
  expect(lines.map((l) => l.msg)).toEqual(['not ready', 'ready', 'not ready']);
});

test('not ready while the dashboard caches warm (src/http/warm.ts), ready once they are', async () => {
  let warm = false;
  const { server } = appWith(reachable, polled, { done: () => warm });
  const res = await request(server).get('/readyz');
  expect([res.status, res.body.checks]).toEqual([
    503,
    [
      { name: 'mongodb', ok: true },
      { name: 'temporal', ok: true },
      { name: 'caches', ok: false },
    ],
  ]);
  warm = true;
  expect((await request(server).get('/readyz')).status).toBe(200);
});
