// The multipart checks off the API's event loop, as the single upload's (upload-pool.ts): a part of up to 10 MB as it
// arrives (parse, check, compress: a few hundred ms each), and the whole upload at completion (domain/snapshot/
// parts-merge.ts validateUpload: at the budgets about 120 MB of parts parsed and a million vertices walked, seconds of
// CPU that would otherwise stall every other request of the process). The raw bytes move to a thread (transferred,
// not copied) and only the verdict comes back. Small bodies are checked inline (a thread hop costs more than it
// saves). The pool keeps no thread while idle, so that it holds no process open.
import fs from 'node:fs';
import path from 'node:path';
import { Piscina } from 'piscina';
import { ApiError, type ErrorCode } from '../domain/errors';
import type { SnapshotStats } from '../shared/types';
import { INLINE_LIMIT } from './upload-pool';
import { checkPartBody, checkUploadBodies, type PartCheck, type UploadCheck } from './upload-check.run';
import type { PartCounts } from '../domain/snapshot/parts';

/** Uploads of at most this many bytes (create body and parts) are checked on the event loop. */
export const CHECK_INLINE_LIMIT = 1024 * 1024;

export type UploadVerdict = { ok: true; stats: SnapshotStats } | { ok: false; error: ApiError };

/** The compiled thread file: next to this one in dist/, or in dist/ when this runs from TypeScript under jest. */
function threadFile(): string {
  const here = path.join(__dirname, 'upload-check.thread.js');
  if (fs.existsSync(here)) return here;
  const built = path.resolve(__dirname, '..', '..', 'dist', 'src', 'pool', 'upload-check.thread.js');
  if (fs.existsSync(built)) return built;
  throw new Error(`upload check thread not built (${built}); run npm run build`);
}

let pool: Piscina | undefined;
/** Two threads: a completion's check (seconds) does not hold up the parts of other uploads behind it. */
const threads = () =>
  (pool ??= new Piscina({ filename: threadFile(), minThreads: 0, maxThreads: 2, idleTimeout: 1_000 }));

const verdict = (r: UploadCheck): UploadVerdict =>
  r.ok ? { ok: true, stats: r.stats } : { ok: false, error: new ApiError(r.status, r.code as ErrorCode, r.message) };

/** A buffer that owns its whole ArrayBuffer moves to the thread; any other is copied first. */
function movable(b: Buffer): Uint8Array<ArrayBuffer> {
  const owns = b.buffer instanceof ArrayBuffer && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
  return owns ? (b as Uint8Array<ArrayBuffer>) : new Uint8Array(b);
}

/**
 * The verdict on an upload from its raw create body and parts (in part order): its counted sizes, or the 413/422
 * that rejects it. The buffers are detached once this is called for a large upload.
 */
export async function checkUpload(header: Buffer, parts: Buffer[]): Promise<UploadVerdict> {
  const bytes = parts.reduce((n, p) => n + p.byteLength, header.byteLength);
  if (bytes <= CHECK_INLINE_LIMIT) return verdict(checkUploadBodies(header, parts));
  const task = [header, ...parts].map(movable);
  return verdict(await threads().run(task, { transferList: task.map((t) => t.buffer) }));
}

/**
 * Part `n` checked on its own (413 over a budget by itself, 422 structure; ApiError thrown) and compressed for
 * storage. `raw` is detached once this is called for a body above the inline limit: keep its length first.
 */
export async function checkPartOffLoop(n: number, raw: Buffer): Promise<{ counts: PartCounts; gzipped: Uint8Array }> {
  let r: PartCheck;
  if (raw.byteLength <= INLINE_LIMIT) r = checkPartBody(n, raw);
  else {
    const task = { n, raw: movable(raw) };
    r = await threads().run(task, { transferList: [task.raw.buffer] });
  }
  if (!r.ok) throw new ApiError(r.status, r.code as ErrorCode, r.message);
  return { counts: r.counts, gzipped: r.gzipped };
}
