// Paged scans for tests of their processing and reads, without the multipart upload: the snapshot is stored as an
// inline upload stores it, and the scan document is marked `attributionMode: 'paged'` (the processing must not
// depend on where the snapshot came from: activities/inputs.ts loads it). Real paged scans come from
// POST .../uploads/{uploadId}/completion.
import { newId } from '../../src/domain/ids';
import type { Snapshot } from '../../src/shared/types';
import type { ScanDoc } from '../../src/storage/documents/scans';
import type { Store } from '../../src/storage/mongo';
import { createProject } from '../../src/storage/projects';
import { insertScan, type NewScan } from '../../src/storage/scans';
import { putSnapshot } from '../../src/storage/snapshots';
import { startScanWorkflow, type TemporalHandle } from '../../src/temporal/client';

/** Stores a v2 snapshot as a paged scan of the organization (queued); starts its workflow when `temporal` is given. */
export async function createPagedScan(
  store: Store,
  orgId: string,
  snapshot: Snapshot,
  temporal?: TemporalHandle,
): Promise<ScanDoc> {
  const body = Buffer.from(JSON.stringify(snapshot));
  const project = await createProject(store, orgId, snapshot.project);
  const scanId = newId('scn');
  await putSnapshot(store, scanId, orgId, body);
  let vertices = 0;
  let edges = 0;
  for (const r of snapshot.roots) {
    vertices += r.resolution?.vertices.length ?? 0;
    for (const v of r.resolution?.vertices ?? []) edges += v.dependencies.length;
  }
  const fields: NewScan = {
    _id: scanId,
    orgId,
    projectId: project._id,
    target: project.slug,
    ecosystem: snapshot.ecosystem,
    schemaVersion: snapshot.schemaVersion,
    status: 'queued',
    startedAt: new Date(),
    finishedAt: null,
    failureReason: null,
    findings: null,
    suppressed: null,
    nodeCount: snapshot.nodes.length,
    graphSize: vertices + edges,
    bodyBytes: body.length,
    metadata: null,
    attributionMode: 'paged',
    moduleCount: snapshot.modules?.length ?? 0,
  };
  const scan = await insertScan(store, fields);
  if (temporal) await startScanWorkflow(temporal, scan);
  return scan;
}
