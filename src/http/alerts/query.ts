// The query of the alerts list, shared by GET /v1/alerts and GET /v1/alerts/export.csv (the same filters and sort,
// checked the same way): parsed whole into an AlertQuery (src/domain/alerts/query.ts) before anything is answered.
import type { Context } from 'koa';
import { ALERT_SORTS, ANALYSIS_STATES, type AlertQuery } from '../../domain/alerts/query';
import { ApiError, invalidParameter } from '../../domain/errors';
import { SEVERITIES } from '../../shared/types';
import { findProject } from '../../storage/projects';
import { principalOf } from '../auth/authorize';
import { canReachProject, projectRestriction } from '../auth/principal';
import type { AppDeps } from '../deps';
import { enumQuery, singleQuery } from '../pagination';

const ECOSYSTEMS = ['gradle', 'python', 'javascript', 'typescript'] as const;
const MAX_TEXT = 512;

function textQuery(ctx: Context, name: string): string | undefined {
  const v = singleQuery(ctx, name);
  if (v === undefined) return undefined;
  if (v === '') throw invalidParameter(name, 'must not be empty');
  if (v.length > MAX_TEXT) throw invalidParameter(name, `must be at most ${MAX_TEXT} characters`);
  return v;
}

function boolQuery(ctx: Context, name: string): boolean | undefined {
  const v = enumQuery(ctx, name, ['true', 'false'] as const);
  return v === undefined ? undefined : v === 'true';
}

function epssQuery(ctx: Context): number | undefined {
  const v = singleQuery(ctx, 'epssMin');
  if (v === undefined) return undefined;
  const n = /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw invalidParameter('epssMin', 'must be a number between 0 and 1');
  return n;
}

/**
 * The query of GET /v1/alerts (and of its CSV export), checked whole (422 invalid_parameter naming the first bad one;
 * a project unknown or out of reach: 422 unknown_project). A restricted key's query keeps to its projects.
 */
export async function alertQuery(deps: AppDeps, ctx: Context): Promise<AlertQuery> {
  const p = principalOf(ctx);
  const restriction = projectRestriction(p);
  const q: AlertQuery = {
    ecosystem: enumQuery(ctx, 'ecosystem', ECOSYSTEMS),
    status: enumQuery(ctx, 'status', ['open', 'fixed', 'all'] as const) ?? 'open',
    severity: enumQuery(ctx, 'severity', SEVERITIES),
    severityMode: enumQuery(ctx, 'severityMode', ['at_least', 'exact'] as const) ?? 'at_least',
    analysis: enumQuery(ctx, 'analysis', [...ANALYSIS_STATES, 'none'] as const),
    suppressed: enumQuery(ctx, 'suppressed', ['false', 'true', 'all'] as const) ?? 'false',
    team: textQuery(ctx, 'team'),
    module: textQuery(ctx, 'module'),
    package: textQuery(ctx, 'package'),
    advisory: textQuery(ctx, 'advisory'),
    fixable: boolQuery(ctx, 'fixable'),
    kev: boolQuery(ctx, 'kev'),
    epssMin: epssQuery(ctx),
    q: textQuery(ctx, 'q'),
    sort: enumQuery(ctx, 'sort', ALERT_SORTS) ?? 'risk',
    ...(restriction ? { projectIds: restriction } : {}),
  };
  const projectRef = textQuery(ctx, 'project');
  if (projectRef !== undefined) {
    const project = await findProject(deps.store, p.orgId, projectRef);
    if (!project || !canReachProject(p, project._id))
      throw new ApiError(422, 'unknown_project', `project: "${projectRef}" does not exist or is out of reach`);
    q.projectIds = [project._id];
  }
  return q;
}
