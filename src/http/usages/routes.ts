// GET /v1/dependencies/usages: where a package is used across the organization (docs/where-used.md). Each project's
// latest completed scan per ecosystem that holds the package (name compared as the ecosystem compares names), from the
// organization's where-used index (./index-cache.ts), ordered by project slug, ecosystem, version (code points), then
// project and package id; a restricted key sees its projects only. GET /v1/dependencies is untouched.
import Router from '@koa/router';
import { ApiError, invalidParameter } from '../../domain/errors';
import { usageKey, type Usage, type UsageKey } from '../../domain/usages';
import { ECOSYSTEMS } from '../../shared/types';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import { projectRestriction } from '../auth/principal';
import type { AppDeps } from '../deps';
import { cursorQuery, enumQuery, parseLimit, singleQuery } from '../pagination';
import { orgUsages } from './index-cache';

/** Longest name or version asked for (the snapshot's text values are at most 2,000 characters). */
const MAX_TEXT = 512;

function presentUsage(u: Usage) {
  return {
    project: u.source.projectId,
    projectSlug: u.source.projectSlug,
    ecosystem: u.source.ecosystem,
    name: u.item.name,
    version: u.item.version,
    direct: u.item.direct,
    path: u.item.path,
    scanId: u.source.scanId,
  };
}

const isKey = (k: unknown): k is UsageKey =>
  Array.isArray(k) && k.length === 5 && k.every((x) => typeof x === 'string');

export function usageRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.get('/v1/dependencies/usages', access(deps, 'GET /v1/dependencies/usages'), async (ctx) => {
    const p = principalOf(ctx);
    const name = singleQuery(ctx, 'name');
    if (name === undefined || name.trim() === '')
      throw new ApiError(422, 'missing_parameter', 'name: required (a package name)');
    if (name.length > MAX_TEXT) throw invalidParameter('name', `must be at most ${MAX_TEXT} characters`);
    const version = singleQuery(ctx, 'version');
    if (version !== undefined && (version === '' || version.length > MAX_TEXT))
      throw invalidParameter('version', `must be 1 to ${MAX_TEXT} characters`);
    const ecosystem = enumQuery(ctx, 'ecosystem', ECOSYSTEMS);
    const limit = parseLimit(ctx);
    const cursor = cursorQuery(ctx);
    const restriction = projectRestriction(p);
    const listing = `usages:${p.orgId}:${JSON.stringify([name, version ?? null, ecosystem ?? null, restriction])}`;
    const after = cursor ? deps.cursors.decode<unknown>(listing, cursor) : undefined;
    if (after !== undefined && !isKey(after)) throw new ApiError(422, 'invalid_cursor', 'cursor: invalid or expired');
    const index = await orgUsages(deps.store, p.orgId);
    const page = index.query({
      name,
      version,
      ecosystem,
      ...(restriction ? { projectIds: restriction } : {}),
      after,
      limit,
    });
    await recheck(deps, p); // after the load, just before the answer
    const last = page.usages[page.usages.length - 1];
    ctx.body = {
      usages: page.usages.map(presentUsage),
      nextCursor: page.next && last ? deps.cursors.encode(listing, usageKey(last)) : null,
    };
  });

  return r;
}
