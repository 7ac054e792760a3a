// Opaque pagination cursors: base64url(JSON) + HMAC-SHA256, bound to the listing and its filters, 24 h lifetime.
// The signing secret lives in MongoDB so that every API process accepts every other one's cursors.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../domain/errors';
import type { Store } from './mongo';

export const CURSOR_TTL_MS = 24 * 3600 * 1000;

export interface CursorCodec {
  encode(listing: string, position: unknown, now?: number): string;
  /** Throws 422 invalid_cursor when the cursor is malformed, tampered with, expired or from another listing. */
  decode<T>(listing: string, cursor: string, now?: number): T;
}

export async function loadCursorSecret(store: Store): Promise<Buffer> {
  const candidate = randomBytes(32).toString('base64');
  await store.c.settings.updateOne({ _id: 'cursorSecret' }, { $setOnInsert: { value: candidate } }, { upsert: true });
  const doc = await store.c.settings.findOne({ _id: 'cursorSecret' });
  return Buffer.from(String(doc!.value), 'base64');
}

export function cursorCodec(secret: Buffer): CursorCodec {
  const sign = (payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');
  const invalid = () => new ApiError(422, 'invalid_cursor', 'cursor: invalid or expired');
  return {
    encode(listing, position, now = Date.now()) {
      const payload = Buffer.from(JSON.stringify({ l: listing, p: position, e: now + CURSOR_TTL_MS })).toString(
        'base64url',
      );
      return `${payload}.${sign(payload)}`;
    },
    decode<T>(listing: string, cursor: string, now = Date.now()): T {
      const [payload, mac, extra] = cursor.split('.');
      if (!payload || !mac || extra !== undefined) throw invalid();
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(mac);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
      let body: { l?: unknown; p?: unknown; e?: unknown };
      try {
        body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw invalid();
      }
      if (body.l !== listing || typeof body.e !== 'number' || body.e < now) throw invalid();
      return body.p as T;
    },
  };
}
