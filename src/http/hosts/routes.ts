// Hosts: attestation (the sidecar's registration token), heartbeats (the host's own credential),
// the inventory (hosts:read) and revocation (session, Admin or Owner). A host credential is in the attestation's 201
// once and nowhere else (stored as its SHA-256); revoking the host refuses it from that moment.
import Router from '@koa/router';
import { ApiError, invalidParameter, notFound } from '../../domain/errors';
import { parseLabelFilter, MAX_LABELS } from '../../domain/hosts/labels';
import {
  DEFAULT_WINDOWS,
  gatewayStatus,
  HOST_STATUSES,
  nextHeartbeatSeconds,
  type HostStatus,
} from '../../domain/hosts/status';
import { recordAudit } from '../../storage/audit';
import { findGateway } from '../../storage/gateways';
import {
  attest,
  listHosts,
  recordHeartbeat,
  revokeHost,
  type HeartbeatUpdate,
  type HostPosition,
} from '../../storage/hosts';
import { actorOf } from '../audit/actor';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { objectBody } from '../json-body';
import { cursorQuery, enumQuery, parseLimit } from '../pagination';
import { pathId, rejectNulQuery } from '../params';
import { labelsField, MAX_SHORT_TEXT, optionalText, requiredText } from './fields';
import { presentHost } from '../../presenters/hosts';
import { Timing } from '../timing';

export const HOST_CREDENTIAL_HEADER = 'X-Svc-Host-Credential';
const CONNECTIVITY = ['direct', 'gateway'] as const;

/** `label=key=value`, repeatable: every one must match. Malformed: 422 invalid_parameter. Sorted, duplicates folded. */
function labelFilters(raw: string | string[] | undefined): string[] {
  const given = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  if (given.length > MAX_LABELS) throw invalidParameter('label', `at most ${MAX_LABELS} label filters`);
  const out = new Set<string>();
  for (const g of given) {
    const pair = parseLabelFilter(rejectNulQuery('label', g));
    if (!pair)
      throw invalidParameter(
        'label',
        `${JSON.stringify(g.slice(0, 300))} is not key=value (a label key of 1 to 63 characters of A-Z a-z 0-9 . _ / -, then =, then a value of at most 255 characters)`,
      );
    out.add(pair);
  }
  return [...out].sort();
}

