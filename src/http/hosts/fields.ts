// Body fields of the host and gateway endpoints, read by hand like the other platform bodies
// (src/http/json-body.ts): a missing required field is 422 missing_parameter, anything else wrong 422
// invalid_parameter naming the field. Unknown fields are ignored, as everywhere else in the API.
import { invalidParameter } from '../../domain/errors';
import { CidrError, parseCidrList, type Cidr } from '../../domain/hosts/cidr';
import { LabelError, parseLabels, type Labels } from '../../domain/hosts/labels';
import { missing } from '../json-body';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
/** RFC 3339 date-time (OpenAPI's format date-time), with its offset. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

export const MAX_NAME = 200;
/** os, arch, agentVersion and a gateway's version. */
export const MAX_SHORT_TEXT = 100;

function text(field: string, v: unknown, max: number): string {
  if (typeof v !== 'string') throw invalidParameter(field, 'must be a string');
  if (v.length > max) throw invalidParameter(field, `at most ${max} characters`);
  if (CONTROL.test(v)) throw invalidParameter(field, 'must not contain control characters');
  return v;
}

/** A required string of 1 to `max` characters without control characters (blank counts as missing). */
export function requiredText(body: Record<string, unknown>, field: string, max: number): string {
  const v = body[field];
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === ''))
    throw missing(field, `must be a non-empty string of at most ${max} characters`);
  return text(field, v, max);
}

/** An optional string of 1 to `max` characters: absent or null is null. */
export function optionalText(body: Record<string, unknown>, field: string, max: number): string | null {
  const v = body[field];
  if (v === undefined || v === null) return null;
  if (v === '') throw invalidParameter(field, `must be a non-empty string of at most ${max} characters, or left out`);
  return text(field, v, max);
}

/** `labels`: absent or null is none. */
export function labelsField(body: Record<string, unknown>, field = 'labels'): Labels | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  try {
    return parseLabels(v);
  } catch (err) {
    if (err instanceof LabelError) throw invalidParameter(field, err.message);
    throw err;
  }
}

/**
 * `expiresAt`: an RFC 3339 timestamp in the future and at most `maxMs` ahead (the bound included);
 * absent or null: now + `defaultMs`.
 */
export function expiresAtField(
  body: Record<string, unknown>,
  now: Date,
  defaultMs: number,
  maxMs: number,
  maxText: string,
): Date {
  const v = body.expiresAt;
  if (v === undefined || v === null) return new Date(now.getTime() + defaultMs);
  const t = typeof v === 'string' && DATE_TIME.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(t))
    throw invalidParameter('expiresAt', 'must be an RFC 3339 timestamp, e.g. 2030-01-02T03:04:05Z');
  if (t <= now.getTime()) throw invalidParameter('expiresAt', 'must be in the future');
  if (t > now.getTime() + maxMs) throw invalidParameter('expiresAt', `at most ${maxText} ahead`);
  return new Date(t);
}

/** A list of CIDRs (1 to `max`), each a network address with its prefix; an empty or absent list is missing. */
export function cidrsField(body: Record<string, unknown>, field: string, max: number): Cidr[] {
  const v = body[field];
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0))
    throw missing(field, `must be an array of 1 to ${max} CIDRs`);
  try {
    return parseCidrList(v, max);
  } catch (err) {
    if (err instanceof CidrError) throw invalidParameter(field, err.message);
    throw err;
  }
}
