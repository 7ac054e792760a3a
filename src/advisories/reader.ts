// Reads OSV advisories from .json / .yaml files (an advisory or an array of them), directories (recursively) and
// .zip archives (osv.dev's per-ecosystem all.zip: flat entries), one entry at a time: an archive is streamed with
// yauzl and never held whole in memory. A bad file is reported and reading goes on.
import fs from 'node:fs';
import path from 'node:path';
import yauzl from 'yauzl';
import { parse as parseYaml } from 'yaml';
import type { OsvAdvisory } from '../domain/types';

export type OsvItem = { source: string; advisory: OsvAdvisory } | { source: string; error: string };

const ADVISORY_FILE = /\.(json|ya?ml)$/i;

function parseText(name: string, text: string): unknown {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a UTF-8 byte order mark
  return /\.ya?ml$/i.test(name) ? parseYaml(text) : JSON.parse(text);
}

function* itemsOf(source: string, value: unknown): Generator<OsvItem> {
  const list = Array.isArray(value) ? value : [value];
  for (const [i, a] of list.entries()) {
    const where = Array.isArray(value) ? `${source}[${i}]` : source;
    if (a && typeof a === 'object' && !Array.isArray(a)) yield { source: where, advisory: a as OsvAdvisory };
    else yield { source: where, error: 'not an OSV advisory object' };
  }
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => yauzl.open(file, { lazyEntries: true, autoClose: true }, (err, zip) => (err ? reject(err) : resolve(zip!))));
}

async function* zipItems(file: string): AsyncGenerator<OsvItem> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(file);
  } catch (err) {
    yield { source: file, error: `unreadable zip archive: ${message(err)}` };
    return;
  }
  // Pull one entry at a time: the next is read only after the previous one has been consumed.
  const next = (): Promise<yauzl.Entry | null> =>
    new Promise((resolve, reject) => {
      const onEntry = (e: yauzl.Entry) => (cleanup(), resolve(e));
      const onEnd = () => (cleanup(), resolve(null));
      const onError = (err: Error) => (cleanup(), reject(err));
      const cleanup = () => zip.off('entry', onEntry).off('end', onEnd).off('error', onError);
      zip.on('entry', onEntry).on('end', onEnd).on('error', onError);
      zip.readEntry();
    });
  const read = (entry: yauzl.Entry): Promise<string> =>
    new Promise((resolve, reject) =>
      zip.openReadStream(entry, (err, stream) => {
        if (err || !stream) return reject(err ?? new Error('no stream'));
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks).toString('utf8'))).on('error', reject);
      }),
    );
  for (;;) {
    let entry: yauzl.Entry | null;
    try {
      entry = await next();
    } catch (err) {
      yield { source: file, error: `corrupt zip archive: ${message(err)}` };
      return;
    }
    if (!entry) return;
    if (entry.fileName.endsWith('/') || !ADVISORY_FILE.test(entry.fileName)) continue;
    const source = `${file}!${entry.fileName}`;
    try {
      yield* itemsOf(source, parseText(entry.fileName, await read(entry)));
    } catch (err) {
      yield { source, error: message(err) };
    }
  }
}

async function* pathItems(p: string): AsyncGenerator<OsvItem> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(p);
  } catch (err) {
    yield { source: p, error: message(err) };
    return;
  }
  if (stat.isDirectory()) {
    const names = (await fs.promises.readdir(p)).sort();
    for (const name of names) {
      const child = path.join(p, name);
      // Symlinked directories are not followed: a link loop would read the same files again and again.
      const s = await fs.promises.lstat(child).catch(() => null);
      if (!s || (s.isSymbolicLink() && !ADVISORY_FILE.test(name))) continue;
      if (s.isDirectory() || /\.zip$/i.test(name) || ADVISORY_FILE.test(name)) yield* pathItems(child);
    }
    return;
  }
  if (/\.zip$/i.test(p)) {
    yield* zipItems(p);
    return;
  }
  try {
    yield* itemsOf(p, parseText(p, await fs.promises.readFile(p, 'utf8')));
  } catch (err) {
    yield { source: p, error: message(err) };
  }
}

export async function* readOsvSources(paths: string[]): AsyncGenerator<OsvItem> {
  for (const p of paths) yield* pathItems(p);
}
