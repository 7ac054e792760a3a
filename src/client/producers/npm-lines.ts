// Line numbers of lockfile entries without a position-tracking JSON parser: npm writes its lockfiles
// pretty-printed (JSON.stringify with an indent), so an entry whose value is an object starts on a line of its own,
// `<indent>"key": {`, and its depth is its indent divided by the file's indent unit. One pass over the text, no
// regular expressions; a minified file simply yields no lines (locations then name the file only).

/**
 * Calls visit(path, line) for every line that opens an object under a key. path holds the keys from the top of the
 * document down to this one (["packages", "node_modules/a"]); it is reused between calls, so copy what you keep.
 * line is 1-based.
 */
export function objectKeyLines(text: string, visit: (path: readonly string[], line: number) => void): void {
  const n = text.length;
  const path: string[] = [];
  let unit = 0;
  let line = 0;
  for (let pos = 0; pos < n;) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = n;
    line++;
    let e = end;
    if (e > pos && text.charCodeAt(e - 1) === 13) e--; // \r of CRLF
    let i = pos;
    while (i < e && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
    // The first indented line is a member of the top-level object: its indent is the unit.
    if (unit === 0 && i > pos && i < e) unit = i - pos;
    // `"key": {` ends with the four characters `": {`.
    if (
      unit > 0 &&
      e - i >= 5 &&
      text.charCodeAt(i) === 34 &&
      text.charCodeAt(e - 1) === 123 &&
      text.charCodeAt(e - 2) === 32 &&
      text.charCodeAt(e - 3) === 58 &&
      text.charCodeAt(e - 4) === 34
    ) {
      const level = (i - pos) / unit;
      if (Number.isInteger(level) && level >= 1) {
        let key = text.slice(i + 1, e - 4);
        if (key.includes('\\')) key = unescape(key);
        // A level deeper than the path so far means an object inside an array: its ancestors are not all keys.
        while (path.length < level - 1) path.push('\u0000');
        path.length = level - 1;
        path.push(key);
        visit(path, line);
      }
    }
    pos = end + 1;
  }
}

function unescape(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return '\u0000'; // not a JSON string after all: matches no entry
  }
}
