// Reads OSV advisories from .json / .yaml files (an advisory or an array of them), directories (recursively) and
// .zip archives (osv.dev's per-ecosystem all.zip: flat entries), one entry at a time: an archive is streamed with
// yauzl and never held whole in memory. A bad file is reported and reading goes on.
//
// Size limits (ReadLimits) hold per source, that is per path given: a file or zip entry above maxEntryBytes, a
// source whose files add up to more than maxTotalBytes, or more than maxEntries files or archive entries, is
// refused before it is read where a size is declared (stat, the zip central directory), and in any case as soon as
// the bytes actually read pass the limit.
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { parse as parseYaml } from 'yaml';
import type { OsvAdvisory } from '../shared/types';
import { envInt } from '../config';

/**
 * kind of an error: `source` — the source cannot be taken whole (unreadable path, corrupt or truncated archive, a
 * limit passed); `file` — one file or entry is not valid JSON/YAML; `record` — one item is not an advisory object.
 */
export type OsvError = { source: string; error: string; kind: 'source' | 'file' | 'record' };
export type OsvItem = { source: string; advisory: OsvAdvisory } | OsvError;

export interface ReadLimits {
  /** Bytes of one file or zip entry, uncompressed. */
  maxEntryBytes: number;
  /** Uncompressed bytes of all the advisory files of one source (a file, a directory, an archive). */
  maxTotalBytes: number;
  /** Entries of one archive, and advisory files of one source. */
  maxEntries: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

export const DEFAULT_READ_LIMITS: ReadLimits = {
  maxEntryBytes: 64 * MiB,
  maxTotalBytes: 2 * GiB,
  maxEntries: 1_000_000,
};

export const LIMIT_ENV = {
  maxEntryBytes: 'ADVISORY_MAX_ENTRY_BYTES',
  maxTotalBytes: 'ADVISORY_MAX_TOTAL_BYTES',
  maxEntries: 'ADVISORY_MAX_ENTRIES',
} as const;

/** A positive whole number from the environment, or the default when unset or empty. */
export const envLimit = (env: NodeJS.ProcessEnv, name: string, fallback: number) =>
  envInt(name, fallback, { min: 1, env });

export function readLimits(env: NodeJS.ProcessEnv = process.env, overrides: Partial<ReadLimits> = {}): ReadLimits {
  const d = DEFAULT_READ_LIMITS;
  return {
    maxEntryBytes: overrides.maxEntryBytes ?? envLimit(env, LIMIT_ENV.maxEntryBytes, d.maxEntryBytes),
    maxTotalBytes: overrides.maxTotalBytes ?? envLimit(env, LIMIT_ENV.maxTotalBytes, d.maxTotalBytes),
    maxEntries: overrides.maxEntries ?? envLimit(env, LIMIT_ENV.maxEntries, d.maxEntries),
  };
}

/** "64 MiB" for round sizes, else the byte count. */
export function formatBytes(n: number): string {
  for (const [unit, size] of [
    ['GiB', GiB],
    ['MiB', MiB],
    ['KiB', KiB],
  ] as const)
    if (n >= size && n % size === 0) return `${n / size} ${unit}`;
  return `${n} bytes`;
}

const ADVISORY_FILE = /\.(json|ya?ml)$/i;

function parseText(name: string, text: string): unknown {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a UTF-8 byte order mark
  if (/\.ya?ml$/i.test(name)) return parseYaml(text);
  // JSON.parse's own messages ("Unexpected end of JSON input") do not say what was being parsed.
  if (text.trim() === '') throw new Error('invalid JSON: the file is empty');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`invalid JSON: ${message(err)}`);
  }
}

function* itemsOf(source: string, value: unknown): Generator<OsvItem> {
  const list = Array.isArray(value) ? value : [value];
  for (const [i, a] of list.entries()) {
    const where = Array.isArray(value) ? `${source}[${i}]` : source;
    if (a && typeof a === 'object' && !Array.isArray(a)) yield { source: where, advisory: a as OsvAdvisory };
    else yield { source: where, error: 'not an OSV advisory object', kind: 'record' };
  }
}

