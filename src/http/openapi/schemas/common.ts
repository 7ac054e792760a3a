// Shapes shared by every resource of the OpenAPI document: the error envelope, timestamps, list envelopes. JSON
// Schema 2020-12 (OpenAPI 3.1's dialect): "nullable" is a type list, never the 3.0 keyword.
import type { ErrorCode } from '../../../domain/errors';

/** A `$ref` to a component schema: the document keeps one definition per shape. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const timestamp = { type: 'string', format: 'date-time' } as const;
export const timestampOrNull = { type: ['string', 'null'], format: 'date-time' } as const;
export const str = { type: 'string' } as const;
export const strOrNull = { type: ['string', 'null'] } as const;
export const strArray = { type: 'array', items: str } as const;

/** The API's envelope for every error; `code` is one of domain/errors.ts's codes. */
export function errorEnvelope(codes?: readonly ErrorCode[]) {
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: codes ? { type: 'string', enum: [...codes] } : str,
          // names the offending field (a JSON pointer into the snapshot for upload errors) or the missing scope/role
          message: str,
        },
      },
    },
  };
}

/** `{<items>: Item[], nextCursor}`: every list endpoint's page (nextCursor null on the last page). */
export function listEnvelope(items: string, item: string, extra: Record<string, unknown> = {}) {
  return {
    type: 'object',
    required: [items, 'nextCursor'],
    properties: { [items]: { type: 'array', items: ref(item) }, nextCursor: strOrNull, ...extra },
  };
}

export const commonSchemas = {
  Error: errorEnvelope(),
};
