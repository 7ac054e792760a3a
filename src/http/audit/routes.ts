import Router from '@koa/router';
import { invalidParameter } from '../../domain/errors';
import { normalizeEmail } from '../../storage/accounts';
import { AUDIT_TYPES, listAudit } from '../../storage/audit';
import type { AuditEventDoc } from '../../storage/documents/service';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { cursorQuery, enumQuery, parseLimit, singleQuery } from '../pagination';

export function presentAudit(e: AuditEventDoc) {
  return { id: e._id, type: e.type, actor: e.actor, target: e.target, at: e.at.toISOString(), requestId: e.requestId };
}

/** GET /v1/audit-events (additive; owners and admins): newest first, paginated; by event type and by actor. */
export function auditRoutes(deps: AppDeps): Router {
  const r = new Router();
  r.get('/v1/audit-events', access(deps, 'GET /v1/audit-events'), async (ctx) => {
    const p = principalOf(ctx);
    const limit = parseLimit(ctx);
    const type = enumQuery(ctx, 'type', AUDIT_TYPES);
    const rawActor = singleQuery(ctx, 'actor');
    if (rawActor !== undefined && (rawActor.length > 320 || !rawActor.includes('@')))
      throw invalidParameter('actor', 'must be an email address');
    const actorEmail = rawActor === undefined ? undefined : normalizeEmail(rawActor);
    // a cursor belongs to its filters
    const listing = `audit:${p.orgId}:${type ?? ''}:${actorEmail ?? ''}`;
    const cursor = cursorQuery(ctx);
    const beforeId = cursor ? deps.cursors.decode<string>(listing, cursor) : undefined;
    const docs = await listAudit(deps.store, p.orgId, { beforeId, limit: limit + 1, type, actorEmail });
    await recheck(deps, p); // after the load, not beside it: a session revoked while it ran gets 401
    const page = docs.slice(0, limit);
    ctx.body = {
      auditEvents: page.map(presentAudit),
      nextCursor: docs.length > limit ? deps.cursors.encode(listing, page[page.length - 1]._id) : null,
    };
  });
  return r;
}
