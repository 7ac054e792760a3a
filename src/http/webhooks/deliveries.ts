// The delivery log of a webhook: every delivery, its attempts, status codes and times, newest
// first. Session-only, Admin or Owner; a webhook unknown, of another organization or deleted is 404 not_found.
import Router from '@koa/router';
import { notFound } from '../../domain/errors';
import { listDeliveries, type DeliverySummary } from '../../storage/webhook-deliveries';
import { getWebhook } from '../../storage/webhooks';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { cursorQuery, parseLimit } from '../pagination';
import { pathId } from '../params';

export function presentDelivery(d: DeliverySummary) {
  return {
    id: d._id,
    eventId: d.eventId,
    type: d.type,
    status: d.status,
    attempts: d.attempts.map((a) => ({
      n: a.n,
      at: a.at.toISOString(),
      statusCode: a.statusCode,
      error: a.error,
      durationMs: a.durationMs,
    })),
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

export function deliveryRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.get('/v1/webhooks/:webhookId/deliveries', access(deps, 'GET /v1/webhooks/:webhookId/deliveries'), async (ctx) => {
    const p = principalOf(ctx);
    const id = pathId(ctx, 'webhookId', 'webhook');
    const limit = parseLimit(ctx);
    const listing = `deliveries:${id}`;
    const cursor = cursorQuery(ctx);
    const beforeId = cursor ? deps.cursors.decode<string>(listing, cursor) : undefined;
    const hook = await getWebhook(deps.store, p.orgId, id);
    if (!hook || hook.deletedAt) throw notFound(`webhook ${JSON.stringify(id)}`);
    const docs = await listDeliveries(deps.store, id, { beforeId, limit: limit + 1 });
    await recheck(deps, p); // a session revoked while the log was read gets 401
    const page = docs.slice(0, limit);
    ctx.body = {
      deliveries: page.map(presentDelivery),
      nextCursor: docs.length > limit ? deps.cursors.encode(listing, page[page.length - 1]._id) : null,
    };
  });

  return r;
}
