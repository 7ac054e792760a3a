// Request duration by route template, method and status (src/metrics/api.ts). Registered first, so it sees the status
// the error envelope chose. Labels never carry the raw path: /v1/scans/:scanId is one series whatever the ids, and a
// path no route matched is "unmatched", so a scanner probing random URLs cannot grow the series without bound.
import type { Middleware } from 'koa';
import { httpRequestDuration } from '../../metrics/api';

/** Node's parser accepts only known methods; this keeps the label to the ones a client of ours sends. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export const UNMATCHED_ROUTE = 'unmatched';

/** The labels of one finished request (koa-router leaves the matched layer's template in ctx._matchedRoute). */
export function requestLabels(
  method: string,
  matchedRoute: unknown,
  status: number,
): { method: string; route: string; status: string } {
  return {
    method: METHODS.has(method) ? method : 'other',
    route: typeof matchedRoute === 'string' && matchedRoute ? matchedRoute : UNMATCHED_ROUTE,
    status: Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : 'other',
  };
}

/**
 * Recorded when the downstream chain settles, before Koa writes the response: the figure is the time to a ready
 * response (a streamed body's transfer is not in it), and it is in the histogram before the client has the answer.
 */
export function requestMetrics(): Middleware {
  return async (ctx, next) => {
    const end = httpRequestDuration.startTimer();
    let status: number | undefined;
    try {
      await next();
    } catch (err) {
      // Only reached if something above the error envelope throws; Koa answers it with the error's status or 500.
      const s =
        (err as { status?: unknown; statusCode?: unknown }).status ?? (err as { statusCode?: unknown }).statusCode;
      status = typeof s === 'number' && s >= 400 && s <= 599 ? s : 500;
      throw err;
    } finally {
      end(requestLabels(ctx.method, (ctx as { _matchedRoute?: unknown })._matchedRoute, status ?? ctx.status));
    }
  };
}
