// A fast reader for the YAML pnpm writes its lockfile in. pnpm serializes with a fixed style: block mappings indented
// two spaces a level, keys and values plain or quoted on one line, block sequences of scalars indented under their key
// ("transitivePeerDependencies:\n  - supports-color"), and flat one-line flow collections ("cpu: [x64]",
// "resolution: {integrity: sha512-...}", "{}"). The yaml package reads any YAML but takes ~250-600 ms cold on a
// 6000-line lockfile (vuejs/core's), 5-10 times the budget of a whole `scanner snapshot`; this one pass over the lines
// takes a few milliseconds.
//
// It must never give a value other than `parse(text)` of the yaml package (YAML 1.2, core schema). So anything outside
// the subset it knows for sure returns undefined at once and the caller falls back to the yaml package: anchors,
// aliases, tags, block scalars, comments, directives and document markers (but a first "---"), tabs and other control
// characters, indents other than two more than the parent's, multi-line scalars, nested or multi-line flow
// collections, complex keys, duplicate keys (the yaml package refuses them, and the caller relies on that error), keys
// that are not strings, numeric-looking plain scalars other than plain integers and decimals, YAML-only escapes.
//
// Written for a cold process, where the code runs in V8's interpreter: the work per line is a few native string
// searches and regular expressions (native code), not loops over characters, and as few calls as can be.

type Value = null | boolean | number | string | Value[] | { [key: string]: Value };
type Obj = { [key: string]: Value };

/** Thrown inside the reader to leave it; readPnpmYaml turns it into undefined (cheaper than checking every return). */
const BAIL = new Error('not in the pnpm YAML subset');
function bail(): never {
  throw BAIL;
}

/** Characters the yaml package might read as something else than text: controls (tabs too), line separators, byte
 *  order marks. Checked once over the whole text, and so are CRs not followed by LF (a line break for YAML). */
