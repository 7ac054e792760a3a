// Multipart upload (platform.md §2).
import Router from '@koa/router';
import type { AppDeps } from '../deps';

export function uploadRoutes(_deps: AppDeps): Router {
  const r = new Router();
  return r;
}
