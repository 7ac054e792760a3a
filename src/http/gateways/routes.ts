// Gateways: enrollment (the gateway's one-time enrollment token), approval within the requested scope
// and revocation (session, Admin or Owner), heartbeats (the gateway's own credential), the inventory (gateways:read).
// The gateway credential is in the enrollment's 201 once and nowhere else (stored as its SHA-256).
import Router from '@koa/router';
import { ApiError, invalidParameter, notFound } from '../../domain/errors';
import { cidrWithin, MAX_SCOPE_CIDRS, parseCidr } from '../../domain/hosts/cidr';
import { DEFAULT_WINDOWS, GATEWAY_STATUSES, gatewayStatus, type GatewayStatus } from '../../domain/hosts/status';
import { recordAudit } from '../../storage/audit';
import {
  approveGateway,
  enroll,
  findGateway,
  listGateways,
  recordGatewayHeartbeat,
  revokeGateway,
  type GatewayPosition,
} from '../../storage/gateways';
import { actorOf } from '../audit/actor';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { cidrsField, MAX_NAME, MAX_SHORT_TEXT, optionalText, requiredText } from '../hosts/fields';
import { objectBody } from '../json-body';
import { cursorQuery, enumQuery, parseLimit } from '../pagination';
import { pathId } from '../params';
import { presentGateway } from '../../presenters/gateways';

export function gatewayRoutes(deps: AppDeps): Router {
  const r = new Router();
  const windows = () => deps.fleet ?? DEFAULT_WINDOWS;

  r.post('/v1/gateways/enrollments', access(deps, 'POST /v1/gateways/enrollments'), async (ctx) => {
    const p = principalOf(ctx);
    if (p.kind !== 'enrollment_token') return; // the matrix admits enrollment tokens only
    const body = await objectBody(ctx);
    const name = body.name === undefined || body.name === null ? p.token.name : requiredText(body, 'name', MAX_NAME);
    const version = requiredText(body, 'version', MAX_SHORT_TEXT);
    const requestedScope = cidrsField(body, 'networkScope', MAX_SCOPE_CIDRS).map((c) => c.text);
    await recheck(deps, p); // a token revoked meanwhile enrolls nothing
    const now = new Date();
    const enrolled = await enroll(deps.store, p.token, { name, version, requestedScope }, now);
    if (!enrolled) throw new ApiError(401, 'invalid_token', 'Authorization: enrollment token was used');
    const { gateway, credential } = enrolled;
    await recordAudit(deps.store, {
      orgId: p.orgId,
      type: 'gateway.enrolled',
      actor: actorOf(p),
      target: { kind: 'gateway', id: gateway._id, name, requestedScope },
      requestId: ctx.state.requestId,
    });
    ctx.status = 201;
    ctx.body = { gateway: presentGateway(gateway, windows(), now), credential };
  });

  r.post('/v1/gateways/:gatewayId/approval', access(deps, 'POST /v1/gateways/:gatewayId/approval'), async (ctx) => {
    const p = principalOf(ctx);
    const id = pathId(ctx, 'gatewayId', 'gateway');
    const g = await findGateway(deps.store, p.orgId, id);
    if (!g) throw notFound(`gateway ${JSON.stringify(id)}`);
    const scope = cidrsField(await objectBody(ctx), 'networkScope', MAX_SCOPE_CIDRS);
    const status = gatewayStatus(g, windows(), new Date());
    if (status !== 'pending')
      throw new ApiError(409, 'invalid_state', `gateway ${id} is ${status}; only a pending gateway can be approved`);
    const requested = g.requestedScope.map((c) => parseCidr(c));
    const outside = scope.find((c) => !requested.some((q) => cidrWithin(c, q)));
    if (outside)
      throw invalidParameter(
        'networkScope',
        `${outside.text} is not within a CIDR the gateway requested (${g.requestedScope.join(', ')})`,
      );
    await recheck(deps, p);
    const memberId = p.kind === 'session' ? (p.member?._id ?? null) : null;
    const now = new Date();
    const approved = await approveGateway(
      deps.store,
      g,
      scope.map((c) => c.text),
      memberId,
      now,
    );
    if (!approved) throw new ApiError(409, 'invalid_state', `gateway ${id} was approved by another request`);
    await recordAudit(deps.store, {
      orgId: p.orgId,
      type: 'gateway.approved',
      actor: actorOf(p),
      target: { kind: 'gateway', id, networkScope: approved.networkScope },
      requestId: ctx.state.requestId,
    });
    ctx.body = presentGateway(approved, windows(), now);
  });

  r.post('/v1/gateways/:gatewayId/heartbeats', access(deps, 'POST /v1/gateways/:gatewayId/heartbeats'), async (ctx) => {
    const p = principalOf(ctx);
    if (p.kind !== 'gateway') return; // the matrix admits gateway credentials only
    const id = pathId(ctx, 'gatewayId', 'gateway');
    if (id !== p.gateway._id) throw notFound(`gateway ${JSON.stringify(id)}`); // a gateway heartbeats for itself only
    const version = optionalText(await objectBody(ctx), 'version', MAX_SHORT_TEXT);
    await recheck(deps, p); // revoked meanwhile: 401, and the heartbeat is not recorded
    const now = new Date();
    const g = await recordGatewayHeartbeat(deps.store, p.gateway, version ?? undefined, now);
    ctx.body = { gateway: presentGateway(g, windows(), now) };
  });

  r.get('/v1/gateways', access(deps, 'GET /v1/gateways'), async (ctx) => {
    const p = principalOf(ctx);
    const limit = parseLimit(ctx);
    const status = enumQuery<GatewayStatus>(ctx, 'status', GATEWAY_STATUSES);
    const listing = `gateways:${p.orgId}:${status ?? '*'}`;
    const cursor = cursorQuery(ctx);
    const after = cursor ? deps.cursors.decode<GatewayPosition>(listing, cursor) : undefined;
    const now = new Date();
    const docs = await listGateways(deps.store, p.orgId, { status, after, limit: limit + 1 }, windows(), now);
    await recheck(deps, p); // a credential revoked while the list was read gets 401
    const page = docs.slice(0, limit);
    const last = page[page.length - 1];
    ctx.body = {
      gateways: page.map((g) => presentGateway(g, windows(), now)),
      nextCursor:
        docs.length > limit ? deps.cursors.encode(listing, [last.name, last._id] satisfies GatewayPosition) : null,
    };
  });

  r.delete('/v1/gateways/:gatewayId', access(deps, 'DELETE /v1/gateways/:gatewayId'), async (ctx) => {
    const p = principalOf(ctx);
    const id = pathId(ctx, 'gatewayId', 'gateway');
    await recheck(deps, p);
    if (!(await revokeGateway(deps.store, p.orgId, id))) throw notFound(`gateway ${JSON.stringify(id)}`);
    await recordAudit(deps.store, {
      orgId: p.orgId,
      type: 'gateway.revoked',
      actor: actorOf(p),
      target: { kind: 'gateway', id },
      requestId: ctx.state.requestId,
    });
    ctx.status = 204;
  });

  return r;
}
