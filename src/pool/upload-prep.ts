// The CPU-heavy part of an upload, in one function that runs inline for small bodies and on a piscina thread for
// large ones: parse, validate, hash and compress. The API's event loop then never spends the ~0.5 s that the
// largest allowed document costs, and the parsed graph never crosses threads: only a small summary and the
// compressed bytes come back.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { ApiError, invalidSnapshot } from '../domain/errors';
import { validateSnapshot } from '../domain/snapshot';
import { scanMetadata, type Ecosystem, type SnapshotMetadata, type SnapshotStats } from '../shared/types';

export interface UploadSummary {
  schemaVersion: 1 | 2;
  project: string;
  ecosystem: Ecosystem;
  stats: SnapshotStats;
  metadata: SnapshotMetadata | null;
}

export interface PreparedUpload {
  summary: UploadSummary;
  bodyHash: string;
  bytes: number;
  gzipped: Uint8Array;
}

export type PrepOutcome =
  { ok: true; value: PreparedUpload } | { ok: false; status: number; code: string; message: string };

/** Parse and validate: only the summary leaves, so the parsed graph can be collected before compression starts. */
function summarize(raw: Uint8Array): UploadSummary {
  let value: unknown;
  try {
    // A view over the bytes, decoded once: JSON.parse needs a string, the only other form the body takes.
    value = JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'));
  } catch {
    throw invalidSnapshot('', 'body is not valid JSON');
  }
  const { snapshot, stats } = validateSnapshot(value, raw.byteLength);
  return {
    schemaVersion: snapshot.schemaVersion,
    project: snapshot.project,
    ecosystem: snapshot.ecosystem,
    stats,
    metadata: scanMetadata(snapshot.metadata),
  };
}

export function prepareUpload(raw: Uint8Array): PrepOutcome {
  try {
    const summary = summarize(raw);
    return {
      ok: true,
      value: {
        summary,
        bodyHash: createHash('sha256').update(raw).digest('hex'),
        bytes: raw.byteLength,
        gzipped: gzipSync(raw, { level: 3 }),
      },
    };
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, status: err.status, code: err.code, message: err.message };
    throw err;
  }
}
