// Upload bodies: read once into a buffer of their own, with a bounded number of large ones in flight. A large upload
// (over INLINE_LIMIT) holds up to 10 MB here and then a pool thread's parse of it, so one past UPLOADS_MAX_IN_FLIGHT
// is answered 503 service_unavailable with Retry-After: before its body is read when Content-Length announces it,
// or as soon as a chunked body passes INLINE_LIMIT.
import type { Context } from 'koa';
import { ApiError } from '../../domain/errors';
import { INLINE_LIMIT } from '../../pool/upload-pool';

/** bad_request (400, malformed HTTP): the body ended before its Content-Length. */
const aborted = () => new ApiError(400, 'bad_request', 'request body aborted before its Content-Length');

/**
 * Reads the body with a hard cap while it streams. `large` runs before the first byte is read when Content-Length
 * is above INLINE_LIMIT, or once a chunked body passes it; what it throws refuses the upload. The body is assembled
 * once, into a buffer that owns its memory (so the upload pool can move it to a thread): allocated up front from
 * Content-Length and filled as chunks arrive, or from the chunks at the end of a chunked body.
 */
export function readUploadBody(ctx: Context, limit: number, tooLarge: ApiError, large: () => void): Promise<Buffer> {
  const req = ctx.req;
  const header = req.headers['content-length'];
  const declared = header === undefined ? undefined : Number(header);
  if (declared !== undefined && Number.isSafeInteger(declared)) {
    try {
      if (declared > limit) throw tooLarge;
      if (declared > INLINE_LIMIT) large();
    } catch (err) {
      req.resume(); // drain nothing into memory; let the socket be reused or closed
      return Promise.reject(err);
    }
  }
  if (req.destroyed) return Promise.reject(aborted());
  return new Promise<Buffer>((resolve, reject) => {
    const whole = declared !== undefined && Number.isSafeInteger(declared) ? Buffer.allocUnsafeSlow(declared) : null;
    const chunks: Buffer[] = [];
    let received = 0;
    let counted = whole !== null && whole.length > INLINE_LIMIT;
    let refused = false;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onAbort);
    };
    // A refused body is still read and dropped, up to the cap, so that the client gets the answer; past it, reading
    // stops (as for any body over the cap).
    const refuse = (err: unknown) => {
      refused = true;
      chunks.length = 0;
      reject(err);
      if (received > limit) {
        stop();
        req.pause();
      }
    };
    function onData(chunk: Buffer) {
      received += chunk.length;
      if (refused) {
        if (received > limit) refuse(tooLarge);
        return;
      }
      if (received > limit || (whole && received > whole.length)) return refuse(tooLarge);
      if (!counted && received > INLINE_LIMIT) {
        counted = true;
        try {
          large();
        } catch (err) {
          return refuse(err);
        }
      }
      if (whole) chunk.copy(whole, received - chunk.length);
      else chunks.push(chunk);
    }
    function onEnd() {
      stop();
      if (refused) return;
      if (whole) return received === whole.length ? resolve(whole) : reject(aborted());
      const body = Buffer.allocUnsafeSlow(received);
      let at = 0;
      for (const c of chunks) at += c.copy(body, at);
      resolve(body);
    }
    function onAbort() {
      stop();
      reject(aborted()); // no effect once settled
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onAbort);
  });
}
