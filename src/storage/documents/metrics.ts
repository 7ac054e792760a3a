// Stored documents of alert trends (src/storage/alert-metrics.ts). FerretDB neither locks a document between reading
// and writing it nor pays little for many documents, so the points are written as one document per project and day
// (replaced whole: two writers of one day leave one whole point, writers of two days never meet) and packed, by the
// daily run alone, into one document per project (and per project and month for the teams) that reads cheaply.

import type { Binary } from 'mongodb';

/**
 * One project's point of one day (_id `${projectId}:${YYYY-MM-DD}`, collection `alertMetricDays`), as written; the
 * daily run packs the days before today into the documents below and deletes these. `p`: the project's counts as
 * little-endian int32 (see AlertMetricsDoc); `t`: the teams' as plain JSON `[[label, counts], ...]`.
 */
export interface AlertMetricDayDoc {
  _id: string;
  orgId: string;
  projectId: string;
  day: string;
  p: Binary;
  t: Binary;
  updatedAt: Date;
}

/**
 * A project's daily counts packed (_id = the project id, collection `alertMetrics`): `data` holds, as little-endian
 * int32, the first day held (days since 1970-01-01), the number of days held, then 15 numbers per day (the layout of
 * src/domain/metrics/points.ts; days to fix in hundredths; a day without a point: -1 first). A hundred projects' year
 * is one query of a hundred Binary values.
 */
export interface AlertMetricsDoc {
  _id: string;
  orgId: string;
  data: Binary;
  updatedAt: Date;
}

/**
 * A project's teams' points of one UTC month packed (_id `${projectId}:${YYYY-MM}`, collection `alertTeamMetrics`):
 * `data` is plain JSON `{"07": [[label, counts], ...], ...}` by day of the month; read only for a team's trend.
 */
export interface AlertTeamMetricsDoc {
  _id: string;
  orgId: string;
  projectId: string;
  month: string;
  data: Binary;
  updatedAt: Date;
}
