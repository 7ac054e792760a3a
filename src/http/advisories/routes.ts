// GET /v1/advisories/{advisoryId}: one advisory by any id of its alias group (case-insensitive), as stored in the
// current generation, with the organization's open alerts of it grouped by project (docs/where-used.md). The advisory
// from ./catalog-cache.ts, the alerts from the organization's alert index (src/http/alerts/index-cache.ts), KEV and
// EPSS from the intelligence feeds in force. A restricted key sees its projects only; 404 when no stored advisory has
// the id and no alert in reach names it.
import Router from '@koa/router';
import { advisoryFromAlerts, advisoryView, alertsByProject, type ProjectKey } from '../../domain/advisory-page';
import type { AlertView } from '../../domain/alerts/query';
import { ApiError, notFound } from '../../domain/errors';
import { projectSlugs } from '../../storage/usages';
import { orgAlerts } from '../alerts/index-cache';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import { projectRestriction } from '../auth/principal';
import type { AppDeps } from '../deps';
import { currentIntel } from '../intel';
import { cursorQuery, parseLimit } from '../pagination';
import { pathId } from '../params';
import { currentCatalog } from './catalog-cache';

/** No advisory id is longer (OSV ids are short): a longer one names nothing. */
const MAX_ID = 256;

const isKey = (k: unknown): k is ProjectKey =>
  Array.isArray(k) && k.length === 2 && k.every((x) => typeof x === 'string');

const presentAlert = (a: AlertView) => ({
  id: a.id,
  ecosystem: a.ecosystem,
  package: a.package,
  installedVersions: a.installedVersions,
  severity: a.severity,
  teams: a.teams,
  suppressed: a.suppressed,
});

export function advisoryRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.get('/v1/advisories/:advisoryId', access(deps, 'GET /v1/advisories/:advisoryId'), async (ctx) => {
    const p = principalOf(ctx);
    const id = pathId(ctx, 'advisoryId', 'advisory');
    const limit = parseLimit(ctx);
    const cursor = cursorQuery(ctx);
    const restriction = projectRestriction(p);
    const listing = `advisory:${p.orgId}:${JSON.stringify([id.toUpperCase(), restriction])}`;
    const after = cursor ? deps.cursors.decode<unknown>(listing, cursor) : undefined;
    if (after !== undefined && !isKey(after)) throw new ApiError(422, 'invalid_cursor', 'cursor: invalid or expired');
    if (id.length > MAX_ID) throw notFound(`advisory ${JSON.stringify(id.slice(0, 64))}`);
    const [catalog, { index }, intel] = await Promise.all([
      currentCatalog(deps.store),
      orgAlerts(deps.store, p.orgId),
      currentIntel(deps.store),
    ]);
    const found = catalog.find(id);
    // The alerts in reach naming any id of the advisory's group (merged ones are not listed).
    const named = new Map<string, AlertView>();
    for (const x of found ? found.ids : [id]) {
      const { alerts } = index.page(
        {
          advisory: x,
          status: 'all',
          suppressed: 'all',
          severityMode: 'at_least',
          sort: 'severity',
          ...(restriction ? { projectIds: restriction } : {}),
        },
        0,
        Infinity,
      );
      for (const a of alerts) named.set(a.id, a);
    }
    if (!found && !named.size) throw notFound(`advisory ${id}`);
    const open = [...named.values()].filter((a) => a.status === 'open');
    const slugs = await projectSlugs(deps.store, p.orgId, [...new Set(open.map((a) => a.projectId))]);
    const page = alertsByProject(open, slugs, after, limit);
    await recheck(deps, p); // after the load, just before the answer
    ctx.body = {
      advisory: found ? advisoryView(found, intel) : advisoryFromAlerts(id, [...named.values()], intel),
      projects: page.projects.map((g) => ({
        project: g.projectId,
        projectSlug: g.projectSlug,
        openAlerts: g.alerts.length,
        alerts: g.alerts.map(presentAlert),
      })),
      nextCursor: page.next ? deps.cursors.encode(listing, page.next) : null,
    };
  });

  return r;
}
