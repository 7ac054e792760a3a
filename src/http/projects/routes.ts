// GET /v1/projects and GET /v1/dependencies.
import Router from '@koa/router';
import type { Context } from 'koa';
import { branchNameProblem, branchOf, DEFAULT_BRANCH, MAX_BRANCH_LENGTH } from '../../domain/alerts/tracked';
import { ApiError, invalidParameter, notFound } from '../../domain/errors';
import { recordAudit } from '../../storage/audit';
import { actorOf } from '../audit/actor';
import { objectBody, requiredString } from '../json-body';
import { pathId } from '../params';
import { inventoryPage, type InventoryFilter, type ItemKey } from '../../domain/inventory';
import { ECOSYSTEMS } from '../../shared/types';
import type { ProjectDoc, ScanDoc } from '../../storage/documents/scans';
import { latestInventories, readInventory } from '../../storage/inventory';
import { findProject, listProjects, setDefaultBranch } from '../../storage/projects';
import { listScans } from '../../storage/scans';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import { projectRestriction } from '../auth/principal';
import type { AppDeps } from '../deps';
import { cursorQuery, enumQuery, parseLimit, singleQuery } from '../pagination';

/** The project's newest scan, as the scan list shows it first (newest startedAt, then id). */
function presentLatest(s: ScanDoc | undefined) {
  if (!s) return null;
  return {
    id: s._id,
    status: s.status,
    ecosystem: s.ecosystem,
    startedAt: s.startedAt.toISOString(),
    findings: s.status === 'completed' ? s.findings : null,
  };
}

function presentProject(p: ProjectDoc, latest: ScanDoc | undefined) {
  return {
    id: p._id,
    slug: p.slug,
    createdAt: p.createdAt.toISOString(),
    defaultBranch: p.defaultBranch ?? DEFAULT_BRANCH,
    latestScan: presentLatest(latest),
  };
}

/** Where the next page of an inventory listing starts: the scans read by its first page, and the last item shown. */
interface InventoryPosition {
  s: Record<string, string>;
  k: ItemKey;
}

function directQuery(ctx: Context): boolean | undefined {
  const v = enumQuery(ctx, 'direct', ['true', 'false'] as const);
  return v === undefined ? undefined : v === 'true';
}

export function projectRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.get('/v1/projects', access(deps, 'GET /v1/projects'), async (ctx) => {
    const p = principalOf(ctx);
    const limit = parseLimit(ctx);
    const restriction = projectRestriction(p);
    const listing = `projects:${p.orgId}:${restriction?.join(',') ?? '*'}`;
    const cursor = cursorQuery(ctx);
    const after = cursor ? deps.cursors.decode<string>(listing, cursor) : undefined;
    const found = await listProjects(deps.store, p.orgId, { ids: restriction, after, limit });
    const shown = found.slice(0, limit);
    const latest = await Promise.all(
      shown.map((project) => listScans(deps.store, { orgId: p.orgId, projectIds: [project._id], limit: 1 })),
    );
    await recheck(deps, p); // after the load, just before the answer
    ctx.body = {
      projects: shown.map((project, i) => presentProject(project, latest[i].scans[0])),
      nextCursor: found.length > limit ? deps.cursors.encode(listing, shown[shown.length - 1].slug) : null,
    };
  });

  // The default branch, whose scans are tracked (src/domain/alerts/tracked.ts): from the next tracked scan on.
  r.patch('/v1/projects/:projectId', access(deps, 'PATCH /v1/projects/:projectId'), async (ctx) => {
    const p = principalOf(ctx);
    const project = await findProject(deps.store, p.orgId, pathId(ctx, 'projectId', 'project'));
    if (!project) throw notFound(`project ${ctx.params.projectId}`);
    const body = await objectBody(ctx);
    for (const k of Object.keys(body))
      if (k !== 'defaultBranch') throw invalidParameter(k, 'is not a field of a project update (defaultBranch)');
    const raw = requiredString(body, 'defaultBranch', MAX_BRANCH_LENGTH);
    const branch = branchOf(raw);
    const problem = branchNameProblem(branch);
    if (problem) throw invalidParameter('defaultBranch', problem);
    await recheck(deps, p);
    const before = project.defaultBranch ?? DEFAULT_BRANCH;
    const updated = (await setDefaultBranch(deps.store, project, branch)) ?? project;
    if (before !== branch)
      await recordAudit(deps.store, {
        orgId: p.orgId,
        type: 'project.default_branch_changed',
        actor: actorOf(p),
        target: { kind: 'project', id: project._id, name: project.slug, from: before, to: branch },
        requestId: ctx.state.requestId,
      });
    const latest = await listScans(deps.store, { orgId: p.orgId, projectIds: [project._id], limit: 1 });
    ctx.body = presentProject(updated, latest.scans[0]);
  });

  r.get('/v1/dependencies', access(deps, 'GET /v1/dependencies'), async (ctx) => {
    const p = principalOf(ctx);
    const projectRef = singleQuery(ctx, 'project');
    if (projectRef === undefined)
      throw new ApiError(422, 'missing_parameter', 'project: required (a project id or slug)');
    const ecosystem = enumQuery(ctx, 'ecosystem', ECOSYSTEMS);
    const filter: InventoryFilter = { name: singleQuery(ctx, 'name'), direct: directQuery(ctx) };
    const limit = parseLimit(ctx);
    const cursor = cursorQuery(ctx);
    const restriction = projectRestriction(p);
    const project = await findProject(deps.store, p.orgId, projectRef);
    if (!project || (restriction && !restriction.includes(project._id))) {
      throw new ApiError(422, 'unknown_project', `project: "${projectRef}" does not exist or is out of reach`);
    }
    // The cursor is bound to the project and the filters, and carries the scans the first page read: every page of
    // one listing reads the same scans, whatever completes meanwhile.
    const listing = `deps:${project._id}:${JSON.stringify([ecosystem ?? null, filter.name ?? null, filter.direct ?? null])}`;
    const position = cursor ? deps.cursors.decode<InventoryPosition>(listing, cursor) : undefined;
    const scans = position ? position.s : await latestInventories(deps.store, project._id, ecosystem);
    const lists = await Promise.all(
      Object.entries(scans).map(async ([eco, scanId]) => ({
        ecosystem: eco,
        ...(await readInventory(deps.store, scanId, eco)),
      })),
    );
    const page = inventoryPage(lists, filter, position?.k, limit);
    await recheck(deps, p); // after the load, just before the answer
    ctx.body = {
      dependencies: page.items.map(({ ecosystem: eco, item }) => ({
        id: item.id,
        project: project._id,
        ecosystem: eco,
        name: item.name,
        version: item.version,
        direct: item.direct,
        path: item.path,
        manifest: item.manifest,
      })),
      nextCursor: page.next
        ? deps.cursors.encode(listing, { s: scans, k: page.next } satisfies InventoryPosition)
        : null,
      scans,
    };
  });

  return r;
}
