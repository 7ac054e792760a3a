// Advisory feeds against a local HTTP server: a zip URL is downloaded and applied; a failing source is retried,
// reported and never half-applied; the advisory-refresh schedule runs the same sync through Temporal.
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { syncAdvisories } from '../../src/advisories/sync';
import { currentGeneration, getGeneration } from '../../src/storage/advisories';
import { ensureAdvisoryRefreshSchedule, ADVISORY_REFRESH_SCHEDULE } from '../../src/temporal/schedules';
import { createLogger } from '../../src/logger';
import { createScanWorker } from '../../workers/worker';
import { installRuntime } from '../../workers/runtime';
import { requireEnv, testContext, type TestContext } from '../helpers/context';

const SHARED = path.resolve(__dirname, '../../../shared/data');
let t: TestContext;
let server: http.Server;
let base: string;
const hits = new Map<string, number>();

function zipOf(dir: string): Buffer {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'zip-')), 'all.zip');
  execFileSync('python3', ['-c', 'import sys,zipfile,os\nz=zipfile.ZipFile(sys.argv[1],"w",zipfile.ZIP_DEFLATED)\nfor f in sorted(os.listdir(sys.argv[2])):\n  f.endswith(".json") and z.write(os.path.join(sys.argv[2],f),f)\nz.close()', out, dir]);
  return fs.readFileSync(out);
}

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  const npmZip = zipOf(path.join(SHARED, 'advisories/npm'));
  const mavenZip = zipOf(path.join(SHARED, 'advisories/maven'));
  server = http.createServer((req, res) => {
    hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
    if (req.url === '/npm/all.zip') return res.end(npmZip);
    if (req.url === '/flaky/all.zip') return hits.get(req.url)! < 2 ? res.writeHead(503).end() : res.end(mavenZip);
    if (req.url === '/truncated/all.zip') return res.end(mavenZip.subarray(0, mavenZip.length / 2));
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await t.close();
});

test('a zip URL is applied; a flaky one succeeds on retry; a truncated or missing one fails alone, applied nowhere', async () => {
  const r = await syncAdvisories(t.store, [`${base}/npm/all.zip`, `${base}/flaky/all.zip`, `${base}/truncated/all.zip`, `${base}/missing/all.zip`], { backoffMs: 10 });
  const by = (suffix: string) => r.sources.find((s) => s.source.endsWith(suffix))!;
  expect(by('/npm/all.zip')).toMatchObject({ status: 'applied', attempts: 1 });
  expect(by('/flaky/all.zip')).toMatchObject({ status: 'applied', attempts: 2 });
  expect(by('/truncated/all.zip')).toMatchObject({ status: 'failed', reason: expect.any(String) });
  expect(by('/missing/all.zip')).toMatchObject({ status: 'failed', attempts: 3, reason: expect.stringContaining('404') });
  const npmCount = fs.readdirSync(path.join(SHARED, 'advisories/npm')).filter((f) => f.endsWith('.json')).length;
  const mavenCount = fs.readdirSync(path.join(SHARED, 'advisories/maven')).filter((f) => f.endsWith('.json')).length;
  expect(r.new).toBe(npmCount + mavenCount); // the truncated copy of the maven zip added nothing of its own
  const gen = await getGeneration(t.store, (await currentGeneration(t.store))!);
  expect(gen?.advisoryCount).toBe(npmCount + mavenCount);
  // Nothing changed upstream: a second sync keeps the generation.
  const again = await syncAdvisories(t.store, [`${base}/npm/all.zip`], { backoffMs: 10 });
  expect(again).toMatchObject({ generation: r.generation, new: 0, updated: 0, unchanged: npmCount });
});

test('the advisory-refresh schedule runs the sync through Temporal and shows up as a schedule', async () => {
  process.env.ADVISORY_SOURCES = `${base}/npm/all.zip`;
  const { worker } = await createScanWorker({ store: t.store, logger: createLogger('w', 'silent'), temporalAddress: requireEnv('TEMPORAL_ADDRESS'), namespace: 'default', taskQueue: t.taskQueue });
  try {
    await worker.runUntil(async () => {
      expect(await ensureAdvisoryRefreshSchedule(t.temporal.client, t.taskQueue, '1h')).toBe('created');
      expect(await ensureAdvisoryRefreshSchedule(t.temporal.client, t.taskQueue, '2h')).toBe('updated');
      const handle = t.temporal.client.schedule.getHandle(ADVISORY_REFRESH_SCHEDULE);
      const before = hits.get('/npm/all.zip') ?? 0;
      await handle.trigger();
      for (let i = 0; i < 100 && (hits.get('/npm/all.zip') ?? 0) === before; i++) await new Promise((r) => setTimeout(r, 100));
      expect(hits.get('/npm/all.zip')).toBeGreaterThan(before);
      const desc = await handle.describe();
      expect(desc.spec.intervals?.[0]).toMatchObject({ every: 7_200_000 });
      await handle.delete();
    });
  } finally {
    delete process.env.ADVISORY_SOURCES;
  }
}, 60_000);
