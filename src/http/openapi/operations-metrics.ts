// The alert trends and the portfolio (src/http/metrics/routes.ts, docs/dashboard.md).
import type { Endpoint } from '../auth/matrix';
import type { Operation } from './operation';
import { ref } from './schemas/common';

type MetricsRoute = Extract<Endpoint, 'GET /v1/metrics/alerts' | 'GET /v1/metrics/portfolio'>;

const dayParam = (name: string, description: string) => ({
  name,
  in: 'query' as const,
  description,
  schema: { type: 'string', format: 'date' },
});

export const metricsOperations: Record<MetricsRoute, Operation> = {
  'GET /v1/metrics/alerts': {
    operationId: 'getAlertMetrics',
    tag: 'metrics',
    summary: 'Alert trends: daily points of open, suppressed, opened and fixed alerts, and the mean time to fix',
    description:
      "One point per UTC day from `from` to `to`, the organization's projects added up (or one project's, or one team's). " +
      'A point is written for each project when a tracked scan moves its alerts and by the daily run just after midnight UTC (the day as it closed); today is counted live. ' +
      "open and suppressed picture the alerts as they stood when the day's point was written; opened and fixed count the alerts first seen or reopened, and fixed, that day, suppressed ones left out. " +
      "A day without a point carries the previous point's open and suppressed counts forward (nothing opened or fixed); before a project's first point it counts nothing. " +
      'meanTimeToFixDays: per severity, the mean days from opening (first seen or the latest reopen) to fix of the fixes within the range. ' +
      'Teams: an alert counts for each of its teams; a project counts at most 200 teams, the rest as "other". Points are kept 400 days. A restricted key counts its projects only.',
    parameters: [
      {
        name: 'project',
        in: 'query',
        description: 'A project id or slug: that project only. Unknown or out of reach: 422 unknown_project.',
        schema: { type: 'string', minLength: 1, maxLength: 512 },
      },
      {
        name: 'team',
        in: 'query',
        description:
          'A team label: that team only ("other": the teams past a project\'s 200; "unassigned": alerts without a team). Empty or over 512 characters: 422 invalid_parameter.',
        schema: { type: 'string', minLength: 1, maxLength: 512 },
      },
      dayParam(
        'from',
        'First day (YYYY-MM-DD, UTC), at most 399 days before today; default 89 days before `to` (within the days kept).',
      ),
      dayParam('to', 'Last day (YYYY-MM-DD, UTC), not after today; default today.'),
    ],
    responses: {
      200: { description: 'The points and the mean time to fix.', schema: ref('AlertMetrics') },
      422: {
        description:
          'invalid_parameter (from, to: not a date, `from` after `to`, `to` after today, `from` older than the days kept; team; a repeated parameter), unknown_project.',
        codes: ['invalid_parameter', 'unknown_project'],
      },
    },
    usesDatabase: true,
  },
  'GET /v1/metrics/portfolio': {
    operationId: 'getPortfolio',
    tag: 'metrics',
    summary: "The organization's open alerts as they stand: by severity, KEV, per project and per team",
    description:
      'Open alerts that are not suppressed, by severity, and how many of them are in the KEV catalog: for the organization, each project (with its last tracked scan and whether it is out of date: none, or older than 30 days) and each team. ' +
      'Counts as GET /v1/alerts counts (the same alerts, analyses and rules). The lists are whole (every project in reach, every team), not paginated. A restricted key sees its projects only.',
    parameters: [],
    responses: { 200: { description: 'The portfolio.', schema: ref('Portfolio') } },
    usesDatabase: true,
  },
};
