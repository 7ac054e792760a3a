// GET /v1/projects over the real database: slugs in code-point order across pages, each project's
// latest scan (the scan list's first: newest startedAt, then id) as it moves from queued to completed, restricted keys
// and other organizations, and the 4xx answers. Scans are processed by the worker's own engine steps.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type request from 'supertest';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import * as engine from '../../activities/scan-steps';
import { compareCodePoints } from '../../src/domain/inventory';
import { openApiDocument } from '../../src/http/openapi/document';
import { createLogger } from '../../src/logger';
import { uploadPreparer } from '../../src/pool/upload-pool';
import { connectStore, ensureIndexes, type Store } from '../../src/storage/mongo';
import { createProject } from '../../src/storage/projects';
import { appWithoutTemporal, bearer, newOrg, requireEnv, type Org } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

let store: Store;
let app: { server: http.Server; api: ReturnType<typeof request> };
const uploads = uploadPreparer(1);
let org: Org;
let key: string;

// Slugs where code-point order and JavaScript's UTF-16 order differ (U+FF5A against a surrogate pair), case, digits.
const SLUGS = ['web', 'api', 'Zebra', '\u{1F600}-emoji', '\uFF5A-fullwidth', 'a-1', 'a-10', 'a-2', 'é-accent'];

beforeAll(async () => {
  store = await connectStore(requireEnv('MONGODB_URI'), `t_${randomBytes(6).toString('hex')}`);
  await ensureIndexes(store);
  app = await appWithoutTemporal(store, { uploads });
  org = await newOrg(store);
  key = await org.key(['sca:upload', 'scans:read']);
  for (const slug of SLUGS) await createProject(store, org.orgId, slug);
}, 60_000);

afterAll(async () => {
  await new Promise((r) => app?.server.close(r));
  await uploads.close();
  await store?.db.dropDatabase().catch(() => undefined);
  await store?.close();
});

// Every answer is checked against the OpenAPI document's schema of its status.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openApiDocument() as object, 'openapi.json');
const schemas = new Map(
  [200, 401, 403, 422].map((s) => [
    s,
    ajv.compile({ $ref: `openapi.json#/paths/~1v1~1projects/get/responses/${s}/content/application~1json/schema` }),
  ]),
);

async function list(query: string, token = key) {
  const res = await app.api.get(`/v1/projects${query ? `?${query}` : ''}`).set(bearer(token));
  const validate = schemas.get(res.status);
  if (!validate) throw new Error(`undocumented status ${res.status}: ${JSON.stringify(res.body)}`);
  if (!validate(res.body))
    throw new Error(
      `${res.status} does not match the document: ${JSON.stringify(validate.errors)} ${JSON.stringify(res.body)}`,
    );
  return res;
}

