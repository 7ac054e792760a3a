// Upload preparation off the event loop: bodies above INLINE_LIMIT go to a small piscina pool, whose queue is bounded
// (a task past the threads and the queue is answered 503 service_unavailable, Retry-After: never queued without end).
import path from 'node:path';
import fs from 'node:fs';
import { Piscina } from 'piscina';
import { ApiError, type ErrorCode } from '../domain/errors';
import { prepareUpload, type PrepOutcome, type PreparedUpload } from './upload-prep';
import { envInt } from '../config';

/** Below this a thread hop costs more than it saves (validation of 256 KB takes a few ms). */
export const INLINE_LIMIT = 256 * 1024;

/** Tasks that may wait for a thread (UPLOADS_POOL_MAX_QUEUE): each holds a body of up to 10 MB. */
export const DEFAULT_POOL_MAX_QUEUE = 8;

export interface UploadPreparer {
  /**
   * Parses, validates, hashes and compresses a body. A body above INLINE_LIMIT that owns its whole ArrayBuffer is
   * moved to the thread, not copied: `raw` is then detached (empty) once this is called; use the result's `bytes`.
   */
  prepare(raw: Buffer): Promise<PreparedUpload>;
  close(): Promise<void>;
}

export interface UploadPoolOptions {
  /** Tasks waiting for a thread beyond those running (default: UPLOADS_POOL_MAX_QUEUE, else 8). */
  maxQueue?: number;
}

export const poolBusy = () => new ApiError(503, 'service_unavailable', 'the upload pool is busy; retry later');

/** The compiled thread file: next to this one in dist/, or in dist/ when this runs from TypeScript under jest. */
function threadFile(): string {
  const here = path.join(__dirname, 'upload.thread.js');
  if (fs.existsSync(here)) return here;
  const built = path.resolve(__dirname, '..', '..', 'dist', 'src', 'pool', 'upload.thread.js');
  if (fs.existsSync(built)) return built;
  throw new Error(`upload thread not built (${built}); run npm run build`);
}

function unwrap(out: PrepOutcome): PreparedUpload {
  if (out.ok) return out.value;
  throw new ApiError(out.status, out.code as ErrorCode, out.message);
}

/** piscina's own refusals when its queue is full (a backstop: the count below refuses first). */
const QUEUE_FULL = new Set(['Task queue is at limit', 'No task queue available']);

export function uploadPreparer(threads = 2, opts: UploadPoolOptions = {}): UploadPreparer {
  const maxQueue = opts.maxQueue ?? envInt('UPLOADS_POOL_MAX_QUEUE', DEFAULT_POOL_MAX_QUEUE);
  let pool: Piscina | undefined;
  let inPool = 0; // running + waiting
  return {
    async prepare(raw) {
      if (raw.byteLength <= INLINE_LIMIT) return unwrap(prepareUpload(raw));
      if (inPool >= threads + maxQueue) throw poolBusy();
      pool ??= new Piscina({
        filename: threadFile(),
        maxThreads: threads,
        minThreads: 1,
        idleTimeout: 60_000,
        maxQueue,
      });
      // Moved, not cloned. Only a buffer that owns its whole ArrayBuffer can be moved without taking unrelated memory
      // along (or detaching a pooled slab); the upload route reads bodies into such buffers, anything else is copied.
      const owns =
        raw.buffer instanceof ArrayBuffer && raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength;
      const task = owns ? (raw as Uint8Array<ArrayBuffer>) : new Uint8Array(raw);
      inPool++;
      try {
        return unwrap(await pool.run(task, { transferList: [task.buffer] }));
      } catch (err) {
        if (err instanceof Error && QUEUE_FULL.has(err.message)) throw poolBusy();
        throw err;
      } finally {
        inPool--;
      }
    },
    async close() {
      await pool?.destroy();
    },
  };
}
