import Router from '@koa/router';
import { SEVERITIES } from '../../shared/types';
import { presentFinding } from '../../presenters/findings';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { pathId } from '../params';
import { cursorQuery, enumQuery, parseLimit, singleQuery } from '../pagination';
import { reachableScan } from '../scans/routes';
import { findingAnalysis, pairAnalysesCached } from './analyses-cache';
import { currentIntel } from '../intel';
import { countsOf, filterKey, matchesFilters, type FindingFilter } from './filter';
import { findingsInScope, isPaged } from './scope';

export const VIEWS = ['affected', 'introduced'] as const;

/** A cursor's position in a list read by offset (signed: only a position this service wrote comes back). */
export function offsetOf(deps: AppDeps, listing: string, cursor: string | undefined): number {
  return cursor ? deps.cursors.decode<number>(listing, cursor) : 0;
}

export function findingRoutes(deps: AppDeps): Router {
  const r = new Router();
  r.get('/v1/scans/:scanId/findings', access(deps, 'GET /v1/scans/:scanId/findings'), async (ctx) => {
    const filter: FindingFilter = {
      severity: enumQuery(ctx, 'severity', SEVERITIES),
      severityMode: enumQuery(ctx, 'severityMode', ['at_least', 'exact'] as const) ?? 'at_least',
      suppressed: enumQuery(ctx, 'suppressed', ['false', 'true', 'all'] as const) ?? 'false',
      module: singleQuery(ctx, 'module'),
      team: singleQuery(ctx, 'team'),
      attribution: enumQuery(ctx, 'attribution', VIEWS) ?? 'affected',
    };
    const summary = enumQuery(ctx, 'details', ['summary'] as const) === 'summary';
    const limit = parseLimit(ctx);
    const scan = await reachableScan(deps, ctx, pathId(ctx, 'scanId', 'scan'));
    const listing = `findings:${scan._id}:${filterKey(filter)}`;
    const offset = offsetOf(deps, listing, cursorQuery(ctx));
    if (scan.status !== 'completed') {
      await recheck(deps, principalOf(ctx)); // after the load, just before the answer
      ctx.body = { findings: [], nextCursor: null, counts: null };
      return;
    }
    // v1 scans have no modules: every module or team label is unknown there, so the list is empty (not an error).
    // The alerts' current analyses are read beside the findings (one read by _id when the pair's are kept).
    const [scoped, analyses, intel] = await Promise.all([
      findingsInScope(deps.store, scan, {
        view: filter.attribution,
        module: filter.module,
        team: filter.team,
      }),
      pairAnalysesCached(deps.store, scan),
      currentIntel(deps.store),
    ]);
    const now = new Date();
    const selected: number[] = [];
    scoped.findings.forEach((f, i) => {
      if (matchesFilters(f, filter)) selected.push(i);
    });
    // Paged scans' findings always come in the light shape (their attributions are read apart); details=summary
    // asks for it on any scan. attributionCount: the finding's attributions in the view and module/team scope.
    // `analysis`: the finding's alert's analysis of today (additive); `suppressed` and the counts stay as processed.
    const light = summary || isPaged(scan);
    const page = selected.slice(offset, offset + limit).map((i) => {
      const f = scoped.findings[i];
      return presentFinding(
        f,
        light ? { attributionCount: scoped.attributionCounts[i] } : undefined,
        { analysis: findingAnalysis(analyses, f.alertId, now) },
        intel,
      );
    });
    await recheck(deps, principalOf(ctx)); // after the load, just before the answer
    ctx.body = {
      findings: page,
      nextCursor: offset + limit < selected.length ? deps.cursors.encode(listing, offset + limit) : null,
      counts: countsOf(scoped.findings),
    };
  });
  return r;
}
