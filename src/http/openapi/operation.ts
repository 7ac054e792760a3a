// The description of one route, as the route table (src/http/auth/matrix.ts) and the handlers define it. document.ts
// turns these into OpenAPI operations, adding what every route of a kind answers (401/403/429 for guarded routes,
// 503 for routes that read the database, 500 everywhere).
import type { ErrorCode } from '../../domain/errors';
import { MAX_LIMIT } from '../pagination';

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  description: string;
  required?: boolean;
  schema: Record<string, unknown>;
}

export interface Resp {
  description: string;
  /** JSON body schema (usually a $ref); omitted for bodiless answers (204, 304). */
  schema?: Record<string, unknown>;
  /** Error codes this status answers with: the body is then the error envelope restricted to them. */
  codes?: ErrorCode[];
  /** A non-JSON body: media type → schema. */
  content?: Record<string, { schema: Record<string, unknown> }>;
  headers?: Record<string, Record<string, unknown>>;
}

export interface Operation {
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  parameters?: Param[];
  requestBody?: { description: string; required: true; schema: Record<string, unknown> };
  responses: Record<number, Resp>;
  /** Reads the database (or Temporal): a database outage answers 503 service_unavailable. */
  usesDatabase: boolean;
}

export const pathParam = (name: string, description: string, pattern?: string): Param => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: pattern ? { type: 'string', pattern } : { type: 'string' },
});

export const queryEnum = (name: string, values: readonly string[], description: string, dflt?: string): Param => ({
  name,
  in: 'query',
  description,
  schema: { type: 'string', enum: [...values], ...(dflt ? { default: dflt } : {}) },
});

/** limit and cursor (src/http/pagination.ts): above 200 is clamped, below 1 or not an integer is 422. */
export const PAGINATION: Param[] = [
  {
    name: 'limit',
    in: 'query',
    description: `Page size, default 50; values above ${MAX_LIMIT} are clamped to ${MAX_LIMIT}. Not an integer or below 1: 422 invalid_parameter.`,
    schema: { type: 'integer', minimum: 1, default: 50 },
  },
  {
    name: 'cursor',
    in: 'query',
    description:
      'The nextCursor of the previous page (opaque, 24 hours; reset when filters change). Invalid or expired: 422 invalid_cursor.',
    schema: { type: 'string', minLength: 1 },
  },
];

/** Every query parameter is single-valued: a repeated one is 422 invalid_parameter (src/http/pagination.ts). */
/** The Server-Timing header of the routes that time their steps (src/http/timing.ts). */
export const serverTiming = (steps: string): Record<string, Record<string, unknown>> => ({
  'Server-Timing': {
    description: `Where the request's time went (W3C Server Timing): ${steps}, each \`name;dur=<ms>\`. For operators and benchmarks; not part of the contract's payload.`,
    schema: { type: 'string' },
  },
});

export const LIST_ERRORS: ErrorCode[] = ['invalid_parameter', 'invalid_cursor'];

/** Small JSON bodies of the platform routes (src/http/json-body.ts): 64 KB, a JSON object. */
export const OBJECT_BODY_ERRORS = {
  400: {
    description: 'The request body was aborted before its end (code invalid_parameter).',
    codes: ['invalid_parameter'],
  },
  413: { description: 'The body is over 64 KB (code invalid_parameter).', codes: ['invalid_parameter'] },
} satisfies Record<number, Resp>;
