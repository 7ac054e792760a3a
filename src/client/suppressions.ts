// Suppressions kept in the repository: `.scanner/suppressions.yaml` at the project root (or `--suppressions FILE`),
// read with line numbers, checked with the service's own rules before anything is uploaded, and added to every
// snapshot of the run. docs/client.md, "Suppressions kept in the repository".
//
// The file: one YAML document, a mapping whose only field is `suppressions`, a list of mappings with the fields of a
// snapshot's suppression (cve, reason, package?, expires?) and no other. Nothing else is accepted (no top-level list,
// no aliases, no other field): a mistake is an error naming the file and the line (exit 2), never a suppression
// silently dropped or widened.
//
// The rules of each field are read from the snapshot schema the service validates with
// (src/shared/snapshot-schema-parts.ts), so that the two cannot drift: the client bundle has no ajv, so the few
// keywords that schema uses are checked here (test/unit/client/suppressions.test.ts holds both to the same answers).
import fs from 'node:fs';
import path from 'node:path';
import { LineCounter, isAlias, isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import type { Snapshot, SnapshotSuppression } from '../shared/types';
import {
  suppression as SUPPRESSION_SCHEMA,
  suppressions as SUPPRESSIONS_SCHEMA,
} from '../shared/snapshot-schema-parts';
import { InputError } from './errors';

/** Where the file is looked for, from the project root (the folder `scanner scan|snapshot [PATH...]` scans). */
export const SUPPRESSIONS_FILE = '.scanner/suppressions.yaml';

/** One entry of the file: the suppression sent, and the line its entry starts on. */
export interface FileSuppression {
  suppression: SnapshotSuppression;
  line: number;
}

export interface SuppressionsFile {
  /** The file as messages name it: as given to --suppressions, else relative to the working directory. */
  display: string;
  entries: FileSuppression[];
}

// ---------------------------------------------------------------- the service's rules --

type FieldName = keyof SnapshotSuppression;
interface StringRule {
  type: 'string';
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
}

/** The keywords of the shared schema this file checks; the unit test fails when the schema uses another. */
export const CHECKED_KEYWORDS = ['type', 'minLength', 'maxLength', 'pattern', 'format'] as const;

const FIELDS = Object.keys(SUPPRESSION_SCHEMA.properties) as FieldName[];
const RULES = SUPPRESSION_SCHEMA.properties as Record<FieldName, StringRule>;
const REQUIRED: readonly string[] = SUPPRESSION_SCHEMA.required;
/** A most number of suppressions, should the schema ever set one (it sets none today). */
const MAX_ITEMS = (SUPPRESSIONS_SCHEMA as { maxItems?: number }).maxItems;
const PATTERNS = new Map<string, RegExp>();

/** ajv-formats' "date" (RFC 3339 full-date, the calendar checked: days per month, leap years), as the service has it. */
export function isCalendarDate(s: string): boolean {
  const m = /^(\d\d\d\d)-(\d\d)-(\d\d)$/.exec(s);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [0, 31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return month >= 1 && month <= 12 && day >= 1 && day <= days[month];
}

/** Length as ajv counts it by default: code points (a lone surrogate counts as one). */
const codePoints = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/**
 * What is wrong with a field's string value under the schema's rule (worded as the service words it), or undefined.
 * The rule order is ajv's for string keywords: length, then pattern, then format.
 */
export function fieldProblem(field: FieldName, value: string): string | undefined {
  const rule = RULES[field];
  const length = codePoints(value);
  if (rule.maxLength !== undefined && length > rule.maxLength)
    return `${field} must be at most ${rule.maxLength} characters (it has ${length})`;
  if (rule.minLength !== undefined && length < rule.minLength)
    return rule.minLength === 1
      ? `${field} must not be empty`
      : `${field} must be at least ${rule.minLength} characters`;
  if (rule.pattern !== undefined) {
    let re = PATTERNS.get(rule.pattern);
    if (!re) PATTERNS.set(rule.pattern, (re = new RegExp(rule.pattern, 'u')));
    // The only pattern of the schema is the control-character ban.
    if (!re.test(value)) return `${field} must not contain control characters (U+0000 to U+001F, U+007F)`;
  }
  if (rule.format === 'date' && !isCalendarDate(value)) return `${field} must be a calendar date YYYY-MM-DD`;
  return undefined;
}

// ---------------------------------------------------------------- reading the file --

/** The same suppression twice (advisory ids compared case-insensitively, as the service compares them). */
export const sameSuppression = (a: SnapshotSuppression, b: SnapshotSuppression) =>
  a.cve.toUpperCase() === b.cve.toUpperCase() &&
  a.package === b.package &&
  a.reason === b.reason &&
  a.expires === b.expires;

type Node = ReturnType<typeof parseDocument>['contents'];

function kindOf(node: unknown): string {
  if (node === null || node === undefined) return 'nothing';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isAlias(node)) return 'an alias';
  if (isScalar(node)) {
    const v = node.value;
    if (v === null) return 'nothing (null)';
    if (typeof v === 'number' || typeof v === 'bigint') return `a number (${String(v)})`;
    if (typeof v === 'boolean') return `a boolean (${String(v)})`;
    if (typeof v === 'string') return 'a string';
    if (v instanceof Date) return 'a timestamp';
  }
  return 'something else';
}

/**
 * The entries of a suppressions file's text. Throws InputError `<display>:<line>: <what is wrong>` at the first
 * problem: YAML that does not parse, a shape other than the one documented, an unknown field, a value the service
 * would refuse, or the same cve and package twice.
 */
export function parseSuppressions(text: string, display: string): FileSuppression[] {
  const lines = new LineCounter();
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const doc = parseDocument(source, {
    lineCounter: lines,
    prettyErrors: false,
    uniqueKeys: true,
    strict: true,
  });
  const lineAt = (offset: number | undefined) => (offset === undefined ? 1 : lines.linePos(offset).line);
  const lineOf = (node: unknown, fallback = 1): number => {
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
    return range ? lineAt(range[0]) : fallback;
  };
  const fail = (line: number, message: string): never => {
    throw new InputError(`${display}:${line}: ${message}`);
  };
  // A YAML error or warning (an unknown tag, a duplicate key, several documents...): its first line, where it is.
  const problem = doc.errors[0] ?? doc.warnings[0];
  // One found at the end of the text (an unclosed bracket or quote) is shown on the last line that has text.
  const lastText = source.trimEnd().length - 1;
  if (problem)
    fail(
      lineAt(Math.max(0, Math.min(problem.pos[0], lastText))),
      problem.code === 'MULTIPLE_DOCS'
        ? 'a second YAML document: the file is one document'
        : `invalid YAML: ${problem.message.split('\n')[0]}`,
    );

  const root = doc.contents as Node;
  // Nothing but comments (or nothing at all): no suppressions.
  if (root === null || (isScalar(root) && root.value === null)) return [];
  if (!isMap(root))
    fail(
      lineOf(root),
      `expected a mapping with a "suppressions:" list, found ${kindOf(root)}${isSeq(root) ? ' (a top-level list is not accepted: put it under "suppressions:")' : ''}`,
    );
  let list: unknown;
  let listLine = lineOf(root);
  for (const pair of (root as { items: unknown[] }).items) {
    if (!isPair(pair)) continue;
    const key = pair.key;
    const name = isScalar(key) ? key.value : undefined;
    if (name !== 'suppressions')
      fail(
        lineOf(key, listLine),
        `unknown field ${typeof name === 'string' ? JSON.stringify(name) : kindOf(key)}: the file has one field, "suppressions"`,
      );
    list = pair.value;
    listLine = lineOf(key, listLine);
  }
  if (list === undefined) fail(listLine, 'the "suppressions:" field is missing');
  if (isAlias(list)) fail(lineOf(list, listLine), 'aliases (*name) are not accepted');
  if (!isSeq(list))
    fail(
      lineOf(list, listLine),
      `"suppressions" must be a list of suppressions, found ${kindOf(list)} (write "suppressions: []" for none)`,
    );
  const items = (list as { items: unknown[] }).items;
  if (MAX_ITEMS !== undefined && items.length > MAX_ITEMS)
    fail(lineOf(items[MAX_ITEMS], listLine), `more than ${MAX_ITEMS} suppressions, the most a snapshot may carry`);

  const entries: FileSuppression[] = [];
  for (const item of items) {
    const line = lineOf(item, listLine);
    if (isAlias(item)) fail(line, 'aliases (*name) are not accepted');
    if (!isMap(item))
      fail(line, `a suppression must be a mapping of cve, reason, package and expires, found ${kindOf(item)}`);
    const values: Partial<Record<FieldName, string>> = {};
    for (const pair of (item as { items: unknown[] }).items) {
      if (!isPair(pair)) continue;
      const key = pair.key;
      const keyLine = lineOf(key, line);
      const name = isScalar(key) ? key.value : undefined;
      if (typeof name !== 'string' || !(FIELDS as string[]).includes(name))
        fail(
          keyLine,
          `unknown field ${typeof name === 'string' ? JSON.stringify(name) : kindOf(key)} in a suppression (its fields: ${FIELDS.join(', ')})`,
        );
      const field = name as FieldName;
      const value = pair.value;
      const valueLine = lineOf(value, keyLine);
      if (isAlias(value)) fail(valueLine, `${field}: aliases (*name) are not accepted`);
      if (!isScalar(value) || typeof value.value !== 'string')
        fail(valueLine, `${field} must be a string, found ${kindOf(value)}`);
      const text = (value as { value: string }).value;
      const wrong = fieldProblem(field, text);
      if (wrong) fail(valueLine, wrong);
      values[field] = text;
    }
    for (const field of REQUIRED) if (values[field as FieldName] === undefined) fail(line, `${field} is required`);
    const s: SnapshotSuppression = { cve: values.cve!, reason: values.reason! };
    if (values.package !== undefined) s.package = values.package;
    if (values.expires !== undefined) s.expires = values.expires;
    // Only the first of two entries for one advisory and package ever applies: the second is a mistake.
    const twin = entries.find(
      (e) => e.suppression.cve.toUpperCase() === s.cve.toUpperCase() && e.suppression.package === s.package,
    );
    if (twin)
      fail(
        line,
        `the suppression of ${what(s)} is already at line ${twin.line}: one entry per advisory and package (only the first would apply)`,
      );
    entries.push({ suppression: s, line });
  }
  return entries;
}

/**
 * The suppressions file of a run: the one --suppressions names (it must exist), else SUPPRESSIONS_FILE under the
 * project root when there is one; undefined when there is none.
 */
export function loadSuppressions(opts: { root: string; flag?: string; cwd: string }): SuppressionsFile | undefined {
  let file: string;
  let display: string;
  if (opts.flag !== undefined) {
    if (opts.flag === '') throw new InputError('--suppressions: a file path');
    file = path.resolve(opts.cwd, opts.flag);
    display = opts.flag;
  } else {
    file = path.join(opts.root, SUPPRESSIONS_FILE);
    const rel = path.relative(opts.cwd, file);
    display = rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? file : rel;
  }
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (opts.flag === undefined && (code === 'ENOENT' || code === 'ENOTDIR')) return undefined;
    throw new InputError(
      code === 'ENOENT' || code === 'ENOTDIR'
        ? `--suppressions ${display}: no such file`
        : `${display}: cannot be read (${(err as Error).message})`,
    );
  }
  if (!stat.isFile()) throw new InputError(`${display}: not a file`);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(`${display}: cannot be read (${(err as Error).message})`);
  }
  return { display, entries: parseSuppressions(text, display) };
}

