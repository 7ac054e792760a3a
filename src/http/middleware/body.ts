// Request bodies are read with a hard cap while they stream: a 2 GB upload is refused after 10 MB, never buffered.
import getRawBody from 'raw-body';
import type { Context } from 'koa';
import { ApiError, type ErrorCode } from '../../domain/errors';
import { containsNul } from '../params';

export async function readBody(ctx: Context, limit: number, tooLarge: ApiError): Promise<Buffer> {
  const declared = Number(ctx.get('Content-Length'));
  if (Number.isFinite(declared) && declared > limit) {
    ctx.req.resume(); // drain nothing into memory; let the socket be reused or closed
    throw tooLarge;
  }
  try {
    return await getRawBody(ctx.req, { limit });
  } catch (err) {
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') throw tooLarge;
    if (type === 'request.aborted')
      throw new ApiError(400 as number, 'invalid_parameter' as ErrorCode, 'request body aborted');
    throw err;
  }
}

/** Parses a JSON body; `onInvalid` names the error the endpoint uses for a non-JSON body. */
export async function readJson(
  ctx: Context,
  limit: number,
  tooLarge: ApiError,
  onInvalid: (what: string) => ApiError,
): Promise<{ raw: Buffer; value: unknown }> {
  if (!ctx.is('application/json')) throw onInvalid('Content-Type must be application/json');
  const raw = await readBody(ctx, limit, tooLarge);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw onInvalid('body is not valid JSON');
  }
  // A NUL (\u0000) cannot be stored or queried on FerretDB over PostgreSQL (src/http/params.ts).
  if (containsNul(value)) throw onInvalid('strings must not contain NUL characters');
  return { raw, value };
}
