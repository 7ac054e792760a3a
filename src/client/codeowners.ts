// CODEOWNERS → team labels for snapshot modules. GitHub's semantics, as documented on "About code
// owners" (docs.github.com, customizing-your-repository/about-code-owners) and mirrored by hmarr/codeowners:
// gitignore-like patterns with GitHub's exceptions, the last matching rule wins, a rule without owners unowns.
// Hand-written rather than a library: the bundled client takes no dependencies, and the npm gitignore matchers
// differ from GitHub on `docs/*` (direct children only). No RegExp is built from a pattern: matching is two greedy
// wildcard passes with backtracking to the last star, O(pattern × path), so no pattern can make it blow up.
import fs from 'node:fs';
import path from 'node:path';
import { MAX_TEAM_NAME, MAX_TEXT } from '../shared/snapshot-schema-parts';

export interface CodeownersRule {
  /** As written, escapes kept (`\ ` stays two characters). */
  pattern: string;
  /** As written; empty when the rule unowns what it matches. */
  owners: string[];
  /** 1-based line in the file. */
  line: number;
}

export interface SkippedLine {
  line: number;
  reason: string;
}

export interface Codeowners {
  /** Relative to the git root, with `/`. */
  path: string;
  rules: CodeownersRule[];
  /** Lines GitHub would not use either (it reports them as errors and skips them). */
  skipped: SkippedLine[];
}

/** The team a module gets: what the assembler puts on it. */
export interface CodeownersTeam {
  teamName: string | null;
  attributes?: { codeowners: string };
}

/** GitHub's search order: the first one found is the only one used. */
export const CODEOWNERS_LOCATIONS = ['.github/CODEOWNERS', 'CODEOWNERS', 'docs/CODEOWNERS'] as const;
/** GitHub does not load a CODEOWNERS file of 3 MB or more. */
export const MAX_CODEOWNERS_BYTES = 3 * 1024 * 1024;

const CONTROL = /[\u0000-\u001F\u007F]/;
// Owner forms GitHub accepts: @user, @org/team, an e-mail address. Linear: no nested or overlapping quantifiers.
const OWNER = /^@[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)?$/;
const EMAIL = /^[^\u0000-\u0020\u007F@]+@[^\u0000-\u0020\u007F@]+\.[^\u0000-\u0020\u007F@]+$/;

/** The nearest directory at or above startDir holding `.git` (a directory, or a file in worktrees and submodules). */
export function findGitRoot(startDir: string): string | undefined {
  let dir = path.resolve(startDir);
  for (;;) {
    if (fs.existsSync(path.join(dir, '.git'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The first CODEOWNERS file found at the git root, parsed; undefined when there is none. */
export function readCodeowners(gitRoot: string): Codeowners | undefined {
  for (const rel of CODEOWNERS_LOCATIONS) {
    const file = path.join(gitRoot, rel);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      continue;
    }
    if (!stat.isFile()) continue;
    // Found but not loaded, as on GitHub: a later location does not stand in for it.
    if (stat.size >= MAX_CODEOWNERS_BYTES) {
      return {
        path: rel,
        rules: [],
        skipped: [{ line: 0, reason: `file of ${stat.size} bytes: GitHub ignores CODEOWNERS files of 3 MB or more` }],
      };
    }
    const skipped: SkippedLine[] = [];
    const rules = parseCodeowners(fs.readFileSync(file, 'utf8'), (s) => skipped.push(s));
    return { path: rel, rules, skipped };
  }
  return undefined;
}

/** The rules of a CODEOWNERS file; lines GitHub would skip are left out and reported to onSkip. */
export function parseCodeowners(text: string, onSkip?: (s: SkippedLine) => void): CodeownersRule[] {
  const rules: CodeownersRule[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    const tokens = tokenize(raw);
    if (tokens.length === 0) return;
    const [pattern, ...owners] = tokens;
    const reason = patternProblem(pattern) ?? owners.map(ownerProblem).find((r) => r !== undefined);
    if (reason) onSkip?.({ line, reason });
    else rules.push({ pattern, owners, line });
  });
  return rules;
}

/** Words split on unescaped blanks, up to a comment: `#` at the start of a word (GitHub's inline comments). */
function tokenize(line: string): string[] {
  const tokens: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ' || c === '\t') {
      if (inWord) tokens.push(cur);
      cur = '';
      inWord = false;
      continue;
    }
    if (!inWord && c === '#') break;
    inWord = true;
    // Only the pattern takes escapes (`\ ` for a blank in a path); the backslash stays for the matcher to read.
    if (c === '\\' && tokens.length === 0 && i + 1 < line.length) {
      cur += c + line[++i];
      continue;
    }
    cur += c;
  }
  if (inWord) tokens.push(cur);
  return tokens;
}

function patternProblem(pattern: string): string | undefined {
  if (CONTROL.test(pattern)) return 'pattern holds a control character';
  if (pattern.startsWith('!')) return 'negated patterns (!) are not supported by CODEOWNERS';
  if (pattern.startsWith('\\#')) return 'escaping a leading # is not supported by CODEOWNERS';
  let stars = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    stars = c === '*' ? stars + 1 : 0;
    if (stars === 3) return 'three consecutive asterisks';
    if (c === '\\') {
      if (i === pattern.length - 1) return 'pattern ends with a lone backslash';
      i++;
    } else if (c === '[' || c === ']') {
      return 'character ranges ([ ]) are not supported: escape [ and ] with \\';
    }
  }
  return undefined;
}

