import type { Context } from 'koa';
import { ApiError, invalidParameter } from '../domain/errors';
import { rejectNulQuery } from './params';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** limit: default 50; above 200 clamped to 200; not an integer or below 1 is 422 invalid_parameter. */
export function parseLimit(ctx: Context): number {
  const raw = ctx.query.limit;
  if (raw === undefined) return DEFAULT_LIMIT;
  if (typeof raw !== 'string' || !/^-?\d+$/.test(raw))
    throw invalidParameter('limit', 'must be an integer between 1 and 200');
  const n = Number(raw);
  if (n < 1) throw invalidParameter('limit', 'must be an integer between 1 and 200');
  return Math.min(n, MAX_LIMIT);
}

export function singleQuery(ctx: Context, name: string): string | undefined {
  const v = ctx.query[name];
  if (v === undefined) return undefined;
  if (Array.isArray(v)) throw invalidParameter(name, 'must be given once');
  return rejectNulQuery(name, v);
}

export function enumQuery<T extends string>(ctx: Context, name: string, allowed: readonly T[]): T | undefined {
  const v = singleQuery(ctx, name);
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v)) throw invalidParameter(name, `must be one of ${allowed.join(', ')}`);
  return v as T;
}

export function cursorQuery(ctx: Context): string | undefined {
  const v = singleQuery(ctx, 'cursor');
  if (v === '') throw new ApiError(422, 'invalid_cursor', 'cursor: invalid or expired');
  return v;
}
