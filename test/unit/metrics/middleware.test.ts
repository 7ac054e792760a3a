// The request-duration middleware: route templates (never raw paths), bounded method and status labels, the status
// the error envelope chose; and the metrics server answering Prometheus text.
import Koa from 'koa';
import Router from '@koa/router';
import request from 'supertest';
import { requestLabels, requestMetrics, UNMATCHED_ROUTE } from '../../../src/http/middleware/metrics';
import { apiRegistry, httpRequestDuration, rateLimitRejections } from '../../../src/metrics/api';
import { startMetricsServer, type MetricsServer } from '../../../src/metrics/server';

function app(): Koa {
  const a = new Koa();
  a.silent = true;
  a.use(requestMetrics());
  // Stands in for the error envelope: a thrown error becomes its status.
  a.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      ctx.status = (err as { status?: number }).status ?? 500;
      ctx.body = { error: 'x' };
    }
  });
  const r = new Router({ prefix: '/v1' });
  r.get('/scans/:scanId', (ctx) => {
    if (ctx.params.scanId === 'missing') ctx.throw(404);
    ctx.body = { id: ctx.params.scanId };
  });
  r.post('/scans/dependency-snapshots', (ctx) => {
    ctx.status = 201;
  });
  a.use(r.routes());
  return a;
}

/** Sample counts of the histogram by label set, as "METHOD route status". */
async function counts(): Promise<Map<string, number>> {
  const m = await httpRequestDuration.get();
  const out = new Map<string, number>();
  for (const v of m.values) {
    if (v.metricName !== 'http_request_duration_seconds_count') continue;
    out.set(`${v.labels.method} ${v.labels.route} ${v.labels.status}`, v.value);
  }
  return out;
}

beforeEach(() => httpRequestDuration.reset());

test('requests are labelled with the route template, method and status; ids never appear', async () => {
  const api = request(app().callback());
  await api.get('/v1/scans/scn_aaa').expect(200);
  await api.get('/v1/scans/scn_bbb').expect(200);
  await api.get('/v1/scans/missing').expect(404);
  await api.post('/v1/scans/dependency-snapshots').expect(201);
  const c = await counts();
  expect(c.get('GET /v1/scans/:scanId 200')).toBe(2);
  expect(c.get('GET /v1/scans/:scanId 404')).toBe(1);
  expect(c.get('POST /v1/scans/dependency-snapshots 201')).toBe(1);
  expect([...c.keys()].join(' ')).not.toMatch(/scn_|missing/);
});

test('paths no route matches share one label, whatever they are', async () => {
  const api = request(app().callback());
  for (let i = 0; i < 20; i++) await api.get(`/random/${i}/probe.php`).expect(404);
  await api.delete('/v1/scans/scn_aaa').expect(404);
  const c = await counts();
  expect(c.get(`GET ${UNMATCHED_ROUTE} 404`)).toBe(20);
  expect([...c.keys()].filter((k) => k.startsWith('GET '))).toEqual([`GET ${UNMATCHED_ROUTE} 404`]);
});

test('an error thrown past every handler is recorded with its status', async () => {
  const a = new Koa();
  a.silent = true;
  a.use(requestMetrics());
  a.use(() => {
    throw Object.assign(new Error('boom'), { status: 503 });
  });
  await request(a.callback()).get('/x').expect(503);
  expect((await counts()).get(`GET ${UNMATCHED_ROUTE} 503`)).toBe(1);
});

test('labels are bounded: unknown methods, odd statuses and empty routes fold into fixed values', () => {
  expect(requestLabels('GET', '/v1/scans/:scanId', 200)).toEqual({
    method: 'GET',
    route: '/v1/scans/:scanId',
    status: '200',
  });
  expect(requestLabels('PROPFIND', undefined, 404)).toEqual({ method: 'other', route: UNMATCHED_ROUTE, status: '404' });
  expect(requestLabels('GET', '', 0)).toEqual({ method: 'GET', route: UNMATCHED_ROUTE, status: 'other' });
  expect(requestLabels('GET', 42, 999).route).toBe(UNMATCHED_ROUTE);
});

describe('the metrics server', () => {
  let m: MetricsServer;
  beforeAll(async () => {
    m = await startMetricsServer(apiRegistry, { port: 0, host: '127.0.0.1' });
  });
  afterAll(() => m.close());

  test('GET /metrics answers Prometheus text with the API metrics and the process metrics', async () => {
    await request(app().callback()).get('/v1/scans/scn_ccc').expect(200);
    rateLimitRejections.inc();
    expect(m.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const res = await fetch(m.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/v1\/scans\/:scanId",status="200"\} 1/,
    );
    expect(text).toMatch(/^rate_limit_rejections_total \d+$/m);
    expect(text).toContain('# TYPE scans_queued gauge');
    expect(text).toContain('# TYPE advisory_generation_age_seconds gauge');
    // No store watched: the gauges have no sample rather than a made-up 0.
    expect(text).not.toMatch(/^scans_queued /m);
    expect(text).not.toMatch(/^advisory_generation_age_seconds /m);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });

  test('other paths are 404 and other methods 405', async () => {
    expect((await fetch(m.url.replace('/metrics', '/'))).status).toBe(404);
    const post = await fetch(m.url, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
