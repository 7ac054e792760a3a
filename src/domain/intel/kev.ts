// CISA's Known Exploited Vulnerabilities catalog (https://www.cisa.gov/known-exploited-vulnerabilities-catalog), parsed
// and checked whole: valid against CISA's own JSON Schema (./schemas, kept byte for byte), `count` equal to the number
// of vulnerabilities listed (a list cut short is refused), every date a real YYYY-MM-DD day, no CVE listed twice.
// Anything else refuses the file (FeedRefused), naming what is wrong. Pure: bytes or text in, a catalog out.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import schema from './schemas/known_exploited_vulnerabilities_schema.json';
import { FeedRefused, feedText, isIsoDate } from './refused';
import type { KevEntry } from './types';

export interface ParsedKev {
  catalogVersion: string;
  /** As the catalog writes it (a date-time, e.g. 2025-08-25T17:04:19.9796Z). */
  dateReleased: string;
  count: number;
  /** By CVE id (upper case, as the schema requires), in the catalog's order. */
  entries: Map<string, KevEntry>;
}

interface RawVulnerability {
  cveID: string;
  dateAdded: string;
  dueDate: string;
  knownRansomwareCampaignUse?: string;
}

interface RawCatalog {
  catalogVersion: string;
  dateReleased: string;
  count: number;
  vulnerabilities: RawVulnerability[];
}

let compiled: ValidateFunction | undefined;

/** The schema compiled once (draft-07; its `url` annotation is not a keyword Ajv knows, hence strict: false). */
function validator(): ValidateFunction {
  if (compiled) return compiled;
  const ajv = new Ajv({ strict: false, allErrors: false, logger: false });
  addFormats(ajv);
  compiled = ajv.compile(schema);
  return compiled;
}

const refuse = (reason: string): never => {
  throw new FeedRefused('kev', reason);
};

/** Where an error is, in words: `vulnerabilities[12] (CVE-…).dateAdded` rather than a bare JSON pointer. */
function place(doc: unknown, pointer: string): string {
  const m = /^\/vulnerabilities\/(\d+)(\/.*)?$/.exec(pointer);
  if (!m) return pointer ? pointer.slice(1).split('/').join('.') : 'the catalog';
  const item = (doc as RawCatalog).vulnerabilities[Number(m[1])] as unknown;
  const id =
    item && typeof item === 'object' && typeof (item as RawVulnerability).cveID === 'string'
      ? ` (${(item as RawVulnerability).cveID.slice(0, 40)})`
      : '';
  return `vulnerabilities[${m[1]}]${id}${m[2] ? m[2].split('/').join('.') : ''}`;
}

function schemaError(doc: unknown, e: ErrorObject | undefined): string {
  if (!e) return 'is not valid against the KEV schema';
  const where = place(doc, e.instancePath);
  if (e.keyword === 'required')
    return `${where}: lacks ${(e.params as { missingProperty?: string }).missingProperty ?? 'a required property'}`;
  return `${where}: ${e.message ?? 'is invalid'} (KEV schema)`;
}

export function parseKev(input: Uint8Array | string): ParsedKev {
  const text = feedText('kev', input);
  if (text.trim() === '') refuse('the file is empty');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    // JSON.parse's message says where ("Unexpected end of JSON input" for a file cut short).
    refuse(`not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const validate = validator();
  if (!validate(doc)) refuse(schemaError(doc, (validate.errors ?? [])[0]));
  const c = doc as RawCatalog;
  if (!Number.isSafeInteger(c.count) || c.count < 0) refuse(`count ${c.count} is not a number of vulnerabilities`);
  if (c.count !== c.vulnerabilities.length)
    refuse(
      `count is ${c.count} but ${c.vulnerabilities.length} vulnerabilities are listed (a truncated or edited catalog)`,
    );
  if (c.catalogVersion.trim() === '') refuse('catalogVersion is empty');
  const entries = new Map<string, KevEntry>();
  for (let i = 0; i < c.vulnerabilities.length; i++) {
    const v = c.vulnerabilities[i];
    for (const field of ['dateAdded', 'dueDate'] as const)
      if (!isIsoDate(v[field]))
        refuse(`vulnerabilities[${i}] (${v.cveID}).${field}: ${JSON.stringify(v[field])} is not a YYYY-MM-DD date`);
    if (entries.has(v.cveID)) refuse(`vulnerabilities[${i}]: ${v.cveID} is listed twice`);
    entries.set(v.cveID, {
      dateAdded: v.dateAdded,
      dueDate: v.dueDate,
      // Optional in the schema; CISA writes "Known" or "Unknown" in every entry of the published catalog.
      knownRansomwareCampaignUse: v.knownRansomwareCampaignUse ?? 'Unknown',
    });
  }
  return { catalogVersion: c.catalogVersion, dateReleased: c.dateReleased, count: c.count, entries };
}

/** The schema compiled ahead of the first import (about 100 ms), for a process that wants its first import fast. */
export function warmKevSchema(): void {
  validator();
}
