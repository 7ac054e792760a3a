// The client's HTTP layer against a real local server: retries on 429/5xx/network errors, Retry-After honoured as a
// floor, the deadline, and which refusals are input errors (exit 2) or service errors (exit 3).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Http, retryAfterMs } from '../../../src/client/api/http';
import { InputError, ServiceError } from '../../../src/client/errors';

type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang-up' | 'hang';

let server: http.Server;
let base: string;
let answers: Answer[];
let seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const a = answers.shift() ?? { status: 500 };
      if (a === 'hang-up') return void req.socket.destroy();
      if (a === 'hang') return; // never answers; the client gives up on it
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(a.body === undefined ? '' : JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => {
  answers = [];
  seen = [];
});

function client(extra: Partial<ConstructorParameters<typeof Http>[0]> = {}) {
  const delays: number[] = [];
  const retries: string[] = [];
  const h = new Http({
    server: `${base}/`,
    token: 'key_abc',
    userAgent: 'scanner/test',
    deadline: Date.now() + 60_000,
    random: () => 1,
    sleep: async (ms) => void delays.push(ms),
    onRetry: (m) => retries.push(m),
    ...extra,
  });
  return { h, delays, retries };
}

const err = (status: number, code: string) => ({
  status,
  body: { error: { code, message: `${code} happened`, requestId: 'r' } },
});

test('429 then 503 then 201: three attempts, the token and headers sent each time, Retry-After honoured', async () => {
  answers = [
    { ...err(429, 'rate_limited'), headers: { 'retry-after': '7' } },
    err(503, 'service_unavailable'),
    { status: 201, body: { id: 'scn_1' } },
  ];
  const { h, delays, retries } = client();
  const res = await h.request<{ id: string }>('POST', '/v1/scans/dependency-snapshots', {
    body: '{"a":1}',
    headers: { 'idempotency-key': 'k' },
  });
  expect(res).toMatchObject({ status: 201, body: { id: 'scn_1' } });
  expect(seen).toHaveLength(3);
  for (const s of seen) {
    expect(s).toMatchObject({ method: 'POST', url: '/v1/scans/dependency-snapshots', body: '{"a":1}' });
    expect(s.headers).toMatchObject({
      authorization: 'Bearer key_abc',
      'idempotency-key': 'k',
      'content-type': 'application/json',
      'user-agent': 'scanner/test',
    });
  }
  // Retry-After 7 s is above the first backoff step (1 s): it wins. The second step is the backoff (2 s).
  expect(delays).toEqual([7000, 2000]);
  expect(retries[0]).toMatch(/429 rate_limited: rate_limited happened; retrying in 7\.0 s \(attempt 2 of 6\)/);
});

test('backoff doubles per attempt up to its cap, with full jitter, and a short Retry-After does not shorten it', async () => {
  answers = [...Array(5)].map(() => ({ ...err(502, 'bad_gateway'), headers: { 'retry-after': '0' } }));
  answers.push({ status: 200, body: {} });
  const { h, delays } = client({ random: () => 0.5, maxDelayMs: 5000 });
  await h.request('GET', '/x');
  expect(delays).toEqual([500, 1000, 2000, 2500, 2500]);
});

test('a dropped connection is retried like a 5xx', async () => {
  answers = ['hang-up', { status: 200, body: { ok: true } }];
  const { h, retries } = client();
  expect((await h.request('GET', '/x')).body).toEqual({ ok: true });
  expect(retries).toHaveLength(1);
});

test('gives up after maxAttempts with the last answer in the message (a service error, exit 3)', async () => {
  answers = [err(500, 'internal_error'), err(500, 'internal_error'), err(500, 'internal_error')];
  const { h } = client({ maxAttempts: 3 });
  const e = await h.request('GET', '/x').catch((x) => x);
  expect(e).toBeInstanceOf(ServiceError);
  expect(e.exitCode).toBe(3);
  expect(e.message).toMatch(/gave up after 3 attempts \(last: 500 internal_error/);
  expect(seen).toHaveLength(3);
});

test('an unreachable server ends as a service error after the attempts', async () => {
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const { h } = client({ server: `http://127.0.0.1:${port}`, maxAttempts: 2 });
  const e = await h.request('GET', '/x').catch((x) => x);
  expect(e).toBeInstanceOf(ServiceError);
  expect(e.message).toMatch(/gave up after 2 attempts \(last: connect ECONNREFUSED 127\.0\.0\.1:\d+\)/);
});

test('a Retry-After past the deadline ends the run at once instead of sleeping into the timeout', async () => {
  answers = [{ ...err(429, 'rate_limited'), headers: { 'retry-after': '3600' } }];
  const { h, delays } = client();
  const e = await h.request('GET', '/x').catch((x) => x);
  expect(e).toBeInstanceOf(ServiceError);
  expect(e.message).toMatch(/timed out waiting to retry/);
  expect(delays).toEqual([]);
});

test('413 and 422 on upload are input errors (exit 2); 401, 403, 404 and 409 are service errors (exit 3), never retried', async () => {
  for (const [status, code, kind] of [
    [413, 'snapshot_too_large', InputError],
    [422, 'invalid_snapshot', InputError],
    [401, 'unauthorized', ServiceError],
    [403, 'forbidden', ServiceError],
    [404, 'not_found', ServiceError],
    [409, 'idempotency_conflict', ServiceError],
  ] as const) {
    seen = [];
    answers = [err(status, code)];
    const e = await client()
      .h.request('POST', '/v1/scans/dependency-snapshots', { body: '{}', inputErrorStatuses: [413, 422] })
      .catch((x) => x);
    expect(e).toBeInstanceOf(kind);
    expect(e.message).toContain(`${status} ${code}: ${code} happened`);
    expect(seen).toHaveLength(1);
  }
  answers = [err(401, 'unauthorized')];
  expect(
    (
      await client()
        .h.request('GET', '/x')
        .catch((x) => x)
    ).message,
  ).toMatch(/check SCANNER_TOKEN/);
});

test('a 2xx that is not JSON is a service error, not an answer', async () => {
  answers = [{ status: 200, body: undefined }];
  const e = await client()
    .h.request('GET', '/x')
    .catch((x) => x);
  expect(e).toBeInstanceOf(ServiceError);
  expect(e.message).toMatch(/answered 200 without a JSON body/);
});

test('an answer that does not come within the attempt timeout is abandoned and retried', async () => {
  answers = ['hang', { status: 200, body: { ok: true } }];
  const { h, retries } = client();
  expect((await h.request('GET', '/x', { attemptTimeoutMs: 200 })).body).toEqual({ ok: true });
  expect(retries[0]).toMatch(/no answer in time/);
});

test('Retry-After as seconds or an HTTP date', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');
  expect(retryAfterMs('5', now)).toBe(5000);
  expect(retryAfterMs(' 0 ', now)).toBe(0);
  expect(retryAfterMs('Mon, 23 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
  expect(retryAfterMs('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0);
  expect(retryAfterMs('soon', now)).toBeUndefined();
  expect(retryAfterMs(null, now)).toBeUndefined();
});
