// Maven: the ordering of org.apache.maven.artifact.versioning.ComparableVersion as shipped in Maven 3.9.0 to 3.9.16
// (the class is byte-identical across all of them), hand-written because no well-kept npm library implements it.
// This is a line-by-line port of that class's parseVersion(), normalize() and the compareTo() of its four item kinds;
// the comments cite the Java behaviour each part reproduces, quirks included, since advisories are written against
// what Maven and Gradle actually resolve, not against what a version "should" mean.
//
// A version is a ListItem of items: numbers, qualifier strings and sub-lists. '.' separates items of one list; '-'
// and a transition between digits and letters open a sub-list. Trailing "null" items (0, release qualifiers, empty
// lists) are trimmed, so 1 = 1.0 = 1.0.0 = 1-0 = 1-ga. Qualifier order: alpha < beta < milestone < rc = cr < snapshot
// < "" = ga = final = release < sp < any other string (lexically, after lowercasing). Every string is a Maven version.
import { mavenName } from '../../../shared/package-names';
import type { EcosystemRules } from './rules';

/**
 * A number. Java keeps three classes chosen by the digit count after stripping ASCII leading zeros (IntItem up to 9
 * digits, LongItem up to 18, BigIntegerItem beyond) and orders different classes by class alone, not by value. For
 * ASCII digits that equals numeric order; `width` keeps Java's answer for the odd cases too ("0000000000" is a
 * LongItem(0), which is above IntItem(0) when it is not trailing). BigInt makes 30-digit components exact.
 */
type NumItem = { readonly t: 'num'; readonly width: 0 | 1 | 2; readonly v: bigint };
/** A qualifier, held as Java's comparableQualifier() key ("0".."6" for known ones, "7-<text>" for the rest). */
type StrItem = { readonly t: 'str'; readonly key: string };
type ListItem = { readonly t: 'list'; readonly items: Item[] };
type Item = NumItem | StrItem | ListItem;

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
// A Map, not an object literal: "1-constructor" must not find Object.prototype.constructor.
const ALIASES = new Map([
  ['ga', ''],
  ['final', ''],
  ['release', ''],
  ['cr', 'rc'],
]);
const RELEASE_KEY = String(QUALIFIERS.indexOf('')); // "5": the key of the release (empty) qualifier
const ZERO: NumItem = { t: 'num', width: 0, v: 0n }; // IntItem.ZERO, added for an empty part ("1..2", "-1")

/** Java's String.compareTo sign: both languages compare UTF-16 code units. */
const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Java's comparableQualifier(): known qualifiers by rank, unknown ones after all of them, lexically. */
function qualifierKey(q: string): string {
  const i = QUALIFIERS.indexOf(q);
  return i === -1 ? `${QUALIFIERS.length}-${q}` : String(i);
}

/** new StringItem(value, followedByDigit): a1 = alpha-1, b1 = beta-1, m1 = milestone-1; then the aliases. */
function strItem(value: string, followedByDigit: boolean): StrItem {
  if (followedByDigit && value.length === 1)
    value = value === 'a' ? 'alpha' : value === 'b' ? 'beta' : value === 'm' ? 'milestone' : value;
  return { t: 'str', key: qualifierKey(ALIASES.get(value) ?? value) };
}

// Java's Character.isDigit(char): any decimal digit (Unicode Nd) of the BMP, tested one UTF-16 unit at a time (a
// lone surrogate is never a digit, as with charAt). Integer.parseInt and BigInteger read all of them as digits.
const ND = /^\p{Nd}$/u;
const isDigitChar = (c: string) => (c >= '0' && c <= '9') || (c > '\x7f' && ND.test(c));

/** Character.digit(c, 10) for a Unicode digit: Nd digits come in runs 0..9, so count back to the run's start. */
function digitValue(c: string): number {
  const cp = c.charCodeAt(0);
  if (cp <= 0x39) return cp - 0x30;
  let z = cp;
  while (ND.test(String.fromCharCode(z - 1))) z--;
  return (cp - z) % 10;
}

/** parseItem(true, digits): stripLeadingZeroes() strips ASCII '0' only and keeps an all-zero string whole. */
function numItem(digits: string): NumItem {
  const first = digits.search(/[^0]/);
  const len = first === -1 ? digits.length : digits.length - first;
  const ascii = /^[0-9]+$/.test(digits) ? digits : Array.from(digits, (c) => digitValue(c)).join('');
  return { t: 'num', width: len <= 9 ? 0 : len <= 18 ? 1 : 2, v: BigInt(ascii) };
}

const parseItem = (isDigit: boolean, s: string): Item => (isDigit ? numItem(s) : strItem(s, false));

/** Item.isNull(): 0, a release qualifier, an empty list. */
function isNull(item: Item): boolean {
  if (item.t === 'num') return item.v === 0n;
  if (item.t === 'str') return item.key === RELEASE_KEY;
  return item.items.length === 0;
}

