// Where a package is used, and the page of one advisory: GET /v1/dependencies/usages (src/http/usages/routes.ts), GET
// /v1/advisories/{advisoryId} (src/http/advisories/routes.ts).
import { ECOSYSTEMS } from '../../shared/types';
import type { Endpoint } from '../auth/matrix';
import { LIST_ERRORS, PAGINATION, queryEnum, type Operation } from './operation';
import { ref } from './schemas/common';

type WhereUsedRoute = Extract<Endpoint, 'GET /v1/dependencies/usages' | 'GET /v1/advisories/:advisoryId'>;

export const whereUsedOperations: Record<WhereUsedRoute, Operation> = {
  'GET /v1/dependencies/usages': {
    operationId: 'listDependencyUsages',
    tag: 'dependencies',
    summary: 'Where a package is used: the projects whose latest completed scan holds it',
    description:
      "Every project of the organization whose latest completed scan of an ecosystem (newest startedAt, then id, as GET /v1/dependencies reads it) holds the package, one item per project, ecosystem and installed version, with the package's shortest path from a root and the scan it was read from. " +
      'Ordered by project slug, then ecosystem, then version (code-point order). A scan that has completed is seen by every request that starts after it. Keys with a project restriction see their projects only.',
    parameters: [
      {
        name: 'name',
        in: 'query',
        required: true,
        description:
          'Exact package name, compared as each ecosystem compares names (lowercased for javascript and typescript, PEP 503 for python, group:artifact as written for gradle). Missing or empty: 422 missing_parameter; over 512 characters: 422 invalid_parameter.',
        schema: { type: 'string', minLength: 1, maxLength: 512 },
      },
      {
        name: 'version',
        in: 'query',
        description:
          'Only this installed version (exact, as the scan gave it). Empty or over 512 characters: 422 invalid_parameter.',
        schema: { type: 'string', minLength: 1, maxLength: 512 },
      },
      queryEnum('ecosystem', ECOSYSTEMS, 'Only this ecosystem.'),
      ...PAGINATION,
    ],
    responses: {
      200: { description: 'A page of usages.', schema: ref('DependencyUsageList') },
      422: {
        description:
          'missing_parameter (name), invalid_parameter (version, ecosystem, limit, a repeated parameter), invalid_cursor (also a cursor of another query).',
        codes: [...LIST_ERRORS, 'missing_parameter'],
      },
    },
    usesDatabase: true,
  },
  'GET /v1/advisories/:advisoryId': {
    operationId: 'getAdvisory',
    tag: 'advisories',
    summary: "One advisory, by any id of its alias group, with the organization's open alerts of it by project",
    description:
      'The advisory as the current advisory generation stores it, found by its own id or by any id of its alias group (case-insensitive; by an alias, the group is shown by its display advisory: the one whose id findings show as cve, else the lowest id). ' +
      "id, summary, details, published, modified, withdrawn, affected and references are that advisory's; aliases are the group's other ids; severity, cvss, kev and epss are the group's, as on findings and alerts. " +
      "projects: the organization's open alerts sharing any id of the group, suppressed ones included (suppressed: true), grouped by project, projects by slug; paginated over projects (limit, cursor). " +
      'An advisory the database no longer has, named by alerts still in reach, is shown as those alerts remember it (affected and references empty). Keys with a project restriction see their projects only.',
    parameters: [
      {
        name: 'advisoryId',
        in: 'path',
        required: true,
        description:
          'Any id of the advisory or its alias group (GHSA, CVE, PYSEC, ...), any case. Over 256 characters: 404 not_found.',
        schema: { type: 'string', minLength: 1, maxLength: 256 },
      },
      ...PAGINATION,
    ],
    responses: {
      200: { description: 'The advisory and a page of its projects.', schema: ref('AdvisoryPage') },
      404: {
        description: 'not_found: no stored advisory has that id, and no alert in reach names it.',
        codes: ['not_found'],
      },
      422: { description: 'invalid_parameter (limit, a repeated parameter), invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
};
