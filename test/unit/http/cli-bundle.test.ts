// GET /cli/scanner.mjs: public, the built client with its version in a header, revalidated by
// ETag, re-read after a rebuild; a 404 envelope when the bundle is not built.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import request from 'supertest';
import { cliRoutes } from '../../../src/http/cli/routes';
import type { AppDeps } from '../../../src/http/deps';
import { errorEnvelope } from '../../../src/http/middleware/errors';
import { requestId } from '../../../src/http/middleware/request-id';
import { createLogger } from '../../../src/logger';

let root: string;
let api: ReturnType<typeof request>;
const bundle = () => path.join(root, 'dist', 'cli', 'scanner.mjs');

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-route-'));
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'x', version: '1.2.3' }));
  const app = new Koa();
  app.use(requestId());
  app.use(errorEnvelope(createLogger('api', 'silent')));
  app.use(cliRoutes({} as AppDeps, root).routes());
  api = request(app.callback());
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

test('not built: 404 in the error envelope, saying how to build it', async () => {
  const res = await api.get('/cli/scanner.mjs');
  expect(res.status).toBe(404);
  expect(res.body.error).toMatchObject({ code: 'not_found', message: expect.stringContaining('npm run build') });
});

test('served without a credential, as JavaScript, with the version and an ETag; 304 when unchanged; re-read after a rebuild', async () => {
  fs.mkdirSync(path.dirname(bundle()), { recursive: true });
  fs.writeFileSync(bundle(), '#!/usr/bin/env node\nconsole.log("one");\n');
  const res = await api.get('/cli/scanner.mjs');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
  expect(res.headers['x-scanner-version']).toBe('1.2.3');
  expect(res.headers['cache-control']).toBe('no-cache');
  expect(res.text).toBe('#!/usr/bin/env node\nconsole.log("one");\n');
  const etag = res.headers.etag;
  expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);

  const again = await api.get('/cli/scanner.mjs').set('If-None-Match', etag);
  expect(again.status).toBe(304);
  expect(again.text ?? '').toBe('');

  const head = await api.head('/cli/scanner.mjs');
  expect(head.status).toBe(200);
  expect(head.headers['x-scanner-version']).toBe('1.2.3');

  fs.writeFileSync(bundle(), '#!/usr/bin/env node\nconsole.log("two, longer");\n');
  fs.utimesSync(bundle(), new Date(), new Date(Date.now() + 5000));
  const rebuilt = await api.get('/cli/scanner.mjs').set('If-None-Match', etag);
  expect(rebuilt.status).toBe(200);
  expect(rebuilt.text).toContain('two, longer');
  expect(rebuilt.headers.etag).not.toBe(etag);
});
