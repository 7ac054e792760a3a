import Router from '@koa/router';
import { LRUCache } from 'lru-cache';
import type { ScanModule } from '../../domain/attribution/module-order';
import { SEVERITIES, type Finding } from '../../domain/types';
import { readResults } from '../../storage/results';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { pathId } from '../params';
import { cursorQuery, enumQuery, parseLimit, singleQuery } from '../pagination';
import { reachableScan } from '../scans/routes';
import { countsOf, filterKey, inScope, matchesFilters, type FindingFilter } from './filter';

// The module/team/view scope of a scan's findings, kept per scan and scope: results never change once published,
// and paging through one scope (or switching severity filters) then costs no walk over every attribution. Scopes hang
// off the cached findings array itself, so they go when its byte-bounded cache (storage/results.ts) lets it go; a
// scope holds only references, a few per scan.
const scopes = new WeakMap<Finding[], LRUCache<string, Finding[]>>();
const SCOPES_PER_SCAN = 16;

function scopedFindings(all: Finding[], filter: FindingFilter, modules: ScanModule[]): Finding[] {
  if (filter.module === undefined && filter.team === undefined) return all;
  const key = JSON.stringify([filter.attribution, filter.module ?? null, filter.team ?? null]);
  let ofScan = scopes.get(all);
  if (!ofScan) scopes.set(all, (ofScan = new LRUCache<string, Finding[]>({ max: SCOPES_PER_SCAN })));
  let hit = ofScan.get(key);
  if (!hit) {
    const teams = { teams: new Map(modules.map((m) => [m.path, m.teamName ?? null])) };
    hit = all.filter((f) => inScope(f, filter, teams));
    ofScan.set(key, hit);
  }
  return hit;
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
      attribution: enumQuery(ctx, 'attribution', ['affected', 'introduced'] as const) ?? 'affected',
    };
    enumQuery(ctx, 'details', ['summary'] as const);
    const limit = parseLimit(ctx);
    const scan = await reachableScan(deps, ctx, pathId(ctx, 'scanId', 'scan'));
    const listing = `findings:${scan._id}:${filterKey(filter)}`;
    const cursor = cursorQuery(ctx);
    const offset = cursor ? deps.cursors.decode<number>(listing, cursor) : 0;
    if (scan.status !== 'completed') {
      await recheck(deps, principalOf(ctx)); // after the load, just before the answer
      ctx.body = { findings: [], nextCursor: null, counts: null };
      return;
    }
    const all = await readResults(deps.store, scan._id, scan.resultChunks ?? 1);
    // v1 scans have no modules: every module or team label is unknown there, so the list is empty (not an error).
    const scoped = scopedFindings(all, filter, scan.modules ?? []);
    const selected = scoped.filter((f) => matchesFilters(f, filter));
    const page = selected.slice(offset, offset + limit);
    await recheck(deps, principalOf(ctx)); // after the load, just before the answer
    ctx.body = {
      findings: page,
      nextCursor: offset + limit < selected.length ? deps.cursors.encode(listing, offset + limit) : null,
      counts: countsOf(scoped),
    };
  });
  return r;
}
