// Maven: the ordering of org.apache.maven.artifact.versioning.ComparableVersion, hand-written because no well-kept
// npm library implements it. A version is a list of items: integers (compared as big integers, so 30-digit
// components work), qualifier strings and sub-lists opened by '-' or by a transition between digits and letters.
// Trailing "null" items (0, release qualifiers, empty lists) are trimmed, so 1 = 1.0 = 1.0.0 = 1-ga.
// Qualifier order: alpha < beta < milestone < rc = cr < snapshot < "" = ga = final = release < sp < anything else
// (lexically, case-insensitive). Every string is a Maven version: parse never fails on non-empty input.
import type { EcosystemRules } from './rules';

type Item = { t: 'int'; v: bigint } | { t: 'str'; v: string } | { t: 'list'; v: Item[] };

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const ALIASES: Record<string, string> = { ga: '', final: '', release: '', cr: 'rc' };
const RELEASE_INDEX = String(QUALIFIERS.indexOf(''));

function stringItem(value: string, followedByDigit: boolean): Item {
  if (followedByDigit && value.length === 1) value = value === 'a' ? 'alpha' : value === 'b' ? 'beta' : value === 'm' ? 'milestone' : value;
  return { t: 'str', v: ALIASES[value] ?? value };
}

/** Sortable key of a qualifier: known ones by rank, unknown ones after them, lexically (as Maven does). */
function qualifierKey(q: string): string {
  const i = QUALIFIERS.indexOf(q);
  return i === -1 ? `${QUALIFIERS.length}-${q}` : String(i);
}

const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function isNull(item: Item): boolean {
  if (item.t === 'int') return item.v === 0n;
  if (item.t === 'str') return qualifierKey(item.v) === RELEASE_INDEX;
  return item.v.length === 0;
}

function normalize(list: Item[]): void {
  for (let i = list.length - 1; i >= 0; i--) {
    const last = list[i];
    if (isNull(last)) list.splice(i, 1);
    else if (last.t !== 'list') break;
  }
}

/** Compares an item with another, or with "nothing" (null) when one list is longer than the other. */
function compareItem(a: Item, b: Item | null): number {
  switch (a.t) {
    case 'int':
      if (b === null) return a.v === 0n ? 0 : 1;
      if (b.t === 'int') return a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
      return 1; // an integer is above any qualifier and any sub-list
    case 'str':
      if (b === null) return cmpStr(qualifierKey(a.v), RELEASE_INDEX);
      if (b.t === 'str') return cmpStr(qualifierKey(a.v), qualifierKey(b.v));
      return -1;
    case 'list': {
      if (b === null) return a.v.length === 0 ? 0 : compareItem(a.v[0], null);
      if (b.t === 'int') return -1;
      if (b.t === 'str') return 1;
      const n = Math.max(a.v.length, b.v.length);
      for (let i = 0; i < n; i++) {
        const l = a.v[i] ?? null;
        const r = b.v[i] ?? null;
        const c = l === null ? (r === null ? 0 : -compareItem(r, null)) : compareItem(l, r);
        if (c !== 0) return c;
      }
      return 0;
    }
  }
}

function parseItem(isDigit: boolean, s: string): Item {
  return isDigit ? { t: 'int', v: BigInt(s) } : stringItem(s, false);
}

export function parseMaven(version: string): Item {
  const text = version.trim().toLowerCase();
  const root: Item[] = [];
  let list = root;
  const stack: Item[][] = [root];
  let isDigit = false;
  let start = 0;
  const open = () => {
    const sub: Item[] = [];
    list.push({ t: 'list', v: sub });
    list = sub;
    stack.push(sub);
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '.' || c === '-') {
      list.push(i === start ? { t: 'int', v: 0n } : parseItem(isDigit, text.slice(start, i)));
      start = i + 1;
      // "-ga-", "-final-", "-release-" between dashes stand for nothing: 1-ga-1 = 1-1 (Maven's own test case).
      const only = list.length === 1 ? list[0] : null;
      if (c === '-' && list !== root && only?.t === 'str' && only.v === '') list.pop();
      else if (c === '-') open();
    } else if (c >= '0' && c <= '9') {
      if (!isDigit && i > start) {
        // a letter run followed by a digit ("rc1", "a1"): the letters are a qualifier, the digits a new sub-list
        list.push(stringItem(text.slice(start, i), true));
        start = i;
        open();
      }
      isDigit = true;
    } else {
      if (isDigit && i > start) {
        list.push(parseItem(true, text.slice(start, i)));
        start = i;
        open();
      }
      isDigit = false;
    }
  }
  if (text.length > start) list.push(parseItem(isDigit, text.slice(start)));
  while (stack.length) normalize(stack.pop()!);
  return { t: 'list', v: root };
}

export const mavenRules: EcosystemRules = {
  osvEcosystem: 'Maven',
  // group:artifact as written: Maven Central coordinates are case-sensitive.
  normalizeName: (name) => name.trim(),
  parse: (version) => (version.trim() === '' ? null : parseMaven(version)),
  parseBound: (version) => (version.trim() === '' ? null : parseMaven(version)),
  compare: (a, b) => compareItem(a as Item, b as Item),
};
