import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from '../deps';

const CLIENT_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Echoes a well-formed client X-Request-Id, otherwise makes one; set before anything can fail. */
export function requestId(): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.startedAt = performance.now();
    const sent = ctx.get('X-Request-Id');
    ctx.state.requestId = CLIENT_ID.test(sent) ? sent : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  };
}
