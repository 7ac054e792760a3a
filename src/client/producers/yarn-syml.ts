// A fast reader for the YAML subset yarn 2+ writes its lockfile in (its "syml" stringifier): nested maps indented two
// spaces a level, `key: value` lines, keys and values bare or double-quoted JSON-style, `#` comment lines. The yaml
// package reads any YAML but costs ~50 ms per 1000 lockfile lines (a 4000-line lockfile: ~200 ms of a 250 ms cold
// run); this single pass is ~20 times faster. Anything outside the subset (a flow collection, an anchor, a block
// scalar, a tab, an odd indent, a duplicate key...) returns undefined, and the caller falls back to the yaml package,
// so the result is always what `parse(text, {schema: 'failsafe'})` gives, or that parser's own error.

type SymlMap = { [key: string]: string | SymlMap };

/** Characters a plain (unquoted) YAML scalar cannot start with, or that change its meaning there. */
const INDICATORS = new Set([...'-?:,[]{}#&*!|>\'"%@`']);

/** A key or value token: a double-quoted JSON string, or a plain scalar YAML reads as the same string. */
function scalar(s: string): string | undefined {
  if (s === '') return undefined;
  if (s.charCodeAt(0) === 34) {
    if (s.length < 2 || s.charCodeAt(s.length - 1) !== 34) return undefined;
    try {
      return JSON.parse(s) as string; // a YAML-only escape (\x41, \e) fails here: the caller falls back
    } catch {
      return undefined;
    }
  }
  if (
    INDICATORS.has(s[0]) ||
    s[0] === ' ' ||
    s.includes(' #') ||
    s.includes(': ') ||
    s.endsWith(' ') ||
    s.endsWith(':') ||
    s.includes('\t')
  )
    return undefined;
  return s;
}

/** The lockfile as nested maps of strings, or undefined when it is not in the subset (then ask the yaml package). */
export function parseSyml(text: string): SymlMap | undefined {
  const root: SymlMap = {};
  const stack: SymlMap[] = [root]; // stack[d]: the map receiving keys at indent 2*d
  let open = false; // the last key opened a map, which must get at least one member
  for (let pos = 0; pos < text.length;) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = text.length;
    let line = text.slice(pos, end);
    pos = end + 1;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    let indent = 0;
    while (indent < line.length && line.charCodeAt(indent) === 32) indent++;
    if (indent === line.length || line.charCodeAt(indent) === 35) continue; // blank or a comment
    if (indent % 2 !== 0) return undefined;
    const depth = indent / 2;
    if (depth > stack.length - 1 || (open && depth !== stack.length - 1)) return undefined;
    open = false;
    stack.length = depth + 1;
    const body = line.slice(indent);
    if (body === '---' || body === '...') return undefined;
    // The key ends at the first ": " outside quotes, or at a final ":".
    let keyEnd: number;
    if (body.charCodeAt(0) === 34) {
      let j = 1;
      while (j < body.length && body.charCodeAt(j) !== 34) j += body.charCodeAt(j) === 92 ? 2 : 1;
      keyEnd = j + 1;
      if (body.charCodeAt(keyEnd) !== 58) return undefined;
    } else {
      keyEnd = body.indexOf(':');
      if (keyEnd <= 0) return undefined;
    }
    const key = scalar(body.slice(0, keyEnd));
    if (key === undefined || key === '__proto__') return undefined;
    const map = stack[depth];
    if (Object.hasOwn(map, key)) return undefined; // a duplicate: the yaml package decides (it refuses them)
    if (keyEnd === body.length - 1) {
      const child: SymlMap = {};
      map[key] = child;
      stack.push(child);
      open = true;
    } else {
      if (body.charCodeAt(keyEnd + 1) !== 32) return undefined;
      const value = scalar(body.slice(keyEnd + 2));
      if (value === undefined) return undefined;
      map[key] = value;
    }
  }
  return open ? undefined : root;
}