export function hostRoutes(deps: AppDeps): Router {
  const r = new Router();
  const windows = () => deps.fleet ?? DEFAULT_WINDOWS;

  r.post('/v1/hosts/attestations', access(deps, 'POST /v1/hosts/attestations'), async (ctx) => {
    const p = principalOf(ctx);
    if (p.kind !== 'registration_token') return; // the matrix admits registration tokens only
    const body = await objectBody(ctx);
    const request = {
      hostname: requiredText(body, 'hostname', 253),
      machineId: requiredText(body, 'machineId', 200),
      labels: labelsField(body) ?? {},
      os: optionalText(body, 'os', MAX_SHORT_TEXT),
      arch: optionalText(body, 'arch', MAX_SHORT_TEXT),
      agentVersion: optionalText(body, 'agentVersion', MAX_SHORT_TEXT),
      presented: ctx.get(HOST_CREDENTIAL_HEADER) || undefined,
    };
    await recheck(deps, p); // a token revoked meanwhile registers nothing
    const now = new Date();
    const result = await attest(deps.store, p.token, request, windows(), now);
    if (result.outcome === 'conflict') throw new ApiError(409, 'invalid_state', result.message);
    if (result.outcome === 'exhausted')
      throw new ApiError(401, 'invalid_token', 'Authorization: registration token has no uses left');
    const { host, credential, outcome } = result;
    await recordAudit(deps.store, {
      orgId: p.orgId,
      type: outcome === 'registered' ? 'host.registered' : 'host.reattested',
      actor: actorOf(p),
      target: { kind: 'host', id: host._id, hostname: host.hostname, registrationTokenId: p.token.id },
      requestId: ctx.state.requestId,
    });
    ctx.status = 201;
    ctx.body = { host: presentHost(host, windows(), now), credential };
  });

  r.post('/v1/hosts/:hostId/heartbeats', access(deps, 'POST /v1/hosts/:hostId/heartbeats'), async (ctx) => {
    const p = principalOf(ctx);
    if (p.kind !== 'host') return; // the matrix admits host credentials only
    const timing = new Timing(ctx.state.startedAt);
    timing.mark('auth'); // the credential and its host, read
    const id = pathId(ctx, 'hostId', 'host');
    if (id !== p.host._id) throw notFound(`host ${JSON.stringify(id)}`); // a host heartbeats for itself only
    const body = await objectBody(ctx);
    const update: HeartbeatUpdate = { labels: labelsField(body) };
    if (body.agentVersion !== undefined) update.agentVersion = optionalText(body, 'agentVersion', MAX_SHORT_TEXT);
    const connectivity = body.connectivity;
    if (
      connectivity !== undefined &&
      connectivity !== null &&
      !(CONNECTIVITY as readonly unknown[]).includes(connectivity)
    )
      throw invalidParameter('connectivity', 'must be "direct" or "gateway"');
    const gatewayId = body.gatewayId ?? undefined;
    if (connectivity === 'gateway') {
      const g =
        typeof gatewayId === 'string' && gatewayId.length <= 100
          ? await findGateway(deps.store, p.orgId, gatewayId)
          : null;
      if (!g || gatewayStatus(g, windows(), new Date()) !== 'active')
        throw invalidParameter(
          'gatewayId',
          'connectivity "gateway" requires the id of an active gateway of the organization',
        );
      Object.assign(update, { connectivity, gatewayId: g._id });
    } else {
      if (gatewayId !== undefined) throw invalidParameter('gatewayId', 'only with connectivity "gateway"');
      if (connectivity === 'direct') update.connectivity = 'direct';
    }
    timing.mark('body');
    const now = new Date();
    // the write is conditional on the credential being current: the recheck of a revocation meanwhile, in one step
    const host = await recordHeartbeat(deps.store, p.host, p.credential.gen, update, now);
    timing.mark('write');
    if (!host) {
      await recheck(deps, p); // says why (revoked, or replaced by a re-attestation)
      throw new ApiError(401, 'invalid_token', 'Authorization: host credential is no longer valid');
    }
    ctx.body = {
      host: presentHost(host, windows(), now),
      nextHeartbeatSeconds: nextHeartbeatSeconds(windows().hostExpiryMs),
    };
    timing.write(ctx);
  });

  r.get('/v1/hosts', access(deps, 'GET /v1/hosts'), async (ctx) => {
    const p = principalOf(ctx);
    const limit = parseLimit(ctx);
    const status = enumQuery<HostStatus>(ctx, 'status', HOST_STATUSES);
    const labels = labelFilters(ctx.query.label);
    const listing = `hosts:${p.orgId}:${JSON.stringify([status ?? null, labels])}`;
    const cursor = cursorQuery(ctx);
    const after = cursor ? deps.cursors.decode<HostPosition>(listing, cursor) : undefined;
    const now = new Date();
    const docs = await listHosts(deps.store, p.orgId, { status, labels, after, limit: limit + 1 }, windows(), now);
    await recheck(deps, p); // a credential revoked while the list was read gets 401
    const page = docs.slice(0, limit);
    const last = page[page.length - 1];
    ctx.body = {
      hosts: page.map((h) => presentHost(h, windows(), now)),
      nextCursor:
        docs.length > limit ? deps.cursors.encode(listing, [last.hostname, last._id] satisfies HostPosition) : null,
    };
  });

  r.delete('/v1/hosts/:hostId', access(deps, 'DELETE /v1/hosts/:hostId'), async (ctx) => {
    const p = principalOf(ctx);
    const id = pathId(ctx, 'hostId', 'host');
    await recheck(deps, p);
    if (!(await revokeHost(deps.store, p.orgId, id))) throw notFound(`host ${JSON.stringify(id)}`);
    await recordAudit(deps.store, {
      orgId: p.orgId,
      type: 'host.revoked',
      actor: actorOf(p),
      target: { kind: 'host', id },
      requestId: ctx.state.requestId,
    });
    ctx.status = 204;
  });

  return r;
}
