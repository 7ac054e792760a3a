import type { ScanDoc } from '../storage/documents/scans';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** The API's Scan resource (plus additive fields: project, ecosystem, advisoryGeneration, unmatchedVersions). */
export function presentScan(s: ScanDoc) {
  const completed = s.status === 'completed';
  return {
    id: s._id,
    target: s.target,
    project: s.projectId,
    ecosystem: s.ecosystem,
    status: s.status,
    findings: completed ? s.findings : null,
    suppressed: completed ? s.suppressed : null,
    startedAt: iso(s.startedAt),
    finishedAt: iso(s.finishedAt),
    failureReason: s.status === 'failed' ? s.failureReason : null,
    // Inline v2 scans: the ordered module metadata, published with the findings; v1 and unfinished scans: [].
    // Multipart (paged) scans: always [], their modules are read from GET /v1/scans/{id}/modules.
    modules: completed && s.attributionMode !== 'paged' ? (s.modules ?? []) : [],
    advisoryGeneration: completed ? (s.advisoryGeneration ?? null) : null,
    unmatchedVersions: completed ? (s.unmatchedVersions ?? 0) : null,
    metadata: s.metadata ?? null,
    ...(s.attributionMode === 'paged' ? { attributionMode: s.attributionMode, moduleCount: s.moduleCount ?? 0 } : {}),
  };
}