/**
 * ListItem.normalize(): from the end, drop null items; stop at the first non-null item that is not a list. A
 * non-empty list does not stop it, so null items before trailing sub-lists go too ("1-0-1" is [1, [[1]]]).
 */
function normalize(list: Item[]): void {
  for (let i = list.length - 1; i >= 0; i--) {
    const last = list[i];
    if (isNull(last)) list.splice(i, 1);
    else if (last.t !== 'list') break;
  }
}

/** a.compareTo(b) of the Java items, as a sign; b null stands for "nothing left" in a shorter list. */
function compareItem(a: Item, b: Item | null): number {
  if (a.t === 'num') {
    if (b === null) return a.v === 0n ? 0 : 1; // 1.0 == 1, 1.1 > 1
    if (b.t !== 'num') return 1; // 1.1 > 1-sp, 1.1 > 1-1
    if (a.width !== b.width) return a.width < b.width ? -1 : 1; // IntItem < LongItem < BigIntegerItem
    return a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
  }
  if (a.t === 'str') {
    if (b === null) return cmpStr(a.key, RELEASE_KEY); // 1-rc < 1, 1-sp > 1
    return b.t === 'str' ? cmpStr(a.key, b.key) : -1; // 1.any < 1.1, 1.any < 1-1
  }
  if (b === null) {
    // MNG-6964: the whole list against nothing, not just its first item (1-0.alpha < 1).
    for (const item of a.items) {
      const c = compareItem(item, null);
      if (c !== 0) return c;
    }
    return 0;
  }
  if (b.t === 'num') return -1; // 1-1 < 1.0.x
  if (b.t === 'str') return 1; // 1-1 > 1-sp
  const n = Math.max(a.items.length, b.items.length);
  for (let i = 0; i < n; i++) {
    const l = i < a.items.length ? a.items[i] : null;
    const r = i < b.items.length ? b.items[i] : null;
    // when this list is the shorter one, compare the other way round and invert
    const c = l === null ? (r === null ? 0 : -compareItem(r, null)) : compareItem(l, r);
    if (c !== 0) return c;
  }
  return 0;
}

/** ComparableVersion.parseVersion(), step for step. */
export function parseMaven(version: string): ListItem {
  const s = version.toLowerCase(); // Java: toLowerCase(Locale.ENGLISH), the same locale-free Unicode mapping
  const root: Item[] = [];
  let list = root;
  const stack: Item[][] = [root]; // every list opened, normalized innermost (last opened) first
  const open = () => {
    const sub: Item[] = [];
    list.push({ t: 'list', items: sub });
    list = sub;
    stack.push(sub);
  };
  let isDigit = false;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '.' || c === '-') {
      list.push(i === start ? ZERO : parseItem(isDigit, s.slice(start, i)));
      start = i + 1;
      // The one deliberate departure from Maven 3.9: a sub-list that holds only a release qualifier and is closed by
      // '-' stands for nothing, so 1-ga-1 = 1-1 as Maven's own test suite and OSV's reference matcher (osv-scalibr)
      // state. Maven 3.9 orders 1-ga-1 just below 1-1; advisories are written against OSV's reading.
      const only = list.length === 1 ? list[0] : null;
      if (c === '-' && list !== root && only?.t === 'str' && only.key === RELEASE_KEY) list.pop();
      else if (c === '-') open();
    } else if (isDigitChar(c)) {
      if (!isDigit && i > start) {
        // MNG-7644: 1.0.0.X1 < 1.0.0-X2, i.e. ".X" is read as "-X" for any qualifier X
        if (list.length > 0) open();
        list.push(strItem(s.slice(start, i), true));
        start = i;
        open(); // letters to digits: "rc1" is rc-1
      }
      isDigit = true;
    } else {
      if (isDigit && i > start) {
        list.push(numItem(s.slice(start, i)));
        start = i;
        open(); // digits to letters: "1a" is 1-a
      }
      isDigit = false;
    }
  }
  if (s.length > start) {
    if (!isDigit && list.length > 0) open(); // MNG-7644 again, for a trailing qualifier: 2.0.0.x = 2-x
    list.push(parseItem(isDigit, s.slice(start)));
  }
  while (stack.length > 0) normalize(stack.pop()!);
  return { t: 'list', items: root };
}

function parse(version: string): ListItem | null {
  // Surrounding whitespace is dropped, as Maven's POM reader trims <version> before it reaches ComparableVersion.
  // "" is a valid ComparableVersion (equal to "0"), but an empty version here is a data error: reported, not read.
  const v = version.trim();
  return v === '' ? null : parseMaven(v);
}

export const mavenRules: EcosystemRules = {
  osvEcosystem: 'Maven',
  // group:artifact as written: Maven Central coordinates are case-sensitive.
  normalizeName: mavenName,
  parse,
  // OSV Maven bounds are full versions, and any string is one: nothing more to accept than parse does.
  parseBound: parse,
  compare: (a, b) => compareItem(a as ListItem, b as ListItem),
};
