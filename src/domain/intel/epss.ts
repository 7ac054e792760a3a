// FIRST's EPSS scores (https://www.first.org/epss/), as published each day in one CSV file: an optional first line
// `#model_version:v2025.03.14,score_date:2025-08-25T00:00:00+0000`, the header `cve,epss,percentile`, then one row per
// CVE. Every row is checked (a CVE id, two numbers in [0, 1], no CVE twice); a row cut short, a bad number, an empty
// file or a header alone refuses the whole file (FeedRefused). Pure: text in, packed arrays out (one string per CVE,
// the numbers in two Float64Arrays), read in one pass of indexOf and character codes: no regular expression and no
// object per row. Gzip is the adapter's (src/intel/import.ts).
import { FeedRefused, feedText, isIsoDate } from './refused';

export interface ParsedEpss {
  /** The `model_version` of the file's comment line, null without one. */
  modelVersion: string | null;
  /** YYYY-MM-DD: the comment line's score_date, else the one given (EpssParseOptions). */
  scoreDate: string;
  count: number;
  /** CVE ids (upper case), in file order; scores[i] and percentiles[i] are those of cves[i]. */
  cves: string[];
  scores: Float64Array;
  percentiles: Float64Array;
}

export interface EpssParseOptions {
  /** YYYY-MM-DD, used only when the file has no score_date of its own (a file without one is refused otherwise). */
  scoreDate?: string;
}

export const EPSS_HEADER = 'cve,epss,percentile';

const refuse = (reason: string): never => {
  throw new FeedRefused('epss', reason);
};

const clip = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s);

const NOT_CVE = -1;
const LONG_CVE = -2;

/**
 * CVE-YYYY-NNNN… (4 to 19 digits after the year, as CISA's schema has it), upper case: a number that tells it from
 * every other CVE id (year · 10¹¹ + number, exact below 2⁵³), LONG_CVE for a valid id of more than 11 digits, NOT_CVE.
 */
function cveKey(t: string, s: number, e: number): number {
  const len = e - s;
  if (len < 13 || len > 28) return NOT_CVE;
  if (t.charCodeAt(s) !== 67 || t.charCodeAt(s + 1) !== 86 || t.charCodeAt(s + 2) !== 69) return NOT_CVE; // C V E
  if (t.charCodeAt(s + 3) !== 45 || t.charCodeAt(s + 8) !== 45) return NOT_CVE; // - -
  let year = 0;
  for (let i = s + 4; i < s + 8; i++) {
    const c = t.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return NOT_CVE;
    year = year * 10 + c;
  }
  let n = 0;
  for (let i = s + 9; i < e; i++) {
    const c = t.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return NOT_CVE;
    n = n * 10 + c;
  }
  return len - 9 > 11 ? LONG_CVE : year * 1e11 + n;
}

/**
 * The CVEs seen so far, by cveKey: an open-addressing table of doubles (no object per row), a Set of strings for the
 * rare ids too long for a key. add() says whether the CVE was new.
 */
class SeenCves {
  private table: Float64Array;
  private size = 0;
  private readonly long = new Set<string>();
  constructor(expected: number) {
    let cap = 1024;
    while (cap < expected * 2) cap *= 2;
    this.table = new Float64Array(cap);
    this.shift = 32 - Math.log2(cap);
  }
  private shift: number;
  /** Fibonacci hashing: the high bits of the product, as many as the table has slots. */
  private static slot(key: number, shift: number): number {
    const lo = (key % 4294967296) | 0;
    const hi = (key / 4294967296) | 0;
    return Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> shift;
  }
  private insert(table: Float64Array, stored: number): boolean {
    const mask = table.length - 1;
    for (let i = SeenCves.slot(stored, this.shift); ; i = (i + 1) & mask) {
      if (table[i] === 0) {
        table[i] = stored;
        return true;
      }
      if (table[i] === stored) return false;
    }
  }
  add(key: number, id: string): boolean {
    if (key === LONG_CVE) {
      if (this.long.has(id)) return false;
      this.long.add(id);
      return true;
    }
    if ((this.size + 1) * 2 > this.table.length) {
      const old = this.table;
      this.table = new Float64Array(old.length * 2);
      this.shift--;
      for (const v of old) if (v !== 0) this.insert(this.table, v);
    }
    const added = this.insert(this.table, key + 1); // 0 marks an empty slot
    if (added) this.size++;
    return added;
  }
}

/**
 * A plain decimal (digits, an optional fraction, an optional exponent), else NaN: no sign, hex, blank or Infinity.
 * Up to 15 digits and no exponent (every EPSS number): digits / 10^fraction, which is exactly Number()'s result (both
 * exact below 2⁵³, one correctly rounded division); otherwise Number() itself.
 */
function decimal(t: string, s: number, e: number): number {
  let i = s;
  let digits = 0;
  let v = 0;
  let c = 0;
  for (; i < e && (c = t.charCodeAt(i) - 48) >= 0 && c <= 9; i++) {
    v = v * 10 + c;
    digits++;
  }
  let fraction = 0;
  if (i < e && t.charCodeAt(i) === 46) {
    for (i++; i < e && (c = t.charCodeAt(i) - 48) >= 0 && c <= 9; i++) {
      v = v * 10 + c;
      digits++;
      fraction++;
    }
  }
  if (digits === 0) return NaN;
  if (i === e) return digits <= 15 ? v / POWERS[fraction] : Number(t.slice(s, e));
  if ((t.charCodeAt(i) | 32) !== 101) return NaN;
  i++;
  if (i < e && (t.charCodeAt(i) === 43 || t.charCodeAt(i) === 45)) i++;
  const from = i;
  while (i < e && t.charCodeAt(i) >= 48 && t.charCodeAt(i) <= 57) i++;
  return i === from || i !== e ? NaN : Number(t.slice(s, e));
}

