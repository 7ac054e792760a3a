// What the upload check thread runs (and the API inline for small bodies): a part as it arrives (parse, check,
// compress), and at completion the stored create body and parts (parse, check the whole graph). Only the verdict (and
// a part's compressed bytes) leaves: the parsed graph stays where it was parsed.
import { gzipSync } from 'node:zlib';
import { ApiError, invalidSnapshot } from '../domain/errors';
import { checkPart, checkUploadHeader, inPart, type PartBody, type PartCounts } from '../domain/snapshot/parts';
import { validateUpload } from '../domain/snapshot/parts-merge';
import type { SnapshotStats } from '../shared/types';

export type UploadCheck =
  { ok: true; stats: SnapshotStats } | { ok: false; status: number; code: string; message: string };

const text = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');

export function checkUploadBodies(header: Uint8Array, parts: Uint8Array[]): UploadCheck {
  try {
    // Both were checked as they arrived: the header is typed again, the parts are taken as stored.
    const h = checkUploadHeader(JSON.parse(text(header)));
    const bodies: PartBody[] = parts.map((p) => JSON.parse(text(p)) as PartBody);
    return { ok: true, stats: validateUpload(h, bodies).stats };
  } catch (err) {
    if (err instanceof ApiError && (err.status === 413 || err.status === 422))
      return { ok: false, status: err.status, code: err.code, message: err.message };
    throw err;
  }
}

export type PartCheck =
  { ok: true; counts: PartCounts; gzipped: Uint8Array } | { ok: false; status: number; code: string; message: string };

/** Part `n` as it arrives: parsed, checked on its own (budgets of the part alone, structure), compressed for storage. */
export function checkPartBody(n: number, raw: Uint8Array): PartCheck {
  try {
    let body: unknown;
    try {
      body = JSON.parse(text(raw));
    } catch {
      throw inPart(n, invalidSnapshot('', 'body is not valid JSON'));
    }
    const { counts } = checkPart(n, body);
    return { ok: true, counts, gzipped: gzipSync(raw, { level: 3 }) };
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, status: err.status, code: err.code, message: err.message };
    throw err;
  }
}
