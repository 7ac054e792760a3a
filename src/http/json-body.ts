// Small JSON bodies of the platform endpoints: an object, at most 64 KB; anything else is 422 invalid_parameter
// and a missing required field 422 missing_parameter.
import type { Context } from 'koa';
import { ApiError, invalidParameter } from '../domain/errors';
import { readJson } from './middleware/body';

export async function objectBody(ctx: Context): Promise<Record<string, unknown>> {
  const tooLarge = new ApiError(413, 'invalid_parameter', 'body: too large');
  const { value } = await readJson(ctx, 64 * 1024, tooLarge, (what) => invalidParameter('body', what));
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw invalidParameter('body', 'must be a JSON object');
  return value as Record<string, unknown>;
}

export const missing = (field: string, what = 'is required') =>
  new ApiError(422, 'missing_parameter', `${field}: ${what}`);

/** A required non-empty string field. */
export function requiredString(body: Record<string, unknown>, field: string, max = 2000): string {
  const v = body[field];
  if (v === undefined || v === null || v === '') throw missing(field);
  if (typeof v !== 'string') throw invalidParameter(field, 'must be a string');
  if (v.length > max) throw invalidParameter(field, `at most ${max} characters`);
  return v;
}
