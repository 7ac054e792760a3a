// The delivery log of a webhook (platform.md §8): every delivery, its attempts, status codes and times.
import Router from '@koa/router';
import type { AppDeps } from '../deps';

export function deliveryRoutes(deps: AppDeps): Router {
  void deps;
  const r = new Router();
  return r;
}
