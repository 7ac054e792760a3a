// The upgrade of scans stored in the earlier form (everything but the list fields packed in `v` and `r`) to today's
// (status, failure reason, project, target, ecosystem, times and counts at the top level), on the real database:
// every scan reads back the same, an operator's query on the plain fields sees them, two processes may run it at once,
// and a second run finds nothing to do. Alerts' analyses stored one document per alert become revision documents.
import { randomBytes } from 'node:crypto';
import { Binary } from 'mongodb';
import { newId } from '../../src/domain/ids';
import type { LegacyStoredScanDoc, ScanDoc, StoredScanDoc } from '../../src/storage/documents/scans';
import { MIGRATIONS, runMigrations } from '../../src/storage/migrations';
import { refileLegacyScans } from '../../src/storage/migrations/scan-list-regions';
import { moveScanFieldsToTopLevel } from '../../src/storage/migrations/scan-top-level-fields';
import { renameScanListFields } from '../../src/storage/migrations/scan-list-field-names';
import { analysesAsRevisions } from '../../src/storage/migrations/analysis-revisions';
import { orgTriageVersion } from '../../src/storage/alerts';
import { orgAnalyses, pairAnalyses, writeAnalysis } from '../../src/storage/triage';
import { connectStore, ensureIndexes, type Store } from '../../src/storage/mongo';
import { getScan, listScans } from '../../src/storage/scans';
import { requireEnv } from '../helpers/context';

/** How versions before the top-level fields stored a scan (their pack(), kept here as the fixture's writer). */
function legacyPack(s: ScanDoc): LegacyStoredScanDoc {
  const bin = (value: unknown) => new Binary(Buffer.from(JSON.stringify(value)));
  const fixed = {
    target: s.target,
    ecosystem: s.ecosystem,
    schemaVersion: s.schemaVersion,
    nodeCount: s.nodeCount,
    graphSize: s.graphSize,
    bodyBytes: s.bodyBytes,
    metadata: s.metadata,
  };
  if (s.attributionMode === 'paged')
    Object.assign(fixed, { attributionMode: s.attributionMode, uploadId: s.uploadId, moduleCount: s.moduleCount });
  const outcome = {
    finishedAt: s.finishedAt ?? null,
    failureReason: s.failureReason ?? null,
    failureMessage: s.failureMessage,
    findings: s.findings ?? null,
    suppressed: s.suppressed ?? null,
    advisoryGeneration: s.advisoryGeneration,
    unmatchedVersions: s.unmatchedVersions,
    resultChunks: s.resultChunks,
    findingCount: s.findingCount,
    moduleCount: s.moduleCount,
  };
  return {
    _id: s._id,
    orgId: s.orgId,
    projectId: s.projectId,
    status: s.status,
    orgBucket: s.orgBucket,
    projectBucket: s.projectBucket,
    startedAt: s.startedAt,
    v: bin(fixed),
    r: bin(outcome),
  };
}

let store: Store;
let other: Store; // a second process starting on the same database
const orgId = newId('org');
const t0 = Date.UTC(2026, 10, 1);

function scans(): ScanDoc[] {
  const base = {
    orgId,
    projectId: 'prj_a',
    target: 'alpha',
    ecosystem: 'javascript' as const,
    schemaVersion: 2 as const,
    nodeCount: 40,
    graphSize: 90,
    bodyBytes: 1234,
    orgBucket: 0,
    projectBucket: 0,
    metadata: { commit: 'abc123', ref: 'main' },
  };
  const completed: ScanDoc[] = Array.from({ length: 230 }, (_, i) => ({
    ...base,
    _id: newId('scn', t0 + i * 1000),
    status: 'completed',
    startedAt: new Date(t0 + i * 1000),
    finishedAt: new Date(t0 + i * 1000 + 300),
    failureReason: null,
    findings: { critical: i % 3, high: 1, medium: 0, low: 2 },
    suppressed: i % 2,
    advisoryGeneration: 'gen_1',
    unmatchedVersions: 0,
    resultChunks: 1,
    findingCount: 3 + (i % 3),
    moduleCount: 2,
  }));
  const failed: ScanDoc = {
    ...base,
    _id: newId('scn', t0 + 500_000),
    projectId: 'prj_b',
    target: 'beta',
    ecosystem: 'python',
    schemaVersion: 1,
    status: 'failed',
    startedAt: new Date(t0 + 500_000),
    finishedAt: new Date(t0 + 500_900),
    failureReason: 'attribution_limit_exceeded',
    failureMessage: 'over the path budget',
    findings: null,
    suppressed: null,
    advisoryGeneration: 'gen_1',
  };
  const queued: ScanDoc = {
    ...base,
    _id: newId('scn', t0 + 600_000),
    status: 'queued',
    startedAt: new Date(t0 + 600_000),
    finishedAt: null,
    failureReason: null,
    findings: null,
    suppressed: null,
  };
  const paged: ScanDoc = {
    ...base,
    _id: newId('scn', t0 + 700_000),
    status: 'running',
    startedAt: new Date(t0 + 700_000),
    finishedAt: null,
    failureReason: null,
    findings: null,
    suppressed: null,
    attributionMode: 'paged',
    uploadId: 'upl_x',
    moduleCount: 12,
    advisoryGeneration: null,
  };
  return [...completed, failed, queued, paged];
}

