// The upload's validation, in a fixed order: body size and counted limits (413), structure (422),
// cross-references (422), then the limits that need a valid graph, shortest hops and attribution work (413).
// Pure: plain data in, a typed snapshot and its counted sizes out, ApiError thrown for anything a client did wrong.
import type { Snapshot, SnapshotStats } from '../../shared/types';
import { crossReferenceV1, crossReferenceV2 } from './cross-reference';
import { checkHopsV1, checkHopsV2, checkWork } from './graph-checks';
import { checkCountedLimits } from './limits';
import { checkStructure, schemaVersionOf } from './structure';

export interface ValidatedSnapshot {
  snapshot: Snapshot;
  stats: SnapshotStats;
}

/**
 * @param body the parsed JSON body (untrusted, any shape)
 * @param bodyBytes the size of the raw body in bytes
 * @throws ApiError 413 snapshot_too_large or 422 invalid_snapshot; the message is `<json pointer>: <what is wrong>`
 */
export function validateSnapshot(body: unknown, bodyBytes: number): ValidatedSnapshot {
  const stats = checkCountedLimits(body, bodyBytes);
  const version = schemaVersionOf(body);
  checkStructure(body, version);
  const snapshot = body as Snapshot;
  if (version === 1) {
    checkHopsV1(crossReferenceV1(snapshot));
  } else {
    const resolutions = crossReferenceV2(snapshot);
    checkHopsV2(resolutions);
    checkWork(resolutions);
  }
  return { snapshot, stats };
}
