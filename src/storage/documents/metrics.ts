// Stored documents of alert trends (src/storage/alert-metrics.ts).
import type { Binary } from 'mongodb';

/**
 * One project's daily points of one UTC month, in two documents: `kind: 'project'` (_id `${projectId}:${YYYY-MM}`)
 * holds the project's counts of each day, and `kind: 'teams'` (_id `${projectId}:${YYYY-MM}:teams`) its teams'. Under
 * `days`, each day of the month (`d07`) is one Binary: the project's counts as 15 little-endian float64 (the layout of
 * src/domain/metrics/points.ts), the teams' as plain JSON `[[label, counts], ...]`. A point is written whole by one
 * `$set` of its field; an organization's year of project counts (what the dashboard reads) is one query by `orgId`
 * and `kind`, small and decoded without a document per day; the teams' are read only for a team's trend.
 */
export interface AlertMetricsDoc {
  _id: string;
  orgId: string;
  projectId: string;
  month: string;
  kind: 'project' | 'teams';
  days: Record<string, Binary>;
  updatedAt: Date;
}
