// A scan's stored form (StoredScanDoc) and back. Every other module of the service sees the plain ScanDoc.
import type { ScanDoc, LegacyStoredScanDoc, StoredScanDoc } from './documents/scans';
import type { Binary } from 'mongodb';
import { packPlainJson, unpackPlainJson } from './codec';

/** What processing sets besides the top-level fields; replaced whole by each status move. */
export type ScanOutcome = Pick<
  ScanDoc,
  'failureMessage' | 'advisoryGeneration' | 'unmatchedVersions' | 'resultChunks' | 'findingCount' | 'moduleCount'
>;
/**
 * Fixed at upload. Multipart scans also fix, at completion of their upload: attributionMode, uploadId and moduleCount
 * (the number of modules, known then; an outcome that sets moduleCount overrides it in unpack).
 */
export type ScanDetails = Pick<
  ScanDoc,
  | 'schemaVersion'
  | 'nodeCount'
  | 'graphSize'
  | 'bodyBytes'
  | 'metadata'
  | 'attributionMode'
  | 'uploadId'
  | 'moduleCount'
>;

/** The top-level fields a status move sets, with the packed rest of its outcome. */
export function outcomeFields(
  s: Partial<ScanDoc>,
): Pick<StoredScanDoc, 'finishedAt' | 'failureReason' | 'findings' | 'suppressed' | 'outcome'> {
  const rest: ScanOutcome = {
    failureMessage: s.failureMessage,
    advisoryGeneration: s.advisoryGeneration,
    unmatchedVersions: s.unmatchedVersions,
    resultChunks: s.resultChunks,
    findingCount: s.findingCount,
    moduleCount: s.moduleCount,
  };
  return {
    finishedAt: s.finishedAt ?? null,
    failureReason: s.failureReason ?? null,
    findings: s.findings ?? null,
    suppressed: s.suppressed ?? null,
    outcome: packPlainJson(rest),
  };
}

function detailsOf(s: ScanDoc): ScanDetails {
  const d: ScanDetails = {
    schemaVersion: s.schemaVersion,
    nodeCount: s.nodeCount,
    graphSize: s.graphSize,
    bodyBytes: s.bodyBytes,
    metadata: s.metadata,
  };
  if (s.attributionMode === 'paged')
    Object.assign(d, { attributionMode: s.attributionMode, uploadId: s.uploadId, moduleCount: s.moduleCount });
  return d;
}

/** The stored form of a scan. */
export function pack(s: ScanDoc): StoredScanDoc {
  return {
    _id: s._id,
    orgId: s.orgId,
    projectId: s.projectId,
    target: s.target,
    ecosystem: s.ecosystem,
    status: s.status,
    startedAt: s.startedAt,
    ...outcomeFields(s),
    orgBucket: s.orgBucket,
    projectBucket: s.projectBucket,
    details: packPlainJson(detailsOf(s)),
  };
}

const OPTIONAL = [
  'advisoryGeneration',
  'unmatchedVersions',
  'resultChunks',
  'findingCount',
  'moduleCount',
  'graphSize',
  'failureMessage',
  'metadata',
  'attributionMode',
  'uploadId',
] as const;

export function unpack(d: StoredScanDoc | LegacyStoredScanDoc): ScanDoc {
  if (!('details' in d)) return unpack(upgradeLegacy(d));
  const outcome = unpackPlainJson<ScanOutcome>(d.outcome);
  const doc: ScanDoc = {
    ...unpackPlainJson<ScanDetails>(d.details),
    ...outcome,
    _id: d._id,
    orgId: d.orgId,
    projectId: d.projectId,
    target: d.target,
    ecosystem: d.ecosystem,
    status: d.status,
    orgBucket: d.orgBucket,
    projectBucket: d.projectBucket,
    startedAt: d.startedAt,
    finishedAt: d.finishedAt,
    failureReason: d.failureReason,
    findings: d.findings,
    suppressed: d.suppressed,
  };
  for (const k of OPTIONAL) if (doc[k] === undefined) delete doc[k];
  return doc;
}

/** A scan stored by an earlier version (everything but the list fields in `v` and `r`), in today's form. */
export function upgradeLegacy(d: LegacyStoredScanDoc): StoredScanDoc {
  const fixed = unpackPlainJson<ScanDetails & Pick<ScanDoc, 'target' | 'ecosystem'>>(d.v);
  const outcome = unpackPlainJson<
    ScanOutcome & Pick<ScanDoc, 'failureReason' | 'findings' | 'suppressed'> & { finishedAt: string | null }
  >(d.r);
  const { target, ecosystem, ...details } = fixed;
  const scan = {
    ...details,
    ...outcome,
    _id: d._id,
    orgId: d.orgId,
    projectId: d.projectId,
    target,
    ecosystem,
    status: d.status,
    startedAt: d.startedAt,
    orgBucket: d.orgBucket,
    projectBucket: d.projectBucket,
    finishedAt: outcome.finishedAt ? new Date(outcome.finishedAt) : null,
  } as ScanDoc;
  // details exactly as they were stored (a multipart scan's moduleCount stays in both, as before)
  return { ...pack(scan), details: packPlainJson(details) };
}

/** A list group's scans in one Binary value (storage/scan-list-cache.ts): plain JSON, the two times revived. */
export function packGroup(scans: ScanDoc[]): Binary {
  return packPlainJson(scans);
}

export function unpackGroup(bin: Binary): ScanDoc[] {
  return unpackPlainJson<Array<ScanDoc & { startedAt: string; finishedAt: string | null }>>(bin).map((s) => ({
    ...s,
    startedAt: new Date(s.startedAt),
    finishedAt: s.finishedAt === null ? null : new Date(s.finishedAt),
  }));
}