async function allPages(limit: number, token = key): Promise<{ projects: Record<string, any>[]; pages: number }> {
  const projects: Record<string, any>[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: any = await list(`limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, token);
    expect(res.status).toBe(200);
    projects.push(...res.body.projects);
    cursor = res.body.nextCursor;
    pages++;
  } while (cursor);
  return { projects, pages };
}

async function upload(slug: string): Promise<string> {
  const res = await app.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(v1Snapshot(slug));
  expect(res.status).toBe(201);
  return res.body.id;
}

/** The worker's steps for one scan (what its fast path runs). */
async function processScan(id: string): Promise<void> {
  const ctx = { store, logger: createLogger('test', 'silent') };
  const r = await engine.prepare(ctx, id);
  if (r.kind !== 'ok') throw new Error(r.message);
  const m = await engine.computeMatches(ctx, id, r.inputs, r.summary.generation);
  const p = engine.computePaths(r.inputs, m.matches);
  await r.running;
  if (p.kind !== 'ok') throw new Error(p.message);
  await engine.publish(ctx, id, r.inputs, m, p, r.summary.generation, false);
}

test('ordered by slug in code-point order, across pages of any size', async () => {
  const expected = [...SLUGS].sort(compareCodePoints);
  expect(expected.indexOf('\uFF5A-fullwidth')).toBeLessThan(expected.indexOf('\u{1F600}-emoji'));
  const whole = await list('');
  expect(whole.status).toBe(200);
  expect(whole.body.projects.map((p: { slug: string }) => p.slug)).toEqual(expected);
  expect(whole.body.nextCursor).toBeNull();
  for (const limit of [1, 2, 4, 9, 200]) {
    const { projects, pages } = await allPages(limit);
    expect(projects).toEqual(whole.body.projects);
    expect(pages).toBe(Math.ceil(SLUGS.length / limit));
  }
  const web = whole.body.projects.find((p: { slug: string }) => p.slug === 'web');
  expect(web).toEqual({
    id: expect.stringMatching(/^prj_/),
    slug: 'web',
    createdAt: expect.any(String),
    defaultBranch: 'main', // until an admin sets another
    latestScan: null,
  });
  expect(new Date(web.createdAt).toISOString()).toBe(web.createdAt);
});

test("latestScan: the project's newest scan, queued or completed, with its counts once completed", async () => {
  const first = await upload('web');
  await processScan(first);
  const second = await upload('web');
  const web = async () => (await list('')).body.projects.find((p: { slug: string }) => p.slug === 'web');
  const queued = await web();
  expect(queued.latestScan).toEqual({
    id: second,
    status: 'queued',
    ecosystem: 'javascript',
    startedAt: expect.any(String),
    findings: null,
  });
  await processScan(second);
  const done = await web();
  expect(done.latestScan).toEqual({
    id: second,
    status: 'completed',
    ecosystem: 'javascript',
    startedAt: queued.latestScan.startedAt,
    findings: { critical: 0, high: 0, medium: 0, low: 0 },
  });
  // the same as the scan list shows first for the project
  const scans = await app.api.get(`/v1/scans?project=${done.id}&limit=1`).set(bearer(key));
  expect(scans.body.scans[0]).toMatchObject({
    id: done.latestScan.id,
    status: 'completed',
    startedAt: done.latestScan.startedAt,
  });
  expect((await web()).latestScan.id).not.toBe(first);
});

test("restricted keys list their projects only; another organization's projects are never listed", async () => {
  const all = (await list('')).body.projects as Array<{ id: string; slug: string }>;
  const chosen = all.filter((p) => ['api', 'Zebra', '\u{1F600}-emoji'].includes(p.slug));
  const restricted = await org.key(
    ['scans:read'],
    chosen.map((p) => p.id),
  );
  const { projects, pages } = await allPages(2, restricted);
  expect(projects.map((p) => p.slug)).toEqual(['Zebra', 'api', '\u{1F600}-emoji']);
  expect(pages).toBe(2);
  const b = await newOrg(store, 'other');
  await createProject(store, b.orgId, 'theirs');
  const bKey = await b.key(['scans:read']);
  expect((await list('', bKey)).body.projects.map((p: { slug: string }) => p.slug)).toEqual(['theirs']);
  expect((await list('')).body.projects.map((p: { slug: string }) => p.slug)).not.toContain('theirs');
  // a cursor of one credential's listing is not another's
  const page = await list('limit=1', restricted);
  const res = await list(`limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`);
  expect([res.status, res.body.error.code]).toEqual([422, 'invalid_cursor']);
  // sessions list the organization's projects as an unrestricted key does
  const auditor = await org.session('auditor');
  expect((await list('', auditor)).body.projects.map((p: { slug: string }) => p.slug)).toEqual(all.map((p) => p.slug));
});

test('4xx: bad limit or cursor, a repeated parameter, a key without scans:read', async () => {
  for (const [query, code] of [
    ['limit=0', 'invalid_parameter'],
    ['limit=-1', 'invalid_parameter'],
    ['limit=abc', 'invalid_parameter'],
    ['limit=1&limit=2', 'invalid_parameter'],
    ['cursor=', 'invalid_cursor'],
    ['cursor=garbage', 'invalid_cursor'],
    ['cursor=a.b', 'invalid_cursor'],
  ]) {
    const res = await list(query);
    expect([query, res.status, res.body.error?.code]).toEqual([query, 422, code]);
  }
  expect((await list('limit=1000')).body.projects).toHaveLength(SLUGS.length); // clamped to 200, not refused
  const depsOnly = await org.key(['deps:read']);
  const res = await list('', depsOnly);
  expect([res.status, res.body.error.code, res.body.error.message]).toEqual([
    403,
    'insufficient_scope',
    expect.stringContaining('scans:read'),
  ]);
  expect((await app.api.get('/v1/projects')).status).toBe(401);
  // the document's schema does check: a project without latestScan is refused
  expect(
    schemas.get(200)!({
      projects: [{ id: 'prj_x', slug: 'x', createdAt: new Date().toISOString() }],
      nextCursor: null,
    }),
  ).toBe(false);
});
