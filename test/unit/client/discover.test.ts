// Finding lockfiles: directories searched, node_modules and virtual environments never entered,
// files taken as given, paths relative to the deepest directory holding every input.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { discover } from '../../../src/client/discover';
import type { Producer } from '../../../src/client/producers/types';

const lock: Producer = {
  format: 'package-lock.json',
  matches: (n) => n === 'package-lock.json',
  produce: () => {
    throw new Error('not called');
  },
};
let dir: string;

function touch(rel: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), '{}');
}

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'discover-')));
  for (const f of [
    'package-lock.json',
    'apps/web/package-lock.json',
    'apps/web/node_modules/dep/package-lock.json',
    'node_modules/x/package-lock.json',
    'tools/.venv/lib/package-lock.json',
    'tools/env/pyvenv.cfg',
    'tools/env/lib/package-lock.json',
    '.git/package-lock.json',
    'apps/api/README.md',
  ])
    touch(f);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a directory: every lockfile below it, never under node_modules, virtual environments or .git, sorted', () => {
  const d = discover([dir], [lock]);
  expect(d.root).toBe(dir);
  expect(d.lockfiles.map((l) => l.relative)).toEqual(['apps/web/package-lock.json', 'package-lock.json']);
  expect(d.lockfiles[0]).toMatchObject({ file: path.join(dir, 'apps/web/package-lock.json'), producer: lock });
});

test('no PATH means the working directory', () => {
  expect(discover([], [lock], path.join(dir, 'apps')).lockfiles.map((l) => l.relative)).toEqual([
    'web/package-lock.json',
  ]);
});

test('files are taken as given; the root is the deepest directory holding them all', () => {
  touch('apps/api/package-lock.json');
  const d = discover(['apps/web/package-lock.json', 'apps/api/package-lock.json'], [lock], dir);
  expect(d.root).toBe(path.join(dir, 'apps'));
  expect(d.lockfiles.map((l) => l.relative)).toEqual(['web/package-lock.json', 'api/package-lock.json']);
  const one = discover([path.join(dir, 'apps/web/package-lock.json')], [lock]);
  expect(one.root).toBe(path.join(dir, 'apps/web'));
  expect(one.lockfiles.map((l) => l.relative)).toEqual(['package-lock.json']);
});

test('the same lockfile reached twice is read once', () => {
  expect(discover([dir, path.join(dir, 'package-lock.json')], [lock]).lockfiles.map((l) => l.relative)).toEqual([
    'apps/web/package-lock.json',
    'package-lock.json',
  ]);
});

test('a missing path or a file no producer reads is an input error (exit 2)', () => {
  expect(() => discover(['nope'], [lock], dir)).toThrow(
    expect.objectContaining({ exitCode: 2, message: expect.stringMatching(/nope: no such file or directory/) }),
  );
  expect(() => discover(['apps/api/README.md'], [lock], dir)).toThrow(
    expect.objectContaining({
      exitCode: 2,
      message: expect.stringMatching(/not a lockfile this client reads \(package-lock.json\)/),
    }),
  );
});

test('npm-shrinkwrap.json wins over a package-lock.json beside it, as npm reads it', () => {
  const both: Producer = { ...lock, matches: (n) => n === 'package-lock.json' || n === 'npm-shrinkwrap.json' };
  touch('apps/web/npm-shrinkwrap.json');
  expect(discover([dir], [both]).lockfiles.map((l) => l.relative)).toEqual([
    'apps/web/npm-shrinkwrap.json',
    'package-lock.json',
  ]);
});