beforeAll(async () => {
  const dbName = `t_${randomBytes(6).toString('hex')}`;
  store = await connectStore(requireEnv('MONGODB_URI'), dbName);
  other = await connectStore(requireEnv('MONGODB_URI'), dbName);
  await ensureIndexes(store);
});
afterAll(async () => {
  await store.db.dropDatabase().catch(() => undefined);
  await Promise.all([store.close(), other.close()]);
});

test('scans stored in the earlier form read back the same after the upgrade, with the plain fields at the top level', async () => {
  const all = scans();
  await store.db.collection<LegacyStoredScanDoc>('scans').insertMany(all.map(legacyPack));
  // Read as an earlier-form document (the reader still knows it) before the upgrade...
  const before = await Promise.all(all.map((s) => getScan(store, s._id)));
  expect(before).toEqual(
    all.map((s) => expect.objectContaining({ _id: s._id, status: s.status, target: s.target, findings: s.findings })),
  );

  const [a, b] = await Promise.all([moveScanFieldsToTopLevel(store), moveScanFieldsToTopLevel(other)]);
  // Every document rewritten by one process or the other. FerretDB evaluates a conditional update's filter and writes in
  // two steps, so now and then both write the same document, with the same value: counted twice, stored once.
  expect(a.rewritten + b.rewritten).toBeGreaterThanOrEqual(all.length);
  expect(a.rewritten + b.rewritten).toBeLessThanOrEqual(2 * all.length);
  expect(await moveScanFieldsToTopLevel(store)).toEqual({ rewritten: 0 });

  // ...and after it: the very same ScanDoc.
  const after = await Promise.all(all.map((s) => getScan(store, s._id)));
  expect(after).toEqual(before);
  for (const s of all) expect(after.find((x) => x!._id === s._id)).toEqual(s);

  // No document is left in the old form, and an operator's query on the plain fields answers.
  expect(
    await store.db.collection('scans').countDocuments({ $or: [{ v: { $exists: true } }, { r: { $exists: true } }] }),
  ).toBe(0);
  const failed = await store.db.collection<StoredScanDoc>('scans').find({ status: 'failed' }).toArray();
  expect(
    failed.map((d) => ({
      project: d.projectId,
      target: d.target,
      ecosystem: d.ecosystem,
      reason: d.failureReason,
      finishedAt: d.finishedAt,
    })),
  ).toEqual([
    {
      project: 'prj_b',
      target: 'beta',
      ecosystem: 'python',
      reason: 'attribution_limit_exceeded',
      finishedAt: new Date(t0 + 500_900),
    },
  ]);
  expect(await store.db.collection('scans').countDocuments({ 'findings.critical': { $gte: 2 } })).toBe(76);

  // The list reads them as before (once filed, as the earlier migration does for scans of that age).
  await refileLegacyScans(store, { force: true });
  const page = await listScans(store, { orgId, limit: 5 });
  expect(page.scans.map((s) => s._id)).toEqual(
    [...all]
      .sort((x, y) => y.startedAt.getTime() - x.startedAt.getTime())
      .slice(0, 5)
      .map((s) => s._id),
  );
});

test('runMigrations runs each migration once and records it', async () => {
  const ran = await runMigrations(store);
  expect(ran).toEqual(MIGRATIONS.map((m) => m.id));
  expect(await runMigrations(other)).toEqual([]);
  const recorded = await store.c.settings.find({ _id: { $in: MIGRATIONS.map((m) => `migration:${m.id}`) } }).toArray();
  expect(recorded).toHaveLength(MIGRATIONS.length);
});

