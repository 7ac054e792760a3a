// Nothing in the project refers to a file outside the repository: no design notes that live elsewhere (platform.md,
// decisions.md, ...), no path that climbs out of the clone (../shared). Every file git knows (tracked, or new and not
// ignored) is read, except package-lock.json and binary files. The one exception: the default location of the
// third-party data the tests read, in src/infra/shared-data.ts.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/infra/tools';

const ROOT = projectRoot(__dirname);
const SELF = path.relative(ROOT, __filename).split(path.sep).join('/');

/** What points outside, each with a name for the failure message. */
const OUTSIDE: Array<[string, RegExp]> = [
  ['platform.md', /\bplatform\.md\b/],
  ['decisions.md', /\bdecisions\.md\b/],
  ['management.md', /\bmanagement\.md\b/],
  ['local-database.md', /\blocal-database\.md\b/],
  ['scanning-api.md', /\bscanning-api\.md\b/],
  // The project's own docs/architecture.md is fine; the design notes' copy, named by an outside path, is not.
  [
    'architecture.md outside docs/',
    /(?:\.\.\/|\bshared\/|\bdesign\/|\bspec\/)(?:[\w.-]+\/)*(?<!docs\/)architecture\.md\b/,
  ],
  ['shared/design or shared/spec', /(?<!src\/)\bshared\/(?:design|spec)\//],
  ['/work/shared', /\/work\/shared\b/],
];

/**
 * `../shared` taken from the file's own folder: outside the repository, or the data and design folders beside the
 * clone (`../shared/data`, `/design`, `/spec`) where the repository has none. The project's own src/shared, imported
 * as '../shared/types' (also in the fixture sources tests write), is fine.
 */
function sharedOutside(
  file: string,
  line: string,
  exists = (rel: string) => fs.existsSync(path.join(ROOT, rel)),
): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/(?<![\w.])((?:\.\.\/)+)shared(?![\w-])(?:\/(data|design|spec)(?![\w-]))?/g)) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1], 'shared', m[2] ?? ''));
    if (target.startsWith('../') || (m[2] !== undefined && !exists(target))) out.push(m[0]);
  }
  return out;
}

/** file → the names of OUTSIDE allowed on its lines. */
const ALLOWED: Record<string, string[]> = {
  'src/infra/shared-data.ts': ['../shared'], // the default of SCANNER_SHARED_DATA
};

function files(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(out.toString('utf8').split('\0').filter(Boolean))]
    .filter((f) => path.posix.basename(f) !== 'package-lock.json' && f !== SELF)
    .sort();
}

/** The file's text, or null when it is gone (moved meanwhile), not a file, or binary. */
function text(file: string): string | null {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(path.join(ROOT, file));
  } catch {
    return null;
  }
  return buf.subarray(0, 8000).includes(0) ? null : buf.toString('utf8');
}

test('no file refers to a file outside the repository', () => {
  const hits: string[] = [];
  let read = 0;
  for (const file of files()) {
    const body = text(file);
    if (body === null) continue;
    read++;
    const allowed = ALLOWED[file] ?? [];
    body.split('\n').forEach((line, i) => {
      for (const [name, re] of OUTSIDE) {
        if (re.test(line) && !allowed.includes(name))
          hits.push(`${file}:${i + 1}: ${name}: ${line.trim().slice(0, 160)}`);
      }
      if (sharedOutside(file, line).length > 0 && !allowed.includes('../shared'))
        hits.push(`${file}:${i + 1}: ../shared: ${line.trim().slice(0, 160)}`);
    });
  }
  expect(read).toBeGreaterThan(100); // git answered: the scan read the project
  expect(hits).toEqual([]);
});

test("the patterns: outside paths are caught, the project's own docs are not", () => {
  const caught = (line: string) => OUTSIDE.filter(([, re]) => re.test(line)).map(([name]) => name);
  expect(caught('see platform.md §3')).toEqual(['platform.md']);
  expect(caught('as decisions.md says')).toEqual(['decisions.md']);
  expect(caught('../shared/design/architecture.md')).toEqual([
    'architecture.md outside docs/',
    'shared/design or shared/spec',
  ]);
  expect(caught('/work/shared/data/advisories')).toEqual(['/work/shared']);
  expect(caught('shared/spec/scanning-api.md')).toEqual(['scanning-api.md', 'shared/design or shared/spec']);
  expect(caught('see docs/architecture.md and docs/scanning.md')).toEqual([]);
  expect(caught('architecture.md, [layers](../docs/architecture.md#layers)')).toEqual([]);
  expect(caught('a workspace at ../sibling, the shared identity function, src/shared/spec/x.ts')).toEqual([]);
});

test('../shared: caught when it leaves the repository or names the data beside the clone', () => {
  const has = (rel: string) => rel === 'src/shared' || rel === 'src/shared/types';
  expect(sharedOutside('README.md', 'data in ../shared/data beside the clone', has)).toEqual(['../shared/data']);
  expect(sharedOutside('README.md', 'beside the clone (`../shared`)', has)).toEqual(['../shared']);
  expect(
    sharedOutside('test/unit/domain/x.test.ts', "path.resolve(__dirname, '../../../../shared/data')", has),
  ).toEqual(['../../../../shared/data']);
  expect(sharedOutside('docs/development.md', 'see ../shared/data and ../shared/design/notes.md', has)).toEqual([
    '../shared/data',
    '../shared/design',
  ]);
  expect(sharedOutside('src/client/api/types.ts', "import type { Finding } from '../../shared/types';", has)).toEqual(
    [],
  );
  expect(sharedOutside('src/advisories/import.ts', "from '../shared/types'", has)).toEqual([]);
  expect(
    sharedOutside('test/unit/x.test.ts', "'src/domain/pure.ts': \"import type { S } from '../shared/types';\"", has),
  ).toEqual([]);
  expect(
    sharedOutside('test/unit/x.test.ts', "'../sibling' and ../shared-lib and ./shared and ../shared/database", has),
  ).toEqual([]);
});
