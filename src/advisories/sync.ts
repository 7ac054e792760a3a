// `scanner advisories sync` and the advisory-refresh schedule: pull every configured source (local paths, HTTPS
// URLs of OSV zip archives such as osv.dev's per-ecosystem all.zip), then import them as one new generation. A
// download is retried with backoff; a source that still fails is reported and keeps its previous advisories, never
// half-applied (the archive is fully on disk and readable before anything of it is used).
import fs from 'node:fs';
import { once } from 'node:events';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Store } from '../storage/mongo';
import { importAdvisories, type ImportReport } from './import';
import { envLimit, formatBytes, readLimits, type ReadLimits } from './reader';

export interface SyncOptions {
  attempts?: number;
  backoffMs?: number;
  timeoutMs?: number;
  /** Bytes of one download (default ADVISORY_MAX_DOWNLOAD_BYTES, 1 GiB). */
  maxDownloadBytes?: number;
  /** Size limits of reading each source (default: ADVISORY_MAX_* from the environment). */
  limits?: Partial<ReadLimits>;
  /** Certificates to trust for downloads instead of the system's (tests; operators use NODE_EXTRA_CA_CERTS). */
  ca?: string | Buffer;
  onProgress?: (message: string) => void;
}

export interface SyncReport extends ImportReport {
  sources: Array<{ source: string; status: 'applied' | 'failed'; attempts: number; reason?: string }>;
}

export const DEFAULT_MAX_DOWNLOAD_BYTES = 1024 ** 3;

/**
 * Why a source is refused before anything is fetched, or null. URLs must be https: an advisory feed decides what
 * is reported as vulnerable, so it is not taken over a connection anyone on the path can rewrite.
 */
export function sourceProblem(source: string): string | null {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(source)?.[1]?.toLowerCase();
  if (scheme === undefined) return null; // a local path
  if (scheme !== 'https') return `${source}: only https:// URLs are accepted (${scheme}:// is refused)`;
  try {
    new URL(source);
    return null;
  } catch {
    return `${source}: not a valid URL`;
  }
}

/** ADVISORY_SOURCES: whitespace- or comma-separated paths and https URLs. Throws on a refused source. */
export function configuredSources(env: NodeJS.ProcessEnv = process.env): string[] {
  const sources = (env.ADVISORY_SOURCES ?? '').split(/[\s,]+/).filter(Boolean);
  const problems = sources.map(sourceProblem).filter((p): p is string => p !== null);
  if (problems.length) throw new Error(`ADVISORY_SOURCES: ${problems.join('; ')}`);
  return sources;
}

const isUrl = (s: string) => /^https:\/\//i.test(s);

/** A failure that another attempt would meet again (a size limit, a redirect off https): not retried. */
class Refused extends Error {}

interface DownloadOptions {
  timeoutMs: number;
  maxBytes: number;
  /** The environment variable of maxBytes, named in the refusal. */
  limitName: string;
  ca?: string | Buffer;
}

function get(url: URL, signal: AbortSignal, ca: string | Buffer | undefined): Promise<IncomingMessage> {
  return new Promise((resolve, reject) =>
    https
      .get(url, { signal, headers: { 'user-agent': 'supply-chain-scanner' }, ...(ca ? { ca } : {}) }, resolve)
      .on('error', reject),
  );
}

/** One attempt: follows up to 5 redirects (https only), refuses past maxBytes by Content-Length or by count. */
async function fetchTo(url: string, file: string, o: DownloadOptions): Promise<void> {
  const signal = AbortSignal.timeout(o.timeoutMs);
  const limit = `the limit of ${formatBytes(o.maxBytes)} (${o.limitName})`;
  let at = new URL(url);
  for (let hop = 0; ; hop++) {
    const res = await get(at, signal, o.ca);
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location) {
      res.resume();
      if (hop === 5) throw new Refused('more than 5 redirects');
      at = new URL(res.headers.location, at);
      if (at.protocol !== 'https:') throw new Refused(`redirected to ${at.href}: only https:// URLs are accepted`);
      continue;
    }
    if (status < 200 || status >= 300) {
      res.resume();
      throw new Error(`HTTP ${status}`);
    }
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > o.maxBytes) {
      res.destroy();
      throw new Refused(`Content-Length ${declared} bytes is over ${limit}`);
    }
    let n = 0;
    const count = new Transform({
      transform(chunk: Buffer, _enc, done) {
        n += chunk.length;
        done(
          n > o.maxBytes ? new Refused(`more than ${formatBytes(o.maxBytes)} received, over ${limit}`) : null,
          chunk,
        );
      },
    });
    // The file is opened before the first byte is counted: a body refused at once must not leave a file that the
    // write stream's open (asynchronous) would create after the caller removed it.
    const out = fs.createWriteStream(file);
    await once(out, 'open');
    await pipeline(res, count, out);
    return;
  }
}

