// Body fields of the MCP endpoints, read by hand like the other platform bodies: a missing required
// field is 422 missing_parameter, anything else wrong 422 invalid_parameter naming the field by its path
// (`clients[2].servers[0].args[3]`). Limits are the contract's where it gives them, else this project's (docs/mcp.md).
import type { Context } from 'koa';
import { ApiError, invalidParameter } from '../../domain/errors';
import { missing } from '../json-body';
import { readJson } from '../middleware/body';

export const MB = 1024 * 1024;

/** A JSON object body of at most `limit` bytes; above: 413 invalid_parameter (the platform bodies' code). */
export async function mcpBody(ctx: Context, limit: number): Promise<Record<string, unknown>> {
  const tooLarge = new ApiError(
    413,
    'invalid_parameter',
    `body: over ${limit >= MB ? `${limit / MB} MB` : `${limit / 1024} KB`}`,
  );
  const { value } = await readJson(ctx, limit, tooLarge, (what) => invalidParameter('body', what));
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw invalidParameter('body', 'must be a JSON object');
  return value as Record<string, unknown>;
}

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** RFC 3339 date-time (OpenAPI's format date-time), with its offset. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

export function str(v: unknown, path: string, o: { max: number; min?: number; required?: boolean }): string | null {
  if (v === undefined || v === null) {
    if (o.required) throw missing(path, `must be a string of ${o.min ?? 1} to ${o.max} characters`);
    return null;
  }
  if (typeof v !== 'string') throw invalidParameter(path, 'must be a string');
  if (v.length < (o.min ?? 1)) {
    if (o.required) throw missing(path, `must be a string of ${o.min ?? 1} to ${o.max} characters`);
    throw invalidParameter(path, `must be a string of ${o.min ?? 1} to ${o.max} characters, or left out`);
  }
  if (v.length > o.max) throw invalidParameter(path, `at most ${o.max} characters`);
  return v;
}

export const reqStr = (v: unknown, path: string, max: number): string => str(v, path, { max, required: true })!;

export function oneOf<T extends string>(v: unknown, path: string, allowed: readonly T[], dflt?: T): T {
  if ((v === undefined || v === null) && dflt !== undefined) return dflt;
  if (v === undefined || v === null) throw missing(path, `must be one of ${allowed.join(', ')}`);
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v))
    throw invalidParameter(path, `must be one of ${allowed.join(', ')}`);
  return v as T;
}

export function dateTime(v: unknown, path: string, required: boolean): Date | null {
  if (v === undefined || v === null) {
    if (required) throw missing(path, 'must be an RFC 3339 timestamp');
    return null;
  }
  const t = typeof v === 'string' && DATE_TIME.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(t)) throw invalidParameter(path, 'must be an RFC 3339 timestamp, e.g. 2030-01-02T03:04:05Z');
  return new Date(t);
}

export function arr(v: unknown, path: string, o: { max: number; min?: number; required?: boolean }): unknown[] | null {
  if (v === undefined || v === null) {
    if (o.required) throw missing(path, `must be an array of ${o.min ?? 0} to ${o.max} items`);
    return null;
  }
  if (!Array.isArray(v)) throw invalidParameter(path, 'must be an array');
  if (v.length < (o.min ?? 0)) {
    if (o.required) throw missing(path, `must be an array of ${o.min ?? 0} to ${o.max} items`);
    throw invalidParameter(path, `at least ${o.min} items`);
  }
  if (v.length > o.max) throw invalidParameter(path, `at most ${o.max} items`);
  return v;
}

export function obj(v: unknown, path: string, required = true): Obj | null {
  if (v === undefined || v === null) {
    if (required) throw missing(path, 'must be an object');
    return null;
  }
  if (!isObj(v)) throw invalidParameter(path, 'must be an object');
  return v;
}

/** The depth of a JSON value (a scalar is 0), walked with a stack of its own: nesting is bounded before recursing. */
export function depthOf(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (d > max) max = d;
    if (Array.isArray(v)) for (const x of v) stack.push([x, d + 1]);
    else if (isObj(v)) for (const x of Object.values(v)) stack.push([x, d + 1]);
  }
  return max;
}

/** The contract's `host: {hostId} | {hostname}` (exactly one of them). */
export type HostRef = { hostId: string } | { hostname: string };

export function hostRef(v: unknown, path: string): HostRef {
  const o = obj(v, path)!;
  const hasId = o.hostId !== undefined && o.hostId !== null;
  const hasName = o.hostname !== undefined && o.hostname !== null;
  if (hasId === hasName) throw invalidParameter(path, 'must be {hostId} or {hostname}, exactly one of them');
  return hasId
    ? { hostId: reqStr(o.hostId, `${path}.hostId`, 100) }
    : { hostname: reqStr(o.hostname, `${path}.hostname`, 253) };
}
