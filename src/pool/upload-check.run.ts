// What the upload check thread runs (and the API inline for small uploads): parse the stored create body and parts,
// check the whole graph. Only the verdict leaves: the parsed graph stays where it was parsed.
import { ApiError } from '../domain/errors';
import { checkUploadHeader, type PartBody } from '../domain/snapshot/parts';
import { validateUpload } from '../domain/snapshot/parts-merge';
import type { SnapshotStats } from '../domain/types';

export type UploadCheck = { ok: true; stats: SnapshotStats } | { ok: false; status: number; code: string; message: string };

const text = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');

export function checkUploadBodies(header: Uint8Array, parts: Uint8Array[]): UploadCheck {
  try {
    // Both were checked as they arrived: the header is typed again, the parts are taken as stored.
    const h = checkUploadHeader(JSON.parse(text(header)));
    const bodies: PartBody[] = parts.map((p) => JSON.parse(text(p)) as PartBody);
    return { ok: true, stats: validateUpload(h, bodies).stats };
  } catch (err) {
    if (err instanceof ApiError && (err.status === 413 || err.status === 422)) return { ok: false, status: err.status, code: err.code, message: err.message };
    throw err;
  }
}
