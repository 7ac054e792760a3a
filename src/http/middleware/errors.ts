// The one place that turns thrown errors into the API's error envelope {error: {code, message}}.
import type { Middleware } from 'koa';
import { ApiError } from '../../domain/errors';
import type { Logger } from '../../logger';
import { isDatabaseUnavailable } from '../../storage/unavailable';
import type { AppState } from '../deps';

export function errorEnvelope(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined)
        throw new ApiError(404, 'not_found', `route ${ctx.method} ${ctx.path} not found`);
    } catch (caught) {
      const err = unavailable(caught) ?? caught;
      if (err !== caught)
        logger.warn({ err: caught, requestId: ctx.state.requestId, path: ctx.path }, 'database unreachable');
      const e = err instanceof ApiError ? err : null;
      ctx.status = e ? e.status : 500;
      ctx.body = { error: { code: e ? e.code : 'internal_error', message: e ? e.message : 'internal error' } };
      if (!e)
        logger.error({ err, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'request failed');
      if (e?.code === 'rate_limited') ctx.set('Retry-After', String(e.retryAfter ?? 60));
      if (e?.code === 'service_unavailable') ctx.set('Retry-After', String(e.retryAfter ?? 5));
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.debug(
        { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms },
        'request',
      );
    }
  };
}

/** A database outage, however the driver reports it (src/storage/unavailable.ts): 503, retry later, never a 500. */
export function unavailable(err: unknown): ApiError | null {
  return isDatabaseUnavailable(err)
    ? new ApiError(503, 'service_unavailable', 'the database is unreachable; retry later')
    : null;
}
