// Upload preparation off the event loop: bodies above INLINE_LIMIT go to a small piscina pool.
import path from 'node:path';
import fs from 'node:fs';
import { Piscina } from 'piscina';
import { ApiError, type ErrorCode } from '../domain/errors';
import { prepareUpload, type PrepOutcome, type PreparedUpload } from './upload-prep';

/** Below this a thread hop costs more than it saves (validation of 256 KB takes a few ms). */
export const INLINE_LIMIT = 256 * 1024;

export interface UploadPreparer {
  prepare(raw: Buffer): Promise<PreparedUpload>;
  close(): Promise<void>;
}

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

export function uploadPreparer(threads = 2): UploadPreparer {
  let pool: Piscina | undefined;
  return {
    async prepare(raw) {
      if (raw.byteLength <= INLINE_LIMIT) return unwrap(prepareUpload(raw));
      pool ??= new Piscina({ filename: threadFile(), maxThreads: threads, minThreads: 1, idleTimeout: 60_000 });
      // Copy into an ArrayBuffer of its own so that moving it never detaches a pooled Buffer.
      const own = new Uint8Array(raw.byteLength);
      own.set(raw);
      return unwrap(await pool.run(own, { transferList: [own.buffer] }));
    },
    async close() {
      await pool?.destroy();
    },
  };
}
