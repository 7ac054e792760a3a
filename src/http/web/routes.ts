// GET /app/* (public): the web app built by `npm run build` into dist/web (tools/build-web.js).
// Existing files are served as they are (hashed assets cached for a year, immutable); any other path under /app is
// the app's own route and gets the index, so a reload or a shared link opens the same view. A missing asset is a
// 404 envelope. Every response carries the app's CSP and the framing/sniffing/referrer headers.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { notFound } from '../../domain/errors';
import type { AppDeps } from '../deps';

export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The package root: the nearest folder above this file holding package.json (src/… in tests, dist/src/… built). */
function packageRoot(from = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (dir === path.dirname(dir)) throw new Error('package.json not found above ' + from);
  }
}

interface StaticFile {
  mtimeMs: number;
  size: number;
  body: Buffer;
  etag: string;
}

/** Files of one folder read on demand and kept while unchanged on disk (a rebuild replaces them). */
function staticFiles(root: string) {
  const cache = new Map<string, StaticFile>();
  return (file: string): StaticFile | undefined => {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      cache.delete(file);
      return undefined;
    }
    if (!stat.isFile()) return undefined;
    let f = cache.get(file);
    if (!f || f.mtimeMs !== stat.mtimeMs || f.size !== stat.size) {
      const body = fs.readFileSync(file);
      f = {
        mtimeMs: stat.mtimeMs,
        size: stat.size,
        body,
        etag: `"${createHash('sha256').update(body).digest('base64url')}"`,
      };
      if (cache.size > 500) cache.clear();
      cache.set(file, f);
    }
    return f;
  };
}

/**
 * The file of dist/web a request path names, relative to it, or null when the path cannot name one (undecodable,
 * a `..` or dot segment, a NUL or backslash): such paths never reach the file system.
 */
export function relativeAppPath(requestPath: string): string | null {
  const rest = requestPath.replace(/^\/app\/?/, '');
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.split('/');
  if (segments.some((s) => s === '..' || s.startsWith('.'))) return null;
  return segments.filter((s) => s !== '').join('/');
}

function setAppHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', APP_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
}

function send(ctx: Context, f: StaticFile, type: string, cacheControl: string): void {
  ctx.set('Cache-Control', cacheControl);
  ctx.etag = f.etag;
  ctx.type = type;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = f.body;
}

export function webAppRoutes(_deps: AppDeps, root = path.join(packageRoot(), 'dist', 'web')): Router {
  const read = staticFiles(root);
  const r = new Router({ strict: true }); // `/app` and `/app/` are different routes
  r.get('/app', (ctx) => {
    setAppHeaders(ctx);
    ctx.redirect('/app/');
  });
  r.get(['/app/', '/app/{*rest}'], (ctx) => {
    setAppHeaders(ctx);
    const index = () => {
      const f = read(path.join(root, 'index.html'));
      if (!f) throw notFound('the web app (dist/web: run `npm run build` to make it)');
      send(ctx, f, 'text/html; charset=utf-8', 'no-cache');
    };
    const rel = relativeAppPath(ctx.path);
    if (rel === null) throw notFound(`file ${ctx.path}`);
    if (rel === '' || rel === 'index.html') return index();
    const file = path.resolve(root, rel);
    if (!file.startsWith(root + path.sep)) throw notFound(`file ${ctx.path}`);
    const f = read(file);
    const asset = rel.startsWith('assets/');
    if (f)
      return send(
        ctx,
        f,
        path.extname(file) || 'application/octet-stream',
        asset ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    if (asset) throw notFound(`file ${ctx.path}`);
    return index();
  });
  return r;
}
