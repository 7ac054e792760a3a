// API keys: session-only, Admin or Owner. The secret is in the 201 response once and nowhere else.
import Router from '@koa/router';
import { ApiError, invalidParameter, notFound } from '../../domain/errors';
import { createApiKey, keyStatus, listApiKeys, revokeApiKey, type KeyStatus } from '../../storage/api-keys';
import type { ApiKeyDoc } from '../../storage/documents/accounts';
import { findProjectsByIds } from '../../storage/projects';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import { recordAudit } from '../../storage/audit';
import { actorOf } from '../audit/actor';
import { isScope, ORG_WIDE_SCOPES } from '../auth/principal';
import type { AppDeps } from '../deps';
import { pathId } from '../params';
import { readJson } from '../middleware/body';
import { cursorQuery, enumQuery, parseLimit } from '../pagination';

const missing = (field: string, what = 'is required') => new ApiError(422, 'missing_parameter', `${field}: ${what}`);

export function presentApiKey(k: ApiKeyDoc, now = new Date()) {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    projects: k.projects,
    status: keyStatus(k, now),
    createdBy: k.createdBy,
    createdAt: k.createdAt.toISOString(),
    expiresAt: iso(k.expiresAt),
    lastUsedAt: iso(k.lastUsedAt),
    revokedAt: iso(k.revokedAt),
  };
}

export function apiKeyRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.post('/v1/api-keys', access(deps, 'POST /v1/api-keys'), async (ctx) => {
    const p = principalOf(ctx);
    const tooLarge = new ApiError(413, 'invalid_parameter', 'body: too large');
    const { value } = await readJson(ctx, 64 * 1024, tooLarge, (what) => invalidParameter('body', what));
    if (!value || typeof value !== 'object' || Array.isArray(value))
      throw invalidParameter('body', 'must be a JSON object');
    const body = value as Record<string, unknown>;
    if (typeof body.name !== 'string' || body.name.trim() === '') throw missing('name', 'must be a non-empty string');
    if (body.name.length > 200) throw invalidParameter('name', 'at most 200 characters');
    if (!Array.isArray(body.scopes) || body.scopes.length === 0) throw missing('scopes', 'must be a non-empty array');
    const bad = body.scopes.find((s) => !isScope(s));
    if (bad !== undefined) throw new ApiError(422, 'invalid_scope', `scopes: unknown scope ${JSON.stringify(bad)}`);
    let projects: 'all' | string[];
    if (body.projects === undefined) throw missing('projects', 'must be "all" or a non-empty array of project ids');
    if (body.projects === 'all') projects = 'all';
    else if (
      Array.isArray(body.projects) &&
      body.projects.length > 0 &&
      body.projects.every((x) => typeof x === 'string')
    ) {
      const orgWide = (body.scopes as string[]).find((s) => (ORG_WIDE_SCOPES as readonly string[]).includes(s));
      if (orgWide)
        throw new ApiError(
          422,
          'invalid_scope',
          `scopes: ${orgWide} covers the whole organization; a key restricted to projects cannot hold it (use projects "all")`,
        );
      projects = [...new Set(body.projects as string[])];
      const found = await findProjectsByIds(deps.store, p.orgId, projects);
      if (found.length !== projects.length) {
        const unknown = projects.find((id) => !found.some((f) => f._id === id));
        throw new ApiError(422, 'unknown_project', `projects: unknown project ${JSON.stringify(unknown)}`);
      }
    } else throw invalidParameter('projects', 'must be "all" or a non-empty array of project ids');
    let expiresAt: Date | null = null;
    if (body.expiresAt !== undefined && body.expiresAt !== null) {
      const t = typeof body.expiresAt === 'string' ? Date.parse(body.expiresAt) : NaN;
      if (!Number.isFinite(t)) throw invalidParameter('expiresAt', 'must be an ISO 8601 timestamp');
      if (t <= Date.now()) throw invalidParameter('expiresAt', 'must be in the future');
      expiresAt = new Date(t);
    }
    await recheck(deps, p);
    const createdBy = p.kind === 'session' ? (p.member?._id ?? null) : null;
    const scopes = [...new Set(body.scopes as string[])];
    const { doc, secret } = await createApiKey(deps.store, {
      orgId: p.orgId,
      name: body.name,
      scopes,
      projects,
      createdBy,
      expiresAt,
    });
    await recordAudit(deps.store, {
      orgId: p.orgId,
      type: 'api_key.created',
      actor: actorOf(p),
      target: { kind: 'api_key', id: doc.id, name: doc.name, scopes: doc.scopes, projects: doc.projects },
      requestId: ctx.state.requestId,
    });
    ctx.status = 201;
    ctx.body = { apiKey: presentApiKey(doc), secret };
  });

  r.get('/v1/api-keys', access(deps, 'GET /v1/api-keys'), async (ctx) => {
    const p = principalOf(ctx);
    const limit = parseLimit(ctx);
    const status = enumQuery<KeyStatus>(ctx, 'status', ['active', 'expired', 'revoked']);
    const listing = `api-keys:${p.orgId}:${status ?? '*'}`;
    const cursor = cursorQuery(ctx);
    const beforeId = cursor ? deps.cursors.decode<string>(listing, cursor) : undefined;
    const docs = await listApiKeys(deps.store, p.orgId, { status, beforeId, limit: limit + 1 });
    await recheck(deps, p); // a session revoked while the list was read gets 401
    const page = docs.slice(0, limit);
    ctx.body = {
      apiKeys: page.map((k) => presentApiKey(k)),
      nextCursor: docs.length > limit ? deps.cursors.encode(listing, page[page.length - 1].id) : null,
    };
  });

  r.delete('/v1/api-keys/:keyId', access(deps, 'DELETE /v1/api-keys/:keyId'), async (ctx) => {
    const p = principalOf(ctx);
    await recheck(deps, p);
    const key = await revokeApiKey(deps.store, p.orgId, pathId(ctx, 'keyId', 'API key'));
    if (!key) throw notFound(`API key ${ctx.params.keyId}`);
    await recordAudit(deps.store, {
      orgId: p.orgId,
      type: 'api_key.revoked',
      actor: actorOf(p),
      // named, so that the trail reads without the key list
      target: { kind: 'api_key', id: key.id, name: key.name },
      requestId: ctx.state.requestId,
    });
    ctx.status = 204;
  });

  return r;
}
