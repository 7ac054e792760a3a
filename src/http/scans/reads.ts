// Module and attribution reads of every scan (platform.md §2).
import Router from '@koa/router';
import type { AppDeps } from '../deps';

export function scanReadRoutes(_deps: AppDeps): Router {
  const r = new Router();
  return r;
}
