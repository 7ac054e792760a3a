import Router from '@koa/router';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { openApiDocument } from './document';

/** GET /v1/openapi.json (public): the document, built once and serialized once. */
export function openApiRoutes(deps: AppDeps): Router {
  const r = new Router();
  let body: string | undefined;
  r.get('/v1/openapi.json', access(deps, 'GET /v1/openapi.json'), (ctx) => {
    ctx.type = 'application/json';
    ctx.body = body ??= JSON.stringify(openApiDocument());
  });
  return r;
}
