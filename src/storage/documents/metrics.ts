// Stored documents of alert trends (src/storage/alert-metrics.ts).
import type { Binary } from 'mongodb';

/**
 * One project's daily points of one UTC month: _id = `${projectId}:${YYYY-MM}`. `days` holds, under `d` + the day of
 * the month (`d07`), the point (src/domain/metrics/points.ts DayPoint) as plain JSON in a Binary: a point is written
 * whole by one `$set` of its field, and a year of an organization's points is read in one query by `orgId`, decoded
 * without a document per day.
 */
export interface AlertMetricsDoc {
  _id: string;
  orgId: string;
  projectId: string;
  month: string;
  days: Record<string, Binary>;
  updatedAt: Date;
}
