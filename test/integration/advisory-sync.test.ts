// Advisory feeds against a local HTTPS server (self-signed, made at test time): a zip URL is downloaded and applied;
// a failing source is retried, reported and never half-applied; a source over a size limit fails alone and keeps
// its previous advisories; http is refused; the advisory-refresh schedule runs the same sync through Temporal.
import https from 'node:https';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { syncAdvisories } from '../../src/advisories/sync';
import { currentGeneration, getGeneration } from '../../src/storage/advisories';
import { ensureAdvisoryRefreshSchedule, ADVISORY_REFRESH_SCHEDULE } from '../../src/temporal/schedules';
import { createLogger } from '../../src/logger';
import { createScanWorker } from '../../workers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { requireEnv, testContext, type TestContext } from '../helpers/context';
import { startHttpsServer, type TestHttpsServer } from '../helpers/https-server';
import { itWithSharedData, sharedDataDir } from '../helpers/shared-data';

const SHARED = sharedDataDir();
let t: TestContext;
let server: TestHttpsServer;
let base: string;
let bigZip: Buffer;
const hits = new Map<string, number>();

function zipOf(dir: string): Buffer {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'zip-')), 'all.zip');
  execFileSync('python3', [
    '-c',
    'import sys,zipfile,os\nz=zipfile.ZipFile(sys.argv[1],"w",zipfile.ZIP_DEFLATED)\nfor f in sorted(os.listdir(sys.argv[2])):\n  f.endswith(".json") and z.write(os.path.join(sys.argv[2],f),f)\nz.close()',
    out,
    dir,
  ]);
  return fs.readFileSync(out);
}

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  const npmZip = zipOf(path.join(SHARED, 'advisories/npm'));
  const mavenZip = zipOf(path.join(SHARED, 'advisories/maven'));
  const big = fs.mkdtempSync(path.join(os.tmpdir(), 'big-'));
  fs.writeFileSync(
    path.join(big, 'GHSA-big.json'),
    JSON.stringify({
      id: 'GHSA-big',
      modified: '2024-01-01T00:00:00Z',
      details: 'x'.repeat(20_000),
      affected: [{ package: { ecosystem: 'npm', name: 'big' } }],
    }),
  );
  bigZip = zipOf(big);
  server = await startHttpsServer((req, res) => {
    hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
    if (req.url === '/npm/all.zip') return res.end(npmZip);
    if (req.url === '/npm-chunked/all.zip') return (res.write(npmZip), res.end()); // no Content-Length
    if (req.url === '/flaky/all.zip') return hits.get(req.url)! < 2 ? res.writeHead(503).end() : res.end(mavenZip);
    if (req.url === '/truncated/all.zip') return res.end(mavenZip.subarray(0, mavenZip.length / 2));
    if (req.url === '/big/all.zip') return res.end(bigZip);
    res.writeHead(404).end();
  });
  base = server.base;
});
afterAll(async () => {
  await server.close();
  await t.close();
});

itWithSharedData(
  'a zip URL is applied; a flaky one succeeds on retry; a truncated or missing one fails alone, applied nowhere',
  async () => {
    const r = await syncAdvisories(
      t.store,
      [`${base}/npm/all.zip`, `${base}/flaky/all.zip`, `${base}/truncated/all.zip`, `${base}/missing/all.zip`],
      { backoffMs: 10, ca: server.ca },
    );
    const by = (suffix: string) => r.sources.find((s) => s.source.endsWith(suffix))!;
    expect(by('/npm/all.zip')).toMatchObject({ status: 'applied', attempts: 1 });
    expect(by('/flaky/all.zip')).toMatchObject({ status: 'applied', attempts: 2 });
    expect(by('/truncated/all.zip')).toMatchObject({ status: 'failed', reason: expect.any(String) });
    expect(by('/missing/all.zip')).toMatchObject({
      status: 'failed',
      attempts: 3,
      reason: expect.stringContaining('404'),
    });
    const npmCount = fs.readdirSync(path.join(SHARED, 'advisories/npm')).filter((f) => f.endsWith('.json')).length;
    const mavenCount = fs.readdirSync(path.join(SHARED, 'advisories/maven')).filter((f) => f.endsWith('.json')).length;
    expect(r.new).toBe(npmCount + mavenCount); // the truncated copy of the maven zip added nothing of its own
    const gen = await getGeneration(t.store, (await currentGeneration(t.store))!);
    expect(gen?.advisoryCount).toBe(npmCount + mavenCount);
    // Nothing changed upstream: a second sync keeps the generation.
    const again = await syncAdvisories(t.store, [`${base}/npm/all.zip`], { backoffMs: 10, ca: server.ca });
    expect(again).toMatchObject({ generation: r.generation, new: 0, updated: 0, unchanged: npmCount });
  },
);

