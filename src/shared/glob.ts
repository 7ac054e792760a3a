// Package globs of suppressions and triage rules, shared by the service (src/domain/suppressions) and the CI
// client (src/client/suppression-match.ts), which must answer alike.
// Hand-written on purpose: `*` must match any run of characters including `/`, `:` and `@` (Maven coordinates, npm
// scopes), which path-oriented glob libraries (picomatch, minimatch) refuse by design. No RegExp is built from the
// glob: `*` turned into `.*` backtracks exponentially on a glob of many stars (2,000 characters are allowed).
// Both sides are read as code points (a lone surrogate counts as one, as for-of does), straight off the UTF-16
// string, so a test allocates nothing.

const QUESTION = 0x3f;
const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
/** UTF-16 units of the code point that starts at i (NaN past the end compares false: 1). */
const widthAt = (s: string, i: number) => (isHigh(s.charCodeAt(i)) && isLow(s.charCodeAt(i + 1)) ? 2 : 1);
/** UTF-16 units of the code point that ends just before j. */
const widthBefore = (s: string, j: number) => (isLow(s.charCodeAt(j - 1)) && isHigh(s.charCodeAt(j - 2)) ? 2 : 1);
const codePoints = (s: string) => {
  let n = 0;
  for (let i = 0; i < s.length; i += widthAt(s, i)) n++;
  return n;
};

/**
 * Where a star-free segment ends when laid on `name` from i (a code-point boundary), never past `end`; -1 when it
 * does not fit. Deterministic: `?` takes exactly one code point, a literal must equal the name's code point.
 */
function fit(seg: string, name: string, i: number, end: number): number {
  for (let k = 0; k < seg.length;) {
    if (i >= end) return -1;
    const wn = widthAt(name, i);
    const wg = widthAt(seg, k);
    const c = seg.charCodeAt(k);
    if (
      c !== QUESTION &&
      (wg !== wn || c !== name.charCodeAt(i) || (wg === 2 && seg.charCodeAt(k + 1) !== name.charCodeAt(i + 1)))
    )
      return -1;
    i += wn;
    k += wg;
  }
  return i;
}

/**
 * The whole-name test of a glob: `*` any run of characters (none included), `?` exactly one, anything else itself,
 * case-sensitive. The glob is cut at its runs of stars once; a test then anchors the first piece at the start and
 * the last at the end, and places each middle piece at its leftmost fit after the previous one (leftmost is never
 * worse: it leaves the most room to what follows), so nothing is ever retried. Cost per test: O(|name| × |middle
 * pieces|) at worst (each start of each piece tried once), under O(|glob| × |name|); a name shorter than the glob's
 * non-star characters is refused at once, so long star-laden globs cost nothing on short names.
 */
export function globMatcher(glob: string): (name: string) => boolean {
  const pieces = glob.split('*');
  if (pieces.length === 1) return (name) => fit(glob, name, 0, name.length) === name.length;
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  const lastPoints = codePoints(last);
  const middle = pieces
    .slice(1, -1)
    .filter((p) => p !== '')
    .map((p) => ({ p, points: codePoints(p) }));
  const minPoints = codePoints(first) + lastPoints + middle.reduce((n, m) => n + m.points, 0);
  return (name) => {
    if (name.length < minPoints) return false; // UTF-16 units ≥ code points
    let i = fit(first, name, 0, name.length);
    if (i < 0) return false;
    let end = name.length;
    for (let n = lastPoints; n > 0; n--) end -= widthBefore(name, end);
    if (end < i || fit(last, name, end, name.length) !== name.length) return false;
    for (const { p, points } of middle) {
      let e: number;
      while ((e = fit(p, name, i, end)) < 0) {
        if (end - i <= points) return false; // no later start leaves room for the piece
        i += widthAt(name, i);
      }
      i = e;
    }
    return true;
  };
}