// ---------------------------------------------------------------- into the snapshots --

/** The snapshot's own suppressions (a producer's), then those added that it does not carry already. */
export function mergeSuppressions(
  own: readonly SnapshotSuppression[] | undefined,
  added: readonly SnapshotSuppression[],
): SnapshotSuppression[] {
  const out = [...(own ?? [])];
  for (const s of added) if (!out.some((o) => sameSuppression(o, s))) out.push({ ...s });
  return out;
}

/** The snapshot with the suppressions added (the same object when there are none to add). */
export function withSuppressions(snapshot: Snapshot, added: readonly SnapshotSuppression[]): Snapshot {
  if (added.length === 0) return snapshot;
  return { ...snapshot, suppressions: mergeSuppressions(snapshot.suppressions, added) };
}

// ---------------------------------------------------------------- warnings --

/** "CVE-2024-1 for lodash" or "CVE-2024-1". */
export const what = (s: SnapshotSuppression) => `${s.cve}${s.package !== undefined ? ` for ${s.package}` : ''}`;

/** Today as the service dates its processing day: YYYY-MM-DD, UTC. */
export const todayUtc = (now = new Date()) => now.toISOString().slice(0, 10);

/** Whether the service ignores the suppression on `day` (it keeps those whose expires is that day or later). */
export const isExpired = (s: SnapshotSuppression, day: string) => s.expires !== undefined && s.expires < day;

/** One warning (without the `scanner: warning: ` prefix) per expired entry. */
export function expiredWarnings(file: SuppressionsFile, day: string): string[] {
  return file.entries
    .filter((e) => isExpired(e.suppression, day))
    .map(
      (e) =>
        `${file.display}:${e.line}: suppression of ${what(e.suppression)} expired (expires ${e.suppression.expires}, before today ${day} UTC): the service ignores it`,
    );
}

/**
 * One warning per entry in force that suppressed no finding: `used` holds every suppression (as sent) that
 * suppressed a finding of the run's completed scans. Expired entries have their own warning.
 */
export function unmatchedWarnings(file: SuppressionsFile, used: readonly SnapshotSuppression[], day: string): string[] {
  return file.entries
    .filter((e) => !isExpired(e.suppression, day) && !used.some((u) => sameSuppression(u, e.suppression)))
    .map((e) => `${file.display}:${e.line}: suppression of ${what(e.suppression)} matched no finding`);
}
