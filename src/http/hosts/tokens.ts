// Host registration tokens: session-only, Admin or Owner. The svc_reg_ token is in the 201 response
// once and nowhere else (stored as its SHA-256).
import Router from '@koa/router';
import { invalidParameter, notFound } from '../../domain/errors';
import {
  MAX_REGISTRATION_USES,
  REGISTRATION_TOKEN_MAX_TTL_MS,
  REGISTRATION_TOKEN_STATUSES,
  TOKEN_DEFAULT_TTL_MS,
  type RegistrationTokenStatus,
} from '../../domain/hosts/status';
import { recordAudit } from '../../storage/audit';
import {
  createRegistrationToken,
  listRegistrationTokens,
  revokeRegistrationToken,
} from '../../storage/registration-tokens';
import { actorOf } from '../audit/actor';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { objectBody } from '../json-body';
import { cursorQuery, enumQuery, parseLimit } from '../pagination';
import { pathId } from '../params';
import { expiresAtField, labelsField, MAX_NAME, requiredText } from './fields';
import { presentRegistrationToken } from '../../presenters/hosts';

function usesField(v: unknown): number {
  if (v === undefined || v === null) return 1;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_REGISTRATION_USES)
    throw invalidParameter('uses', `must be a whole number from 1 to ${MAX_REGISTRATION_USES}`);
  return v;
}

export function registrationTokenRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.post('/v1/hosts/registration-tokens', access(deps, 'POST /v1/hosts/registration-tokens'), async (ctx) => {
    const p = principalOf(ctx);
    const body = await objectBody(ctx);
    const now = new Date();
    const name = requiredText(body, 'name', MAX_NAME);
    const uses = usesField(body.uses);
    const expiresAt = expiresAtField(body, now, TOKEN_DEFAULT_TTL_MS, REGISTRATION_TOKEN_MAX_TTL_MS, '30 days');
    const labels = labelsField(body) ?? {};
    await recheck(deps, p);
    const createdBy = p.kind === 'session' ? (p.member?._id ?? null) : null;
    const { doc, token } = await createRegistrationToken(
      deps.store,
      { orgId: p.orgId, name, uses, labels, createdBy, expiresAt },
      now,
    );
    await recordAudit(deps.store, {
      orgId: p.orgId,
      type: 'registration_token.created',
      actor: actorOf(p),
      target: {
        kind: 'registration_token',
        id: doc.id,
        name,
        uses,
        labels: doc.labels,
        expiresAt: expiresAt.toISOString(),
      },
      requestId: ctx.state.requestId,
    });
    ctx.status = 201;
    ctx.body = { registrationToken: presentRegistrationToken(doc, 0, now), token };
  });

  r.get('/v1/hosts/registration-tokens', access(deps, 'GET /v1/hosts/registration-tokens'), async (ctx) => {
    const p = principalOf(ctx);
    const limit = parseLimit(ctx);
    const status = enumQuery<RegistrationTokenStatus>(ctx, 'status', REGISTRATION_TOKEN_STATUSES);
    const listing = `registration-tokens:${p.orgId}:${status ?? '*'}`;
    const cursor = cursorQuery(ctx);
    const beforeId = cursor ? deps.cursors.decode<string>(listing, cursor) : undefined;
    const now = new Date();
    const rows = await listRegistrationTokens(deps.store, p.orgId, { status, beforeId, limit: limit + 1 }, now);
    await recheck(deps, p); // a session revoked while the list was read gets 401
    const page = rows.slice(0, limit);
    ctx.body = {
      registrationTokens: page.map((t) => presentRegistrationToken(t.doc, t.used, now)),
      nextCursor: rows.length > limit ? deps.cursors.encode(listing, page[page.length - 1].doc.id) : null,
    };
  });

  r.delete(
    '/v1/hosts/registration-tokens/:tokenId',
    access(deps, 'DELETE /v1/hosts/registration-tokens/:tokenId'),
    async (ctx) => {
      const p = principalOf(ctx);
      const id = pathId(ctx, 'tokenId', 'registration token');
      await recheck(deps, p);
      if (!(await revokeRegistrationToken(deps.store, p.orgId, id)))
        throw notFound(`registration token ${JSON.stringify(id)}`);
      await recordAudit(deps.store, {
        orgId: p.orgId,
        type: 'registration_token.revoked',
        actor: actorOf(p),
        target: { kind: 'registration_token', id },
        requestId: ctx.state.requestId,
      });
      ctx.status = 204;
    },
  );

  return r;
}
