// The official CycloneDX 1.6 JSON schema (schemas/ of the third-party data, src/infra/shared-data.ts, byte for byte
// from CycloneDX/specification 1.6.2) as an Ajv validator, with its formats checked: ajv-formats' (date-time, ...)
// and the two it lacks (iri-reference, idn-email), so that a document this service writes is checked as strictly as
// a consumer would. The schema is read at the first check: tests that check run only with that data
// (itWithSharedData, test/helpers/shared-data.ts).
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { sharedDataPath } from '../../src/infra/shared-data';

const SCHEMAS = sharedDataPath('schemas');

/** RFC 3987 IRI-reference, as far as WHATWG URL parsing can tell: resolves against a base, has no blanks or controls. */
const iriReference = (s: string) => {
  if (/[\s\u0000-\u001f\u007f<>"{}|\\^`]/u.test(s)) return false;
  try {
    new URL(s, 'http://example.invalid/');
    return true;
  } catch {
    return false;
  }
};
/** RFC 6531 mailbox: local part and a domain of labels (any script), one @. */
const idnEmail = (s: string) => /^[^\s@"()<>[\]\\,;:]+@[^\s@."()<>[\]\\,;:]+(\.[^\s@."()<>[\]\\,;:]+)+$/u.test(s);

const validators = new Map<boolean, ReturnType<Ajv['compile']>>();

function validator(uniqueItems: boolean) {
  let v = validators.get(uniqueItems);
  if (v) return v;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('iri-reference', iriReference);
  ajv.addFormat('idn-email', idnEmail);
  // Ajv 8 has no option to skip a keyword: the large variant reads the schema without its uniqueItems.
  const read = (f: string) =>
    JSON.parse(fs.readFileSync(path.join(SCHEMAS, f), 'utf8'), (k, x) =>
      !uniqueItems && k === 'uniqueItems' ? undefined : x,
    );
  for (const f of ['spdx.schema.json', 'jsf-0.82.schema.json']) ajv.addSchema(read(f));
  v = ajv.compile(read('bom-1.6.schema.json'));
  validators.set(uniqueItems, v);
  return v;
}

/**
 * The schema's errors for a document ([] when it is valid). Ajv checks `uniqueItems` by comparing every pair of
 * items deeply: a minute for 5,000 components. `large` skips that keyword and checks instead what makes the items
 * of those arrays distinct here (every bom-ref once; dependency refs and each dependsOn without repeats).
 */
export function cyclonedxErrors(doc: any, opts: { large?: boolean } = {}): unknown[] {
  const v = validator(!opts.large);
  if (!v(doc)) return v.errors ?? ['invalid'];
  if (!opts.large) return [];
  const out: string[] = [];
  try {
    bomRefs(doc);
  } catch (err) {
    out.push((err as Error).message);
  }
  const repeated = (xs: string[]) => xs.length !== new Set(xs).size;
  if (repeated((doc.dependencies ?? []).map((d: { ref: string }) => d.ref))) out.push('a dependency ref twice');
  for (const d of doc.dependencies ?? [])
    if (d.dependsOn && repeated(d.dependsOn)) out.push(`${d.ref}: dependsOn repeats`);
  return out;
}

/** Every bom-ref of a document (components at any depth, vulnerabilities), each once: throws on a repeated one. */
export function bomRefs(doc: any): Set<string> {
  const refs = new Set<string>();
  const add = (r: string) => {
    if (refs.has(r)) throw new Error(`bom-ref ${r} twice`);
    refs.add(r);
  };
  const walk = (c: any) => {
    add(c['bom-ref']);
    for (const s of c.components ?? []) walk(s);
  };
  walk(doc.metadata.component);
  for (const c of doc.components ?? []) walk(c);
  for (const v of doc.vulnerabilities ?? []) add(v['bom-ref']);
  return refs;
}
