// `scanner intel import kev|epss PATH|URL` and the sync's per-feed step: one feed file, from a local path or an https
// URL, into a new generation (src/storage/intel.ts). The file is taken whole or not at all:
// - a URL must be https, and a redirect too (5 at most); downloads are retried with backoff (src/advisories/sync.ts);
// - the file as fetched or read is at most INTEL_MAX_DOWNLOAD_BYTES (default 256 MiB), decompressed at most
//   INTEL_MAX_DECOMPRESSED_BYTES (default 1 GiB); gzip is told by its magic bytes (1f 8b), whatever the name;
// - a truncated gzip stream, text that is not UTF-8, a KEV catalog off its schema or its count, an EPSS row cut
//   short or a bad number refuses the file (IntelImportRefused, with the reason); the previous generation stays.
// A file identical to the current generation's (same digest) makes no new generation: status 'unchanged'.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { parseEpss, type ParsedEpss } from '../domain/intel/epss';
import { parseKev, type ParsedKev } from '../domain/intel/kev';
import { FEED_NAMES, FeedRefused, type IntelKind } from '../domain/intel/refused';
import { downloadSource, sourceProblem } from '../advisories/sync';
import { envLimit, formatBytes } from '../advisories/reader';
import type { Store } from '../storage/mongo';
import { feedDigest, unchangedGeneration, writeEpssGeneration, writeKevGeneration } from '../storage/intel';

const gunzip = promisify(zlib.gunzip);

export const INTEL_LIMIT_ENV = {
  maxDownloadBytes: 'INTEL_MAX_DOWNLOAD_BYTES',
  maxDecompressedBytes: 'INTEL_MAX_DECOMPRESSED_BYTES',
} as const;

export interface IntelLimits {
  /** Bytes of the file as downloaded or read (compressed when it is gzip). */
  maxDownloadBytes: number;
  /** Bytes of the file decompressed (the plain file, when it is not gzip). */
  maxDecompressedBytes: number;
}

export const DEFAULT_INTEL_LIMITS: IntelLimits = { maxDownloadBytes: 256 * 1024 ** 2, maxDecompressedBytes: 1024 ** 3 };

/** The limits from the environment (a bad value throws, naming the variable), overrides first. */
export function intelLimits(env: NodeJS.ProcessEnv = process.env, overrides: Partial<IntelLimits> = {}): IntelLimits {
  return {
    maxDownloadBytes:
      overrides.maxDownloadBytes ??
      envLimit(env, INTEL_LIMIT_ENV.maxDownloadBytes, DEFAULT_INTEL_LIMITS.maxDownloadBytes),
    maxDecompressedBytes:
      overrides.maxDecompressedBytes ??
      envLimit(env, INTEL_LIMIT_ENV.maxDecompressedBytes, DEFAULT_INTEL_LIMITS.maxDecompressedBytes),
  };
}

export interface IntelImportOptions {
  /** EPSS: the score date (YYYY-MM-DD) of a file without a `score_date` comment line. */
  scoreDate?: string;
  limits?: Partial<IntelLimits>;
  /** Download attempts (default 3), the first backoff (default 1 s, doubled each time) and one attempt's timeout. */
  attempts?: number;
  backoffMs?: number;
  timeoutMs?: number;
  /** Certificates to trust for downloads instead of the system's (tests; operators use NODE_EXTRA_CA_CERTS). */
  ca?: string | Buffer;
  onProgress?: (message: string) => void;
}

export interface IntelImportReport {
  kind: IntelKind;
  source: string;
  status: 'applied' | 'unchanged';
  generation: string;
  /** The generation current before (equal to `generation` when unchanged; null on the first import). */
  previous: string | null;
  count: number;
  attempts: number;
  /** KEV */
  catalogVersion?: string;
  dateReleased?: string;
  /** EPSS */
  modelVersion?: string | null;
  scoreDate?: string;
}

/** A feed file not taken: nothing was written, the current generation stays. `attempts`: downloads tried. */
export class IntelImportRefused extends Error {
  constructor(
    readonly kind: IntelKind,
    readonly source: string,
    readonly reason: string,
    readonly attempts: number,
  ) {
    super(`${FEED_NAMES[kind]} ${source} refused: ${reason}`);
    this.name = 'IntelImportRefused';
  }
}

/** After sourceProblem, a URL is an https one; anything else is a local path. */
const isUrl = (s: string) => /^https:\/\//i.test(s);
/** An error's message (errors of node's own modules are not `instanceof Error` in every realm, e.g. under jest). */
const message = (err: unknown) =>
  typeof (err as { message?: unknown })?.message === 'string' ? (err as Error).message : String(err);

/** A message of the download helpers without the URL they start with: the refusal names the source itself. */
const unprefixed = (source: string, text: string) =>
  text.startsWith(`${source}: `) ? text.slice(source.length + 2) : text;

