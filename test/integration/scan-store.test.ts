// Scan status transitions on the real database: compare-and-set, forward only, whatever the interleaving.
import { newId } from '../../src/domain/ids';
import type { ScanDoc } from '../../src/storage/documents/scans';
import { fileScanGroups } from '../../src/storage/scan-regions';
import { getScan, insertScan, markCompleted, markFailed, markRunning } from '../../src/storage/scans';
import { testContext, type TestContext } from '../helpers/context';

let t: TestContext;
beforeAll(async () => (t = await testContext()));
afterAll(() => t.close());

function scan(): ScanDoc {
  return {
    _id: newId('scn'),
    orgId: 'org_x',
    projectId: 'prj_x',
    target: 'x',
    ecosystem: 'javascript',
    schemaVersion: 1,
    status: 'queued',
    startedAt: new Date(),
    finishedAt: null,
    failureReason: null,
    findings: null,
    suppressed: null,
    nodeCount: 1,
    bodyBytes: 10,
    orgBucket: 0,
    projectBucket: 0,
  };
}
const done = {
  findings: { critical: 0, high: 1, medium: 0, low: 0 },
  suppressed: 0,
  advisoryGeneration: 'adv_1',
  unmatchedVersions: 0,
  resultChunks: 1,
  findingCount: 1,
};

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
  const again =
    final!.status === 'completed'
      ? () => markFailed(t.store, s._id, 'internal_error', 'late')
      : () => markCompleted(t.store, s._id, done);
  await again();
  expect((await getScan(t.store, s._id))!.status).toBe(final!.status);
  expect((await getScan(t.store, s._id))!.finishedAt).toEqual(final!.finishedAt);
});

test('fields round-trip through the stored form', async () => {
  const s = scan();
  await insertScan(t.store, s);
  await markCompleted(t.store, s._id, done, new Date('2026-01-02T03:04:05.000Z'));
  expect(await getScan(t.store, s._id)).toEqual({
    ...s,
    ...done,
    status: 'completed',
    failureReason: null,
    finishedAt: new Date('2026-01-02T03:04:05.000Z'),
  });
});

/** FerretDB (the local backend) applies an update as read-then-write: concurrent $inc and compare-and-set race. */
async function isFerretDB(): Promise<boolean> {
  const info = await t.store.db.admin().command({ buildInfo: 1 });
  return JSON.stringify(info).toLowerCase().includes('ferretdb');
}

test('the first uploads of a new project race to create its first list region: no duplicate-key error, one region holds them all', async () => {
  const org = newId('org');
  const at = Date.now();
  const got = await Promise.all(
    Array.from({ length: 32 }, (_, i) => fileScanGroups(t.store, org, 'prj_race', at + (i % 8))),
  );
  expect(got).toEqual(Array(32).fill({ orgBucket: 0, projectBucket: 0 }));
  expect(await t.store.c.scanRegions.countDocuments({ scope: { $in: [`o:${org}`, 'p:prj_race'] } })).toBe(2);
});

test('32 racing terminal moves: exactly one outcome is ever written, on FerretDB too', async () => {
  for (let round = 0; round < 5; round++) {
    const s = scan();
    await insertScan(t.store, s);
    await markRunning(t.store, s._id, 'adv_1');
    await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        i % 2 ? markCompleted(t.store, s._id, done) : markFailed(t.store, s._id, 'internal_error', `attempt ${i}`),
      ),
    );
    const final = (await getScan(t.store, s._id))!;
    const claimed = await t.store.c.claims.findOne({ _id: `${s._id}:final` });
    expect(final.status).toBe(claimed!.value);
    if (final.status === 'completed') expect([final.failureReason, final.findingCount]).toEqual([null, 1]);
    else expect([final.failureReason, final.findings]).toEqual(['internal_error', null]);
  }
});

test('racing running moves pin one advisory generation', async () => {
  const s = scan();
  await insertScan(t.store, s);
  await Promise.all(Array.from({ length: 16 }, (_, i) => markRunning(t.store, s._id, `adv_${i}`)));
  const claimed = await t.store.c.claims.findOne({ _id: `${s._id}:running` });
  expect((await getScan(t.store, s._id))!.advisoryGeneration).toBe(JSON.parse(claimed!.value));
});

test('a completion claimed but never published does not keep the scan running: the failure takes the claim over', async () => {
  const { claimCompletion } = await import('../../src/storage/scans');
  const s = scan();
  await insertScan(t.store, s);
  await markRunning(t.store, s._id, 'adv_1');
  expect(await claimCompletion(t.store, s._id)).toBe('completed'); // then the publish fails for good
  await markFailed(t.store, s._id, 'internal_error', 'results could not be written', new Date(), true);
  expect((await getScan(t.store, s._id))!.status).toBe('failed');
  await markCompleted(t.store, s._id, done); // a late completion changes nothing now
  expect((await getScan(t.store, s._id))!.status).toBe('failed');
});
