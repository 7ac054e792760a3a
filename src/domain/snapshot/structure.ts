// Structural validation with ajv: both schemas compiled once at module load, first error only (allErrors: false
// stops at the first failure, which is all the message reports and keeps a hostile 10 MB body cheap to reject).
// Every ajv error becomes `<json pointer>: <what is wrong>`, pointing at the offending field itself.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { invalidSnapshot, pointer, type ApiError } from '../errors';
import { snapshotSchemaV1 } from './schema-v1';
import { snapshotSchemaV2 } from './schema-v2';

// strict catches schema mistakes at load time; union types ("string or null") are intended.
const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
// ajv-formats' "date" is RFC 3339 full-date and checks the calendar (days per month, leap years).
addFormats(ajv, ['date']);

const validators: Record<1 | 2, ValidateFunction> = {
  1: ajv.compile(snapshotSchemaV1),
  2: ajv.compile(snapshotSchemaV2),
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Returns the schema version once the body is an object with a known schemaVersion. */
export function schemaVersionOf(body: unknown): 1 | 2 {
  if (!isObject(body)) throw invalidSnapshot('', 'must be a JSON object');
  if (!('schemaVersion' in body)) throw invalidSnapshot('/schemaVersion', 'is required (1 or 2)');
  const v = body.schemaVersion;
  if (v !== 1 && v !== 2)
    throw invalidSnapshot('/schemaVersion', `unknown schema version ${JSON.stringify(v)}; must be 1 or 2`);
  return v;
}

export function checkStructure(body: unknown, version: 1 | 2): void {
  const validate = validators[version];
  if (validate(body)) return;
  throw structuralError(validate.errors ?? []);
}

/** The first ajv error as 422 invalid_snapshot `<json pointer>: <what is wrong>` (also used for multipart parts). */
export function structuralError(errors: ErrorObject[]): ApiError {
  const e = errors[0];
  if (!e) return invalidSnapshot('', 'does not match the snapshot schema');
  // A failure inside propertyNames carries the offending key; the error points at the key itself.
  const key = e.propertyName;
  if (key !== undefined) return invalidSnapshot(e.instancePath + pointer(key), `key ${describe(e)}`);
  switch (e.keyword) {
    case 'required':
      return invalidSnapshot(
        e.instancePath + pointer((e.params as { missingProperty: string }).missingProperty),
        'is required',
      );
    case 'additionalProperties':
      return invalidSnapshot(
        e.instancePath + pointer((e.params as { additionalProperty: string }).additionalProperty),
        'is not allowed',
      );
    default:
      return invalidSnapshot(e.instancePath, describe(e));
  }
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'type':
      return `must be ${Array.isArray(p.type) ? p.type.join(' or ') : String(p.type)}`;
    case 'pattern':
      // The only pattern in the schemas is the control-character ban.
      return 'must not contain control characters (U+0000 to U+001F, U+007F)';
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`;
    case 'maxProperties':
      return `must have at most ${String(p.limit)} entries`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'format':
      return p.format === 'date' ? 'must be a calendar date YYYY-MM-DD' : `must be a ${String(p.format)}`;
    default:
      return e.message ?? 'is invalid';
  }
}
