// Projects and the dependency inventory (platform.md §1): GET /v1/projects, GET /v1/dependencies
// (src/http/projects/routes.ts).
import type { Endpoint } from '../auth/matrix';
import { LIST_ERRORS, PAGINATION, type Operation } from './operation';
import { ref } from './schemas/common';

type InventoryRoute = Extract<Endpoint, 'GET /v1/projects' | 'GET /v1/dependencies'>;

export const inventoryOperations: Record<InventoryRoute, Operation> = {
  'GET /v1/projects': {
    operationId: 'listProjects',
    tag: 'projects',
    summary: 'List projects, by slug, each with its latest scan',
    description: 'Keys with a project restriction see their projects only.',
    parameters: [...PAGINATION],
    responses: {
      200: { description: 'A page of projects.', schema: ref('ProjectList') },
      422: { description: 'invalid_parameter, invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
  'GET /v1/dependencies': {
    operationId: 'listDependencies',
    tag: 'dependencies',
    summary: 'The dependency inventory of a project: its latest completed scan of each ecosystem',
    parameters: [
      { name: 'project', in: 'query', required: true, description: 'Project id or slug. Missing: 422 missing_parameter; unknown or out of reach: 422 unknown_project.', schema: { type: 'string' } },
      ...PAGINATION,
    ],
    responses: {
      200: { description: 'A page of the inventory.', schema: ref('DependencyList') },
      422: { description: 'missing_parameter, unknown_project, invalid_parameter, invalid_cursor.', codes: [...LIST_ERRORS, 'missing_parameter', 'unknown_project'] },
    },
    usesDatabase: true,
  },
};