const POWERS = Array.from({ length: 16 }, (_, k) => 10 ** k);

/** The comment line's fields: `#key:value,key:value`. */
function commentFields(line: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const part of line.slice(1).split(',')) {
    const colon = part.indexOf(':');
    if (colon > 0) fields.set(part.slice(0, colon).trim().toLowerCase(), part.slice(colon + 1).trim());
  }
  return fields;
}

export function parseEpss(input: Uint8Array | string, opts: EpssParseOptions = {}): ParsedEpss {
  const t = feedText('epss', input);
  const n = t.length;
  if (t.trim() === '') refuse('the file is empty');
  let pos = 0;
  let lineNo = 0;
  /** The next line's [start, end) without its line break (and \r), moving pos past it. */
  let start = 0;
  let end = 0;
  const nextLine = (): boolean => {
    if (pos >= n) return false;
    const lf = t.indexOf('\n', pos);
    start = pos;
    end = lf < 0 ? n : lf;
    pos = lf < 0 ? n : lf + 1;
    if (end > start && t.charCodeAt(end - 1) === 13) end--;
    lineNo++;
    return true;
  };

  nextLine();
  let modelVersion: string | null = null;
  let scoreDate: string | null = null;
  if (t.charCodeAt(start) === 35) {
    // #model_version:…,score_date:…
    const fields = commentFields(t.slice(start, end));
    modelVersion = fields.get('model_version') || null;
    const raw = fields.get('score_date');
    if (raw !== undefined) {
      const day = raw.slice(0, 10);
      if (!isIsoDate(day) || (raw.length > 10 && raw[10] !== 'T'))
        refuse(`line 1: score_date ${clip(raw)} is not a date (YYYY-MM-DD, or a date-time from it)`);
      scoreDate = day;
    }
    if (!nextLine()) refuse('the header line cve,epss,percentile is missing: the file holds a comment line alone');
  }
  if (scoreDate === null) {
    if (opts.scoreDate === undefined)
      refuse('the file has no score_date (its first line #model_version:…,score_date:…): give the score date');
    if (!isIsoDate(opts.scoreDate!)) refuse(`the score date given, ${clip(opts.scoreDate!)}, is not YYYY-MM-DD`);
    scoreDate = opts.scoreDate!;
  }
  const header = t.slice(start, end).trim().toLowerCase();
  if (header !== EPSS_HEADER)
    refuse(`line ${lineNo}: expected the header ${EPSS_HEADER}, found ${clip(t.slice(start, end))}`);

  let capacity = Math.max(1024, Math.ceil((n - pos) / 28));
  let scores = new Float64Array(capacity);
  let percentiles = new Float64Array(capacity);
  const cves: string[] = [];
  const seen = new SeenCves(capacity);
  let count = 0;
  while (nextLine()) {
    if (end === start) {
      // Blank lines end the file; one followed by more rows is a malformed file.
      if (t.slice(pos).trim() === '') break;
      refuse(`line ${lineNo}: an empty line between rows`);
    }
    const c1 = t.indexOf(',', start);
    const c2 = c1 < 0 || c1 >= end ? -1 : t.indexOf(',', c1 + 1);
    if (c2 < 0 || c2 >= end) {
      const fields = c1 < 0 || c1 >= end ? 1 : 2;
      refuse(
        `line ${lineNo}: ${clip(t.slice(start, end))} has ${fields} field${fields === 1 ? '' : 's'} of 3 (cve,epss,percentile): a row cut short, the file truncated?`,
      );
    }
    const c3 = t.indexOf(',', c2 + 1);
    if (c3 >= 0 && c3 < end) refuse(`line ${lineNo}: ${clip(t.slice(start, end))} has more than 3 fields`);
    const key = cveKey(t, start, c1);
    if (key === NOT_CVE) refuse(`line ${lineNo}: ${clip(t.slice(start, c1))} is not a CVE id (CVE-YYYY-NNNN)`);
    const score = decimal(t, c1 + 1, c2);
    if (!(score >= 0 && score <= 1))
      refuse(`line ${lineNo}: epss ${clip(t.slice(c1 + 1, c2))} is not a number from 0 to 1`);
    const percentile = decimal(t, c2 + 1, end);
    if (!(percentile >= 0 && percentile <= 1))
      refuse(`line ${lineNo}: percentile ${clip(t.slice(c2 + 1, end))} is not a number from 0 to 1`);
    const cve = t.slice(start, c1);
    if (!seen.add(key, cve)) refuse(`line ${lineNo}: ${cve} is listed twice`);
    if (count === capacity) {
      capacity *= 2;
      const s = new Float64Array(capacity);
      s.set(scores);
      scores = s;
      const p = new Float64Array(capacity);
      p.set(percentiles);
      percentiles = p;
    }
    cves.push(cve);
    scores[count] = score;
    percentiles[count] = percentile;
    count++;
  }
  if (count === 0) refuse('no rows after the header');
  return {
    modelVersion,
    scoreDate,
    count,
    cves,
    scores: scores.slice(0, count),
    percentiles: percentiles.slice(0, count),
  };
}