test('the scan list fields stored under one-letter names (g, b, t) are renamed, and lists read them', async () => {
  // Regions and tokens as earlier versions wrote them.
  const regions = await store.c.scanRegions.find({}).toArray();
  expect(regions.length).toBeGreaterThan(0);
  for (const r of regions)
    await store.db.collection<{ _id: string }>('scanRegions').updateOne({ _id: r._id }, { $rename: { group: 'g' } });
  const tokens = await store.c.scanListTokens.find({}).toArray();
  for (const x of tokens)
    await store.db
      .collection<{ _id: string }>('scanListTokens')
      .updateOne({ _id: x._id }, { $rename: { batch: 'b', token: 't' } });
  expect(await store.db.collection<{ _id: string }>('scanRegions').countDocuments({ g: { $exists: true } })).toBe(
    regions.length,
  );

  expect(await renameScanListFields(store)).toEqual({ regions: regions.length, tokens: tokens.length });
  expect(await renameScanListFields(other)).toEqual({ regions: 0, tokens: 0 });
  expect(await store.c.scanRegions.find({}).sort({ _id: 1 }).toArray()).toEqual(
    [...regions].sort((a, b) => (a._id < b._id ? -1 : 1)),
  );
  const page = await listScans(other, { orgId, limit: 3 });
  expect(page.scans).toHaveLength(3);
});

test("alerts' analyses stored one document per alert become revisions that every reader takes as before", async () => {
  const updatedBy = { kind: 'user' as const, id: 'usr_m', name: 'm@example.com' };
  const decision = (state: 'not_affected' | 'exploitable') => ({
    state,
    justification: state === 'not_affected' ? ('code_not_present' as const) : null,
    response: [],
    detail: `${state} as decided before the upgrade`,
    expiresAt: null,
    versions: null,
    ticketUrl: null,
    updatedAt: '2026-05-01T00:00:00.000Z',
    updatedBy,
  });
  const old = [
    { _id: 'alr_mig1', rev: 3, analysis: decision('not_affected') },
    { _id: 'alr_mig2', rev: 1, analysis: decision('exploitable') },
    { _id: 'alr_mig3', rev: 2, analysis: null }, // deleted: its history stays
  ].map((d) => ({ ...d, orgId: 'org_mig', projectId: 'prj_mig', pairId: 'prj_mig:javascript', updatedAt: new Date() }));
  await store.db.collection<{ _id: string }>('alertAnalyses').insertMany(old);

  const [mine, theirs] = await Promise.all([analysesAsRevisions(store), analysesAsRevisions(other)]);
  expect(mine.moved + theirs.moved).toBeGreaterThanOrEqual(3);
  expect(await analysesAsRevisions(store)).toEqual({ moved: 0 });
  const docs = await store.c.alertAnalyses.find({ orgId: 'org_mig' }).sort({ _id: 1 }).toArray();
  expect(docs.map((d) => [d._id, d.alertId, d.rev])).toEqual([
    ['alr_mig1:3', 'alr_mig1', 3],
    ['alr_mig2:1', 'alr_mig2', 1],
    ['alr_mig3:2', 'alr_mig3', 2],
  ]);
  expect([...(await pairAnalyses(other, 'prj_mig:javascript'))].map(([id, a]) => [id, a.state])).toEqual([
    ['alr_mig1', 'not_affected'],
    ['alr_mig2', 'exploitable'],
  ]);
  expect((await orgAnalyses(other, 'org_mig')).get('alr_mig3')?.analysis).toBeNull();
  // the organization's triage version is set: the caches of analyses read them
  expect(await orgTriageVersion(other, 'org_mig')).not.toBeNull();
  // the next decision is the next revision, over the migrated one
  const w = await writeAnalysis(other, {
    orgId: 'org_mig',
    projectId: 'prj_mig',
    ecosystem: 'javascript',
    alertId: 'alr_mig1',
    analysis: decision('exploitable'),
    details: { actor: updatedBy },
    at: new Date(),
  });
  expect(w).toMatchObject({ changed: true, before: { state: 'not_affected' } });
  expect((await store.c.alertAnalyses.find({ alertId: 'alr_mig1' }).toArray()).map((d) => d._id)).toEqual([
    'alr_mig1:4',
  ]);
});
