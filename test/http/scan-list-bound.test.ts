// GET /v1/scans reads a bounded amount of data whatever the organization's history: with 1,000 scans stored, one
// list request (whole org, one project, a rare status, a restricted key over several projects) reads a number of
// scan documents bounded by its page size, counted from the driver's command monitoring, and paging still reaches
// every scan in order. No Temporal: the scans are inserted directly.
import type http from 'node:http';
import type request from 'supertest';
import { newId } from '../../src/domain/ids';
import { uploadPreparer } from '../../src/pool/upload-pool';
import type { ScanDoc } from '../../src/storage/documents/scans';
import type { Store } from '../../src/storage/mongo';
import { createProject } from '../../src/storage/projects';
import { forgetListGroups } from '../../src/storage/scan-list-cache';
import { refileLegacyScans } from '../../src/storage/migrations/scan-list-regions';
import { BUCKET_SIZE, MAX_BUCKETS_PER_PAGE } from '../../src/storage/scans';
import { pack } from '../../src/storage/scan-document';
import { appWithoutTemporal, bearer, newOrg } from '../helpers/context';
import { countedStore, type ReadCounts } from '../helpers/counted-store';

const HISTORY = 1000;
const FAILED = 3; // the oldest scans: a status filter must walk the whole history to find them

let store: Store;
let server: http.Server;
let api: ReturnType<typeof request>;
let key: string;
let projectId: string;
let emptyProjectId: string;
let expected: string[]; // every scan id, newest first
const uploads = uploadPreparer(1);

let reads: ReadCounts;

beforeAll(async () => {
  ({ store, reads } = await countedStore());
  const org = await newOrg(store, 'history');
  projectId = (await createProject(store, org.orgId, 'long-lived'))._id;
  emptyProjectId = (await createProject(store, org.orgId, 'never-scanned'))._id;
  key = await org.key(['scans:read']);

  const scans: ScanDoc[] = Array.from({ length: HISTORY }, (_, i) => ({
    _id: newId('scn', Date.now() - (HISTORY - i) * 60_000),
    orgId: org.orgId,
    projectId,
    target: 'long-lived',
    ecosystem: 'javascript',
    schemaVersion: 1,
    status: i < FAILED ? 'failed' : 'queued',
    startedAt: new Date(Date.now() - (HISTORY - i) * 60_000),
    finishedAt: null,
    failureReason: i < FAILED ? 'internal_error' : null,
    findings: null,
    suppressed: null,
    nodeCount: 1,
    bodyBytes: 10,
    orgBucket: Math.floor(i / BUCKET_SIZE),
    projectBucket: Math.floor(i / BUCKET_SIZE),
  }));
  // Stored as an earlier version stored them (buckets of BUCKET_SIZE by arrival), then filed in the list's time
  // partition as an upgrade does: the groups are those buckets.
  await store.c.scans.insertMany(scans.map(pack));
  await refileLegacyScans(store, { force: true });
  expected = [...scans].sort((a, b) => b.orgBucket - a.orgBucket || (a._id < b._id ? 1 : -1)).map((s) => s._id);

  ({ server, api } = await appWithoutTemporal(store, { uploads }));
}, 120_000);
// What a list reads from the database when this process has kept no group (storage/scan-list-cache.ts).
beforeEach(() => forgetListGroups(store));

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await uploads.close();
  await store.db.dropDatabase().catch(() => undefined);
  await store.close();
});

interface Page {
  ids: string[];
  nextCursor: string | null;
  scanDocs: number;
  scanQueries: number;
  allDocs: number;
}

async function page(query: string, token = key): Promise<Page> {
  reads.reset();
  const res = await api.get(`/v1/scans?${query}`).set(bearer(token));
  expect(res.status).toBe(200);
  return {
    ids: res.body.scans.map((s: { id: string }) => s.id),
    nextCursor: res.body.nextCursor,
    scanDocs: reads.docs.get('scans') ?? 0,
    scanQueries: reads.queries.get('scans') ?? 0,
    allDocs: [...reads.docs.values()].reduce((a, b) => a + b, 0),
  };
}

/** What one request may read, from its page size alone: never from the history. */
const bound = (limit: number) => limit + 1 + 2 * BUCKET_SIZE;

async function walk(query: string, limit: number, token = key): Promise<{ ids: string[]; pages: Page[] }> {
  const pages: Page[] = [];
  let cursor: string | null = null;
  do {
    const p: Page = await page(`limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`, token);
    expect(p.scanDocs).toBeLessThanOrEqual(bound(limit));
    expect(p.scanQueries).toBeLessThanOrEqual(MAX_BUCKETS_PER_PAGE);
    expect(p.allDocs).toBeLessThanOrEqual(bound(limit) + 5); // the credential, the newest region, a re-check
    pages.push(p);
    cursor = p.nextCursor;
  } while (cursor && pages.length < 100);
  return { ids: pages.flatMap((p) => p.ids), pages };
}

test.each([50, 200])('a page of %i over 1,000 scans reads about a page of documents', async (limit) => {
  await forgetListGroups(store);
  const first = await page(`limit=${limit}`);
  expect(first.ids).toEqual(expected.slice(0, limit));
  expect(first.scanDocs).toBeGreaterThanOrEqual(limit);
  expect(first.scanDocs).toBeLessThanOrEqual(bound(limit));
  expect(first.scanQueries).toBeLessThanOrEqual(Math.ceil((limit + 1) / BUCKET_SIZE) + 1);
  await forgetListGroups(store);
  const ofProject = await page(`limit=${limit}&project=${projectId}`);
  expect(ofProject.ids).toEqual(expected.slice(0, limit));
  expect(ofProject.scanDocs).toBeLessThanOrEqual(bound(limit));
});

test('paging through the whole history: every scan once, in order, each page bounded', async () => {
  const { ids, pages } = await walk('', 200);
  expect(ids).toEqual(expected);
  expect(pages).toHaveLength(Math.ceil(HISTORY / 200));
});

test('a rare status: each request reads at most its bucket budget; pages may come back short, the cursor goes on to the oldest', async () => {
  const { ids, pages } = await walk('&status=failed', 50);
  expect(ids).toEqual(expected.slice(-FAILED));
  const buckets = Math.ceil(HISTORY / BUCKET_SIZE);
  expect(pages.length).toBeLessThanOrEqual(Math.ceil(buckets / MAX_BUCKETS_PER_PAGE));
  expect(pages[0].ids).toEqual([]); // nothing failed in the newest buckets: an empty page, and a cursor
  expect(pages[0].nextCursor).not.toBeNull();
  expect(pages.reduce((n, p) => n + p.scanDocs, 0)).toBe(FAILED);
});

test('a key restricted to several projects (one never scanned): bounded pages, the same order', async () => {
  const org = await store.c.projects.findOne({ _id: projectId });
  const { createApiKey } = await import('../../src/storage/api-keys');
  const member = await store.c.members.findOne({ orgId: org!.orgId });
  const restricted = (
    await createApiKey(store, {
      orgId: org!.orgId,
      name: 'two',
      scopes: ['scans:read'],
      projects: [projectId, emptyProjectId],
      createdBy: member!._id,
      expiresAt: null,
    })
  ).secret;
  const { ids } = await walk('', 200, restricted);
  expect(ids).toEqual(expected);
});
