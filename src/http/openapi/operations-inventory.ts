// Projects and the dependency inventory: GET /v1/projects, GET /v1/dependencies
// (src/http/projects/routes.ts).
import { ECOSYSTEMS } from '../../shared/types';
import type { Endpoint } from '../auth/matrix';
import { LIST_ERRORS, OBJECT_BODY_ERRORS, PAGINATION, pathParam, queryEnum, type Operation } from './operation';
import { ref } from './schemas/common';

type InventoryRoute = Extract<Endpoint, 'GET /v1/projects' | 'PATCH /v1/projects/:projectId' | 'GET /v1/dependencies'>;

export const inventoryOperations: Record<InventoryRoute, Operation> = {
  'GET /v1/projects': {
    operationId: 'listProjects',
    tag: 'projects',
    summary: 'List projects, by slug, each with its latest scan',
    description:
      "Ordered by slug in code-point order. Keys with a project restriction see their projects only. latestScan is the project's newest scan, whatever its status.",
    parameters: [...PAGINATION],
    responses: {
      200: { description: 'A page of projects.', schema: ref('ProjectList') },
      422: { description: 'invalid_parameter (limit, a repeated parameter), invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
  'PATCH /v1/projects/:projectId': {
    operationId: 'updateProject',
    tag: 'projects',
    summary: "Set a project's default branch (owners and admins)",
    description:
      'The default branch decides which scans are tracked: those whose metadata.ref is absent or names it. A change applies from the next tracked scan, and is audited (project.default_branch_changed).',
    parameters: [pathParam('projectId', 'The project id (prj_...) or slug.')],
    requestBody: { description: 'The new default branch.', required: true, schema: ref('ProjectUpdate') },
    responses: {
      200: { description: 'The project.', schema: ref('Project') },
      404: { description: 'not_found: no such project in the organization.', codes: ['not_found'] },
      ...OBJECT_BODY_ERRORS,
      422: {
        description:
          'invalid_parameter (not a JSON object, an unknown field, a branch name git would refuse), missing_parameter.',
        codes: ['invalid_parameter', 'missing_parameter'],
      },
    },
    usesDatabase: true,
  },
  'GET /v1/dependencies': {
    operationId: 'listDependencies',
    tag: 'dependencies',
    summary: 'The dependency inventory of a project: its latest completed scan of each ecosystem',
    description:
      "The union, per ecosystem, of the project's latest completed scan of that ecosystem (newest startedAt, then id: a slow older scan completing later never replaces a newer one), one item per package, " +
      'ordered by name, then version, then ecosystem, then id (code-point order). `scans` names the scan read per ecosystem; with no completed scan the answer is `{dependencies: [], nextCursor: null, scans: {}}`. ' +
      'A cursor is bound to the project and the filters and keeps reading the scans of the first page.',
    parameters: [
      {
        name: 'project',
        in: 'query',
        required: true,
        description:
          'Project id or slug. Missing: 422 missing_parameter; unknown or out of reach: 422 unknown_project.',
        schema: { type: 'string' },
      },
      queryEnum('ecosystem', ECOSYSTEMS, "Only this ecosystem's latest completed scan."),
      {
        name: 'name',
        in: 'query',
        description:
          'Exact package name, compared as the ecosystem compares names (PEP 503 for python, lowercased for javascript and typescript).',
        schema: { type: 'string' },
      },
      queryEnum('direct', ['true', 'false'], 'Only packages a module declares (true) or only the others (false).'),
      ...PAGINATION,
    ],
    responses: {
      200: { description: 'A page of the inventory.', schema: ref('DependencyList') },
      422: {
        description:
          'missing_parameter (project), unknown_project, invalid_parameter (ecosystem, direct, limit, a repeated parameter), invalid_cursor (also a cursor of other filters).',
        codes: [...LIST_ERRORS, 'missing_parameter', 'unknown_project'],
      },
    },
    usesDatabase: true,
  },
};
