// The intelligence feeds on the real database (docs/intelligence.md): CISA's real KEV catalog imported and loaded;
// a malformed file refused whole with the previous generation still in force; EPSS gzipped and plain, from a path
// and from a local HTTPS server (self-signed), whose redirects must stay on https; http refused; the download and
// decompressed caps; generations pruned to the current one and the one before; `scanner intel` as an operator runs
// it; the intel-refresh schedule through Temporal. EPSS scores here are MADE UP, in FIRST's file format.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { importIntel, IntelImportRefused, type IntelImportOptions } from '../../src/intel/import';
import { syncIntel } from '../../src/intel/sync';
import type { IntelKind } from '../../src/domain/intel/refused';
import { intelStatus, loadIntel } from '../../src/storage/intel';
import { ensureIntelRefreshSchedule, INTEL_REFRESH_SCHEDULE } from '../../src/temporal/schedules';
import { createLogger } from '../../src/logger';
import { createScanWorker } from '../../workers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { requireEnv, testContext, type TestContext } from '../helpers/context';
import { startHttpsServer, type TestHttpsServer } from '../helpers/https-server';
import { describeWithSharedData, sharedDataPath } from '../helpers/shared-data';

const BIN = path.resolve(__dirname, '../../bin/scanner.js');
const COMMENT = '#model_version:v2025.03.14,score_date:2025-08-25T00:00:00+0000';
/** An EPSS file in FIRST's format; the scores are MADE UP. */
const epssText = (rows: Array<[string, number, number]>, comment = COMMENT) =>
  `${comment}\ncve,epss,percentile\n${rows.map((r) => r.join(',')).join('\n')}\n`;
const EPSS_A = epssText([
  ['CVE-2021-44228', 0.94358, 0.99961],
  ['CVE-2022-22965', 0.9446, 0.99983],
  ['CVE-2024-0001', 0.00043, 0.1],
]);
const EPSS_B = epssText(
  [
    ['CVE-2021-44228', 0.9, 0.999],
    ['CVE-2024-0002', 0.5, 0.7],
  ],
  '#model_version:v2025.03.14,score_date:2025-08-26T00:00:00+0000',
);

let t: TestContext;
let dir: string;
let server: TestHttpsServer;
let base: string;
const hits = new Map<string, number>();
const served: Record<string, Buffer> = {};

const write = (name: string, data: string | Buffer) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, data);
  return file;
};

/** The reason an import was refused (fails the test when it was not). */
async function refusal(kind: IntelKind, source: string, opts: IntelImportOptions = {}): Promise<string> {
  try {
    await importIntel(t.store, kind, source, { ca: server.ca, backoffMs: 10, ...opts });
  } catch (err) {
    if (err instanceof IntelImportRefused) return err.reason;
    throw err;
  }
  throw new Error(`${source} was not refused`);
}

const fresh = () => loadIntel(t.store, { maxAgeMs: 0 });