/** Parses what was read; a parse failure is the file's alone. */
function* parsed(source: string, name: string, bytes: Buffer): Generator<OsvItem> {
  let value: unknown;
  try {
    value = parseText(name, bytes.toString('utf8'));
  } catch (err) {
    yield { source, error: message(err), kind: 'file' };
    return;
  }
  yield* itemsOf(source, value);
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** What one source has used so far of its limits. */
interface Budget {
  limits: ReadLimits;
  bytes: number;
  files: number;
}

class LimitError extends Error {}

/** Refuses, before reading, a file or entry whose declared size passes a limit; counts it as a file. */
function admit(budget: Budget, what: string, declared: number): void {
  const { maxEntryBytes, maxTotalBytes, maxEntries } = budget.limits;
  if (++budget.files > maxEntries)
    throw new LimitError(`more than ${maxEntries} advisory files, over the limit (${LIMIT_ENV.maxEntries})`);
  if (declared > maxEntryBytes)
    throw new LimitError(
      `${what} ${declared} bytes, over the limit of ${formatBytes(maxEntryBytes)} (${LIMIT_ENV.maxEntryBytes})`,
    );
  if (budget.bytes + declared > maxTotalBytes)
    throw new LimitError(
      `the source's files add up to more than the limit of ${formatBytes(maxTotalBytes)} (${LIMIT_ENV.maxTotalBytes})`,
    );
}

/** Reads a stream whole, destroying it as soon as it passes what the budget still allows. */
function readCounted(stream: Readable, budget: Budget): Promise<Buffer> {
  const { maxEntryBytes, maxTotalBytes } = budget.limits;
  const room = Math.min(maxEntryBytes, maxTotalBytes - budget.bytes);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    stream
      .on('data', (c: Buffer) => {
        n += c.length;
        if (n <= room) return void chunks.push(c);
        stream.destroy();
        reject(
          new LimitError(
            n > maxEntryBytes
              ? `more than ${formatBytes(maxEntryBytes)} once read, over the limit (${LIMIT_ENV.maxEntryBytes})`
              : `the source's files add up to more than the limit of ${formatBytes(maxTotalBytes)} once read (${LIMIT_ENV.maxTotalBytes})`,
          ),
        );
      })
      .on('end', () => {
        budget.bytes += n;
        resolve(Buffer.concat(chunks, n));
      })
      .on('error', reject);
  });
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    // validateEntrySizes (yauzl's default, stated so that it stays on): an entry that inflates to more or fewer bytes
    // than its central directory record declares is an error, so the declared sizes checked below can be trusted.
    yauzl.open(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (err, zip) =>
      err ? reject(err) : resolve(zip!),
    ),
  );
}

/** Pulls one entry at a time: the next is read only after the previous one has been consumed. */
function entries(zip: yauzl.ZipFile): () => Promise<yauzl.Entry | null> {
  return () =>
    new Promise((resolve, reject) => {
      const onEntry = (e: yauzl.Entry) => (cleanup(), resolve(e));
      const onEnd = () => (cleanup(), resolve(null));
      const onError = (err: Error) => (cleanup(), reject(err));
      const cleanup = () => zip.off('entry', onEntry).off('end', onEnd).off('error', onError);
      zip.on('entry', onEntry).on('end', onEnd).on('error', onError);
      zip.readEntry();
    });
}

const isAdvisoryEntry = (e: yauzl.Entry) => !e.fileName.endsWith('/') && ADVISORY_FILE.test(e.fileName);

/**
 * The central directory alone, before any entry is inflated: its entry count, every declared size and their sum.
 * An archive that would pass a limit is refused without reading a byte of its entries.
 */
