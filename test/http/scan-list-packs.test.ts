// List packs (storage/scan-list-cache.ts): a process that keeps no list group reads one pack document per group
// instead of the group's scan documents while the group's token has not moved; a write to a scan moves the token, so
// the pack is passed over and the list shows the write; once the group is quiet after scans reached a final status,
// it is packed again. Reads are counted from the driver's command monitoring. No Temporal: scans are written through
// the storage functions the API and the worker use.
import type http from 'node:http';
import type request from 'supertest';
import { newId } from '../../src/domain/ids';
import { uploadPreparer } from '../../src/pool/upload-pool';
import type { Store } from '../../src/storage/mongo';
import { createProject } from '../../src/storage/projects';
import { forgetListGroups, packWritesDone, writePack } from '../../src/storage/scan-list-cache';
import { newestGroup, orgScope } from '../../src/storage/scan-regions';
import { insertScan, markFailed, markRunning } from '../../src/storage/scans';
import { appWithoutTemporal, bearer, newOrg } from '../helpers/context';
import { countedStore, type ReadCounts } from '../helpers/counted-store';

const SCANS = 40;

let store: Store;
let reads: ReadCounts;
let server: http.Server;
let api: ReturnType<typeof request>;
let key: string;
let orgId: string;
let expected: string[]; // newest first
const uploads = uploadPreparer(1);

beforeAll(async () => {
  ({ store, reads } = await countedStore());
  const org = await newOrg(store, 'packs');
  orgId = org.orgId;
  const projectId = (await createProject(store, orgId, 'packed'))._id;
  key = await org.key(['scans:read']);
  const ids: string[] = [];
  for (let i = 0; i < SCANS; i++) {
    const startedAt = new Date(Date.now() - (SCANS - i) * 60_000);
    const scan = await insertScan(store, {
      ...{ _id: newId('scn', startedAt.getTime()), orgId, projectId, target: 'packed', ecosystem: 'python' },
      ...{ schemaVersion: 1, status: 'queued', startedAt, finishedAt: null, failureReason: null },
      ...{ findings: null, suppressed: null, nodeCount: 1, bodyBytes: 10, metadata: { commit: `c${i}` } },
    });
    ids.push(scan._id);
  }
  expected = ids.reverse();
  ({ server, api } = await appWithoutTemporal(store, { uploads }));
}, 120_000);

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await uploads.close();
  await forgetListGroups(store);
  await store.db.dropDatabase().catch(() => undefined);
  await store.close();
});

interface Scan {
  id: string;
  status: string;
  startedAt: string;
  metadata?: unknown;
}

async function page(query: string): Promise<{ scans: Scan[]; scanDocs: number; packDocs: number }> {
  reads.reset();
  const res = await api.get(`/v1/scans?${query}`).set(bearer(key));
  expect(res.status).toBe(200);
  return {
    scans: res.body.scans,
    scanDocs: reads.docs.get('scans') ?? 0,
    packDocs: reads.docs.get('scanListPacks') ?? 0,
  };
}

test('a process that kept nothing reads the packs the first read wrote, not the scans, and answers the same', async () => {
  await forgetListGroups(store);
  const cold = await page('limit=30');
  expect(cold.scans.map((s) => s.id)).toEqual(expected.slice(0, 30));
  expect(cold.scanDocs).toBeGreaterThanOrEqual(30);
  expect(cold.packDocs).toBe(0);

  await packWritesDone(store);
  await forgetListGroups(store, 'keep'); // as another API process, or this one restarted
  // Every group but the newest (which changes with every upload, and is packed by the worker once quiet) is read
  // from its pack.
  const newest = await newestGroup(store, orgScope(orgId).key);
  const newestSize = await store.c.scans.countDocuments({ orgId, orgBucket: newest });
  expect(newestSize).toBeLessThan(30);
  const packed = await page('limit=30');
  expect(packed.scans).toEqual(cold.scans); // every field, dates included
  expect(packed.scanDocs).toBe(newestSize);
  expect(packed.packDocs).toBeGreaterThanOrEqual(1);

  // A status filter over packed groups filters them in memory (the newest: only its matches are read).
  await forgetListGroups(store, 'keep');
  const queued = await page('limit=30&status=queued');
  expect(queued.scans.map((s) => s.id)).toEqual(expected.slice(0, 30));
  expect(queued.scanDocs).toBe(newestSize);
});

test('a write after the pack moves its token: the pack is passed over and the list shows the write', async () => {
  await forgetListGroups(store);
  await page('limit=30');
  await packWritesDone(store);
  await markRunning(store, expected[0], null);
  await forgetListGroups(store, 'keep');
  const after = await page('limit=30');
  expect(after.scans[0]).toMatchObject({ id: expected[0], status: 'running' });
  expect(after.scans.map((s) => s.id)).toEqual(expected.slice(0, 30));
  expect(after.scanDocs).toBeGreaterThan(0); // the moved groups, read again
  expect(after.scanDocs).toBeLessThan(30); // the others from their packs
});

test('scans moved to a final status: their groups are packed again once quiet', async () => {
  await forgetListGroups(store);
  await page('limit=30'); // every group packed but the newest
  await packWritesDone(store);
  await markFailed(store, expected[1], 'internal_error', 'planted');
  await markFailed(store, expected[2], 'internal_error', 'planted');
  await new Promise((r) => setTimeout(r, 1_500)); // the groups' quiet moment (1 s)
  await packWritesDone(store);
  await forgetListGroups(store, 'keep');
  const listed = await page('limit=3');
  expect(listed.scans.map((s) => [s.id, s.status])).toEqual([
    [expected[0], 'running'],
    [expected[1], 'failed'],
    [expected[2], 'failed'],
  ]);
  // The groups of the failed scans (the newest among them) were packed by the worker after the failures, once quiet:
  // nothing read but packs.
  expect(listed.scanDocs).toBe(0);
  expect(listed.packDocs).toBeGreaterThanOrEqual(1);
});

test('a pack whose token is not the current one is never used', async () => {
  await forgetListGroups(store);
  const scope = orgScope(orgId).key;
  const g = await newestGroup(store, scope);
  await writePack(store, scope, g, 1, []); // a stale pack that holds nothing
  const listed = await page('limit=30');
  expect(listed.scans.map((s) => s.id)).toEqual(expected.slice(0, 30));
});
