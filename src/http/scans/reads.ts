// Module and attribution reads of every scan (docs/api.md): paged scans from their attributions stored
// apart (storage/attributions.ts), inline v2 scans from the attributions inside their findings, v1 scans empty.
// A scan not completed yet has no findings: the lists are empty and a path is 404 not_found (decided here, described
// in the OpenAPI document). Unknown finding or attribution ids: 404 not_found.
import Router from '@koa/router';
import { attributionInScope, hasScope, packageIdOf, pathItem, type Scope } from '../../domain/attribution/views';
import { notFound } from '../../domain/errors';
import { readAttributionPath, readPackageAttributions } from '../../storage/attributions';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { offsetOf, VIEWS } from '../findings/routes';
import { findingById, inlineListItems, isPaged, moduleCountsOf, modulesOf, teamOf } from '../findings/scope';
import { pathId } from '../params';
import { cursorQuery, enumQuery, parseLimit, singleQuery } from '../pagination';
import { reachableScan } from './routes';

export function scanReadRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.get('/v1/scans/:scanId/modules', access(deps, 'GET /v1/scans/:scanId/modules'), async (ctx) => {
    const limit = parseLimit(ctx);
    const scan = await reachableScan(deps, ctx, pathId(ctx, 'scanId', 'scan'));
    const listing = `modules:${scan._id}`;
    const offset = offsetOf(deps, listing, cursorQuery(ctx));
    const modules = await modulesOf(deps.store, scan); // [] for v1 and unfinished scans
    const shown = modules.slice(offset, offset + limit);
    const counts = shown.length ? await moduleCountsOf(deps.store, scan, modules) : [];
    await recheck(deps, principalOf(ctx)); // after the load, just before the answer
    ctx.body = {
      modules: shown.map((m, i) => ({ ...m, counts: counts[offset + i] })),
      nextCursor: offset + limit < modules.length ? deps.cursors.encode(listing, offset + limit) : null,
    };
  });

  r.get(
    '/v1/scans/:scanId/findings/:findingId/attributions',
    access(deps, 'GET /v1/scans/:scanId/findings/:findingId/attributions'),
    async (ctx) => {
      const scope: Scope = {
        view: enumQuery(ctx, 'attribution', VIEWS) ?? 'affected',
        module: singleQuery(ctx, 'module'),
        team: singleQuery(ctx, 'team'),
      };
      const limit = parseLimit(ctx);
      const scan = await reachableScan(deps, ctx, pathId(ctx, 'scanId', 'scan'));
      const findingId = pathId(ctx, 'findingId', 'finding');
      const listing = `attributions:${scan._id}:${findingId}:${JSON.stringify([scope.view, scope.module ?? null, scope.team ?? null])}`;
      const offset = offsetOf(deps, listing, cursorQuery(ctx));
      if (scan.status !== 'completed') {
        await recheck(deps, principalOf(ctx));
        ctx.body = { attributions: [], nextCursor: null };
        return;
      }
      const finding = await findingById(deps.store, scan, findingId);
      const items = isPaged(scan)
        ? (await readPackageAttributions(deps.store, scan._id, packageIdOf(finding))).items
        : inlineListItems(finding);
      const team = teamOf(await modulesOf(deps.store, scan));
      const selected = hasScope(scope) ? items.filter((a) => attributionInScope(a, scope, team)) : items;
      await recheck(deps, principalOf(ctx)); // after the load, just before the answer
      ctx.body = {
        attributions: selected.slice(offset, offset + limit),
        nextCursor: offset + limit < selected.length ? deps.cursors.encode(listing, offset + limit) : null,
      };
    },
  );

  r.get(
    '/v1/scans/:scanId/findings/:findingId/attributions/:attributionId/path',
    access(deps, 'GET /v1/scans/:scanId/findings/:findingId/attributions/:attributionId/path'),
    async (ctx) => {
      const scan = await reachableScan(deps, ctx, pathId(ctx, 'scanId', 'scan'));
      const findingId = pathId(ctx, 'findingId', 'finding');
      const attributionId = pathId(ctx, 'attributionId', 'attribution');
      const missing = () => notFound(`attribution ${attributionId}`);
      if (scan.status !== 'completed') throw missing();
      const finding = await findingById(deps.store, scan, findingId);
      let body;
      if (isPaged(scan)) {
        const pkg = await readPackageAttributions(deps.store, scan._id, packageIdOf(finding));
        const at = pkg.positions.get(attributionId);
        if (at === undefined) throw missing();
        body = await readAttributionPath(deps.store, scan._id, packageIdOf(finding), pkg, at);
      } else {
        const at = inlineListItems(finding).findIndex((a) => a.id === attributionId);
        if (at < 0) throw missing();
        body = pathItem(finding.attributions[at]);
      }
      await recheck(deps, principalOf(ctx)); // after the load, just before the answer
      ctx.body = body;
    },
  );

  return r;
}
