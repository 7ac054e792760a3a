// Every relative link of the documentation (README.md and docs/**/*.md) points at a file of the repository, and every
// #anchor at a heading of its Markdown file, under GitHub's slug rules. Links in fenced code blocks and inline code are
// not links; http(s), mailto and other absolute URLs are not checked. A link that leaves the repository fails too.
// Needs no server: SCANNER_SKIP_INFRA=1 npx jest test/unit/docs-links.test.ts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** README.md and every .md file under docs/, as paths relative to `root` (forward slashes), sorted. */
export function documentationFiles(root: string): string[] {
  const found: string[] = [];
  if (fs.existsSync(path.join(root, 'README.md'))) found.push('README.md');
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) found.push(rel);
    }
  };
  if (fs.existsSync(path.join(root, 'docs'))) walk('docs');
  return found.sort();
}

const FENCE = /^ *(?:[-*+] +|\d+[.)] +)?( *)(`{3,}|~{3,})/;

/**
 * The text with what is not Markdown prose blanked out, lengths and newlines kept (so offsets still give lines):
 * fenced code blocks (``` or ~~~, indented or inside list items too) and inline code spans.
 */
export function maskCode(text: string): string {
  const lines = text.split('\n');
  let fence: { char: string; length: number } | null = null;
  const prose = lines.map((line) => {
    if (fence) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1][0] === fence.char && close[1].length >= fence.length) fence = null;
      return ' '.repeat(line.length);
    }
    const open = FENCE.exec(line);
    if (open && !(open[2][0] === '`' && line.slice(open.index + open[0].length).includes('`'))) {
      fence = { char: open[2][0], length: open[2].length };
      return ' '.repeat(line.length);
    }
    return line;
  });
  return maskInlineCode(prose.join('\n'));
}

/** Inline code spans (a run of n backticks up to the next run of exactly n, within one paragraph) blanked out. */
function maskInlineCode(text: string): string {
  const out = text.split('');
  let i = 0;
  while (i < text.length) {
    if (text[i] !== '`') {
      i++;
      continue;
    }
    let n = 0;
    while (text[i + n] === '`') n++;
    let j = i + n;
    let end = -1;
    while (j < text.length) {
      if (text[j] === '\n' && /^\n[ \t]*\n/.test(text.slice(j))) break; // a blank line ends the paragraph
      if (text[j] === '`') {
        let m = 0;
        while (text[j + m] === '`') m++;
        if (m === n) {
          end = j + m;
          break;
        }
        j += m;
      } else j++;
    }
    if (end < 0) {
      i += n; // an unmatched run is literal backticks
      continue;
    }
    for (let k = i; k < end; k++) if (out[k] !== '\n') out[k] = ' ';
    i = end;
  }
  return out.join('');
}

/**
 * GitHub's anchor of a heading: the rendered text, lowercased, with every character that is not a letter, a digit,
 * a mark, `_`, a hyphen or a space dropped, and spaces turned into hyphens.
 */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/`+([^`]*)`+/g, (_m, code: string) => code.replace(/_/g, '\u0000')) // code: literal underscores
    .replace(/(^|[^\p{L}\p{N}])[*_]+|[*_]+(?=[^\p{L}\p{N}]|$)/gu, '$1') // emphasis markers
    .replace(/\u0000/g, '_');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file: its headings' slugs (duplicates get -1, -2 ...) and explicit HTML ids and names. */
export function anchors(text: string): Set<string> {
  const masked = maskCode(text).split('\n');
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const add = (heading: string) => {
    const base = slug(heading);
    let candidate = base;
    let n = seen.get(base) ?? 0;
    if (n > 0) {
      candidate = `${base}-${n}`;
      while (result.has(candidate)) candidate = `${base}-${++n}`;
    }
    seen.set(base, n + 1);
    result.add(candidate);
  };
  const original = text.split('\n');
  for (let i = 0; i < masked.length; i++) {
    const line = masked[i];
    const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) {
      add(
        original[i]
          .replace(/^ {0,3}#{1,6}[ \t]*/, '')
          .replace(/[ \t]+#+[ \t]*$/, '')
          .replace(/^#+$/, ''),
      );
      continue;
    }
    // Setext: a paragraph line underlined with === or ---.
    const next = masked[i + 1];
    if (
      next !== undefined &&
      /^ {0,3}(=+|-+)[ \t]*$/.test(next) &&
      line.trim() &&
      !/^ {0,3}([-*+>|]|\d+[.)])/.test(line)
    ) {
      const previous = i > 0 ? masked[i - 1].trim() : '';
      if (!previous) add(original[i].trim());
    }
    for (const m of line.matchAll(/<a\s[^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']/gi)) result.add(m[1]);
  }
  return result;
}

export interface Link {
  line: number;
  /** As written, e.g. `[api.md](api.md#errors)`. */
  text: string;
  target: string;
}

