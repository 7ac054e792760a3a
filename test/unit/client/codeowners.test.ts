// CODEOWNERS → module teams: GitHub's documented pattern semantics (every example of the "About code
// owners" page), the parser's treatment of comments and of the lines GitHub skips, the file locations and their
// order, git root discovery, and values that must never make the service refuse a snapshot.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import {
  CODEOWNERS_LOCATIONS,
  findGitRoot,
  matchesPattern,
  MAX_CODEOWNERS_BYTES,
  ownersFor,
  parseCodeowners,
  readCodeowners,
  teamOf,
  type SkippedLine,
} from '../../../src/client/codeowners';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'codeowners-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function write(rel: string, text: string) {
  const file = path.join(tmp, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

describe('patterns: the examples of GitHub\'s "About code owners" page', () => {
  const table: Array<[pattern: string, path: string, matches: boolean]> = [
    // "*": the default owners for everything in the repo
    ['*', 'README.md', true],
    ['*', 'src/index.js', true],
    ['*', 'a/b/c/d.txt', true],
    // "*.js", "*.go", "*.txt": by extension, at any depth
    ['*.js', 'index.js', true],
    ['*.js', 'src/app/index.js', true],
    ['*.js', 'index.jsx', false],
    ['*.js', 'src/index.ts', false],
    ['*.go', 'cmd/main.go', true],
    ['*.txt', 'notes/todo.txt', true],
    // "/build/logs/": the build/logs directory at the root and its subdirectories
    ['/build/logs/', 'build/logs/out.log', true],
    ['/build/logs/', 'build/logs/2024/01/out.log', true],
    ['/build/logs/', 'src/build/logs/out.log', false],
    ['/build/logs/', 'build/logsx/out.log', false],
    ['/build/logs/', 'build/logs', false],
    // "docs/*": docs/getting-started.md but not docs/build-app/troubleshooting.md
    ['docs/*', 'docs/getting-started.md', true],
    ['docs/*', 'docs/build-app/troubleshooting.md', false],
    ['docs/*', 'src/docs/getting-started.md', false],
    // "apps/": any file in an apps directory anywhere
    ['apps/', 'apps/web/package.json', true],
    ['apps/', 'src/apps/web/package.json', true],
    ['apps/', 'apps', false],
    ['apps/', 'myapps/web/package.json', false],
    // "/docs/": the docs directory at the root and its subdirectories
    ['/docs/', 'docs/getting-started.md', true],
    ['/docs/', 'docs/build-app/troubleshooting.md', true],
    ['/docs/', 'src/docs/a.md', false],
    // "/scripts/"
    ['/scripts/', 'scripts/deploy.sh', true],
    ['/scripts/', 'scripts/ci/run.sh', true],
    ['/scripts/', 'tools/scripts/run.sh', false],
    // "**/logs": /build/logs, /scripts/logs, /deeply/nested/logs
    ['**/logs', 'build/logs/a.log', true],
    ['**/logs', 'scripts/logs/a.log', true],
    ['**/logs', 'deeply/nested/logs/a.log', true],
    ['**/logs', 'logs/a.log', true],
    ['**/logs', 'build/logsx/a.log', false],
    // "/apps/" and "/apps/github"
    ['/apps/', 'apps/web/package.json', true],
    ['/apps/github', 'apps/github/package.json', true],
    ['/apps/github', 'apps/github', true],
    ['/apps/github', 'apps/githubber/package.json', false],
    ['/apps/github', 'src/apps/github/package.json', false],
  ];
  it.each(table)('%s against %s → %s', (pattern, p, expected) => {
    expect(matchesPattern(pattern, p)).toBe(expected);
  });
});

describe('patterns: gitignore rules as GitHub applies them', () => {
  const table: Array<[string, string, boolean]> = [
    ['foo', 'foo', true],
    ['foo', 'bar/foo/baz', true],
    ['foo', 'foo.txt', false],
    ['/foo', 'bar/foo', false],
    ['foo/bar', 'foo/bar/baz', true],
    ['foo/bar', 'x/foo/bar', false], // a slash in the middle anchors to the root
    ['foo/bar/', 'foo/bar', false],
    ['/*', 'package.json', true],
    ['/*', 'packages/a/package.json', false],
    ['f*', 'foo/bar', true],
    ['f*/', 'bar/foo/baz', true],
    ['f*/', 'foo', false],
    ['/*/', 'a/b', true],
    ['foo/*.txt', 'foo/bar/baz.txt', false],
    ['foo/*/baz', 'foo/bar/baz/qux', true],
    ['foo/*/baz', 'foo/baz', false],
    ['f?o', 'foo', true],
    ['f?o', 'fooo', false],
    ['f\\*o', 'f*o', true],
    ['f\\*o', 'foo', false],
    ['f\\?o', 'foo', false],
    ['**/foo/bar', 'qux/foo/bar/baz', true],
    ['**/foo/bar', 'foo/baz/bar', false],
    ['foo/**', 'foo', false],
    ['foo/**', 'foo/bar/baz', true],
    ['foo/**/bar', 'foo/bar', true],
    ['foo/**/bar', 'foo/a/b/bar/c', true],
    ['foo/**/bar', 'x/foo/bar', false],
    ['foo/**/bar/b*', 'foo/qux/bar/baz', true],
    ['foo/**/bar/b*', 'foo/qux/bar/qux', false],
    ['**', 'any/thing', true],
    ['/**/', 'a/b', true],
    ['/', 'anything', false],
    ['/apps/\\[id\\]/page.tsx', 'apps/[id]/page.tsx', true],
    ['/apps/\\[id\\]/page.tsx', 'apps/i/page.tsx', false],
    ['My\\ Docs/', 'My Docs/a.md', true],
    ['Docs/', 'docs/a.md', false], // case-sensitive, as GitHub is
    ['*.js', './src/a.js', true],
    ['*', '../elsewhere/package.json', false], // outside the git root: nobody's
    ['*', '', false],
  ];
  it.each(table)('%s against %s → %s', (pattern, p, expected) => {
    expect(matchesPattern(pattern, p)).toBe(expected);
  });

  it('agrees with an independent regex construction (hmarr/codeowners style) on random patterns and paths', () => {
    const seg = fc.constantFrom('a', 'b', 'ab', '*', 'a*', '*b', '?', 'a?', '**');
    const pattern = fc
      .tuple(fc.boolean(), fc.array(seg, { minLength: 1, maxLength: 4 }), fc.boolean())
      .map(([lead, segs, trail]) => (lead ? '/' : '') + segs.join('/') + (trail ? '/' : ''))
      .filter((p) => !p.includes('***') && !startsWithTwoAny(p));
    const p = fc
      .array(fc.constantFrom('a', 'b', 'ab', 'ba', 'aa'), { minLength: 1, maxLength: 5 })
      .map((s) => s.join('/'));
    fc.assert(
      fc.property(pattern, p, (pat, file) => matchesPattern(pat, file) === referenceRegex(pat).test(file)),
      { numRuns: 3000 },
    );
  });

  it('stays linear on patterns that make backtracking regexes explode', () => {
    const long = 'a'.repeat(20000);
    const deep = Array.from({ length: 3000 }, () => 'a').join('/') + '/c';
    const started = Date.now();
    expect(matchesPattern('a*a*a*a*a*a*a*a*a*a*a*a*b', long)).toBe(false);
    expect(matchesPattern('*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*', long)).toBe(true);
    expect(matchesPattern('**/a/**/a/**/a/**/a/**/a/**/a/**/b', deep)).toBe(false);
    expect(matchesPattern('**/a/**/a/**/a/**/a/**/a/**/a/**/c', deep)).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

/** hmarr/codeowners' translation (match.go), rewritten: anchored segments, `**` as (.+/)? / (/.+)? / /.*, `*` alone as [^/]+. */
function referenceRegex(pattern: string): RegExp {
  if (pattern === '/') return /^$/;
  let segs = pattern.split('/');
  if (segs[0] === '') segs = segs.slice(1);
  else if ((segs.length === 1 || (segs.length === 2 && segs[1] === '')) && segs[0] !== '**') segs = ['**', ...segs];
  if (segs.length > 1 && segs[segs.length - 1] === '') segs[segs.length - 1] = '**';
  const last = segs.length - 1;
  let re = '^';
  let needSlash = false;
  segs.forEach((s, i) => {
    if (s === '**') {
      if (i === 0 && i === last) re += '.+';
      else if (i === 0) ((re += '(?:.+/)?'), (needSlash = false));
      else if (i === last) re += '/.*';
      else ((re += '(?:/.+)?'), (needSlash = true));
      return;
    }
    if (needSlash) re += '/';
    if (s === '*') re += '[^/]+';
    else re += s.replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]') + (i === last ? '(?:/.*)?' : '');
    needSlash = true;
  });
  return new RegExp(re + '$');
}

// A leading `**` segment followed by a trailing one (a lone `**` with a trailing slash, or two `**` segments): hmarr's
// regex then demands an empty leading segment, a quirk of that construction; such patterns are not compared.
function startsWithTwoAny(p: string): boolean {
  let segs = p.split('/');
  if (segs[0] === '') segs = segs.slice(1);
  if (segs.length > 1 && segs[segs.length - 1] === '') segs[segs.length - 1] = '**';
  return segs[0] === '**' && segs[1] === '**';
}

describe('parseCodeowners', () => {
  const docsExample = [
    '# This is a comment.',
    '# Each line is a file pattern followed by one or more owners.',
    '',
    '*       @global-owner1 @global-owner2',
    '*.js    @js-owner #This is an inline comment.',
    '*.go docs@example.com',
    '*.txt @octo-org/octocats',
    '/build/logs/ @doctocat',
    'docs/*  docs@example.com',
    'apps/ @octocat',
    '/docs/ @doctocat',
    '/scripts/ @doctocat @octocat',
    '**/logs @octocat',
    '/apps/ @octocat',
    '/apps/github',
    '/apps/ @octocat',
    '/apps/github @doctocat',
  ].join('\n');

  it("reads the docs page's example file: inline comment, e-mail and team owners, a rule without owners", () => {
    const rules = parseCodeowners(docsExample);
    expect(rules).toHaveLength(14);
    expect(rules[0]).toEqual({ pattern: '*', owners: ['@global-owner1', '@global-owner2'], line: 4 });
    expect(rules[1]).toEqual({ pattern: '*.js', owners: ['@js-owner'], line: 5 });
    expect(rules[2].owners).toEqual(['docs@example.com']);
    expect(rules[11]).toEqual({ pattern: '/apps/github', owners: [], line: 15 });
  });

  it('the last matching rule wins', () => {
    const rules = parseCodeowners(docsExample);
    expect(ownersFor(rules, 'README.md')).toEqual(['@global-owner1', '@global-owner2']);
    expect(ownersFor(rules, 'src/index.js')).toEqual(['@js-owner']);
    expect(ownersFor(rules, 'notes.txt')).toEqual(['@octo-org/octocats']);
    expect(ownersFor(rules, 'docs/getting-started.md')).toEqual(['@doctocat']); // /docs/ comes after docs/*
    expect(ownersFor(rules, 'scripts/logs/run.log')).toEqual(['@octocat']); // **/logs after /scripts/
    expect(ownersFor(rules, 'scripts/deploy.sh')).toEqual(['@doctocat', '@octocat']);
    expect(ownersFor(rules, 'apps/github/package.json')).toEqual(['@doctocat']);
    expect(ownersFor(rules, 'apps/web/package.json')).toEqual(['@octocat']);
  });

  it('a last matching rule without owners unowns; no matching rule is undefined', () => {
    const rules = parseCodeowners('/apps/ @octocat\n/apps/github\n');
    expect(ownersFor(rules, 'apps/github/package.json')).toEqual([]);
    expect(ownersFor(rules, 'apps/web/package.json')).toEqual(['@octocat']);
    expect(ownersFor(rules, 'package.json')).toBeUndefined();
    expect(ownersFor([], 'package.json')).toBeUndefined();
  });

  it('returns a copy of the owners', () => {
    const rules = parseCodeowners('* @a');
    ownersFor(rules, 'x')!.push('@b');
    expect(rules[0].owners).toEqual(['@a']);
  });

  it('skips what GitHub does not support, and says why', () => {
    const skipped: SkippedLine[] = [];
    const rules = parseCodeowners(
      [
        '!docs/ @a', // negation
        'src/*.[ch] @a', // character range
        'pages/[id].tsx @a', // brackets must be escaped
        '\\#notes @a', // escaping a leading #
        'src/ a-user-without-at', // not an owner
        'src/ @a @b,', // one bad owner spoils the line
        'src/*** @a', // three asterisks
        'src/x\u0001 @a', // control character
        'trailing\\',
        'ok/ @ok',
      ].join('\n'),
      (s) => skipped.push(s),
    );
    expect(rules).toEqual([{ pattern: 'ok/', owners: ['@ok'], line: 10 }]);
    expect(skipped.map((s) => s.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(skipped[0].reason).toMatch(/negat/);
    expect(skipped[1].reason).toMatch(/\[ \]/);
    expect(skipped[4].reason).toMatch(/not an owner/);
  });

  it('comments, blank lines, CRLF, tabs, a BOM and escaped blanks', () => {
    const rules = parseCodeowners(
      '\uFEFF# heading\r\n\r\n   \r\n  # indented comment\r\n\tsrc/\t@a\t@b # why\r\nMy\\ Docs/ @docs\r\nfoo#bar @x',
    );
    expect(rules).toEqual([
      { pattern: 'src/', owners: ['@a', '@b'], line: 5 },
      { pattern: 'My\\ Docs/', owners: ['@docs'], line: 6 },
      { pattern: 'foo#bar', owners: ['@x'], line: 7 }, // # inside a word is no comment
    ]);
    expect(ownersFor(rules, 'My Docs/guide.md')).toEqual(['@docs']);
    expect(parseCodeowners('*.js # all of them\n')).toEqual([{ pattern: '*.js', owners: [], line: 1 }]);
  });

  it('escaped brackets are literal', () => {
    const rules = parseCodeowners('pages/\\[id\\]/ @web');
    expect(ownersFor(rules, 'pages/[id]/package.json')).toEqual(['@web']);
  });
});

describe('readCodeowners', () => {
  it('is undefined without a CODEOWNERS file', () => {
    expect(readCodeowners(tmp)).toBeUndefined();
  });

  it.each(CODEOWNERS_LOCATIONS.map((l) => [l]))('reads %s', (loc) => {
    write(loc, '* @team');
    expect(readCodeowners(tmp)).toEqual({
      path: loc,
      rules: [{ pattern: '*', owners: ['@team'], line: 1 }],
      skipped: [],
    });
  });

  it("uses the first found of .github/, the root, docs/ (GitHub's order)", () => {
    write('docs/CODEOWNERS', '* @docs');
    write('CODEOWNERS', '* @root');
    expect(readCodeowners(tmp)!.path).toBe('CODEOWNERS');
    write('.github/CODEOWNERS', '* @github');
    expect(readCodeowners(tmp)).toMatchObject({ path: '.github/CODEOWNERS', rules: [{ owners: ['@github'] }] });
  });

  it('passes over a directory named CODEOWNERS', () => {
    fs.mkdirSync(path.join(tmp, '.github', 'CODEOWNERS'), { recursive: true });
    write('CODEOWNERS', '* @root');
    expect(readCodeowners(tmp)!.path).toBe('CODEOWNERS');
  });

  it('reports skipped lines', () => {
    write('CODEOWNERS', '!x @a\n* @b\n');
    expect(readCodeowners(tmp)).toMatchObject({ rules: [{ owners: ['@b'] }], skipped: [{ line: 1 }] });
  });

  it('does not load a file of 3 MB or more, nor falls back to a later location', () => {
    write('.github/CODEOWNERS', '* @big\n' + '#'.repeat(MAX_CODEOWNERS_BYTES));
    write('CODEOWNERS', '* @root');
    const got = readCodeowners(tmp)!;
    expect(got.path).toBe('.github/CODEOWNERS');
    expect(got.rules).toEqual([]);
    expect(got.skipped[0].reason).toMatch(/3 MB/);
  });
});

describe('findGitRoot', () => {
  it('finds the directory holding .git from itself and from below', () => {
    fs.mkdirSync(path.join(tmp, 'repo', '.git'), { recursive: true });
    fs.mkdirSync(path.join(tmp, 'repo', 'packages', 'a'), { recursive: true });
    expect(findGitRoot(path.join(tmp, 'repo'))).toBe(path.join(tmp, 'repo'));
    expect(findGitRoot(path.join(tmp, 'repo', 'packages', 'a'))).toBe(path.join(tmp, 'repo'));
  });

  it('takes a .git file (worktrees, submodules) and the nearest one wins', () => {
    fs.mkdirSync(path.join(tmp, 'outer', '.git'), { recursive: true });
    write('outer/sub/.git', 'gitdir: ../.git/modules/sub\n');
    fs.mkdirSync(path.join(tmp, 'outer', 'sub', 'lib'), { recursive: true });
    expect(findGitRoot(path.join(tmp, 'outer', 'sub', 'lib'))).toBe(path.join(tmp, 'outer', 'sub'));
  });

  it('is undefined outside any repository', () => {
    const outside = findGitRoot(os.tmpdir());
    if (outside !== undefined) return; // the machine's temp dir is itself in a checkout: nothing to assert
    fs.mkdirSync(path.join(tmp, 'plain', 'dir'), { recursive: true });
    expect(findGitRoot(path.join(tmp, 'plain', 'dir'))).toBeUndefined();
  });
});

describe('teamOf', () => {
  it('the first owner as written is the team, all owners in attributes.codeowners', () => {
    expect(teamOf(['@acme/payments', '@alice', 'bob@example.com'])).toEqual({
      teamName: '@acme/payments',
      attributes: { codeowners: '@acme/payments @alice bob@example.com' },
    });
  });

  it('no owners, no team', () => {
    expect(teamOf([])).toBeUndefined();
  });

  it('a first owner over 200 characters is no team name; the owners still go in attributes', () => {
    const long = '@' + 'x'.repeat(200);
    expect(teamOf([long, '@b'])).toEqual({ teamName: null, attributes: { codeowners: `${long} @b` } });
    expect(teamOf(['@' + 'x'.repeat(199)])!.teamName).toHaveLength(200);
  });

  it('attributes.codeowners keeps whole owners within 2000 characters', () => {
    const owners = Array.from({ length: 300 }, (_, i) => `@org/team-${String(i).padStart(3, '0')}`); // 13 chars each
    const got = teamOf(owners)!;
    expect(got.teamName).toBe('@org/team-000');
    expect(got.attributes!.codeowners.length).toBeLessThanOrEqual(2000);
    expect(got.attributes!.codeowners.split(' ')).toEqual(owners.slice(0, 142)); // 142 × 13 + 141 = 1987
  });

  it('drops owners with control characters or blanks, never emits them', () => {
    expect(teamOf(['@a\u0000', '@b'])).toEqual({ teamName: null, attributes: { codeowners: '@b' } });
    expect(teamOf(['\u007f', 'a b', ''])).toBeUndefined();
  });

  it('a parsed file cannot produce values the snapshot schema refuses', () => {
    const text = [
      `* @${'a'.repeat(250)}/${'b'.repeat(250)}`,
      `/x/ ${Array.from({ length: 400 }, (_, i) => `@u${i}`).join(' ')}`,
    ].join('\n');
    for (const p of ['README.md', 'x/package.json']) {
      const team = teamOf(ownersFor(parseCodeowners(text), p)!)!;
      if (team.teamName !== null) expect(team.teamName.length).toBeLessThanOrEqual(200);
      expect(team.attributes!.codeowners.length).toBeLessThanOrEqual(2000);
      expect(team.attributes!.codeowners).not.toMatch(/[\u0000-\u001f\u007f]/);
    }
  });
});
