// The yarn.lock v1 ("classic") format, which is not YAML: yarn 1 writes it with its own stringifier, and reads it
// with its own parser. Entries start at column 0 with one or more keys (`a@^1.0.0, "@s/b@^2":`); their fields are
// indented two spaces (`version "1.0.0"`), and the dependency maps four (`dependencies:` then `    name "range"`).
// Strings are quoted the JSON way when they need to be, bare otherwise. Only what the producer needs is kept: the
// keys, the header line, version, resolved and the two dependency maps yarn 1 records (it records no dev or peer
// sections: those live in the manifests). One pass over the lines; every malformed line is an InputError.
import { inputError } from './npm-common';

export interface V1Entry {
  /** The lockfile keys, `name@range` each, as yarn wrote them (unquoted). */
  keys: string[];
  /** 1-based line of the header. */
  line: number;
  version?: string;
  resolved?: string;
  /** name → range, in file order. */
  dependencies: Array<[string, string]>;
  optionalDependencies: Array<[string, string]>;
}

/** The sections whose members are name → range pairs; others (yarn never writes any) are read and ignored. */
const DEPENDENCY_BLOCKS = new Set(['dependencies', 'optionalDependencies']);

/**
 * The tokens of one line from `start`: quoted strings (JSON escapes) or bare words, separated by spaces or ", ".
 * A trailing ":" is reported as colon (a header or a block opener). undefined when the line is not well formed.
 */
function tokens(s: string, start: number): { words: string[]; colon: boolean } | undefined {
  const words: string[] = [];
  let i = start;
  let colon = false;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 44) {
      i++; // space, or the comma between keys
      continue;
    }
    if (c === 58 && i === s.length - 1) {
      colon = true;
      break;
    }
    if (c === 34) {
      // A quoted string: find its closing quote, skipping escaped characters.
      let j = i + 1;
      while (j < s.length && s.charCodeAt(j) !== 34) j += s.charCodeAt(j) === 92 ? 2 : 1;
      if (j >= s.length) return undefined;
      try {
        words.push(JSON.parse(s.slice(i, j + 1)) as string);
      } catch {
        return undefined;
      }
      i = j + 1;
      continue;
    }
    let j = i;
    // A bare word ends at a space, a comma or the final colon.
    while (
      j < s.length &&
      s.charCodeAt(j) !== 32 &&
      s.charCodeAt(j) !== 44 &&
      !(s.charCodeAt(j) === 58 && j === s.length - 1)
    )
      j++;
    words.push(s.slice(i, j));
    i = j;
  }
  return { words, colon };
}

/** The entries of a yarn.lock v1 text. */
export function parseV1(file: string, text: string): V1Entry[] {
  const entries: V1Entry[] = [];
  let entry: V1Entry | undefined;
  let block: Array<[string, string]> | undefined; // the dependency map being read, if any
  let inBlock = false; // inside any two-space block (read or ignored)
  let lineNo = 0;
  for (let pos = 0; pos <= text.length;) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = text.length;
    lineNo++;
    let line = text.slice(pos, end);
    pos = end + 1;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    let indent = 0;
    while (indent < line.length && line.charCodeAt(indent) === 32) indent++;
    if (indent === line.length || line.charCodeAt(indent) === 35) continue; // blank or # comment
    const bad = (why: string) => inputError(file, `line ${lineNo}: ${why}`);
    if (line.startsWith('<<<<<<<') || line.startsWith('>>>>>>>') || line.startsWith('======='))
      throw bad('an unresolved merge conflict');
    const t = tokens(line, indent);
    if (!t || t.words.length === 0) throw bad('not a yarn.lock v1 line');
    if (indent === 0) {
      if (!t.colon) throw bad('an entry must start with its keys and a colon');
      entry = { keys: t.words, line: lineNo, dependencies: [], optionalDependencies: [] };
      entries.push(entry);
      block = undefined;
      inBlock = false;
    } else if (!entry) {
      throw bad('an indented line before the first entry');
    } else if (indent === 2) {
      inBlock = t.colon;
      block = undefined;
      if (t.colon) {
        if (t.words.length !== 1) throw bad('a block must be opened by one name');
        if (DEPENDENCY_BLOCKS.has(t.words[0])) block = entry[t.words[0] as 'dependencies' | 'optionalDependencies'];
      } else {
        if (t.words.length !== 2) throw bad('a field must be a name and one value');
        if (t.words[0] === 'version') entry.version = t.words[1];
        else if (t.words[0] === 'resolved') entry.resolved = t.words[1];
      }
    } else if (indent === 4 && inBlock) {
      if (t.colon || t.words.length !== 2) throw bad('a dependency must be a name and a range');
      block?.push([t.words[0], t.words[1]]);
    } else {
      throw bad(`unexpected indentation (${indent} spaces)`);
    }
  }
  return entries;
}
