import Router from '@koa/router';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { platformFromEnv } from '../platform';

/** GET /v1/meta/ip-ranges (public): the configured challenge-source CIDRs (CHALLENGE_SOURCES). */
export function metaRoutes(deps: AppDeps): Router {
  const r = new Router();
  const platform = deps.platform ?? platformFromEnv();
  r.get('/v1/meta/ip-ranges', access(deps, 'GET /v1/meta/ip-ranges'), (ctx) => {
    ctx.body = {
      challenge_sources: platform.challengeSources,
      updated_at: platform.challengeSourcesUpdatedAt.toISOString(),
    };
  });
  return r;
}