itWithSharedData(
  'sources over a size limit fail alone, named with their URL and the limit, and keep their previous advisories',
  async () => {
    const first = await syncAdvisories(t.store, [`${base}/big/all.zip`], { ca: server.ca });
    expect(first.sources).toEqual([{ source: `${base}/big/all.zip`, status: 'applied', attempts: 1 }]);
    const before = (await currentGeneration(t.store))!;
    // The entry limit: the archive is downloaded but not applied, and the reason names the entry under its URL.
    const r = await syncAdvisories(t.store, [`${base}/big/all.zip`, `${base}/npm/all.zip`], {
      ca: server.ca,
      limits: { maxEntryBytes: 10_000 },
    });
    expect(r.sources).toContainEqual({
      source: `${base}/big/all.zip`,
      status: 'failed',
      attempts: 1,
      reason: expect.stringMatching(
        /^entry GHSA-big\.json declares \d+ bytes, over the limit of 10000 bytes \(ADVISORY_MAX_ENTRY_BYTES\)$/,
      ),
    });
    expect(r.sources).toContainEqual({ source: `${base}/npm/all.zip`, status: 'applied', attempts: 1 });
    expect(r.failedSources).toEqual([
      { source: `${base}/big/all.zip`, reason: expect.stringContaining('GHSA-big.json') },
    ]);
    expect(r.generation).toBe(before); // nothing new: the big advisory is still there, unchanged
    expect((await t.store.c.advisoryGenerations.findOne({ _id: before }))?.advisoryCount).toBe(r.total);
    // The download limit, with and without Content-Length; not retried.
    const d = await syncAdvisories(t.store, [`${base}/npm/all.zip`, `${base}/npm-chunked/all.zip`], {
      ca: server.ca,
      maxDownloadBytes: 1000,
      backoffMs: 10,
    });
    expect(d.sources).toEqual([
      {
        source: `${base}/npm/all.zip`,
        status: 'failed',
        attempts: 1,
        reason: expect.stringMatching(
          /^https:\/\/\S+\/npm\/all\.zip: Content-Length \d+ bytes is over the limit of 1000 bytes \(ADVISORY_MAX_DOWNLOAD_BYTES\)$/,
        ),
      },
      {
        source: `${base}/npm-chunked/all.zip`,
        status: 'failed',
        attempts: 1,
        reason: expect.stringContaining(
          'more than 1000 bytes received, over the limit of 1000 bytes (ADVISORY_MAX_DOWNLOAD_BYTES)',
        ),
      },
    ]);
    expect(d.generation).toBe(before);
  },
);

itWithSharedData('http URLs are refused, not fetched; the other sources are applied', async () => {
  const plain = `http://127.0.0.1:${new URL(base).port}/npm/all.zip`;
  const hitsBefore = hits.get('/npm/all.zip') ?? 0;
  const r = await syncAdvisories(t.store, [plain, `${base}/npm/all.zip`], { ca: server.ca });
  expect(r.sources).toEqual([
    {
      source: plain,
      status: 'failed',
      attempts: 0,
      reason: `${plain}: only https:// URLs are accepted (http:// is refused)`,
    },
    { source: `${base}/npm/all.zip`, status: 'applied', attempts: 1 },
  ]);
  expect(hits.get('/npm/all.zip')).toBe(hitsBefore + 1);
});

itWithSharedData(
  'the advisory-refresh schedule runs the sync through Temporal and shows up as a schedule',
  async () => {
    process.env.ADVISORY_SOURCES = `${base}/npm/all.zip`;
    // The activity downloads with the default agent: trust the test certificate there for this test.
    const ca = https.globalAgent.options.ca;
    https.globalAgent.options.ca = server.ca;
    const { worker } = await createScanWorker({
      store: t.store,
      logger: createLogger('w', 'silent'),
      temporalAddress: requireEnv('TEMPORAL_ADDRESS'),
      namespace: 'default',
      taskQueue: t.taskQueue,
    });
    try {
      await worker.runUntil(async () => {
        expect(await ensureAdvisoryRefreshSchedule(t.temporal.client, t.taskQueue, '1h')).toBe('created');
        expect(await ensureAdvisoryRefreshSchedule(t.temporal.client, t.taskQueue, '2h')).toBe('updated');
        const handle = t.temporal.client.schedule.getHandle(ADVISORY_REFRESH_SCHEDULE);
        const before = hits.get('/npm/all.zip') ?? 0;
        await handle.trigger();
        for (let i = 0; i < 100 && (hits.get('/npm/all.zip') ?? 0) === before; i++)
          await new Promise((r) => setTimeout(r, 100));
        expect(hits.get('/npm/all.zip')).toBeGreaterThan(before);
        const desc = await handle.describe();
        expect(desc.spec.intervals?.[0]).toMatchObject({ every: 7_200_000 });
        await handle.delete();
      });
    } finally {
      delete process.env.ADVISORY_SOURCES;
      // Deleted, not set to undefined: an agent's options override a request's, so `ca: undefined` left on the shared
      // global agent would drop the `ca` of every later request in this jest worker (advisory-download.test.ts).
      if (ca === undefined) delete https.globalAgent.options.ca;
      else https.globalAgent.options.ca = ca;
    }
  },
  60_000,
);
