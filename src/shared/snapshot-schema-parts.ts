// Schema fragments shared by the v1 and v2 snapshot schemas. Plain JSON Schema (draft-07 dialect, as ajv reads it).
//
// Objects stay open (additionalProperties: true): the format's versioning rule is additive changes within a version,
// and nodes[].attributions is an accepted producer field of unspecified shape, so unknown fields are ignored rather
// than rejected. Flip OPEN to close every object at once.
import { ECOSYSTEMS } from './types';

export const OPEN = true;

/** No C0 control characters and no DEL (U+0000 to U+001F, U+007F). ajv compiles patterns with the `u` flag. */
export const NO_CONTROL = '^[^\\u0000-\\u001F\\u007F]*$';

export const MAX_TEXT = 2000;
export const MAX_PROJECT = 200;
export const MAX_TEAM_NAME = 200;
export const MAX_ATTRIBUTES = 50;
export const MAX_ATTRIBUTE_KEY = 100;

/** The v2 "text" type. */
export const text = { type: 'string', minLength: 1, maxLength: MAX_TEXT, pattern: NO_CONTROL } as const;
export const textArray = { type: 'array', items: text } as const;
export const textOrNull = { type: ['string', 'null'], minLength: 1, maxLength: MAX_TEXT, pattern: NO_CONTROL } as const;

/** The v2 project rule applies to v1 too. */
export const project = { type: 'string', minLength: 1, maxLength: MAX_PROJECT, pattern: NO_CONTROL } as const;

export const ecosystem = { type: 'string', enum: [...ECOSYSTEMS] } as const;
export const relationship = { type: 'string', enum: ['direct', 'transitive'] } as const;

/**
 * Suppressions are the same in both versions: no Suppression field is v2 only, and a cve or package
 * glob that is empty or holds control characters can never match anything. reason is "string", not "text": a reason
 * may span lines, so only its length is bounded.
 */
export const suppression = {
  type: 'object',
  required: ['cve', 'reason'],
  additionalProperties: OPEN,
  properties: {
    cve: text,
    reason: { type: 'string', minLength: 1, maxLength: MAX_TEXT },
    package: text,
    expires: { type: 'string', format: 'date' },
  },
} as const;
export const suppressions = { type: 'array', items: suppression } as const;

/**
 * Where the snapshot comes from, as the CI client finds it (additive, both versions, echoed on the
 * Scan). Each field a "text"; other fields are ignored like any unknown field. baseRef and baseCommit: on a change
 * under review, the branch it goes into and the commit of it the change is compared with.
 */
export const metadata = {
  type: 'object',
  additionalProperties: OPEN,
  properties: { commit: text, ref: text, runUrl: text, baseRef: text, baseCommit: text },
} as const;
