// The web app's static serving (GET /app/*, src/http/web/routes.ts) in the real Koa app (createApp with the real error envelope), over a
// fixture build in a temporary folder, plus one check of the real build's index.html. No database is touched by
// these routes, so the app gets only a logger.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createApp } from '../../src/http/app';
import type { AppDeps } from '../../src/http/deps';
import { createLogger } from '../../src/logger';
import { APP_CSP, relativeAppPath } from '../../src/http/web/routes';

const deps = { logger: createLogger('test', 'silent') } as unknown as AppDeps;

function appOver(root: string) {
  return request(createApp({ ...deps, webRoot: root }).callback());
}

let root: string;
let api: ReturnType<typeof request>;
const INDEX = '<!doctype html><title>t</title><script type="module" src="/app/assets/index-abc123.js"></script>';

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'web-'));
  fs.mkdirSync(path.join(root, 'assets'));
  fs.mkdirSync(path.join(root, '.vite'));
  fs.writeFileSync(path.join(root, 'index.html'), INDEX);
  fs.writeFileSync(path.join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
  fs.writeFileSync(path.join(root, 'assets', 'index-abc123.css'), 'body{}');
  fs.writeFileSync(path.join(root, '.vite', 'manifest.json'), '{}');
  fs.writeFileSync(path.join(path.dirname(root), 'outside.txt'), 'secret');
  api = appOver(root);
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function expectAppHeaders(res: request.Response) {
  expect(res.headers['content-security-policy']).toBe(APP_CSP);
  expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
  expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['x-frame-options']).toBe('DENY');
}

test('GET /app redirects to /app/', async () => {
  const res = await api.get('/app');
  expect(res.status).toBe(302);
  expect(res.headers.location).toBe('/app/');
  expectAppHeaders(res);
});

test.each(['/app/', '/app/projects', '/app/scans/scn_1/findings/fnd_2?attribution=affected', '/app/sign-in'])(
  '%s is the index, not cached',
  async (p) => {
    const res = await api.get(p);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.text).toBe(INDEX);
    expectAppHeaders(res);
  },
);

test('hashed assets: their type, cached for a year, immutable; ETag and 304; HEAD', async () => {
  const js = await api.get('/app/assets/index-abc123.js');
  expect(js.status).toBe(200);
  expect(js.headers['content-type']).toMatch(/^(application|text)\/javascript/);
  expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  expect(js.text).toBe('console.log(1)');
  expectAppHeaders(js);
  const again = await api.get('/app/assets/index-abc123.js').set('If-None-Match', js.headers.etag);
  expect(again.status).toBe(304);
  const css = await api.get('/app/assets/index-abc123.css');
  expect(css.headers['content-type']).toMatch(/^text\/css/);
  const head = await api.head('/app/assets/index-abc123.js');
  expect(head.status).toBe(200);
  expect(head.headers['content-length']).toBe(String('console.log(1)'.length));
  const headIndex = await api.head('/app/projects');
  expect(headIndex.status).toBe(200);
  expect(headIndex.headers['content-type']).toBe('text/html; charset=utf-8');
});

test('a missing asset is a 404 envelope, with the app headers', async () => {
  const res = await api.get('/app/assets/nope-123.js');
  expect(res.status).toBe(404);
  expect(res.body).toEqual({
    error: { code: 'not_found', message: expect.stringContaining('/app/assets/nope-123.js') },
  });
  expectAppHeaders(res);
});

test.each([
  '/app/../package.json',
  '/app/%2e%2e/package.json',
  '/app/%2E%2E%2Fpackage.json',
  '/app/assets/..%2f..%2foutside.txt',
  '/app/..%5c..%5coutside.txt',
  '/app/.vite/manifest.json',
  '/app/%00',
  '/app/%E0%A4%A',
])('%s never reads outside dist/web (404 envelope)', async (p) => {
  const res = await api.get(p);
  expect(res.status).toBe(404);
  expect(res.body.error.code).toBe('not_found');
  expect(res.text).not.toContain('secret');
  expect(res.text).not.toContain('"name"');
});

test('relativeAppPath refuses every way out', () => {
  expect(relativeAppPath('/app/')).toBe('');
  expect(relativeAppPath('/app/assets/a.js')).toBe('assets/a.js');
  expect(relativeAppPath('/app//assets//a.js')).toBe('assets/a.js');
  for (const p of ['/app/..', '/app/a/../../x', '/app/%2e%2e', '/app/a%5cb', '/app/%zz', '/app/.env'])
    expect(relativeAppPath(p)).toBeNull();
});

test('not built: the index and any view are a 404 envelope naming npm run build', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'web-empty-'));
  try {
    const res = await appOver(path.join(empty, 'missing')).get('/app/projects');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(res.body.error.message).toContain('npm run build');
    expectAppHeaders(res);
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
});

test('the real build (npm run build): index.html has no inline script or style, and the first page JS ≤ 100 KB gzipped', () => {
  const dist = path.join(__dirname, '..', '..', 'dist', 'web');
  if (!fs.existsSync(path.join(dist, 'index.html')))
    throw new Error('dist/web is not built: run `npm run build` first (npm test does)');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { inlineCode, firstPageJs, FIRST_PAGE_JS_LIMIT } = require('../../tools/build-web.js');
  expect(inlineCode(fs.readFileSync(path.join(dist, 'index.html'), 'utf8'))).toEqual([]);
  const js = firstPageJs(dist);
  expect(js.files.length).toBeGreaterThan(0);
  expect(js.total).toBeLessThanOrEqual(FIRST_PAGE_JS_LIMIT);
  expect(inlineCode('<script>alert(1)</script><div style="x" onclick="y">')).toHaveLength(3);
});