const UNSAFE_CHARS = /[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/;
/** Plain scalars this reader does not take as they are: an indicator or a space first ("-", "?", ":" may start one
 *  before a non-space, but pnpm quotes such values), a ": " (a mapping) or " #" (a comment) inside, a ":" or a space
 *  last; in a flow collection also ",[]{}" anywhere. */
const BAD_PLAIN = /^[-?:,[\]{}#&*!|>'"%@` ]|: | #|[: ]$/;
const BAD_FLOW_PLAIN = /^[-?:#&*!|>'"%@` ]|: | #|[: ]$|[,[\]{}]/;
/** Plain scalars the core schema may read as a number (a superset, also with YAML 1.1 underscores and prefixes). */
const NUMERIC =
  /^(?:[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][-+]?[0-9]*)?|0[xob][0-9a-fA-F_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
/** The numbers read here (others bail): digits, or digits.digits, short enough to be exact in a double either way. */
const NUMBER = /^[0-9]{1,15}(?:\.[0-9]{1,15})?$/;
/** A flow collection without a collection inside: "[...]" or "{...}" on one line. */
const FLAT_FLOW = /^(?:\[[^[\]{}]*\]|\{[^[\]{}]*\})$/;
// The flow collections of nearly every package entry, each read by one expression instead of a split and a typing
// of every item: {integrity: sha512-...}, {node: '>=18'} (a lowercase key; a value quoted without quotes inside, or
// plain of at least 6 characters that start with a letter and hold no indicator: a string in every schema), and
// [x64, arm64] (lowercase words).
const ONE_PAIR = /^\{(?!(?:null|true|false):)[a-z]{1,100}: (?:'[^']*'|[a-zA-Z][\w+/=.-]{5,})\}$/;
const WORDS = /^\[(?!(?:null|true|false)[,\]])[a-z][a-z0-9]*(?:, (?!(?:null|true|false)[,\]])[a-z][a-z0-9]*)*\]$/;
/** The yaml package refuses an implicit key longer than this (its ":" farther than 1024 characters from its start). */
const MAX_KEY = 1000;

/** A plain scalar typed by the core schema (bad: BAD_PLAIN or BAD_FLOW_PLAIN), or a bail when unsure of it. */
function plain(s: string, bad: RegExp): Value {
  if (s === '') return null; // an empty key (": x"); empty values never get here
  if (bad.test(s)) bail();
  const c = s.charCodeAt(0);
  if (c <= 57) {
    // Digits, "+" and "." may start a number; other characters up to "9" cannot start a plain scalar here.
    if (NUMERIC.test(s)) return NUMBER.test(s) ? Number(s) : bail(); // 1e3, 0x1A, .5, +1, 1_000, .inf: the yaml package's
    return s;
  }
  if (s.length <= 5) {
    switch (s) {
      case 'null':
      case 'Null':
      case 'NULL':
      case '~':
        return null;
      case 'true':
      case 'True':
      case 'TRUE':
        return true;
      case 'false':
      case 'False':
      case 'FALSE':
        return false;
    }
  }
  return s;
}

/** The end of the quoted scalar starting at s[i] (the index after its closing quote), before `end`; bails when it is
 *  not closed there. */
function quotedEnd(s: string, i: number, end: number): number {
  const q = s[i];
  for (let j = i + 1; ;) {
    const k = s.indexOf(q, j);
    if (k === -1 || k >= end) return bail();
    if (q === "'") {
      if (s.charCodeAt(k + 1) !== 39) return k + 1;
      j = k + 2; // '' is a quote inside single quotes
    } else {
      let b = k - 1;
      while (s.charCodeAt(b) === 92) b--; // stops at the opening quote at the latest
      if ((k - 1 - b) % 2 === 0) return k + 1; // an even number of backslashes: this quote is not escaped
      j = k + 1;
    }
  }
}

/** The string of the quoted scalar s[i, end), whose closing quote quotedEnd found at end - 1. */
function unquote(s: string, i: number, end: number): string {
  const v = s.slice(i + 1, end - 1);
  if (s.charCodeAt(i) === 39) return v.includes("'") ? v.replaceAll("''", "'") : v;
  if (!v.includes('\\')) return v;
  // JSON's escapes are a subset of YAML's with the same meaning; a YAML-only one (\x41, \e, \N...) fails here.
  try {
    return JSON.parse(s.slice(i, end)) as string;
  } catch {
    return bail();
  }
}

/** The string of s, one whole quoted scalar ('...' or "..."), or a bail when s holds more or less than that. */
function quoted(s: string): string {
  if (quotedEnd(s, 0, s.length) !== s.length) bail(); // something after the closing quote (a comment, a ": ")
  return unquote(s, 0, s.length);
}

/** An item of a flat flow collection: plain or quoted. A piece cut out of a quoted scalar that held ", " is not a
 *  whole quoted scalar (a lone quote is left at its end), so quoted() refuses it. */
function flowScalar(s: string): Value {
  if (s === '') bail(); // "[a, ]", "{a: }": not pnpm's
  const c = s.charCodeAt(0);
  return c === 39 || c === 34 ? quoted(s) : plain(s, BAD_FLOW_PLAIN);
}

/** A flat flow collection, items split at ", " as pnpm writes them. */
function flow(s: string): Value {
  const seq = s.charCodeAt(0) === 91;
  if (s.length === 2 && s.charCodeAt(1) === (seq ? 93 : 125)) return seq ? [] : {};
  if (seq) {
    if (WORDS.test(s)) return s.slice(1, -1).split(', ');
  } else if (ONE_PAIR.test(s)) {
    // Sliced by position rather than matched with groups, and built as literals for the usual keys: this runs for
    // nearly every package, and a cold process pays for every allocation and every computed key.
    const colon = s.indexOf(': ');
    const v = s.charCodeAt(colon + 2) === 39 ? s.slice(colon + 3, -2) : s.slice(colon + 2, -1);
    if (colon === 10 && s.startsWith('integrity', 1)) return { integrity: v };
    if (colon === 5 && s.startsWith('node', 1)) return { node: v };
    const o: Obj = {};
    o[s.slice(1, colon)] = v;
    return o;
  }
  if (!FLAT_FLOW.test(s)) bail();
  const items = s.slice(1, -1).split(', ');
  if (seq) return items.map(flowScalar);
  const out: Obj = {};
  for (const item of items) {
    const colon = item.indexOf(': ');
    if (colon === -1) bail(); // "{a}", "{a:b}"
    const key = flowScalar(item.slice(0, colon));
    if (typeof key !== 'string' || key === '__proto__' || colon > MAX_KEY || Object.hasOwn(out, key)) bail();
    out[key] = flowScalar(item.slice(colon + 2));
  }
  return out;
}

/** A value after "key: " or "- ": a scalar or a flat flow collection, up to the end of the line. */
function inlineValue(s: string): Value {
  const c = s.charCodeAt(0);
  if (c === 91 || c === 123) return flow(s);
  if (c === 39 || c === 34) return quoted(s);
  return plain(s, BAD_PLAIN);
}

/** The document as yaml's `parse(text)` gives it, or undefined when the text is outside the subset (see above). */
export function readPnpmYaml(text: string): unknown {
  if (UNSAFE_CHARS.test(text) || (text.includes('\r') && /\r(?!\n)/.test(text))) return undefined;
  try {
    return read(text);
  } catch (err) {
    if (err === BAIL) return undefined;
    throw err;
  }
}

function read(text: string): Obj {
  const root: Obj = {};
  // The open blocks: stack[d] is the mapping or sequence whose entries are indented 2*d spaces.
  const stack: Array<Obj | Value[]> = [root];
  // A key just read with nothing after its ":": its value is null, unless the next line opens a block under it.
  let openMap: Obj | undefined;
  let openKey = '';
  let entries = 0;
  const n = text.length;
  for (let pos = 0; pos < n;) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = n;
    const e = text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    const start = pos;
    pos = end + 1;
    let k = start;
    while (text.charCodeAt(k) === 32 && text.charCodeAt(k + 1) === 32) k += 2; // two at a time: fewer steps
    if (text.charCodeAt(k) === 32) k++;
    if (k >= e) continue; // a blank line
    const indent = k - start;
    if (text.charCodeAt(e - 1) === 32 || (indent & 1) === 1) bail(); // trailing spaces, odd indents: not pnpm's
    if (entries++ === 0 && start === 0 && e === 3 && text.startsWith('---')) {
      entries = 0;
      continue; // "---" opening the document
    }
    const depth = indent >> 1;
    const c0 = text.charCodeAt(k);
    const item = c0 === 45 && text.charCodeAt(k + 1) === 32; // "- "

    if (openMap !== undefined) {
      // The block under the open key is exactly one level deeper: a mapping, or a sequence ("- " lines).
      if (depth === stack.length) {
        const node: Obj | Value[] = item ? [] : {};
        openMap[openKey] = node;
        stack.push(node);
      } else openMap[openKey] = null;
      openMap = undefined;
    }
    // Deeper than the innermost open block: a continuation line, or a block under a key that has a value.
    if (depth >= stack.length) bail();
    if (depth + 1 !== stack.length) stack.length = depth + 1;
    const top = stack[depth];

    if (Array.isArray(top)) {
      if (!item) bail();
      top.push(inlineValue(text.slice(k + 2, e)));
      continue;
    }
    // A mapping entry: 'key': ..., "key": ... or key: ..., a plain key ending at the first ": " or at a final ":".
    let colon: number;
    let key: Value;
    if (c0 === 39 || c0 === 34) {
      colon = quotedEnd(text, k, e);
      key = unquote(text, k, colon);
      if (text.charCodeAt(colon) !== 58) bail();
    } else {
      colon = text.indexOf(': ', k);
      if (colon === -1 || colon >= e) colon = text.charCodeAt(e - 1) === 58 ? e - 1 : bail();
      key = plain(text.slice(k, colon), BAD_PLAIN);
    }
    if (typeof key !== 'string' || key === '__proto__' || colon - k > MAX_KEY) bail();
    // A duplicate: left to the yaml package, which refuses it. (A load first: cheaper than hasOwn, which then only
    // tells an own key from an inherited one such as "constructor".)
    if (top[key] !== undefined && Object.hasOwn(top, key)) bail();
    if (colon + 1 === e) {
      // Stored when the next line tells whether a block follows; no key can come in between.
      openMap = top;
      openKey = key;
    } else {
      if (text.charCodeAt(colon + 1) !== 32) bail();
      const v = text.slice(colon + 2, e);
      const c = v.charCodeAt(0);
      // Most values are plain: typed here without going through inlineValue (a call fewer on most lines).
      top[key] = c === 91 || c === 123 || c === 39 || c === 34 ? inlineValue(v) : plain(v, BAD_PLAIN);
    }
  }
  if (entries === 0) bail(); // an empty document is null, not a mapping
  if (openMap !== undefined) openMap[openKey] = null;
  return root;
}
