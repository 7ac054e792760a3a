// Webhooks (platform.md §8): session-only, Admin or Owner. The secret is in the 201 response once and nowhere else.
import Router from '@koa/router';
import type { AppDeps } from '../deps';

export function webhookRoutes(deps: AppDeps): Router {
  void deps;
  const r = new Router();
  return r;
}