async function surveyZip(file: string, budget: Budget): Promise<string | null> {
  const zip = await openZip(file);
  try {
    if (zip.entryCount > budget.limits.maxEntries)
      return `holds ${zip.entryCount} entries, over the limit of ${budget.limits.maxEntries} (${LIMIT_ENV.maxEntries})`;
    const next = entries(zip);
    const trial: Budget = { ...budget };
    for (let e = await next(); e; e = await next()) {
      if (!isAdvisoryEntry(e)) continue;
      try {
        admit(trial, `entry ${e.fileName} declares`, e.uncompressedSize);
      } catch (err) {
        if (err instanceof LimitError) return err.message;
        throw err;
      }
      trial.bytes += e.uncompressedSize;
    }
    return null;
  } finally {
    zip.close();
  }
}

async function* zipItems(file: string, budget: Budget): AsyncGenerator<OsvItem> {
  let zip: yauzl.ZipFile;
  try {
    const refused = await surveyZip(file, budget);
    if (refused) {
      yield { source: file, error: refused, kind: 'source' };
      return;
    }
    zip = await openZip(file);
  } catch (err) {
    yield { source: file, error: `unreadable zip archive: ${message(err)}`, kind: 'source' };
    return;
  }
  try {
    const next = entries(zip);
    const open = (entry: yauzl.Entry): Promise<Readable> =>
      new Promise((resolve, reject) =>
        zip.openReadStream(entry, (err, stream) =>
          err || !stream ? reject(err ?? new Error('no stream')) : resolve(stream),
        ),
      );
    for (;;) {
      let entry: yauzl.Entry | null;
      try {
        entry = await next();
      } catch (err) {
        yield { source: file, error: `corrupt zip archive: ${message(err)}`, kind: 'source' };
        return;
      }
      if (!entry) return;
      if (!isAdvisoryEntry(entry)) continue;
      const source = `${file}!${entry.fileName}`;
      let bytes: Buffer;
      try {
        admit(budget, 'declares', entry.uncompressedSize);
        bytes = await readCounted(await open(entry), budget);
      } catch (err) {
        // A limit ends the archive; a damaged entry is reported and the next one read.
        const why = message(err);
        const error =
          err instanceof LimitError
            ? why
            : /^too many bytes in the stream/.test(why)
              ? `inflates to more than the ${entry.uncompressedSize} bytes it declares: a corrupt or hostile archive (${why})`
              : `unreadable zip entry: ${why}`;
        yield { source, error, kind: 'source' };
        if (err instanceof LimitError) return;
        continue;
      }
      yield* parsed(source, entry.fileName, bytes);
    }
  } finally {
    zip.close();
  }
}

async function* fileItems(p: string, size: number, budget: Budget): AsyncGenerator<OsvItem> {
  let bytes: Buffer;
  try {
    admit(budget, 'is', size);
    // Counted as read too: the size can change after stat, and a device or FIFO has none.
    bytes = await readCounted(fs.createReadStream(p), budget);
  } catch (err) {
    yield { source: p, error: message(err), kind: 'source' };
    return;
  }
  yield* parsed(p, p, bytes);
}

async function* pathItems(p: string, budget: Budget): AsyncGenerator<OsvItem> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(p);
  } catch (err) {
    yield { source: p, error: message(err), kind: 'source' };
    return;
  }
  if (stat.isDirectory()) {
    const names = (await fs.promises.readdir(p)).sort();
    for (const name of names) {
      const child = path.join(p, name);
      // Symlinked directories are not followed: a link loop would read the same files again and again.
      const s = await fs.promises.lstat(child).catch(() => null);
      if (!s || (s.isSymbolicLink() && !ADVISORY_FILE.test(name))) continue;
      if (s.isDirectory() || /\.zip$/i.test(name) || ADVISORY_FILE.test(name)) yield* pathItems(child, budget);
    }
    return;
  }
  if (/\.zip$/i.test(p)) {
    yield* zipItems(p, budget);
    return;
  }
  yield* fileItems(p, stat.size, budget);
}

/** Reads each path in turn; the limits hold per path (default: from the environment, see readLimits). */
export async function* readOsvSources(paths: string[], limits: Partial<ReadLimits> = {}): AsyncGenerator<OsvItem> {
  const resolved = readLimits(process.env, limits);
  for (const p of paths) yield* pathItems(p, { limits: resolved, bytes: 0, files: 0 });
}
