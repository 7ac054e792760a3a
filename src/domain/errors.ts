// Typed errors a client can cause. Thrown anywhere; the HTTP error middleware turns them into the API's error envelope
// {error: {code, message}} with this status. The message names the offending field (a JSON pointer into the snapshot
// for upload errors) or the missing scope / role.

export type ErrorCode =
  | 'invalid_token'
  | 'insufficient_scope'
  | 'not_found'
  | 'idempotency_conflict'
  | 'last_owner'
  | 'invite_expired'
  | 'invite_revoked'
  | 'invite_already_accepted'
  | 'invite_email_mismatch'
  | 'already_in_org'
  | 'already_member'
  | 'snapshot_too_large'
  | 'invalid_snapshot'
  | 'unknown_project'
  | 'missing_parameter'
  | 'invalid_cursor'
  | 'invalid_scope'
  | 'invalid_parameter'
  | 'invalid_idempotency_key'
  | 'bad_request'
  | 'upload_not_open'
  | 'upload_incomplete'
  | 'invalid_state'
  | 'rate_limited'
  | 'service_unavailable'
  | 'internal_error';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** Seconds for the Retry-After header of a 429 or 503 (defaults: 60 and 5). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const invalidSnapshot = (pointer: string, what: string): ApiError =>
  new ApiError(422, 'invalid_snapshot', `${pointer || '/'}: ${what}`);

export const tooLarge = (pointer: string, what: string): ApiError =>
  new ApiError(413, 'snapshot_too_large', `${pointer || '/'}: ${what}`);

export const notFound = (what: string): ApiError => new ApiError(404, 'not_found', `${what} not found`);

export const invalidParameter = (name: string, what: string): ApiError =>
  new ApiError(422, 'invalid_parameter', `${name}: ${what}`);

/** JSON pointer (RFC 6901) from path segments. */
export function pointer(...segments: Array<string | number>): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}
