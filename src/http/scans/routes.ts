import Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError, invalidParameter, notFound } from '../../domain/errors';
import type { ScanDoc } from '../../storage/documents/scans';
import { findProject } from '../../storage/projects';
import { getScan, listScans, type ScanListPosition } from '../../storage/scans';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import { canReachProject, projectRestriction } from '../auth/principal';
import type { AppDeps } from '../deps';
import { pathId } from '../params';
import { cursorQuery, enumQuery, parseLimit, singleQuery } from '../pagination';
import { withModules } from './modules';
import { presentScan } from '../../presenters/scans';
import { uploadHandler } from './inline-upload';
import { Timing } from '../timing';

const STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
const MAX_WAIT_SECONDS = 60;

/** A scan the caller may see (with its modules), or 404 exactly as for a scan that does not exist. */
export async function reachableScan(deps: AppDeps, ctx: Context, scanId: string): Promise<ScanDoc> {
  const p = principalOf(ctx);
  const scan = await getScan(deps.store, scanId);
  if (!scan || scan.orgId !== p.orgId || !canReachProject(p, scan.projectId)) throw notFound(`scan ${scanId}`);
  return withModules(deps.store, scan);
}

/** `?wait=S`: whole seconds, 0 to 60; absent is 0. */
function waitQuery(ctx: Context): number {
  const raw = singleQuery(ctx, 'wait');
  if (raw === undefined) return 0;
  const n = /^\d{1,2}$/.test(raw) ? Number(raw) : NaN;
  if (!(n <= MAX_WAIT_SECONDS))
    throw invalidParameter('wait', `must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}`);
  return n;
}

export function scanRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.post('/v1/scans/dependency-snapshots', access(deps, 'POST /v1/scans/dependency-snapshots'), uploadHandler(deps));

  r.get('/v1/scans', access(deps, 'GET /v1/scans'), async (ctx) => {
    const timing = new Timing(ctx.state.startedAt);
    timing.mark('auth');
    const p = principalOf(ctx);
    const limit = parseLimit(ctx);
    const status = enumQuery(ctx, 'status', STATUSES);
    const projectRef = singleQuery(ctx, 'project');
    const restriction = projectRestriction(p);
    let projectIds: string[] | undefined = restriction ?? undefined;
    if (projectRef !== undefined) {
      const project = await findProject(deps.store, p.orgId, projectRef);
      if (!project || (restriction && !restriction.includes(project._id))) {
        throw new ApiError(422, 'unknown_project', `project: "${projectRef}" does not exist or is out of reach`);
      }
      projectIds = [project._id];
    }
    // v2: positions hold the last key shown (startedAt, id); cursors of the earlier bucket order are refused (422).
    const listing = `scans2:${p.orgId}:${projectIds?.join(',') ?? '*'}:${status ?? '*'}`;
    const cursor = cursorQuery(ctx);
    const after = cursor ? deps.cursors.decode<ScanListPosition>(listing, cursor) : undefined;
    // A bounded read whatever the organization's history (storage/scans.ts): a page may end early, even empty, with
    // a cursor to where the reading stopped.
    const page = await listScans(deps.store, { orgId: p.orgId, projectIds, status, after, limit });
    const shown = await Promise.all(page.scans.map((s) => withModules(deps.store, s)));
    timing.mark('list');
    await recheck(deps, p); // after the load, not beside it: a credential revoked while it ran gets 401
    timing.mark('recheck');
    timing.write(ctx);
    ctx.body = {
      scans: shown.map(presentScan),
      nextCursor: page.next ? deps.cursors.encode(listing, page.next) : null,
    };
  });

  r.get('/v1/scans/:scanId', access(deps, 'GET /v1/scans/:scanId'), async (ctx) => {
    const wait = waitQuery(ctx);
    let scan = await reachableScan(deps, ctx, pathId(ctx, 'scanId', 'scan'));
    if (wait > 0 && deps.waiter && (scan.status === 'queued' || scan.status === 'running')) {
      // Held until the scan is terminal or `wait` seconds pass, then answered as it is then.
      const seen = await deps.waiter.until(scan._id, wait * 1000);
      // The reload (unless the waiter read the scan terminal) and the credential's recheck, both after the wait and
      // side by side.
      [scan] = await Promise.all([
        seen ? withModules(deps.store, seen) : reachableScan(deps, ctx, scan._id),
        recheck(deps, principalOf(ctx)),
      ]);
    } else await recheck(deps, principalOf(ctx)); // after the load, just before the answer
    ctx.body = presentScan(scan);
  });

  return r;
}
