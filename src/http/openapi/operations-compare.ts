// The comparison of a scan with its baseline (src/http/compare/routes.ts).
import { COMPARE_PARTS } from '../../shared/compare';
import type { Endpoint } from '../auth/matrix';
import { LIST_ERRORS, PAGINATION, pathParam, queryEnum, type Operation } from './operation';
import { ref } from './schemas/common';

type CompareRoute = Extract<Endpoint, 'GET /v1/scans/:scanId/compare'>;

export const compareOperations: Record<CompareRoute, Operation> = {
  'GET /v1/scans/:scanId/compare': {
    operationId: 'compareScan',
    tag: 'findings',
    summary: 'A scan against its baseline: what the change added, what advisories disclosed since, what it fixed',
    description:
      "Classifies the scan's findings against a baseline scan of the same project and ecosystem, from the two scans' findings and packages (no re-match): " +
      "`added` when its package@version is not among the baseline's packages and the baseline has no finding of that package sharing an id of its alias group; " +
      '`unchanged` when the baseline has such a finding (`versionsChanged` on a bump that stays vulnerable); ' +
      "`disclosed` when its package@version was in the baseline, which had no finding of it for the advisory (an advisory published since: not the change's doing); " +
      '`removed`: baseline findings with no finding of that package sharing an alias. ' +
      "`baseline=auto` (default): the completed tracked scan of the scan's `metadata.baseCommit`, else the newest completed tracked scan of the project and ecosystem that started before this one, else none (`baselineMissing`, every finding added). A tracked scan compares with the tracked scan before it. " +
      'Parts above 2,000 findings or 10,000 dependency changes carry their first items; `part=` with `limit`/`cursor` reads one part on.',
    parameters: [
      pathParam('scanId', "The scan id (scn_...). Unknown or out of the credential's reach: 404 not_found."),
      {
        name: 'baseline',
        in: 'query',
        description:
          'auto (default), or the id of a completed scan of the same project and ecosystem. Unknown or out of reach: 404 not_found (before any other check); not completed: 409 invalid_state; of another project or ecosystem: 422 invalid_parameter.',
        schema: { type: 'string', default: 'auto' },
      },
      queryEnum(
        'suppressed',
        ['false', 'true', 'all'],
        'Which findings the lists hold: false hides suppressed ones, true shows only them, all both. Counts are always the unsuppressed ones.',
        'false',
      ),
      queryEnum('part', COMPARE_PARTS, 'One part, paged by limit and cursor (the answer is then a ComparePartPage).'),
      ...PAGINATION,
    ],
    responses: {
      200: {
        description: 'The comparison (or, with part=, one page of one part).',
        schema: { oneOf: [ref('Compare'), ref('ComparePartPage')] },
      },
      404: {
        description: "not_found: no such scan or baseline, or out of the credential's reach.",
        codes: ['not_found'],
      },
      409: { description: 'invalid_state: the scan or the baseline has not completed.', codes: ['invalid_state'] },
      422: {
        description:
          'invalid_parameter (baseline of another project or ecosystem, suppressed, part, limit, a cursor without part, a repeated parameter), invalid_cursor.',
        codes: LIST_ERRORS,
      },
    },
    usesDatabase: true,
  },
};
