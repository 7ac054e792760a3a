// The one place that turns thrown errors into the spec's envelope {error: {code, message}}.
import type { Middleware } from 'koa';
import { MongoNetworkError, MongoNotConnectedError, MongoServerError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';
import { ApiError } from '../../domain/errors';
import type { Logger } from '../../logger';
import type { AppState } from '../deps';

export function errorEnvelope(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError(404, 'not_found', `route ${ctx.method} ${ctx.path} not found`);
    } catch (caught) {
      const err = unavailable(caught) ?? caught;
      if (err !== caught) logger.warn({ err: caught, requestId: ctx.state.requestId, path: ctx.path }, 'database unreachable');
      const e = err instanceof ApiError ? err : null;
      ctx.status = e ? e.status : 500;
      ctx.body = { error: { code: e ? e.code : 'internal_error', message: e ? e.message : 'internal error' } };
      if (!e) logger.error({ err, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'request failed');
      if (e?.code === 'rate_limited') ctx.set('Retry-After', '60');
      if (e?.code === 'service_unavailable') ctx.set('Retry-After', '5');
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.debug({ requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms }, 'request');
    }
  };
}

/**
 * Driver errors that mean "the database cannot be reached right now": 503 service_unavailable, retry later (never a
 * 500). MongoNetworkError covers MongoNetworkTimeoutError and MongoPoolClearedError (its subclasses); the names are
 * checked too, in case an error comes from another copy of the driver.
 */
const UNREACHABLE_CLASSES = [MongoNetworkError, MongoServerSelectionError, MongoNotConnectedError, MongoTopologyClosedError];
const UNREACHABLE_NAMES = new Set(['MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoPoolClearedError', 'PoolClearedOnNetworkError', 'MongoServerSelectionError', 'MongoNotConnectedError', 'MongoTopologyClosedError']);
/**
 * Server answers that mean the same on a replica set in failover or a server shutting down: HostUnreachable,
 * HostNotFound, NetworkTimeout, ShutdownInProgress, PrimarySteppedDown, SocketException, NotWritablePrimary,
 * InterruptedAtShutdown, InterruptedDueToReplStateChange, NotPrimaryNoSecondaryOk, NotPrimaryOrSecondary.
 */
const UNAVAILABLE_SERVER_CODES = new Set([6, 7, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436]);

export function unavailable(err: unknown, depth = 0): ApiError | null {
  // A driver error may arrive wrapped (an Error's cause, an AggregateError of parallel writes).
  if (depth < 4 && err instanceof Error) {
    const inner = [err.cause, ...(err instanceof AggregateError ? err.errors : [])];
    for (const e of inner) if (e !== undefined && unavailable(e, depth + 1)) return unavailable(e, depth + 1);
  }
  const unreachable =
    UNREACHABLE_CLASSES.some((c) => err instanceof c) ||
    (err instanceof Error && UNREACHABLE_NAMES.has(err.name)) ||
    (err instanceof MongoServerError && typeof err.code === 'number' && UNAVAILABLE_SERVER_CODES.has(err.code));
  return unreachable ? new ApiError(503, 'service_unavailable', 'the database is unreachable; retry later') : null;
}
