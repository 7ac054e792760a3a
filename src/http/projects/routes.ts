// GET /v1/projects and GET /v1/dependencies (platform.md §1).
import Router from '@koa/router';
import type { AppDeps } from '../deps';

export function projectRoutes(_deps: AppDeps): Router {
  const r = new Router();
  return r;
}
