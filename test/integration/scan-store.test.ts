// Scan status transitions on the real database: compare-and-set, forward only, whatever the interleaving.
import { newId } from '../../src/domain/ids';
import type { ScanDoc } from '../../src/storage/documents';
import { getScan, insertScan, markCompleted, markFailed, markRunning } from '../../src/storage/scans';
import { testContext, type TestContext } from '../helpers/context';

let t: TestContext;
beforeAll(async () => (t = await testContext()));
afterAll(() => t.close());

function scan(): ScanDoc {
  return { _id: newId('scn'), orgId: 'org_x', projectId: 'prj_x', target: 'x', ecosystem: 'javascript', schemaVersion: 1, status: 'queued', startedAt: new Date(), finishedAt: null, failureReason: null, findings: null, suppressed: null, nodeCount: 1, bodyBytes: 10, orgBucket: 0, projectBucket: 0 };
}
const done = { findings: { critical: 0, high: 1, medium: 0, low: 0 }, suppressed: 0, advisoryGeneration: 'adv_1', unmatchedVersions: 0, resultChunks: 1, findingCount: 1 };

test('running pins the first generation; completed and failed are terminal; the first terminal move wins', async () => {
  const s = scan();
  await insertScan(t.store, s);
  await Promise.all([markRunning(t.store, s._id, 'adv_1'), markRunning(t.store, s._id, 'adv_2')]);
  const running = await getScan(t.store, s._id);
  expect(running!.status).toBe('running');
  expect(['adv_1', 'adv_2']).toContain(running!.advisoryGeneration);
  await Promise.all([markCompleted(t.store, s._id, done), markFailed(t.store, s._id, 'internal_error', 'boom')]);
  const final = await getScan(t.store, s._id);
  expect(['completed', 'failed']).toContain(final!.status);
  const again = final!.status === 'completed' ? () => markFailed(t.store, s._id, 'internal_error', 'late') : () => markCompleted(t.store, s._id, done);
  await again();
  expect((await getScan(t.store, s._id))!.status).toBe(final!.status);
  expect((await getScan(t.store, s._id))!.finishedAt).toEqual(final!.finishedAt);
});

test('fields round-trip through the stored form', async () => {
  const s = scan();
  await insertScan(t.store, s);
  await markCompleted(t.store, s._id, done, new Date('2026-01-02T03:04:05.000Z'));
  expect(await getScan(t.store, s._id)).toEqual({ ...s, ...done, status: 'completed', failureReason: null, finishedAt: new Date('2026-01-02T03:04:05.000Z') });
});