function ownerProblem(owner: string): string | undefined {
  return OWNER.test(owner) || EMAIL.test(owner)
    ? undefined
    : `not an owner (@user, @org/team or e-mail): ${JSON.stringify(owner.slice(0, 80))}`;
}

// ------------------------------------------------------------------------------------------------- matching --

const STAR = 0;
const QMARK = 1;
type Token = typeof STAR | typeof QMARK | string;
/** One path segment matching a glob, or any run of segments (zero or more). */
type Element = { glob: Token[] } | 'any';

const compiled = new Map<string, Element[] | null>();

/** Pattern → elements matched against the whole path, or null when it can match nothing (`/`). */
function compile(pattern: string): Element[] | null {
  const hit = compiled.get(pattern);
  if (hit !== undefined) return hit;
  const segments: Token[][] = [[]];
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '\\' && i + 1 < chars.length) segments[segments.length - 1].push(chars[++i]);
    else if (c === '/') segments.push([]);
    else segments[segments.length - 1].push(c === '*' ? STAR : c === '?' ? QMARK : c);
  }
  const anchored = segments[0].length === 0;
  const dirOnly = segments.length > 1 && segments[segments.length - 1].length === 0;
  const parts = segments.filter((s) => s.length > 0);
  let out: Element[] | null;
  if (parts.length === 0) {
    out = null;
  } else {
    const isAny = (s: Token[]) => s.length === 2 && s[0] === STAR && s[1] === STAR;
    const elements: Element[] = parts.map((s) => (isAny(s) ? 'any' : { glob: s }));
    // gitignore: a pattern with no slash but a trailing one matches at any depth; a slash elsewhere anchors it.
    if (!anchored && parts.length === 1 && elements[0] !== 'any') elements.unshift('any');
    const last = elements[elements.length - 1];
    const lastIsLoneStar = last !== 'any' && last.glob.length === 1 && last.glob[0] === STAR;
    if (dirOnly || last === 'any') {
      // Something inside the directory: at least one more segment.
      if (last === 'any') elements.pop();
      elements.push({ glob: [STAR] }, 'any');
    } else if (!lastIsLoneStar) {
      // A name matches the file or directory of that name and everything under it; `docs/*` only direct children.
      elements.push('any');
    }
    out = elements;
  }
  compiled.set(pattern, out);
  return out;
}

/** Greedy wildcard match, backtracking only to the most recent star: O(items × elements) calls of `one`. */
function wildcard<E, I>(
  elements: readonly E[],
  items: readonly I[],
  isStar: (e: E) => boolean,
  one: (e: E, item: I) => boolean,
): boolean {
  let e = 0;
  let i = 0;
  let starE = -1;
  let starI = 0;
  while (i < items.length) {
    if (e < elements.length && !isStar(elements[e]) && one(elements[e], items[i])) {
      e++;
      i++;
    } else if (e < elements.length && isStar(elements[e])) {
      starE = e++;
      starI = i;
    } else if (starE >= 0) {
      e = starE + 1;
      i = ++starI;
    } else {
      return false;
    }
  }
  while (e < elements.length && isStar(elements[e])) e++;
  return e === elements.length;
}

function globMatches(glob: Token[], segment: string): boolean {
  return wildcard(
    glob,
    Array.from(segment),
    (t) => t === STAR,
    (t, c) => t === QMARK || t === c,
  );
}

/** Whether a CODEOWNERS pattern matches a path relative to the git root (with `/`, no leading `./`). */
export function matchesPattern(pattern: string, filePath: string): boolean {
  const elements = compile(pattern);
  if (!elements) return false;
  const segments = filePath
    .replace(/^(?:\.?\/)+/, '')
    .split('/')
    .filter((s) => s.length > 0);
  if (segments.length === 0 || segments[0] === '..') return false;
  return wildcard(
    elements,
    segments,
    (el) => el === 'any',
    (el, seg) => el !== 'any' && globMatches(el.glob, seg),
  );
}

/** Owners of the last rule matching the path ([] when that rule names none); undefined when no rule matches. */
export function ownersFor(rules: readonly CodeownersRule[], pathFromGitRoot: string): string[] | undefined {
  for (let i = rules.length - 1; i >= 0; i--) {
    if (matchesPattern(rules[i].pattern, pathFromGitRoot)) return [...rules[i].owners];
  }
  return undefined;
}

/**
 * The team a module gets from its owners: teamName is the first owner as written, attributes.codeowners all of them
 * joined by a space. Never anything the service would refuse: a first owner over the team-name limit gives teamName
 * null, and the owners list is cut at the last whole owner within the attribute limit. No owners → no team.
 */
export function teamOf(owners: readonly string[]): CodeownersTeam | undefined {
  const usable = owners.filter((o) => o.length > 0 && !CONTROL.test(o) && !/\s/.test(o));
  if (usable.length === 0) return undefined;
  const first = usable[0] === owners[0] && usable[0].length <= MAX_TEAM_NAME ? usable[0] : null;
  let joined = '';
  for (const o of usable) {
    const next = joined ? `${joined} ${o}` : o;
    if (next.length > MAX_TEXT) break;
    joined = next;
  }
  if (first === null && !joined) return undefined;
  return joined ? { teamName: first, attributes: { codeowners: joined } } : { teamName: first };
}
