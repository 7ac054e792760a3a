// Gateway enrollment tokens: session-only, Admin or Owner. The svc_gw_ token is in the 201 response
// once and nowhere else (stored as its SHA-256); it enrolls one gateway.
import Router from '@koa/router';
import { notFound } from '../../domain/errors';
import {
  ENROLLMENT_TOKEN_MAX_TTL_MS,
  ENROLLMENT_TOKEN_STATUSES,
  TOKEN_DEFAULT_TTL_MS,
  type EnrollmentTokenStatus,
} from '../../domain/hosts/status';
import { recordAudit } from '../../storage/audit';
import { createEnrollmentToken, listEnrollmentTokens, revokeEnrollmentToken } from '../../storage/enrollment-tokens';
import { actorOf } from '../audit/actor';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { expiresAtField, MAX_NAME, requiredText } from '../hosts/fields';
import { objectBody } from '../json-body';
import { cursorQuery, enumQuery, parseLimit } from '../pagination';
import { pathId } from '../params';
import { presentEnrollmentToken } from '../../presenters/gateways';

export function enrollmentTokenRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.post('/v1/gateways/enrollment-tokens', access(deps, 'POST /v1/gateways/enrollment-tokens'), async (ctx) => {
    const p = principalOf(ctx);
    const body = await objectBody(ctx);
    const now = new Date();
    const name = requiredText(body, 'name', MAX_NAME);
    const expiresAt = expiresAtField(body, now, TOKEN_DEFAULT_TTL_MS, ENROLLMENT_TOKEN_MAX_TTL_MS, '7 days');
    await recheck(deps, p);
    const createdBy = p.kind === 'session' ? (p.member?._id ?? null) : null;
    const { doc, token } = await createEnrollmentToken(deps.store, { orgId: p.orgId, name, createdBy, expiresAt }, now);
    await recordAudit(deps.store, {
      orgId: p.orgId,
      type: 'enrollment_token.created',
      actor: actorOf(p),
      target: { kind: 'enrollment_token', id: doc.id, name, expiresAt: expiresAt.toISOString() },
      requestId: ctx.state.requestId,
    });
    ctx.status = 201;
    ctx.body = { enrollmentToken: presentEnrollmentToken(doc, now), token };
  });

  r.get('/v1/gateways/enrollment-tokens', access(deps, 'GET /v1/gateways/enrollment-tokens'), async (ctx) => {
    const p = principalOf(ctx);
    const limit = parseLimit(ctx);
    const status = enumQuery<EnrollmentTokenStatus>(ctx, 'status', ENROLLMENT_TOKEN_STATUSES);
    const listing = `enrollment-tokens:${p.orgId}:${status ?? '*'}`;
    const cursor = cursorQuery(ctx);
    const beforeId = cursor ? deps.cursors.decode<string>(listing, cursor) : undefined;
    const now = new Date();
    const docs = await listEnrollmentTokens(deps.store, p.orgId, { status, beforeId, limit: limit + 1 }, now);
    await recheck(deps, p); // a session revoked while the list was read gets 401
    const page = docs.slice(0, limit);
    ctx.body = {
      enrollmentTokens: page.map((t) => presentEnrollmentToken(t, now)),
      nextCursor: docs.length > limit ? deps.cursors.encode(listing, page[page.length - 1].id) : null,
    };
  });

  r.delete(
    '/v1/gateways/enrollment-tokens/:tokenId',
    access(deps, 'DELETE /v1/gateways/enrollment-tokens/:tokenId'),
    async (ctx) => {
      const p = principalOf(ctx);
      const id = pathId(ctx, 'tokenId', 'enrollment token');
      await recheck(deps, p);
      if (!(await revokeEnrollmentToken(deps.store, p.orgId, id)))
        throw notFound(`enrollment token ${JSON.stringify(id)}`);
      await recordAudit(deps.store, {
        orgId: p.orgId,
        type: 'enrollment_token.revoked',
        actor: actorOf(p),
        target: { kind: 'enrollment_token', id },
        requestId: ctx.state.requestId,
      });
      ctx.status = 204;
    },
  );

  return r;
}