/** Downloads a URL into dir, retrying with backoff. Exported for tests. */
export async function downloadSource(
  url: string,
  dir: string,
  opts: Pick<SyncOptions, 'attempts' | 'backoffMs' | 'timeoutMs' | 'maxDownloadBytes' | 'ca'> & {
    /** The environment variable of the download limit (default ADVISORY_MAX_DOWNLOAD_BYTES). */
    limitName?: string;
  } = {},
): Promise<{ file: string; attempts: number }> {
  const attempts = opts.attempts ?? 3;
  const backoffMs = opts.backoffMs ?? 1000;
  const limitName = opts.limitName ?? 'ADVISORY_MAX_DOWNLOAD_BYTES';
  const o: DownloadOptions = {
    timeoutMs: opts.timeoutMs ?? 300_000,
    maxBytes: opts.maxDownloadBytes ?? envLimit(process.env, limitName, DEFAULT_MAX_DOWNLOAD_BYTES),
    limitName,
    ca: opts.ca,
  };
  const problem = sourceProblem(url);
  if (problem) throw Object.assign(new Error(problem), { attempts: 0 });
  const name = path.basename(new URL(url).pathname) || 'source';
  const file = path.join(
    dir,
    `${fs.readdirSync(dir).length}-${name.endsWith('.zip') || name.endsWith('.json') ? name : `${name}.zip`}`,
  );
  let last: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      await fetchTo(url, file, o);
      return { file, attempts: attempt };
    } catch (err) {
      last = err;
      fs.rmSync(file, { force: true });
      if (err instanceof Refused) throw Object.assign(new Error(`${url}: ${err.message}`), { attempts: attempt });
      if (attempt < attempts) await new Promise((r) => setTimeout(r, backoffMs * 2 ** (attempt - 1)));
    }
  }
  throw Object.assign(
    new Error(`${url}: ${last instanceof Error ? last.message : String(last)} after ${attempts} attempts`),
    { attempts },
  );
}

export async function syncAdvisories(store: Store, sources: string[], opts: SyncOptions = {}): Promise<SyncReport> {
  // A bad ADVISORY_MAX_* value fails the sync here, before anything is downloaded.
  const limits = readLimits(process.env, opts.limits);
  const maxDownloadBytes =
    opts.maxDownloadBytes ?? envLimit(process.env, 'ADVISORY_MAX_DOWNLOAD_BYTES', DEFAULT_MAX_DOWNLOAD_BYTES);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'advisory-sync-'));
  const results: SyncReport['sources'] = [];
  const local: Array<{ source: string; path: string; attempts: number }> = [];
  try {
    for (const source of sources) {
      const problem = sourceProblem(source);
      if (problem) {
        results.push({ source, status: 'failed', attempts: 0, reason: problem });
        continue;
      }
      if (!isUrl(source)) {
        local.push({ source, path: source, attempts: 1 });
        continue;
      }
      opts.onProgress?.(`downloading ${source}`);
      try {
        const { file, attempts } = await downloadSource(source, dir, { ...opts, maxDownloadBytes });
        local.push({ source, path: file, attempts });
      } catch (err) {
        results.push({
          source,
          status: 'failed',
          attempts: (err as { attempts?: number }).attempts ?? opts.attempts ?? 3,
          reason: (err as Error).message,
        });
      }
    }
    opts.onProgress?.(`importing ${local.length} source(s)`);
    const report = await importAdvisories(
      store,
      local.map((l) => l.path),
      { limits },
    );
    // Downloads are read from temporary files: report them under their URLs.
    const named = (where: string) => {
      const l = local.find(
        (x) =>
          x.path !== x.source && (where === x.path || where.startsWith(`${x.path}!`) || where.startsWith(`${x.path}[`)),
      );
      return l ? l.source + where.slice(l.path.length) : where;
    };
    const rename = (list: Array<{ source: string; reason: string }>) =>
      list.map((x) => {
        const l = local.find((y) => y.path !== y.source && x.reason.includes(y.path));
        return { source: named(x.source), reason: l ? x.reason.split(l.path).join(l.source) : x.reason };
      });
    for (const l of local) {
      const failed = report.failedSources.find((f) => f.source === l.path);
      results.push({
        source: l.source,
        status: failed ? 'failed' : 'applied',
        attempts: l.attempts,
        ...(failed ? { reason: rename([failed])[0].reason } : {}),
      });
    }
    return {
      ...report,
      rejected: rename(report.rejected),
      failedFiles: rename(report.failedFiles),
      failedSources: rename(report.failedSources),
      sources: results,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