beforeAll(async () => {
  installRuntime('error');
  t = await testContext({ dbName: `intel_${randomBytes(4).toString('hex')}` });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'intel-'));
  served['/epss.csv.gz'] = zlib.gzipSync(EPSS_A);
  served['/epss.csv'] = Buffer.from(EPSS_B);
  const gz = zlib.gzipSync(EPSS_A);
  served['/truncated.csv.gz'] = gz.subarray(0, gz.length - 10);
  server = await startHttpsServer((req, res) => {
    hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
    const port = new URL(base).port;
    if (req.url === '/to-https') return res.writeHead(302, { location: '/epss.csv.gz' }).end();
    if (req.url === '/to-http') return res.writeHead(301, { location: `http://127.0.0.1:${port}/epss.csv.gz` }).end();
    if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
    if (req.url === '/chunked.csv.gz') return (res.write(served['/epss.csv.gz']), res.end()); // no Content-Length
    const body = served[req.url!];
    if (body) return res.end(body);
    res.writeHead(404).end();
  });
  base = server.base;
});
afterAll(async () => {
  await server?.close();
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describeWithSharedData('KEV', () => {
  const KEV = () => sharedDataPath('intel', 'known_exploited_vulnerabilities.json');

  test("CISA's catalog is imported and loaded; the same file again makes no new generation", async () => {
    const r = await importIntel(t.store, 'kev', KEV());
    expect(r).toMatchObject({
      kind: 'kev',
      status: 'applied',
      previous: null,
      count: 1404,
      catalogVersion: '2025.08.25',
      dateReleased: '2025-08-25T17:04:19.9796Z',
      attempts: 0,
    });
    const intel = await fresh();
    expect(intel.kev).toMatchObject({ generation: r.generation, catalogVersion: '2025.08.25' });
    expect(intel.kev!.entries.size).toBe(1404);
    expect(intel.kev!.entries.get('CVE-2021-44228')).toEqual({
      dateAdded: '2021-12-10',
      dueDate: '2021-12-24',
      knownRansomwareCampaignUse: 'Known',
    });
    expect(intel.version).toContain(r.generation);
    const again = await importIntel(t.store, 'kev', KEV());
    expect(again).toMatchObject({ status: 'unchanged', generation: r.generation, previous: r.generation });
    expect(await fresh()).toBe(intel); // nothing moved: the same object, nothing decoded again
    expect((await intelStatus(t.store)).kev).toMatchObject({
      generation: r.generation,
      catalogVersion: '2025.08.25',
      count: 1404,
      source: KEV(),
      checkedAt: expect.any(String),
    });
  });

  test('a malformed or truncated catalog is refused whole; the previous generation stays loaded', async () => {
    const before = await fresh();
    const text = fs.readFileSync(KEV(), 'utf8');
    const doc = JSON.parse(text);
    expect(await refusal('kev', write('cut.json', text.slice(0, text.length / 2)))).toMatch(/^not valid JSON/);
    expect(await refusal('kev', write('count.json', JSON.stringify({ ...doc, count: 1500 })))).toBe(
      'count is 1500 but 1404 vulnerabilities are listed (a truncated or edited catalog)',
    );
    const gz = zlib.gzipSync(text);
    expect(await refusal('kev', write('cut.json.gz', gz.subarray(0, gz.length / 2)))).toBe(
      'gzip data cut short (a truncated file)',
    );
    expect(await refusal('kev', path.join(dir, 'missing.json'))).toMatch(/^cannot be read: ENOENT/);
    const after = await fresh();
    expect(after.kev!.generation).toBe(before.kev!.generation);
    expect(after.kev!.entries.size).toBe(1404);
  });

  test('the catalog gzipped is read the same (the same content: unchanged)', async () => {
    const gz = write('kev.json.gz', zlib.gzipSync(fs.readFileSync(KEV())));
    expect(await importIntel(t.store, 'kev', gz)).toMatchObject({ status: 'unchanged', count: 1404 });
  });
});

describe('EPSS', () => {
  test('gzipped and plain files are imported, the model version kept; generations are pruned to two', async () => {
    const a = await importIntel(t.store, 'epss', write('a.csv.gz', zlib.gzipSync(EPSS_A)));
    expect(a).toMatchObject({ status: 'applied', count: 3, modelVersion: 'v2025.03.14', scoreDate: '2025-08-25' });
    let intel = await fresh();
    expect(intel.epss).toMatchObject({
      generation: a.generation,
      modelVersion: 'v2025.03.14',
      scoreDate: '2025-08-25',
    });
    expect(intel.epss!.scores.get('CVE-2021-44228')).toEqual([0.94358, 0.99961]);
    expect(intel.epss!.scores.size).toBe(3);
    const b = await importIntel(t.store, 'epss', write('b.csv', EPSS_B));
    expect(b).toMatchObject({ status: 'applied', previous: a.generation, count: 2, scoreDate: '2025-08-26' });
    intel = await fresh();
    expect(intel.epss!.generation).toBe(b.generation);
    expect(intel.epss!.scores.get('CVE-2024-0002')).toEqual([0.5, 0.7]);
    expect(intel.epss!.scores.has('CVE-2024-0001')).toBe(false);
    // A third generation: the first is deleted, chunks and all; the one before the current stays.
    const c = await importIntel(t.store, 'epss', write('c.csv', epssText([['CVE-2024-0003', 0.1, 0.2]])));
    const gens = await t.store.c.intelGenerations.find({ kind: 'epss' }).toArray();
    expect(gens.map((g) => g._id).sort()).toEqual([b.generation, c.generation].sort());
    expect(await t.store.c.intelChunks.countDocuments({ generation: a.generation })).toBe(0);
    expect((await intelStatus(t.store)).epss).toMatchObject({ generation: c.generation, previous: b.generation });
  });

  test('a file without score_date takes --score-date; a truncated row, a bad number, a header alone are refused', async () => {
    const before = (await fresh()).epss!.generation;
    const noDate = write('nodate.csv', 'cve,epss,percentile\nCVE-2024-0004,0.3,0.4\n');
    expect(await refusal('epss', noDate)).toMatch(/^the file has no score_date/);
    expect(await refusal('epss', write('cut.csv', EPSS_A.slice(0, -12)))).toMatch(/^line 5: .* a row cut short/);
    expect(await refusal('epss', write('bad.csv', EPSS_A.replace('0.00043', '1.5')))).toBe(
      'line 5: epss "1.5" is not a number from 0 to 1',
    );
    expect(await refusal('epss', write('header.csv', `${COMMENT}\ncve,epss,percentile\n`))).toBe(
      'no rows after the header',
    );
    expect((await fresh()).epss!.generation).toBe(before);
    const r = await importIntel(t.store, 'epss', noDate, { scoreDate: '2025-08-20' });
    expect(r).toMatchObject({ status: 'applied', modelVersion: null, scoreDate: '2025-08-20' });
    // The same file with another date given is another generation.
    expect(await importIntel(t.store, 'epss', noDate, { scoreDate: '2025-08-21' })).toMatchObject({
      status: 'applied',
      previous: r.generation,
    });
  });
});

describe('EPSS over HTTPS', () => {
  const get = (p: string, opts: IntelImportOptions = {}) =>
    importIntel(t.store, 'epss', `${base}${p}`, { ca: server.ca, backoffMs: 10, ...opts });

  test('a gzipped and a plain file are downloaded and applied; a redirect to https is followed', async () => {
    expect(await get('/epss.csv.gz')).toMatchObject({ status: 'applied', count: 3, attempts: 1 });
    expect(await get('/epss.csv')).toMatchObject({ status: 'applied', count: 2, scoreDate: '2025-08-26' });
    expect(await get('/to-https')).toMatchObject({ status: 'applied', count: 3, source: `${base}/to-https` });
    expect((await intelStatus(t.store)).epss).toMatchObject({ source: `${base}/to-https`, scoreDate: '2025-08-25' });
  });

  test('a redirect to http, an http:// source, too many redirects and a missing file are refused', async () => {
    const before = (await fresh()).epss!.generation;
    expect(await refusal('epss', `${base}/to-http`)).toBe(
      `redirected to http://127.0.0.1:${new URL(base).port}/epss.csv.gz: only https:// URLs are accepted`,
    );
    const plain = `http://127.0.0.1:${new URL(base).port}/epss.csv`;
    const hitsBefore = hits.get('/epss.csv') ?? 0;
    expect(await refusal('epss', plain)).toBe('only https:// URLs are accepted (http:// is refused)');
    expect(hits.get('/epss.csv') ?? 0).toBe(hitsBefore); // never fetched
    expect(await refusal('epss', `${base}/loop`)).toBe('more than 5 redirects');
    expect(await refusal('epss', `${base}/nope.csv`)).toBe('HTTP 404 after 3 attempts');
    expect((await fresh()).epss!.generation).toBe(before);
  });

  test('the download cap (with and without Content-Length), the decompressed cap and a truncated gzip', async () => {
    const before = (await fresh()).epss!.generation;
    const size = served['/epss.csv.gz'].length;
    expect(await refusal('epss', `${base}/epss.csv.gz`, { limits: { maxDownloadBytes: 50 } })).toBe(
      `Content-Length ${size} bytes is over the limit of 50 bytes (INTEL_MAX_DOWNLOAD_BYTES)`,
    );
    expect(await refusal('epss', `${base}/chunked.csv.gz`, { limits: { maxDownloadBytes: 50 } })).toBe(
      'more than 50 bytes received, over the limit of 50 bytes (INTEL_MAX_DOWNLOAD_BYTES)',
    );
    expect(await refusal('epss', `${base}/epss.csv.gz`, { limits: { maxDecompressedBytes: 100 } })).toBe(
      'gzip data decompresses to more than the limit of 100 bytes (INTEL_MAX_DECOMPRESSED_BYTES)',
    );
    expect(await refusal('epss', `${base}/epss.csv`, { limits: { maxDecompressedBytes: 100 } })).toBe(
      `${served['/epss.csv'].length} bytes is over the limit of 100 bytes (INTEL_MAX_DECOMPRESSED_BYTES)`,
    );
    expect(await refusal('epss', `${base}/truncated.csv.gz`)).toBe('gzip data cut short (a truncated file)');
    // Local files are held to the same caps.
    const local = write('local.csv', EPSS_B);
    expect(await refusal('epss', local, { limits: { maxDownloadBytes: 10 } })).toBe(
      `${EPSS_B.length} bytes is over the limit of 10 bytes (INTEL_MAX_DOWNLOAD_BYTES)`,
    );
    expect((await fresh()).epss!.generation).toBe(before);
  });

  test('sync: each feed of its own; a refused one is reported and the other applied', async () => {
    const r = await syncIntel(
      t.store,
      { kev: write('kev-bad.json', '{"catalogVersion": "x"'), epss: `${base}/epss.csv` },
      { ca: server.ca },
    );
    expect(r.feeds).toEqual([
      expect.objectContaining({ kind: 'kev', status: 'failed', reason: expect.stringMatching(/^not valid JSON/) }),
      expect.objectContaining({ kind: 'epss', status: 'applied', count: 2 }),
    ]);
  });
});

test('300,000 EPSS rows (made up) are imported as a few chunk documents and loaded', async () => {
  const rows: string[] = [];
  for (let i = 0; i < 300_000; i++)
    rows.push(`CVE-${1999 + (i % 27)}-${10000 + i},${(i % 99991) / 100000},${(i % 1000) / 1000}`);
  const file = write('big.csv.gz', zlib.gzipSync(`${COMMENT}\ncve,epss,percentile\n${rows.join('\n')}\n`));
  const r = await importIntel(t.store, 'epss', file);
  expect(r).toMatchObject({ status: 'applied', count: 300_000 });
  expect(await t.store.c.intelChunks.countDocuments({ generation: r.generation })).toBe(3);
  const intel = await fresh();
  expect(intel.epss!.scores.size).toBe(300_000);
  expect(intel.epss!.scores.get('CVE-2000-10001')).toEqual([0.00001, 0.001]);
  // (its speed is the bench's: npm run bench -- intel)
}, 120_000);

describeWithSharedData('scanner intel (the compiled CLI)', () => {
  let env: NodeJS.ProcessEnv;
  let dbName: string;
  let cli: TestContext;
  beforeAll(async () => {
    dbName = `intelcli_${randomBytes(4).toString('hex')}`;
    cli = await testContext({ dbName });
    env = {
      ...process.env,
      MONGODB_URI: requireEnv('MONGODB_URI'),
      MONGODB_DB: dbName,
      DATA_DIR: dir,
      NODE_EXTRA_CA_CERTS: server.caFile,
    };
    for (const k of Object.keys(env)) if (k.startsWith('INTEL_')) delete env[k];
  });
  afterAll(() => cli.close());

  const scanner = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [BIN, ...args], { env: { ...env, ...extra } }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
      ),
    );

  test('import kev and epss, a refused file exits 1 naming why, status shows both, sync from the environment', async () => {
    const kev = sharedDataPath('intel', 'known_exploited_vulnerabilities.json');
    const k = await scanner(['intel', 'import', 'kev', kev, '--json']);
    expect(k.code).toBe(0);
    expect(JSON.parse(k.stdout)).toMatchObject({ kind: 'kev', status: 'applied', count: 1404 });
    const e = await scanner(['intel', 'import', 'epss', `${base}/epss.csv.gz`]);
    expect(e).toMatchObject({ code: 0 });
    expect(e.stdout).toMatch(
      /^applied epss generation eps_\w+: model v2025\.03\.14, score date 2025-08-25, 3 scores$/m,
    );
    const bad = await scanner(['intel', 'import', 'epss', write('cli-bad.csv', EPSS_A.replace('0.1', 'x'))]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('percentile "x" is not a number from 0 to 1; the current generation stays');
    const http = await scanner(['intel', 'import', 'epss', `http://127.0.0.1:${new URL(base).port}/epss.csv`]);
    expect(http.code).toBe(1);
    expect(http.stderr).toContain('only https:// URLs are accepted (http:// is refused)');
    const status = await scanner(['intel', 'status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({
      kev: { catalogVersion: '2025.08.25', count: 1404, source: kev },
      epss: { modelVersion: 'v2025.03.14', scoreDate: '2025-08-25', count: 3, source: `${base}/epss.csv.gz` },
    });
    expect((await scanner(['intel', 'status'])).stdout).toMatch(
      /^kev: generation kev_\w+, catalogVersion 2025\.08\.25/,
    );
    expect((await loadIntel(cli.store, { maxAgeMs: 0 })).kev!.entries.size).toBe(1404);
    // sync: from the environment only.
    expect(await scanner(['intel', 'sync'])).toMatchObject({ code: 1, stderr: expect.stringContaining('no feeds') });
    const sync = await scanner(['intel', 'sync'], { INTEL_KEV_SOURCE: kev, INTEL_EPSS_SOURCE: `${base}/epss.csv` });
    expect(sync.code).toBe(0);
    expect(sync.stdout).toMatch(/^unchanged kev generation kev_\w+/m);
    expect(sync.stdout).toMatch(/^applied epss generation eps_\w+: .* 2 scores$/m);
    const refused = await scanner(['intel', 'sync'], { INTEL_EPSS_SOURCE: 'http://example.invalid/x.csv' });
    expect(refused).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('INTEL_EPSS_SOURCE: http://example.invalid/x.csv: only https:// URLs'),
    });
  }, 60_000);
});

test('the intel-refresh schedule runs the sync through Temporal and shows up as a schedule', async () => {
  process.env.INTEL_EPSS_SOURCE = `${base}/epss.csv.gz`;
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
      expect(await ensureIntelRefreshSchedule(t.temporal.client, t.taskQueue, '24h')).toBe('created');
      expect(await ensureIntelRefreshSchedule(t.temporal.client, t.taskQueue, '12h')).toBe('updated');
      const handle = t.temporal.client.schedule.getHandle(INTEL_REFRESH_SCHEDULE);
      const before = hits.get('/epss.csv.gz') ?? 0;
      await handle.trigger();
      for (let i = 0; i < 100 && (hits.get('/epss.csv.gz') ?? 0) === before; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(hits.get('/epss.csv.gz')).toBeGreaterThan(before);
      const desc = await handle.describe();
      expect(desc.spec.intervals?.[0]).toMatchObject({ every: 43_200_000 });
      await handle.delete();
    });
  } finally {
    delete process.env.INTEL_EPSS_SOURCE;
    if (ca === undefined) delete https.globalAgent.options.ca;
    else https.globalAgent.options.ca = ca;
  }
}, 60_000);
