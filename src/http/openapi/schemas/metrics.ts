// Response schemas of the alert trends and the portfolio (src/http/metrics/routes.ts).
import { SEVERITIES } from '../../../shared/types';
import { ref, str, timestampOrNull } from './common';

const count = { type: 'integer', minimum: 0 } as const;
const day = { type: 'string', format: 'date' } as const;
const bySeverity = (item: object, description: string) => ({
  type: 'object',
  description,
  required: [...SEVERITIES],
  properties: Object.fromEntries(SEVERITIES.map((s) => [s, item])),
  additionalProperties: false,
});
const openCounts = bySeverity(count, 'Open alerts that are not suppressed, by severity.');

export const metricsSchemas = {
  AlertMetricsPoint: {
    type: 'object',
    required: ['date', 'open', 'suppressed', 'opened', 'fixed'],
    properties: {
      date: { ...day, description: 'The UTC day.' },
      open: openCounts,
      suppressed: { ...count, description: 'Open alerts that are suppressed (snapshot, analysis or rule).' },
      opened: { ...count, description: 'Alerts first seen or reopened that day (not counting suppressed ones).' },
      fixed: { ...count, description: 'Alerts fixed that day (not counting suppressed ones).' },
    },
    additionalProperties: false,
  },
  AlertMetrics: {
    type: 'object',
    required: ['from', 'to', 'project', 'team', 'points', 'meanTimeToFixDays'],
    properties: {
      from: day,
      to: day,
      project: { type: ['string', 'null'], description: 'The project asked for (its id), or null.' },
      team: { type: ['string', 'null'], description: 'The team asked for, or null.' },
      points: {
        type: 'array',
        items: ref('AlertMetricsPoint'),
        description: 'One point per day from `from` to `to`, oldest first.',
      },
      meanTimeToFixDays: bySeverity(
        { type: ['number', 'null'], minimum: 0 },
        'Mean days from opening (first seen, or the latest reopen) to fix of the fixes within the range, one decimal; null without fixes.',
      ),
    },
    additionalProperties: false,
  },
  Portfolio: {
    type: 'object',
    required: ['open', 'suppressed', 'kev', 'projects', 'teams'],
    properties: {
      open: openCounts,
      suppressed: { ...count, description: 'Open alerts that are suppressed.' },
      kev: { ...count, description: 'Open alerts, not suppressed, whose advisory is in the KEV catalog.' },
      projects: {
        type: 'array',
        description: 'Every project in reach, by slug (code-point order).',
        items: {
          type: 'object',
          required: ['project', 'slug', 'open', 'kev', 'lastTrackedScanAt', 'outOfDate'],
          properties: {
            project: { type: 'string', pattern: '^prj_' },
            slug: str,
            open: openCounts,
            kev: count,
            lastTrackedScanAt: {
              ...timestampOrNull,
              description: "startedAt of the newest tracked scan that moved the project's alerts (null: none yet).",
            },
            outOfDate: { type: 'boolean', description: 'No tracked scan, or the last one is older than 30 days.' },
          },
          additionalProperties: false,
        },
      },
      teams: {
        type: 'array',
        description:
          'Every team with open alerts that are not suppressed, by label; alerts without a team under "unassigned". An alert counts for each of its teams.',
        items: {
          type: 'object',
          required: ['team', 'open', 'kev', 'projects'],
          properties: {
            team: str,
            open: openCounts,
            kev: count,
            projects: { ...count, description: 'Projects with open alerts of the team.' },
          },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  },
};
