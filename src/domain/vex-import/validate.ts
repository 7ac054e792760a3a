// What a VEX document to import is, by its content, and whether it is valid against its official schema (the files in
// ./schemas, kept byte for byte): CycloneDX 1.4, 1.5 and 1.6 (`bomFormat` "CycloneDX" and its `specVersion`) and
// OpenVEX 0.2.0 (its `@context`). Nothing else is taken: another CycloneDX version or OpenVEX context is named in the
// refusal.
//
// The schemas are compiled at first use (one Ajv per format; CycloneDX 1.6 takes a few hundred milliseconds) and kept.
// Two departures from a plain Ajv, neither loosening a check:
// - `uniqueItems` is checked by each item's canonical JSON (sorted keys) in a set, not by Ajv's comparison of every
//   pair: the same answer, linear instead of quadratic (Ajv takes minutes over 10,000 vulnerabilities).
// - the formats Ajv lacks are checked as far as WHATWG URL parsing can tell (iri, iri-reference) and by a mailbox
//   pattern (idn-email); ajv-formats checks the rest (date-time, uri, email, ...).
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import bom14 from './schemas/bom-1.4.schema.json';
import bom15 from './schemas/bom-1.5.schema.json';
import bom16 from './schemas/bom-1.6.schema.json';
import spdx from './schemas/spdx.schema.json';
import jsf from './schemas/jsf-0.82.schema.json';
import openvex from './schemas/openvex-0.2.0.schema.json';

export const CYCLONEDX_VERSIONS = ['1.4', '1.5', '1.6'] as const;
export type CycloneDxVersion = (typeof CYCLONEDX_VERSIONS)[number];
export const OPENVEX_CONTEXT_PREFIX = 'https://openvex.dev/ns/v0.2.0';

export type VexKind =
  { format: 'cyclonedx'; specVersion: CycloneDxVersion } | { format: 'openvex'; specVersion: '0.2.0' };

/** The document's kind by its content, or why it is not one this service imports. */
export function detectVex(doc: unknown): VexKind | { error: string } {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return { error: 'must be a JSON object' };
  const d = doc as Record<string, unknown>;
  if (d.bomFormat === 'CycloneDX') {
    const v = d.specVersion;
    if (typeof v === 'string' && (CYCLONEDX_VERSIONS as readonly string[]).includes(v))
      return { format: 'cyclonedx', specVersion: v as CycloneDxVersion };
    return {
      error: `is CycloneDX ${typeof v === 'string' ? JSON.stringify(v.slice(0, 20)) : 'without a specVersion'}: VEX is imported from CycloneDX ${CYCLONEDX_VERSIONS.join(', ')}`,
    };
  }
  const ctx = d['@context'];
  if (typeof ctx === 'string' && ctx.startsWith('https://openvex.dev/ns')) {
    if (
      ctx === OPENVEX_CONTEXT_PREFIX ||
      ctx.startsWith(`${OPENVEX_CONTEXT_PREFIX}/`) ||
      ctx === `${OPENVEX_CONTEXT_PREFIX}#`
    )
      return { format: 'openvex', specVersion: '0.2.0' };
    return {
      error: `is OpenVEX of @context ${JSON.stringify(ctx.slice(0, 80))}: OpenVEX is imported in version 0.2.0`,
    };
  }
  return {
    error:
      'is neither a CycloneDX VEX (bomFormat "CycloneDX", specVersion 1.4 to 1.6) nor an OpenVEX 0.2.0 document (@context)',
  };
}

const BLANK_OR_CONTROL = /[\s\u0000-\u001f\u007f<>"{}|\\^`]/u;
const iri = (s: string) => {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(s) || BLANK_OR_CONTROL.test(s)) return false;
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
};
const iriReference = (s: string) => {
  if (BLANK_OR_CONTROL.test(s)) return false;
  try {
    new URL(s, 'http://example.invalid/');
    return true;
  } catch {
    return false;
  }
};
const idnEmail = (s: string) => /^[^\s@"()<>[\]\\,;:]+@[^\s@."()<>[\]\\,;:]+(\.[^\s@."()<>[\]\\,;:]+)+$/u.test(s);

/** JSON with object keys sorted: equal for two values exactly when JSON Schema's equality holds. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

function uniqueItems(items: unknown[]): boolean {
  if (items.length < 2) return true;
  const seen = new Set<string>();
  for (const x of items) {
    const k = typeof x === 'object' && x !== null ? canonicalJson(x) : `${typeof x}:${JSON.stringify(x)}`;
    if (seen.has(k)) return false;
    seen.add(k);
  }
  return true;
}

/** The schema with `uniqueItems` renamed to the linear keyword below. */
function linearUnique<T>(schema: T): T {
  return JSON.parse(JSON.stringify(schema), (k, x) =>
    x && typeof x === 'object' && !Array.isArray(x) && 'uniqueItems' in x
      ? Object.fromEntries(Object.entries(x).map(([key, v]) => [key === 'uniqueItems' ? 'x-unique-items' : key, v]))
      : x,
  ) as T;
}

function configure(ajv: Ajv): Ajv {
  addFormats(ajv);
  ajv.addFormat('iri', iri);
  ajv.addFormat('iri-reference', iriReference);
  ajv.addFormat('idn-email', idnEmail);
  ajv.addKeyword({
    keyword: 'x-unique-items',
    type: 'array',
    schemaType: 'boolean',
    errors: false,
    validate: (on: boolean, data: unknown[]) => !on || uniqueItems(data),
  });
  return ajv;
}

const compiled = new Map<string, ValidateFunction>();

function validatorOf(kind: VexKind): ValidateFunction {
  const name = `${kind.format}-${kind.specVersion}`;
  let v = compiled.get(name);
  if (v) return v;
  if (kind.format === 'openvex') {
    const ajv = configure(new Ajv2020({ strict: false, allErrors: false, logger: false }) as unknown as Ajv);
    v = ajv.compile(linearUnique(openvex));
  } else {
    const ajv = configure(new Ajv({ strict: false, allErrors: false, logger: false }));
    ajv.addSchema(linearUnique(spdx));
    ajv.addSchema(linearUnique(jsf));
    const bom = { '1.4': bom14, '1.5': bom15, '1.6': bom16 }[kind.specVersion];
    v = ajv.compile(linearUnique(bom));
  }
  compiled.set(name, v);
  return v;
}

/** The first schema error in words (a JSON pointer and what it breaks), or null for a valid document. */
export function schemaError(kind: VexKind, doc: unknown): string | null {
  const v = validatorOf(kind);
  if (v(doc)) return null;
  const e = (v.errors ?? [])[0] as ErrorObject | undefined;
  if (!e) return 'is not valid against its schema';
  const where = e.instancePath || '/';
  const what =
    e.keyword === 'x-unique-items'
      ? 'must not repeat an item'
      : e.keyword === 'additionalProperties'
        ? `must not have the property ${JSON.stringify((e.params as { additionalProperty?: string }).additionalProperty)}`
        : e.keyword === 'enum'
          ? `must be one of ${((e.params as { allowedValues?: unknown[] }).allowedValues ?? [])
              .slice(0, 12)
              .map((x) => JSON.stringify(x))
              .join(', ')}`
          : (e.message ?? 'is invalid');
  return `${where}: ${what}`;
}

/** The schemas compiled ahead of the first import (a process that serves imports may warm them at start). */
export function warmVexSchemas(): void {
  for (const specVersion of CYCLONEDX_VERSIONS) validatorOf({ format: 'cyclonedx', specVersion });
  validatorOf({ format: 'openvex', specVersion: '0.2.0' });
}
