// Advisory downloads against a local HTTPS server: the download size limit (by Content-Length, and by count when
// the body is chunked), https-only sources and redirects, and certificate checks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configuredSources, downloadSource, sourceProblem } from '../../../src/advisories/sync';
import { startHttpsServer, type TestHttpsServer } from '../../helpers/https-server';

let server: TestHttpsServer;
let dir: string;
const sent = new Map<string, number>(); // bytes the server wrote per path before the client went away
const body = Buffer.alloc(20_000, 'a');

beforeAll(async () => {
  server = await startHttpsServer((req, res) => {
    const url = req.url!;
    if (url === '/sized/all.zip') return res.writeHead(200, { 'content-length': body.length }).end(body);
    if (url === '/chunked/all.zip') {
      res.write(body.subarray(0, 5000)); // written before end: no Content-Length, chunked
      return res.end(body.subarray(5000));
    }
    if (url === '/endless/all.zip') {
      // Chunked and never ending: only the client's count stops it.
      let n = 0;
      const chunk = Buffer.alloc(4096, 'z');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) n += chunk.length;
        sent.set(url, n);
        if (!res.destroyed) res.once('drain', pump);
      };
      res.writeHead(200);
      res.on('close', () => sent.set(url, n));
      return pump();
    }
    if (url === '/to-http') return res.writeHead(302, { location: 'http://127.0.0.1:1/all.zip' }).end();
    if (url === '/to-sized') return res.writeHead(301, { location: '/sized/all.zip' }).end();
    res.writeHead(404).end();
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adv-download-'));
});
afterAll(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const get = (p: string, extra: Parameters<typeof downloadSource>[2] = {}) =>
  downloadSource(`${server.base}${p}`, dir, { ca: server.ca, backoffMs: 1, ...extra });
const leftovers = () => fs.readdirSync(dir).length;

test('under the limit: downloaded whole, with or without Content-Length', async () => {
  for (const p of ['/sized/all.zip', '/chunked/all.zip']) {
    const { file, attempts } = await get(p, { maxDownloadBytes: body.length });
    expect(attempts).toBe(1);
    expect(fs.statSync(file).size).toBe(body.length);
    fs.rmSync(file);
  }
});

test('a Content-Length over the limit is refused before the body, and not retried', async () => {
  await expect(get('/sized/all.zip', { maxDownloadBytes: 10_000 })).rejects.toMatchObject({
    message: `${server.base}/sized/all.zip: Content-Length 20000 bytes is over the limit of 10000 bytes (ADVISORY_MAX_DOWNLOAD_BYTES)`,
    attempts: 1,
  });
  expect(leftovers()).toBe(0);
});

test('a chunked body is counted and cut off past the limit; nothing is left on disk', async () => {
  await expect(get('/chunked/all.zip', { maxDownloadBytes: 10_000 })).rejects.toMatchObject({
    message: `${server.base}/chunked/all.zip: more than 10000 bytes received, over the limit of 10000 bytes (ADVISORY_MAX_DOWNLOAD_BYTES)`,
    attempts: 1,
  });
  await expect(get('/endless/all.zip', { maxDownloadBytes: 64 * 1024 })).rejects.toMatchObject({
    message: expect.stringContaining('more than 64 KiB received'),
    attempts: 1,
  });
  for (let i = 0; i < 50 && !sent.has('/endless/all.zip'); i++) await new Promise((r) => setTimeout(r, 20));
  expect(sent.get('/endless/all.zip')).toBeLessThan(8 * 1024 * 1024); // the connection was dropped, not drained
  expect(leftovers()).toBe(0);
});

test('the limit comes from ADVISORY_MAX_DOWNLOAD_BYTES when not given', async () => {
  process.env.ADVISORY_MAX_DOWNLOAD_BYTES = '1000';
  try {
    await expect(get('/sized/all.zip')).rejects.toThrow('over the limit of 1000 bytes (ADVISORY_MAX_DOWNLOAD_BYTES)');
  } finally {
    delete process.env.ADVISORY_MAX_DOWNLOAD_BYTES;
  }
});

test('only https: http URLs and redirects to http are refused; an https redirect is followed', async () => {
  await expect(downloadSource('http://127.0.0.1:1/all.zip', dir)).rejects.toMatchObject({
    message: 'http://127.0.0.1:1/all.zip: only https:// URLs are accepted (http:// is refused)',
    attempts: 0,
  });
  await expect(get('/to-http')).rejects.toMatchObject({
    message: `${server.base}/to-http: redirected to http://127.0.0.1:1/all.zip: only https:// URLs are accepted`,
    attempts: 1,
  });
  const { file } = await get('/to-sized');
  expect(fs.statSync(file).size).toBe(body.length);
  fs.rmSync(file);
});

test('a certificate the machine does not trust fails the download', async () => {
  await expect(downloadSource(`${server.base}/sized/all.zip`, dir, { attempts: 1 })).rejects.toThrow(/certificate/i);
});

test('sources are checked where ADVISORY_SOURCES is parsed: the schedule and the CLI refuse http too', () => {
  expect(sourceProblem('https://osv-vulnerabilities.storage.googleapis.com/npm/all.zip')).toBeNull();
  expect(sourceProblem('/data/osv/npm')).toBeNull();
  expect(sourceProblem('HTTP://example.test/all.zip')).toBe(
    'HTTP://example.test/all.zip: only https:// URLs are accepted (http:// is refused)',
  );
  expect(sourceProblem('ftp://example.test/all.zip')).toMatch(/ftp:\/\/ is refused/);
  expect(configuredSources({ ADVISORY_SOURCES: 'https://a.test/all.zip, ./local' })).toEqual([
    'https://a.test/all.zip',
    './local',
  ]);
  expect(() => configuredSources({ ADVISORY_SOURCES: 'https://a.test/all.zip http://b.test/all.zip' })).toThrow(
    'ADVISORY_SOURCES: http://b.test/all.zip: only https:// URLs are accepted (http:// is refused)',
  );
});
