// Which lockfiles a `scanner snapshot|scan PATH...` run reads: a directory is searched for every
// file a producer reads, never under node_modules, virtual environments or VCS folders; a file is taken as given.
// The project root is the deepest directory holding every input (a file counts as its directory), so module paths
// and manifests come out relative to where the user pointed.
import fs from 'node:fs';
import path from 'node:path';
import { InputError } from './errors';
import type { Producer } from './producers/types';

export interface FoundLockfile {
  /** Absolute path. */
  file: string;
  /** Path relative to the project root, '/'-separated. */
  relative: string;
  producer: Producer;
}

export interface Discovery {
  root: string;
  lockfiles: FoundLockfile[];
}

/** Folders that hold installed or generated copies of dependencies, VCS data, or a build's own build logic
 *  (Gradle's buildSrc: its dependencies are the build's tools, not the product's): never searched. */
const SKIPPED_DIRS = new Set([
  'node_modules',
  '.git',
  '.hg',
  '.svn',
  '__pycache__',
  '.tox',
  '.nox',
  '.venv',
  'venv',
  '.yarn',
  '.pnpm-store',
  '.gradle',
  'bower_components',
  'buildSrc',
]);

const toPosix = (p: string) => p.split(path.sep).join('/');

/** A lockfile the package manager ignores when another sits beside it: npm reads npm-shrinkwrap.json first. */
const SUPERSEDED_BY: Record<string, string> = { 'package-lock.json': 'npm-shrinkwrap.json' };

function superseded(file: string): boolean {
  const other = SUPERSEDED_BY[path.basename(file)];
  return other !== undefined && fs.existsSync(path.join(path.dirname(file), other));
}

function commonDirectory(dirs: string[]): string {
  let common = dirs[0];
  for (const d of dirs.slice(1)) {
    while (common !== path.dirname(common) && path.relative(common, d).startsWith('..')) common = path.dirname(common);
  }
  return common;
}

/** A virtual environment (venv, virtualenv, conda) is recognized by its marker file, whatever its name. */
function isVirtualEnv(dir: string, names: Set<string>): boolean {
  return names.has('pyvenv.cfg') || (names.has('conda-meta') && fs.existsSync(path.join(dir, 'conda-meta')));
}

function producerFor(producers: readonly Producer[], name: string): Producer | undefined {
  return producers.find((p) => p.matches(name));
}

function walk(dir: string, producers: readonly Producer[], out: string[]): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    // An unreadable folder below the one asked for is skipped; the one asked for was checked by the caller.
    if ((err as NodeJS.ErrnoException).code === 'EACCES' || (err as NodeJS.ErrnoException).code === 'EPERM') return;
    throw err;
  }
  const names = new Set(entries.map((e) => e.name));
  if (isVirtualEnv(dir, names)) return;
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIPPED_DIRS.has(e.name)) walk(full, producers, out);
    } else if (e.isFile() && producerFor(producers, e.name) && !superseded(full)) {
      out.push(full);
    }
  }
}

export function discover(inputs: string[], producers: readonly Producer[], cwd = process.cwd()): Discovery {
  const paths = (inputs.length > 0 ? inputs : ['.']).map((p) => path.resolve(cwd, p));
  const files: string[] = [];
  const dirs: string[] = [];
  for (const p of paths) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(p);
    } catch {
      throw new InputError(`${p}: no such file or directory`);
    }
    if (stat.isDirectory()) {
      dirs.push(p);
      walk(p, producers, files);
    } else {
      if (!producerFor(producers, path.basename(p))) {
        throw new InputError(`${p}: not a lockfile this client reads (${producers.map((x) => x.format).join(', ')})`);
      }
      dirs.push(path.dirname(p));
      files.push(p);
    }
  }
  const root = commonDirectory(dirs);
  const unique = [...new Set(files)];
  return {
    root,
    lockfiles: unique.map((file) => ({
      file,
      relative: toPosix(path.relative(root, file)),
      producer: producerFor(producers, path.basename(file))!,
    })),
  };
}
