// Which lockfiles a `scanner snapshot|scan PATH...` run reads: a directory is searched for every
// file a producer reads, never under node_modules, virtual environments or VCS folders; a file is taken as given.
// The project root is the deepest directory holding every input (a file counts as its directory), so module paths
// and manifests come out relative to where the user pointed.
//
// Most formats are known by their file name. A format whose files are named anything (pip requirements) also says,
// through byContent, which other files may be its own and how their text shows it: such a file is read only when it
// was named on the command line or sits where the format says a walk may look (a requirements/ folder), so that a
// walk never opens a project's every .txt file and a file the user named is refused only when it is no lockfile.
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

/** How a producer recognises its files by content, for formats whose files have no fixed name. */
export interface ContentMatch {
  /** What such files are, for the message refusing a file: "a .txt of pip requirements (name==version lines)". */
  readonly description: string;
  /** Whether a file `matches` does not know may be of the format, so that its text is worth reading: `named` is true
   *  for a file named on the command line, false during a directory walk; `folders` are the names of the folders
   *  the file sits in, the nearest first. */
  candidate(fileName: string, folders: readonly string[], named: boolean): boolean;
  /** Whether the text (a candidate's first 64 KiB, cut after its last whole line) is of the format. */
  reads(text: string): boolean;
}

/** A Producer (./producers/types.ts) that may also recognise files by their content. */
export interface DiscoverableProducer extends Producer {
  readonly byContent?: ContentMatch;
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

/** How much of a candidate is read to judge its content: a requirements file shows what it is in its first lines,
 *  and a large file in a requirements/ folder (a data dump) is not read whole for nothing. */
const SNIFF_BYTES = 64 * 1024;

/** The start of a file as text (BOM removed), cut after its last whole line when the file is longer; undefined when
 *  it cannot be read (a walk skips it; a named file is then refused like any other file no producer reads). */
function head(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(SNIFF_BYTES);
    const n = fs.readSync(fd, buf, 0, SNIFF_BYTES, 0);
    let text = buf.subarray(0, n).toString('utf8');
    if (n === SNIFF_BYTES) text = text.slice(0, text.lastIndexOf('\n') + 1);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The producer that reads a file: by its name, else (for a candidate of a producer's byContent) by its text. */
function producerOf(
  producers: readonly DiscoverableProducer[],
  file: string,
  folders: readonly string[],
  named: boolean,
): Producer | undefined {
  const name = path.basename(file);
  const byName = producerFor(producers, name);
  if (byName) return byName;
  const candidates = producers.filter((p) => p.byContent?.candidate(name, folders, named));
  if (candidates.length === 0) return undefined;
  const text = head(file);
  return text === undefined ? undefined : candidates.find((p) => p.byContent!.reads(text));
}

/** The names of the folders a path sits in, the nearest first. */
const foldersOf = (dir: string): string[] =>
  dir
    .split(path.sep)
    .filter((f) => f !== '')
    .reverse();

function walk(dir: string, producers: readonly DiscoverableProducer[], out: Map<string, Producer>): void {
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
  const folders = foldersOf(dir);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIPPED_DIRS.has(e.name)) walk(full, producers, out);
    } else if (e.isFile() && !out.has(full) && !superseded(full)) {
      const producer = producerOf(producers, full, folders, false);
      if (producer) out.set(full, producer);
    }
  }
}

export function discover(inputs: string[], producers: readonly DiscoverableProducer[], cwd = process.cwd()): Discovery {
  const paths = (inputs.length > 0 ? inputs : ['.']).map((p) => path.resolve(cwd, p));
  // Each file once, with the producer that reads it, in the order found.
  const files = new Map<string, Producer>();
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
      // Only a regular file is read for its content: opening a named pipe or a device could wait forever.
      const producer =
        files.get(p) ??
        (stat.isFile()
          ? producerOf(producers, p, foldersOf(path.dirname(p)), true)
          : producerFor(producers, path.basename(p)));
      if (!producer) {
        const byContent = producers.flatMap((x) => (x.byContent ? [x.byContent.description] : []));
        throw new InputError(
          `${p}: not a lockfile this client reads (${producers.map((x) => x.format).join(', ')})` +
            byContent.map((d) => `, nor ${d}`).join(''),
        );
      }
      dirs.push(path.dirname(p));
      files.set(p, producer);
    }
  }
  const root = commonDirectory(dirs);
  return {
    root,
    lockfiles: [...files].map(([file, producer]) => ({
      file,
      relative: toPosix(path.relative(root, file)),
      producer,
    })),
  };
}
