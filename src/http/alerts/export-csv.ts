// GET /v1/alerts/export.csv: the alerts list (the same filters and sort, parsed by ./query.ts, read from the same
// index, src/http/alerts/index-cache.ts) as a CSV file (src/presenters/alerts-csv.ts; docs/alerts.md "CSV export").
// Everything that can refuse the request (the credential, the query, an unknown project, the database) is settled
// before the first byte, so that errors are the JSON envelope; the alerts are selected then too (at most 100,000, in
// the list's order: references into the index, no copy). The text is made while it is sent, 1,000 records at a time,
// at the pace the client reads: memory stays flat whatever the number of alerts. An error once the body has started
// can no longer be an answer: it is logged and the response is cut short (no terminating chunk), which every client
// sees as a failed download.
import { Readable } from 'node:stream';
import type { Middleware } from 'koa';
import { alertCsvChunks } from '../../presenters/alerts-csv';
import { projectSlugsByIds } from '../../storage/projects';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import type { AppDeps, AppState } from '../deps';
import { orgAlertIndex } from './index-cache';
import { alertQuery } from './query';

/** At most this many records; the rest of a larger selection is left out and `X-Truncated: true` says so. */
export const ALERTS_CSV_MAX_ROWS = 100_000;
/** Records made (and written) at a time. */
const CHUNK_ROWS = 1000;

export function alertCsvExport(deps: AppDeps, { maxRows = ALERTS_CSV_MAX_ROWS } = {}): Middleware<AppState> {
  return async (ctx) => {
    const p = principalOf(ctx);
    const q = await alertQuery(deps, ctx);
    const index = await orgAlertIndex(deps.store, p.orgId);
    const { alerts, more } = index.page(q, 0, maxRows);
    const projectIds = new Set<string>();
    for (const a of alerts) projectIds.add(a.projectId);
    const slugs = await projectSlugsByIds(deps.store, p.orgId, [...projectIds]);
    await recheck(deps, p); // after the load, just before the answer
    // The header row and the first records are made here, where a failure is still the JSON envelope (500); past
    // them, a failure can only cut the body short. The first chunk (1,000 records when more follow) outgrows the
    // stream's buffer, so the next is asked for only once it has gone to the response: its headers are sent by then.
    const chunks = alertCsvChunks(alerts, slugs, CHUNK_ROWS);
    const first = [chunks.next(), chunks.next()].flatMap((r) => (r.done ? [] : [r.value])).join('');
    const { requestId } = ctx.state;
    const path = ctx.path;
    function* body(): Generator<string, void, undefined> {
      yield first;
      try {
        yield* chunks;
      } catch (err) {
        deps.logger.error({ err, requestId, path }, 'alerts CSV export failed while streaming: response cut short');
        throw err;
      }
    }
    ctx.set('Content-Disposition', `attachment; filename="alerts-${new Date().toISOString().slice(0, 10)}.csv"`);
    ctx.set('X-Truncated', String(more));
    ctx.body = Readable.from(body(), { objectMode: false });
    ctx.type = 'text/csv; charset=utf-8';
  };
}
