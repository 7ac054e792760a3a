// GET /metrics of the API after real requests: route templates with their statuses, rate-limit rejections, the queued
// scans and the advisory generation's age read from the database at scrape time.
import { apiRegistry, watchStore } from '../../src/metrics/api';
import { startMetricsServer, type MetricsServer } from '../../src/metrics/server';
import { writeGeneration } from '../../src/storage/advisories';
import { bearer, newOrg, testContext, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

let t: TestContext;
let metrics: MetricsServer;
beforeAll(async () => {
  // Enforcing, one request a minute per credential: the second request of a key is refused. No worker polls the task
  // queue, so an accepted scan stays queued.
  t = await testContext({ rateLimit: { perMinute: 1, enforce: true } });
  metrics = await startMetricsServer(apiRegistry, { port: 0, host: '127.0.0.1' });
  watchStore(t.store);
});
afterAll(async () => {
  watchStore(undefined);
  await metrics.close();
  await t.close();
});

const scrape = async () => {
  const res = await fetch(metrics.url);
  expect(res.status).toBe(200);
  return res.text();
};

/** The value of one sample line (name with its labels as printed), or undefined. */
const sample = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

test('after some requests the API metrics carry route templates, statuses, rejections and the queued scans', async () => {
  const org = await newOrg(t.store);
  const before = sample(await scrape(), 'rate_limit_rejections_total') ?? 0;
  const upload = await t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(await org.key(['sca:upload', 'scans:read'])))
    .send(v1Snapshot('metrics'));
  expect(upload.status).toBe(201);
  const reader = await org.key(['scans:read']);
  // The limit counts per clock minute: three requests see a 429 even when a minute boundary falls between two.
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++)
    statuses.push((await t.api.get(`/v1/scans/${upload.body.id}`).set(bearer(reader))).status);
  expect(statuses[0]).toBe(200);
  const rejected = statuses.filter((s) => s === 429).length;
  expect(rejected).toBeGreaterThanOrEqual(1);
  expect((await t.api.get('/no/such/path/scn_123')).status).toBe(404);

  const text = await scrape();
  expect(
    sample(
      text,
      'http_request_duration_seconds_count{method="POST",route="/v1/scans/dependency-snapshots",status="201"}',
    ),
  ).toBeGreaterThanOrEqual(1);
  expect(
    sample(text, 'http_request_duration_seconds_count{method="GET",route="/v1/scans/:scanId",status="200"}'),
  ).toBeGreaterThanOrEqual(1);
  expect(
    sample(text, 'http_request_duration_seconds_count{method="GET",route="/v1/scans/:scanId",status="429"}'),
  ).toBeGreaterThanOrEqual(1);
  expect(
    sample(text, 'http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}'),
  ).toBeGreaterThanOrEqual(1);
  expect(text).not.toContain(upload.body.id); // ids never become labels
  expect(text).not.toContain('scn_123');
  expect(sample(text, 'rate_limit_rejections_total')).toBe(before + rejected);
  expect(sample(text, 'scans_queued')).toBeGreaterThanOrEqual(1);
});

test('the advisory generation age has a sample once a generation exists, and it counts from its creation', async () => {
  expect(sample(await scrape(), 'advisory_generation_age_seconds')).toBeUndefined();
  await writeGeneration(t.store, [], { previous: null, counts: {}, sources: [] });
  const age = sample(await scrape(), 'advisory_generation_age_seconds');
  expect(age).toBeGreaterThanOrEqual(0);
  expect(age).toBeLessThan(3600);
});
