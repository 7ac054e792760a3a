// GET /v1/scans is newest first by startedAt, ties by id descending, one total order across pages and under
// concurrent uploads. 300 uploads sent 10 at a time once listed scans out of startedAt order (their
// list bucket came from a counter taken apart from startedAt); here every listing, whole organization, ?project=,
// ?status=, is compared with the scans sorted by (startedAt, id), page by page, with no duplicates or gaps; uploads
// arriving while a client pages never break the order; a stalled upload filed after newer ones, and scans stored by
// an earlier version, land at their place. No Temporal: scans stay as uploaded unless moved here.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type request from 'supertest';
import { newestFirst } from '../../src/domain/scan-list/regions';
import { newId } from '../../src/domain/ids';
import { uploadPreparer } from '../../src/pool/upload-pool';
import { cursorCodec, loadCursorSecret } from '../../src/storage/cursors';
import type { ScanDoc } from '../../src/storage/documents/scans';
import { connectStore, ensureIndexes, type Store } from '../../src/storage/mongo';
import { createProject } from '../../src/storage/projects';
import { refileLegacyScans } from '../../src/storage/migrations/scan-list-regions';
import { getScan, insertScan, markCompleted, markFailed, markRunning } from '../../src/storage/scans';
import { pack, unpack } from '../../src/storage/scan-document';
import { appWithoutTemporal, bearer, newOrg, requireEnv, type Org } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

const PROJECTS = ['alpha', 'beta', 'gamma'];
const STATUSES = ['queued', 'running', 'completed', 'failed'] as const;

let store: Store;
let other: Store; // a second connection: another API process, with its own knowledge of the regions
let server: http.Server;
let api: ReturnType<typeof request>;
const uploads = uploadPreparer(1);
let org: Org;
let key: string;

beforeAll(async () => {
  const dbName = `t_${randomBytes(6).toString('hex')}`;
  store = await connectStore(requireEnv('MONGODB_URI'), dbName);
  other = await connectStore(requireEnv('MONGODB_URI'), dbName);
  await ensureIndexes(store);
  ({ server, api } = await appWithoutTemporal(store, { uploads }));
  org = await newOrg(store, 'order');
  key = await org.key(['sca:upload', 'scans:read']);
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await uploads.close();
  await store.db.dropDatabase().catch(() => undefined);
  await Promise.all([store.close(), other.close()]);
});

async function upload(project: string, token = key): Promise<string> {
  const res = await api.post('/v1/scans/dependency-snapshots').set(bearer(token)).send(v1Snapshot(project));
  expect(res.status).toBe(201);
  return res.body.id;
}

interface Listed {
  id: string;
  startedAt: string;
  status: string;
  target: string;
}

async function page(query: string, token = key): Promise<{ scans: Listed[]; nextCursor: string | null }> {
  const res = await api.get(`/v1/scans?${query}`).set(bearer(token));
  expect(res.status).toBe(200);
  return res.body;
}