/** Inline links and images `[x](target)`, `![x](target "title")`, and reference definitions `[x]: target`. */
export function links(text: string): Link[] {
  const masked = maskCode(text);
  const lineOf = (offset: number) => masked.slice(0, offset).split('\n').length;
  const found: Link[] = [];
  const inline =
    /!?\[((?:[^[\]\\]|\\.|\[(?:[^[\]\\]|\\.)*\])*)\]\(\s*(<[^>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
  for (const m of masked.matchAll(inline)) {
    const target = m[2].replace(/^<|>$/g, '');
    found.push({
      line: lineOf(m.index!),
      text: text.slice(m.index!, m.index! + m[0].length).replace(/\s*\n\s*/g, ' '),
      target,
    });
  }
  for (const m of masked.matchAll(/^ {0,3}\[([^\]]+)\]:[ \t]*(<[^>\n]*>|\S+)/gm)) {
    found.push({ line: lineOf(m.index!), text: m[0].trim(), target: m[2].replace(/^<|>$/g, '') });
  }
  return found.sort((a, b) => a.line - b.line);
}

/** Problems of the links of one documentation file (relative to `root`), each naming the file, the line and the link. */
export function checkFile(root: string, rel: string): string[] {
  const text = fs.readFileSync(path.join(root, rel), 'utf8');
  const problems: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsOf = (file: string) => {
    let a = anchorCache.get(file);
    if (!a) anchorCache.set(file, (a = anchors(fs.readFileSync(file, 'utf8'))));
    return a;
  };
  for (const link of links(text)) {
    const say = (why: string) => problems.push(`${rel}:${link.line}: ${link.text}: ${why}`);
    const target = link.target.trim();
    if (!target) {
      say('empty link');
      continue;
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // https:, mailto: ...: not checked
    const hash = target.indexOf('#');
    const rawPath = hash < 0 ? target : target.slice(0, hash);
    const rawAnchor = hash < 0 ? null : target.slice(hash + 1);
    let filePart: string;
    let anchor: string | null;
    try {
      filePart = decodeURIComponent(rawPath.split('?')[0]);
      anchor = rawAnchor === null ? null : decodeURIComponent(rawAnchor);
    } catch {
      say('malformed percent-encoding');
      continue;
    }
    const file =
      filePart === ''
        ? path.join(root, rel)
        : filePart.startsWith('/')
          ? path.join(root, filePart)
          : path.resolve(path.dirname(path.join(root, rel)), filePart);
    const inside = path.relative(root, file);
    if (inside.startsWith('..') || path.isAbsolute(inside)) {
      say(`leaves the repository (${path.relative(root, file).split(path.sep).join('/')})`);
      continue;
    }
    if (!fs.existsSync(file)) {
      say(`no such file ${inside.split(path.sep).join('/')}`);
      continue;
    }
    if (anchor === null || !file.toLowerCase().endsWith('.md') || !fs.statSync(file).isFile()) continue;
    if (!anchor) {
      say('empty anchor');
      continue;
    }
    if (!anchorsOf(file).has(anchor)) say(`no heading #${anchor} in ${inside.split(path.sep).join('/')}`);
  }
  return problems;
}

describe('the checker', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-links-'));
    fs.mkdirSync(path.join(dir, 'repo', 'docs', 'screenshots'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'outside.md'), '# Outside\n');
    fs.writeFileSync(path.join(dir, 'repo', 'docs', 'screenshots', 'a.png'), '');
    fs.writeFileSync(
      path.join(dir, 'repo', 'docs', 'b.md'),
      [
        '# B',
        '',
        '## Set-up: `npm start`, twice',
        '',
        '## Set-up: `npm start`, twice',
        '',
        'Setext heading',
        '--------------',
        '',
      ].join('\n'),
    );
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const check = (body: string) => {
    fs.writeFileSync(path.join(dir, 'repo', 'docs', 'a.md'), body);
    return checkFile(path.join(dir, 'repo'), 'docs/a.md');
  };

  test('slugs follow GitHub: lowercase, punctuation dropped but hyphens and underscores, spaces to hyphens', () => {
    expect(slug('The Temporal UI: finding a scan')).toBe('the-temporal-ui-finding-a-scan');
    expect(slug('On the machines: `scanner mcp scan`, the sidecar and the hooks')).toBe(
      'on-the-machines-scanner-mcp-scan-the-sidecar-and-the-hooks',
    );
    expect(slug("The web app's first screen")).toBe('the-web-apps-first-screen');
    expect(slug('`SECRETS_KEY` and *emphasis*')).toBe('secrets_key-and-emphasis');
    expect(slug('Hosts → gateways (v2)')).toBe('hosts--gateways-v2');
  });

  test('good links pass: files, images, same-file and other-file anchors, duplicates numbered, setext headings', () => {
    const body = [
      '# A',
      '',
      '## Local part',
      '',
      'See [b](b.md), [its set-up](b.md#set-up-npm-start-twice), [again](b.md#set-up-npm-start-twice-1),',
      '[setext](b.md#setext-heading), [here](#local-part), [the readme](../README.md) and',
      '![a picture](screenshots/a.png "title"), [web](https://example.com/x.md#nope), [mail](mailto:a@example.com).',
      '',
      '[ref]: b.md#b',
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'repo', 'README.md'), '# R\n');
    expect(check(body)).toEqual([]);
  });

  test('a missing file, a missing anchor (same file and other file), a missing image and a link out of the repository fail, naming file, line and link', () => {
    const body = [
      '# A',
      '',
      '[gone](gone.md)',
      '[bad anchor](b.md#nowhere) and [local](#nowhere-here)',
      '![pic](screenshots/missing.png)',
      '[out](../../outside.md)',
      '[ref]: b.md#missing-ref',
    ].join('\n');
    expect(check(body)).toEqual([
      'docs/a.md:3: [gone](gone.md): no such file docs/gone.md',
      'docs/a.md:4: [bad anchor](b.md#nowhere): no heading #nowhere in docs/b.md',
      'docs/a.md:4: [local](#nowhere-here): no heading #nowhere-here in docs/a.md',
      'docs/a.md:5: ![pic](screenshots/missing.png): no such file docs/screenshots/missing.png',
      'docs/a.md:6: [out](../../outside.md): leaves the repository (../outside.md)',
      'docs/a.md:7: [ref]: b.md#missing-ref: no heading #missing-ref in docs/b.md',
    ]);
  });

  test('links in fenced code blocks and inline code are not links', () => {
    const body = [
      '# A',
      '',
      '```md',
      '[gone](gone.md)',
      '```',
      '',
      '- a list item:',
      '  ~~~',
      '  [gone](gone.md)',
      '  ~~~',
      '',
      'and `[gone](gone.md)` and ``[x](`y`)``.',
    ].join('\n');
    expect(check(body)).toEqual([]);
  });
});

describe('the documentation', () => {
  const files = documentationFiles(ROOT);

  test('is README.md and docs/**/*.md', () => {
    expect(files).toContain('README.md');
    expect(files.filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(0);
  });

  test.each(files)('%s: every relative link and anchor resolves inside the repository', (file) => {
    const problems = checkFile(ROOT, file);
    if (problems.length) throw new Error(`${problems.length} broken link(s):\n${problems.join('\n')}`);
  });
});