/** The file's bytes as fetched or read, within the download limit. */
async function fetchBytes(
  kind: IntelKind,
  source: string,
  limits: IntelLimits,
  opts: IntelImportOptions,
): Promise<{ bytes: Buffer; attempts: number }> {
  const problem = sourceProblem(source);
  if (problem) throw new IntelImportRefused(kind, source, unprefixed(source, problem), 0);
  const limit = `the limit of ${formatBytes(limits.maxDownloadBytes)} (${INTEL_LIMIT_ENV.maxDownloadBytes})`;
  if (!isUrl(source)) {
    let size: number;
    try {
      const st = fs.statSync(source);
      if (!st.isFile()) throw new Error('not a file');
      size = st.size;
    } catch (err) {
      throw new IntelImportRefused(kind, source, `cannot be read: ${message(err)}`, 0);
    }
    if (size > limits.maxDownloadBytes) throw new IntelImportRefused(kind, source, `${size} bytes is over ${limit}`, 0);
    return { bytes: fs.readFileSync(source), attempts: 0 };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'intel-import-'));
  try {
    opts.onProgress?.(`downloading ${source}`);
    let got: { file: string; attempts: number };
    try {
      got = await downloadSource(source, dir, {
        attempts: opts.attempts,
        backoffMs: opts.backoffMs,
        timeoutMs: opts.timeoutMs,
        ca: opts.ca,
        maxDownloadBytes: limits.maxDownloadBytes,
        limitName: INTEL_LIMIT_ENV.maxDownloadBytes,
      });
    } catch (err) {
      const attempts = (err as { attempts?: number }).attempts ?? 0;
      throw new IntelImportRefused(kind, source, unprefixed(source, message(err)), attempts);
    }
    return { bytes: fs.readFileSync(got.file), attempts: got.attempts };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Gzip (by its magic bytes) decompressed within the limit; a truncated or corrupt stream refuses the file. */
async function decompressed(bytes: Buffer, limits: IntelLimits): Promise<Buffer> {
  const limit = `the limit of ${formatBytes(limits.maxDecompressedBytes)} (${INTEL_LIMIT_ENV.maxDecompressedBytes})`;
  if (!(bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b)) {
    if (bytes.length > limits.maxDecompressedBytes) throw new Error(`${bytes.length} bytes is over ${limit}`);
    return bytes;
  }
  try {
    return await gunzip(bytes, { maxOutputLength: limits.maxDecompressedBytes });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') throw new Error(`gzip data decompresses to more than ${limit}`);
    if (code === 'Z_BUF_ERROR') throw new Error('gzip data cut short (a truncated file)');
    throw new Error(`gzip data is corrupt (${message(err)})`);
  }
}

/** Imports one feed file; throws IntelImportRefused when it is not taken (the current generation then stays). */
export async function importIntel(
  store: Store,
  kind: IntelKind,
  source: string,
  opts: IntelImportOptions = {},
): Promise<IntelImportReport> {
  const limits = intelLimits(process.env, opts.limits);
  const { bytes, attempts } = await fetchBytes(kind, source, limits, opts);
  const refused = (reason: string) => new IntelImportRefused(kind, source, reason, attempts);
  let data: Buffer;
  try {
    data = await decompressed(bytes, limits);
  } catch (err) {
    throw refused(message(err));
  }
  // The source recorded is the URL as given, or the local file's absolute path.
  const meta = {
    source: isUrl(source) ? source : path.resolve(source),
    digest: feedDigest(data, kind === 'epss' ? (opts.scoreDate ?? '') : ''),
  };
  let write = await unchangedGeneration(store, kind, meta.digest);
  if (!write) {
    opts.onProgress?.(`checking ${data.length} bytes of ${FEED_NAMES[kind]}`);
    let parsed: { kind: 'kev'; kev: ParsedKev } | { kind: 'epss'; epss: ParsedEpss };
    try {
      parsed =
        kind === 'kev' ? { kind, kev: parseKev(data) } : { kind, epss: parseEpss(data, { scoreDate: opts.scoreDate }) };
    } catch (err) {
      if (err instanceof FeedRefused) throw refused(err.reason);
      throw err;
    }
    write =
      parsed.kind === 'kev'
        ? await writeKevGeneration(store, parsed.kev, meta)
        : await writeEpssGeneration(store, parsed.epss, meta);
  }
  const d = write.doc;
  return {
    kind,
    source,
    status: write.changed ? 'applied' : 'unchanged',
    generation: write.generation,
    previous: write.previous,
    count: d.count,
    attempts,
    ...(kind === 'kev'
      ? { catalogVersion: d.catalogVersion, dateReleased: d.dateReleased }
      : { modelVersion: d.modelVersion ?? null, scoreDate: d.scoreDate }),
  };
}
