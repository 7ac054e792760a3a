import Router from '@koa/router';
import { listAudit } from '../../storage/audit';
import type { AuditEventDoc } from '../../storage/documents/service';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { cursorQuery, parseLimit } from '../pagination';

export function presentAudit(e: AuditEventDoc) {
  return { id: e._id, type: e.type, actor: e.actor, target: e.target, at: e.at.toISOString(), requestId: e.requestId };
}

/** GET /v1/audit-events (additive; owners and admins): newest first, paginated. */
export function auditRoutes(deps: AppDeps): Router {
  const r = new Router();
  r.get('/v1/audit-events', access(deps, 'GET /v1/audit-events'), async (ctx) => {
    const p = principalOf(ctx);
    const limit = parseLimit(ctx);
    const listing = `audit:${p.orgId}`;
    const cursor = cursorQuery(ctx);
    const beforeId = cursor ? deps.cursors.decode<string>(listing, cursor) : undefined;
    const docs = await listAudit(deps.store, p.orgId, { beforeId, limit: limit + 1 });
    await recheck(deps, p); // after the load, not beside it: a session revoked while it ran gets 401
    const page = docs.slice(0, limit);
    ctx.body = {
      auditEvents: page.map(presentAudit),
      nextCursor: docs.length > limit ? deps.cursors.encode(listing, page[page.length - 1]._id) : null,
    };
  });
  return r;
}
