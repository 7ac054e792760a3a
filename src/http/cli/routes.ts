// GET /cli/scanner.mjs (public): the CI client as one dependency-free file, built by
// `npm run build` (tools/build-client.js). `curl -fsS $SCANNER_URL/cli/scanner.mjs -o scanner.mjs` then needs only
// Node 20. The version is in X-Scanner-Version; the ETag lets CI caches revalidate instead of downloading again.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import { notFound } from '../../domain/errors';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';

/** The package root: the nearest folder above this file holding package.json (src/… in tests, dist/src/… built). */
function packageRoot(from = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (dir === path.dirname(dir)) throw new Error('package.json not found above ' + from);
  }
}

interface Bundle {
  mtimeMs: number;
  body: Buffer;
  etag: string;
}

export function clientBundle(file: string) {
  let cached: Bundle | undefined;
  /** The bundle as it is on disk now (re-read when a rebuild changed it), or undefined when it is not built. */
  return (): Bundle | undefined => {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      cached = undefined;
      return undefined;
    }
    if (!cached || cached.mtimeMs !== stat.mtimeMs) {
      const body = fs.readFileSync(file);
      cached = { mtimeMs: stat.mtimeMs, body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
    }
    return cached;
  };
}

export function cliRoutes(deps: AppDeps, root = packageRoot()): Router {
  const version: string = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
  const bundle = clientBundle(path.join(root, 'dist', 'cli', 'scanner.mjs'));
  const r = new Router();
  r.get('/cli/scanner.mjs', access(deps, 'GET /cli/scanner.mjs'), (ctx) => {
    const b = bundle();
    if (!b) throw notFound('the client bundle (run `npm run build` to make dist/cli/scanner.mjs)');
    ctx.set('X-Scanner-Version', version);
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.etag = b.etag;
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = b.body;
  });
  return r;
}
