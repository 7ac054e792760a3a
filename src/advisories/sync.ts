// `scanner advisories sync` and the advisory-refresh schedule: pull every configured source (local paths, HTTP(S)
// URLs of OSV zip archives such as osv.dev's per-ecosystem all.zip), then import them as one new generation. A
// download is retried with backoff; a source that still fails is reported and keeps its previous advisories, never
// half-applied (the archive is fully on disk and readable before anything of it is used).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { Store } from '../storage/mongo';
import { importAdvisories, type ImportReport } from './import';

export interface SyncOptions {
  attempts?: number;
  backoffMs?: number;
  timeoutMs?: number;
  onProgress?: (message: string) => void;
}

export interface SyncReport extends ImportReport {
  sources: Array<{ source: string; status: 'applied' | 'failed'; attempts: number; reason?: string }>;
}

/** ADVISORY_SOURCES: whitespace- or comma-separated paths and http(s) URLs. */
export function configuredSources(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.ADVISORY_SOURCES ?? '').split(/[\s,]+/).filter(Boolean);
}

const isUrl = (s: string) => /^https?:\/\//i.test(s);

async function download(url: string, dir: string, o: Required<Pick<SyncOptions, 'attempts' | 'backoffMs' | 'timeoutMs'>>): Promise<{ file: string; attempts: number }> {
  const name = path.basename(new URL(url).pathname) || 'source';
  const file = path.join(dir, `${fs.readdirSync(dir).length}-${name.endsWith('.zip') || name.endsWith('.json') ? name : `${name}.zip`}`);
  let last: unknown;
  for (let attempt = 1; attempt <= o.attempts; attempt++) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(o.timeoutMs) });
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      await pipeline(Readable.fromWeb(res.body as never), fs.createWriteStream(file));
      return { file, attempts: attempt };
    } catch (err) {
      last = err;
      fs.rmSync(file, { force: true });
      if (attempt < o.attempts) await new Promise((r) => setTimeout(r, o.backoffMs * 2 ** (attempt - 1)));
    }
  }
  throw Object.assign(new Error(`${url}: ${last instanceof Error ? last.message : String(last)} after ${o.attempts} attempts`), { attempts: o.attempts });
}

export async function syncAdvisories(store: Store, sources: string[], opts: SyncOptions = {}): Promise<SyncReport> {
  const o = { attempts: opts.attempts ?? 3, backoffMs: opts.backoffMs ?? 1000, timeoutMs: opts.timeoutMs ?? 300_000 };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'advisory-sync-'));
  const results: SyncReport['sources'] = [];
  const local: Array<{ source: string; path: string; attempts: number }> = [];
  try {
    for (const source of sources) {
      if (!isUrl(source)) {
        local.push({ source, path: source, attempts: 1 });
        continue;
      }
      opts.onProgress?.(`downloading ${source}`);
      try {
        const { file, attempts } = await download(source, dir, o);
        local.push({ source, path: file, attempts });
      } catch (err) {
        results.push({ source, status: 'failed', attempts: (err as { attempts?: number }).attempts ?? o.attempts, reason: (err as Error).message });
      }
    }
    opts.onProgress?.(`importing ${local.length} source(s)`);
    const report = await importAdvisories(store, local.map((l) => l.path));
    for (const l of local) {
      const failed = report.failedSources.find((f) => f.source === l.path);
      results.push({ source: l.source, status: failed ? 'failed' : 'applied', attempts: l.attempts, ...(failed ? { reason: failed.reason } : {}) });
    }
    return { ...report, sources: results };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