/** Every page of a listing, following nextCursor to the end (between pages, `between` runs). */
async function walk(
  query: string,
  limit: number,
  opts: { token?: string; between?: () => Promise<unknown> } = {},
): Promise<{ scans: Listed[]; pages: Listed[][] }> {
  const pages: Listed[][] = [];
  let cursor: string | null = null;
  do {
    const p = await page(`limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, opts.token);
    expect(p.scans.length).toBeLessThanOrEqual(limit);
    pages.push(p.scans);
    cursor = p.nextCursor;
    if (cursor && opts.between) await opts.between();
  } while (cursor && pages.length < 500);
  expect(cursor).toBeNull();
  return { scans: pages.flat(), pages };
}

/** The organization's scans (filtered), in the list's order, from the database itself. */
async function expected(orgId: string, keep: (s: ScanDoc) => boolean = () => true): Promise<string[]> {
  const all = (await store.c.scans.find({ orgId }).toArray()).map(unpack).filter(keep);
  return all
    .map((s) => ({ at: s.startedAt.getTime(), id: s._id }))
    .sort(newestFirst)
    .map((k) => k.id);
}

/** Each listed scan strictly older than the one before it: (startedAt, id) descending, so no duplicates either. */
function expectStrictlyNewestFirst(scans: Listed[]) {
  for (let i = 1; i < scans.length; i++) {
    const [a, b] = [scans[i - 1], scans[i]];
    expect(
      newestFirst({ at: Date.parse(a.startedAt), id: a.id }, { at: Date.parse(b.startedAt), id: b.id }),
    ).toBeLessThan(0);
  }
}

/** What makes the order hold by construction: in every scope, the group a scan is filed in never decreases with (startedAt, id). */
async function expectGroupsFollowStartedAt(orgId: string) {
  const docs = (await store.c.scans.find({ orgId }).toArray()).sort(
    (a, b) => -newestFirst({ at: a.startedAt.getTime(), id: a._id }, { at: b.startedAt.getTime(), id: b._id }),
  );
  const scopes = new Map<string, Array<{ g: number; id: string }>>();
  for (const d of docs) {
    for (const [scope, g] of [
      [`o`, d.orgBucket],
      [`p:${d.projectId}`, d.projectBucket],
    ] as const)
      scopes.set(scope, [...(scopes.get(scope) ?? []), { g, id: d._id }]);
  }
  for (const [scope, seq] of scopes) {
    for (let i = 1; i < seq.length; i++) {
      if (seq[i].g < seq[i - 1].g)
        throw new Error(
          `${scope}: ${seq[i].id} (group ${seq[i].g}) is newer than ${seq[i - 1].id} (group ${seq[i - 1].g})`,
        );
    }
  }
}

describe('300 uploads sent 10 at a time', () => {
  beforeAll(async () => {
    for (let i = 0; i < 300; i += 10)
      await Promise.all(Array.from({ length: 10 }, (_, j) => upload(PROJECTS[(i + j) % PROJECTS.length])));
    // Some of each status, so that ?status= lists skip through the groups.
    const ids = await expected(org.orgId);
    for (let i = 0; i < ids.length; i += 20) {
      await Promise.all(
        ids.slice(i, i + 20).map(async (id, j) => {
          const k = (i + j) % 7;
          if (k === 1 || k === 2 || k === 3) await markRunning(store, id, null);
          if (k === 2)
            await markCompleted(store, id, {
              findings: { critical: 0, high: 0, medium: 0, low: 0 },
              suppressed: 0,
              advisoryGeneration: null,
              unmatchedVersions: 0,
              resultChunks: 0,
              findingCount: 0,
            });
          if (k === 4 || k === 3) await markFailed(store, id, 'internal_error', 'failed for the test');
        }),
      );
    }
  }, 300_000);

  test('each scan is filed in groups that follow startedAt, in its organization and in its project', async () => {
    expect(await store.c.scans.countDocuments({ orgId: org.orgId })).toBe(300);
    await expectGroupsFollowStartedAt(org.orgId);
  });

  test('the whole organization, 50 a page: exactly the scans sorted by startedAt then id, descending', async () => {
    const { scans, pages } = await walk('', 50);
    expect(scans.map((s) => s.id)).toEqual(await expected(org.orgId));
    expectStrictlyNewestFirst(scans);
    expect(pages.map((p) => p.length)).toEqual([50, 50, 50, 50, 50, 50]);
  });

  test.each(PROJECTS)('?project=%s: the same order, restricted to the project', async (slug) => {
    const { scans } = await walk(`&project=${slug}`, 50);
    expect(scans.map((s) => s.id)).toEqual(await expected(org.orgId, (s) => s.target === slug));
    expect(scans.length).toBe(100);
  });

  test.each(STATUSES)(
    '?status=%s: the same order, restricted to the status (with and without ?project=)',
    async (status) => {
      const { scans } = await walk(`&status=${status}`, 50);
      expect(scans.map((s) => s.id)).toEqual(await expected(org.orgId, (s) => s.status === status));
      expect(scans.length).toBeGreaterThan(0);
      const { scans: ofBeta } = await walk(`&status=${status}&project=beta`, 7);
      expect(ofBeta.map((s) => s.id)).toEqual(
        await expected(org.orgId, (s) => s.status === status && s.target === 'beta'),
      );
    },
  );

  test('a key restricted to two projects: the same order over their scans', async () => {
    const projects = await store.c.projects.find({ orgId: org.orgId, slug: { $in: ['alpha', 'gamma'] } }).toArray();
    const restricted = await org.key(
      ['scans:read'],
      projects.map((p) => p._id),
    );
    const { scans } = await walk('', 30, { token: restricted });
    expect(scans.map((s) => s.id)).toEqual(await expected(org.orgId, (s) => s.target !== 'beta'));
  });

  test('uploads arriving while a client pages: strictly newest first throughout, every earlier scan listed once', async () => {
    const before = await expected(org.orgId);
    const during: string[] = [];
    const arrive = () =>
      Promise.all(
        Array.from({ length: 5 }, (_, j) => upload(PROJECTS[j % PROJECTS.length]).then((id) => during.push(id))),
      );
    // Uploads between pages, and uploads racing each page request.
    let racing: Promise<unknown> = Promise.resolve();
    const { scans } = await walk('', 25, {
      between: async () => {
        await racing;
        await arrive();
        racing = arrive();
      },
    });
    await racing;
    expectStrictlyNewestFirst(scans);
    const listed = scans.map((s) => s.id);
    expect(listed.filter((id) => before.includes(id))).toEqual(before); // no gap, no duplicate, same order
    // What arrived meanwhile was listed only where its startedAt put it (checked above), or not at all: a page
    // already passed its place. Read afresh, everything is there, in order.
    expect(during.length).toBeGreaterThanOrEqual(50);
    const again = await walk('', 50);
    expect(again.scans.map((s) => s.id)).toEqual(await expected(org.orgId));
    expect(again.scans.length).toBe(before.length + during.length);
    await expectGroupsFollowStartedAt(org.orgId);

    // The same through one project's list.
    const ofAlpha = await expected(org.orgId, (s) => s.target === 'alpha');
    const { scans: alpha } = await walk('&project=alpha', 10, { between: arrive });
    expectStrictlyNewestFirst(alpha);
    expect(alpha.map((s) => s.id).filter((id) => ofAlpha.includes(id))).toEqual(ofAlpha);
    expect(alpha.every((s) => s.target === 'alpha')).toBe(true);
  }, 120_000);

  test('a scan is listed first right after its upload is answered', async () => {
    for (const project of PROJECTS) {
      const id = await upload(project);
      expect((await page('limit=1')).scans.map((s) => s.id)).toEqual([id]);
      expect((await page(`limit=1&project=${project}`)).scans.map((s) => s.id)).toEqual([id]);
    }
  });

  test('a stalled upload, filed (by another process) after newer scans, lands at its startedAt', async () => {
    const ids = await expected(org.orgId);
    const middle = (await getScan(store, ids[137]))!;
    const oldest = (await getScan(store, ids[ids.length - 1]))!;
    const stalled = (at: number): ScanDoc => ({
      ...middle,
      _id: newId('scn', at),
      startedAt: new Date(at),
      status: 'queued',
      finishedAt: null,
      failureReason: null,
      findings: null,
      suppressed: null,
      orgBucket: -1,
      projectBucket: -1,
    });
    const late = [
      stalled(middle.startedAt.getTime()),
      stalled(middle.startedAt.getTime() - 1),
      stalled(oldest.startedAt.getTime() - 3_600_000),
    ];
    await Promise.all(late.map((s, i) => insertScan(i % 2 ? store : other, s)));
    await expectGroupsFollowStartedAt(org.orgId);
    const { scans } = await walk('', 40);
    expect(scans.map((s) => s.id)).toEqual(await expected(org.orgId));
    expect(scans[scans.length - 1].id).toBe(late[2]._id);
    const { scans: ofProject } = await walk(`&project=${middle.target}`, 40);
    expect(ofProject.map((s) => s.id)).toEqual(await expected(org.orgId, (s) => s.target === middle.target));
  });

  test('two processes filing concurrently, out of order: groups still follow startedAt', async () => {
    const base = Date.now() + 60_000; // past every region so far: both processes create the next ones
    const prj = (await store.c.projects.findOne({ orgId: org.orgId, slug: 'gamma' }))!;
    const template = (await getScan(store, (await expected(org.orgId, (s) => s.target === 'gamma'))[0]))!;
    const times = Array.from({ length: 120 }, (_, i) => base + Math.floor(i / 3) * 7 + (i % 3));
    const shuffled = times
      .map((t, i) => ({ t, k: (i * 37) % 120 }))
      .sort((a, b) => a.k - b.k)
      .map((x) => x.t);
    await Promise.all(
      shuffled.map((t, i) =>
        insertScan(i % 2 ? store : other, {
          ...template,
          _id: newId('scn', t),
          startedAt: new Date(t),
          projectId: prj._id,
          orgBucket: -1,
          projectBucket: -1,
        }),
      ),
    );
    await expectGroupsFollowStartedAt(org.orgId);
    const { scans } = await walk('&project=gamma', 50);
    expect(scans.map((s) => s.id)).toEqual(await expected(org.orgId, (s) => s.target === 'gamma'));
  }, 60_000);
});

describe('scans stored by an earlier version (buckets by arrival)', () => {
  let legacy: Org;
  let legacyKey: string;
  beforeAll(async () => {
    legacy = await newOrg(store, 'legacy');
    legacyKey = await legacy.key(['sca:upload', 'scans:read']);
    const projects = await Promise.all(['one', 'two'].map((slug) => createProject(store, legacy.orgId, slug)));
    // As the earlier upload did: id at one instant, startedAt a little later, bucket from a counter by arrival, and
    // arrivals that disagree with startedAt at the buckets' edges (adjacent scans swapped).
    const t0 = Date.now() - 3_600_000;
    const made = Array.from({ length: 130 }, (_, i) => ({ i, at: t0 + i * 4, project: projects[i % 5 === 0 ? 1 : 0] }));
    const arrival = made.map(
      (m, k) => made[k % 16 === 15 && k + 1 < made.length ? k + 1 : k % 16 === 0 && k > 0 ? k - 1 : k],
    );
    const perProject = new Map<string, number>();
    for (const [k, m] of arrival.entries()) {
      const p = perProject.get(m.project._id) ?? 0;
      perProject.set(m.project._id, p + 1);
      const scan: ScanDoc = {
        _id: newId('scn', m.at),
        orgId: legacy.orgId,
        projectId: m.project._id,
        target: m.project.slug,
        ecosystem: 'javascript',
        schemaVersion: 1,
        status: 'completed',
        startedAt: new Date(m.at + 2),
        finishedAt: new Date(m.at + 50),
        failureReason: null,
        findings: { critical: 0, high: 1, medium: 0, low: 0 },
        suppressed: 0,
        nodeCount: 2,
        bodyBytes: 100,
        orgBucket: Math.floor(k / 16),
        projectBucket: Math.floor(p / 16),
      };
      await store.c.scans.insertOne(pack(scan)); // stored as it was, not filed
    }
    await store.c.counters.insertOne({ _id: `scans:${legacy.orgId}`, seq: made.length });
  });

  test('re-filed once (two processes at a time): the list is newest first (ties by id), then new uploads list first', async () => {
    const before = await store.c.scans.find({ orgId: legacy.orgId }).toArray();
    const [a, b] = await Promise.all([
      refileLegacyScans(store, { force: true }),
      refileLegacyScans(other, { force: true }),
    ]);
    expect(a.scopes + b.scopes).toBeGreaterThanOrEqual(3); // the org and its two projects, by one or both
    expect(a.moved + b.moved).toBeGreaterThan(0); // the swapped scans moved to the group of their startedAt
    const after = await store.c.scans.find({ orgId: legacy.orgId }).toArray();
    const moved = after.filter((d) => before.find((x) => x._id === d._id)!.orgBucket !== d.orgBucket);
    expect(moved.length).toBeGreaterThan(0);
    expect(moved.length).toBeLessThan(20); // only those at the edges
    await expectGroupsFollowStartedAt(legacy.orgId);
    const { scans } = await walk('', 50, { token: legacyKey });
    expect(scans.map((s) => s.id)).toEqual(await expected(legacy.orgId));
    for (const slug of ['one', 'two']) {
      const { scans: ofProject } = await walk(`&project=${slug}`, 20, { token: legacyKey });
      expect(ofProject.map((s) => s.id)).toEqual(await expected(legacy.orgId, (s) => s.target === slug));
    }
    // A third run finds nothing left to do.
    expect(await refileLegacyScans(store, { force: true })).toEqual({ scopes: 0, moved: 0 });

    const fresh = await Promise.all(Array.from({ length: 10 }, (_, i) => upload(i % 2 ? 'one' : 'two', legacyKey)));
    const { scans: all } = await walk('', 50, { token: legacyKey });
    expect(all.map((s) => s.id)).toEqual(await expected(legacy.orgId));
    expect(new Set(all.slice(0, 10).map((s) => s.id))).toEqual(new Set(fresh));
    await expectGroupsFollowStartedAt(legacy.orgId);
  });

  test('a cursor of the earlier bucket order is refused: 422 invalid_cursor', async () => {
    const codec = cursorCodec(await loadCursorSecret(store));
    const old = codec.encode(`scans:${legacy.orgId}:*:*`, { bucket: 3, id: 'scn_x' });
    const res = await api.get(`/v1/scans?cursor=${encodeURIComponent(old)}`).set(bearer(legacyKey));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('invalid_cursor');
  });
});
