// Multipart upload budgets over HTTP: counted as parts arrive, the part that crosses one is answered 413 and not
// stored, exactly under concurrent PUTs of different parts (and of one part); then the whole-graph checks of the
// completion across parts (duplicates, dangling references, hops), which leave the upload rejected with its parts
// deleted and repeat their answer.
import type { PartBody } from '../../src/domain/snapshot/parts';
import type { Snapshot } from '../../src/shared/types';
import { acceptedTotals } from '../../src/domain/snapshot/parts-ledger';
import { readLedger } from '../../src/storage/uploads';
import { newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { v2Snapshot } from '../helpers/v2';
import { headerOf, prng, splitInto } from '../unit/domain/parts-helpers';
import { syntheticSnapshot } from '../../src/domain/snapshot/synthetic';
import { CHECK_INLINE_LIMIT } from '../../src/pool/upload-check';
import { envelope, expectDocumented, uploadClient, UPLOADS } from './uploads-helpers';

let t: TestContext;
let org: Org;
let key: string;
const c = () => uploadClient(t, () => key);

beforeAll(async () => {
  t = await testContext();
  org = await newOrg(t.store);
  key = await org.key(['sca:upload', 'scans:read']);
});
afterAll(() => t.close());

/** `count` modules named from `from` on: the cheapest item to count budgets with (10,000 fit in 10 MB easily). */
const modules = (count: number, from = 0) => ({
  modules: Array.from({ length: count }, (_, i) => ({ path: `:m${from + i}` })),
});

async function open(parts: number, project = 'budgets'): Promise<string> {
  const r = await c().create({ schemaVersion: 2, project, ecosystem: 'gradle', parts });
  expect(r.status).toBe(201);
  return r.body.upload.id;
}

const stored = async (id: string) =>
  (await t.store.c.uploadParts.find({ uploadId: id, n: { $gt: 0 } }).toArray()).map((p) => p.n).sort((a, b) => a - b);

describe('budgets as parts arrive', () => {
  test('the part that crosses a budget gets 413 and is not stored; a smaller one fits after it', async () => {
    const id = await open(3);
    expect((await c().put(id, 1, modules(6_000))).status).toBe(201);
    const crossing = await c().put(id, 2, modules(4_001, 6_000));
    envelope(
      crossing,
      413,
      'snapshot_too_large',
      "part 2: /modules: with the parts received before it, 10001 modules, over the upload's budget of 10000",
    );
    expectDocumented(`${UPLOADS}/{uploadId}/parts/{n}`, 'put', crossing);
    expect(await stored(id)).toEqual([1]);
    // the same bytes again are refused again (nothing was freed), other bytes that fit are taken
    envelope(await c().put(id, 2, modules(4_001, 6_000)), 413, 'snapshot_too_large');
    expect((await c().put(id, 2, modules(4_000, 6_000))).status).toBe(201);
    envelope(await c().put(id, 3, modules(1, 20_000)), 413, 'snapshot_too_large');
    expect((await c().put(id, 3, {})).status).toBe(201);
    expect(await stored(id)).toEqual([1, 2, 3]);
  });

  test('a part over a budget on its own is refused before its structure is read', async () => {
    const id = await open(1);
    const res = await c().put(id, 1, { modules: Array.from({ length: 10_001 }, () => 0) });
    envelope(res, 413, 'snapshot_too_large', "part 1: /modules: 10001 modules, over the upload's budget of 10000");
  });

  test.each([1, 2, 3])(
    'concurrent PUTs of different parts: exactly the parts within the budget are stored (round %i)',
    async () => {
      // six parts of 2,500 modules: four fit in 10,000, whichever arrive first
      const id = await open(6, 'concurrent-budgets');
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => c().put(id, i + 1, modules(2_500, i * 2_500))),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(4);
      expect(statuses.filter((s) => s === 413)).toHaveLength(2);
      for (const r of results.filter((x) => x.status === 413))
        expect(r.body.error.message).toMatch(/^part \d: \/modules: with the parts received before it, 12500 modules/);
      const kept = await stored(id);
      expect(kept).toEqual(results.map((r, i) => (r.status === 201 ? i + 1 : 0)).filter(Boolean));
      const parts = await t.store.c.uploadParts.find({ uploadId: id, n: { $gt: 0 } }).toArray();
      expect(parts.reduce((n, p) => n + p.counts.modules, 0)).toBe(10_000);
      expect((await c().get(id)).body.upload.received).toEqual(kept);
    },
  );

  test('concurrent PUTs of one part: the same bytes are stored once (one 201, the rest 200); other bytes conflict', async () => {
    const id = await open(2, 'same-part');
    const body = JSON.stringify(modules(3_000));
    const same = await Promise.all(Array.from({ length: 5 }, () => c().put(id, 1, body)));
    expect(same.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
    const mixed = await Promise.all([
      c().put(id, 2, modules(10)),
      c().put(id, 2, modules(11)),
      c().put(id, 2, modules(12)),
    ]);
    expect(mixed.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    for (const r of mixed.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('idempotency_conflict');
    // the duplicates counted nothing: the ledger's accepted totals are exactly what is stored
    const winner = mixed.find((r) => r.status === 201)!.body.part.modules;
    const parts = await t.store.c.uploadParts.find({ uploadId: id, n: { $gt: 0 } }).toArray();
    expect(parts.map((p) => p.counts.modules).sort((x, y) => x - y)).toEqual([winner, 3_000]);
    expect(acceptedTotals(await readLedger(t.store, id)).modules).toBe(3_000 + winner);
  });
});

/** :app and :lib over two parts; the second carries the roots. */
function graph(project: string): { s: Snapshot; parts: PartBody[] } {
  const s = v2Snapshot(
    [
      {
        module: ':app',
        context: 'runtime',
        vertices: [
          ['r', ':app', 'a', 'l'],
          ['l', ':lib', 'c'],
          ['a', 'a@1', 'b'],
          ['b', 'b@1'],
          ['c', 'c@1'],
        ],
      },
      {
        module: ':lib',
        context: 'runtime',
        vertices: [
          ['r', ':lib', 'c'],
          ['c', 'c@1'],
        ],
      },
    ],
    [{ path: ':app', dependencies: [':lib'] }, { path: ':lib' }],
    { project },
  );
  return {
    s,
    parts: [
      { modules: s.modules, nodes: s.nodes.slice(0, 1) },
      { nodes: s.nodes.slice(1), roots: s.roots },
    ],
  };
}

describe('completion over the whole graph', () => {
  async function send(project: string, change: (p: PartBody[]) => void) {
    const { s, parts } = graph(project);
    change(parts);
    return c().all(s, parts);
  }

  test.each([
    [
      'a node id duplicated across parts',
      (p: PartBody[]) => p[1].nodes!.push({ ...p[0].nodes![0] }),
      422,
      'invalid_snapshot',
      'part 2: /nodes/2/id: duplicate node id "a@1" (also part 1: /nodes/0)',
    ],
    [
      'a module duplicated across parts',
      (p: PartBody[]) => (p[1].modules = [{ path: ':app' }]),
      422,
      'invalid_snapshot',
      'part 2: /modules/0/path: duplicate module path ":app" (also part 1: /modules/0)',
    ],
    [
      'a root duplicated across parts',
      (p: PartBody[]) => (p[0].roots = [p[1].roots![1]]),
      422,
      'invalid_snapshot',
      'part 2: /roots/1: duplicate root for module ":lib" and context "runtime" (also part 1: /roots/0)',
    ],
    [
      'a vertex of a package no part holds',
      (p: PartBody[]) => (p[1].roots![0].resolution!.vertices[2].node = 'a@2'),
      422,
      'invalid_snapshot',
      'part 2: /roots/0/resolution/vertices/2/node: unknown node "a@2"',
    ],
    [
      'a flat dependency on a package no part holds',
      (p: PartBody[]) => (p[0].nodes![0].dependencies = ['zz@1']),
      422,
      'invalid_snapshot',
      'part 1: /nodes/0/dependencies/0: unknown node "zz@1"',
    ],
    [
      'a package no resolution uses',
      (p: PartBody[]) =>
        p[0].nodes!.push({ id: 'd@1', name: 'd', version: '1', relationship: 'transitive', dependencies: [] }),
      422,
      'invalid_snapshot',
      'part 1: /nodes/1: package "d@1" occurs in no resolution',
    ],
  ])('%s → rejected', async (_, change, status, code, message) => {
    const { id, completion } = await send('rejected', change);
    envelope(completion, status, code, message);
    expectDocumented(`${UPLOADS}/{uploadId}/completion`, 'post', completion);
    const read = await c().get(id);
    expect(read.body.upload).toMatchObject({ status: 'rejected', received: [1, 2], scanId: null });
    expect(await t.store.c.uploadParts.countDocuments({ uploadId: id })).toBe(0);
    // later completions repeat the answer; no part is taken any more
    envelope(await c().complete(id), status, code, message);
    envelope(await c().put(id, 1, {}), 409, 'upload_not_open', `upload ${id} is rejected, not open`);
  });

  test('shortest hops over 256 → 413, rejected; no attribution-work limit', async () => {
    const chain: Array<[string, string, ...string[]]> = [['r', ':app', 'v0']];
    for (let i = 0; i < 257; i++) chain.push([`v${i}`, `p${i}@1`, ...(i < 256 ? [`v${i + 1}`] : [])]);
    const s = v2Snapshot([{ module: ':app', context: 'runtime', vertices: chain }], undefined, { project: 'hops' });
    const { id, completion } = await c().all(s, [{ modules: s.modules, nodes: s.nodes }, { roots: s.roots }]);
    envelope(
      completion,
      413,
      'snapshot_too_large',
      'part 2: /roots/0/resolution/vertices/257: 257 dependency hops from the resolution root, over the limit of 256',
    );
    expect((await c().get(id)).body.upload.status).toBe('rejected');
  });

  // Rounds of several at once: a completion that reads the parts while the winning rejection deletes them must still
  // answer the rejection (it once answered 500 or 409 upload_incomplete there).
  test('concurrent completions of an invalid upload all get its answer; one rejection', async () => {
    for (let round = 0; round < 4; round++) {
      const { s, parts } = graph(`rejected-concurrently-${round}`);
      parts[1].nodes!.push({ ...parts[0].nodes![0] });
      const created = await c().create(headerOf(s, 2));
      const id = created.body.upload.id;
      for (let n = 1; n <= 2; n++) await c().put(id, n, parts[n - 1]);
      const results = await Promise.all(Array.from({ length: 6 }, () => c().complete(id)));
      for (const r of results)
        envelope(r, 422, 'invalid_snapshot', 'part 2: /nodes/2/id: duplicate node id "a@1" (also part 1: /nodes/0)');
      expect(await t.store.c.scans.countDocuments({ projectId: created.body.upload.project })).toBe(0);
    }
  });

  test('a replayed key of a rejected upload: 200 with it, rejected; its completion repeats the refusal', async () => {
    const { s, parts } = graph('rejected-replay');
    parts[1].nodes!.push({ ...parts[0].nodes![0] });
    const body = JSON.stringify(headerOf(s, 2));
    const created = await c().create(body, { 'Idempotency-Key': 'rejected-replay' });
    const id = created.body.upload.id;
    for (let n = 1; n <= 2; n++) await c().put(id, n, parts[n - 1]);
    envelope(await c().complete(id), 422, 'invalid_snapshot');
    const replay = await c().create(body, { 'Idempotency-Key': 'rejected-replay' });
    expect(replay.status).toBe(200);
    expect(replay.body.upload).toMatchObject({ id, status: 'rejected', received: [1, 2] });
    envelope(
      await c().complete(id),
      422,
      'invalid_snapshot',
      'part 2: /nodes/2/id: duplicate node id "a@1" (also part 1: /nodes/0)',
    );
  });

  test('the valid graph completes', async () => {
    const { s, parts } = graph('valid');
    const { completion } = await c().all(s, parts);
    expect(completion.status).toBe(201);
    expect(completion.body).toMatchObject({ attributionMode: 'paged', moduleCount: 2, status: 'queued' });
  });
});

describe('a large upload, checked off the event loop', () => {
  const big = (project: string) =>
    syntheticSnapshot({ schemaVersion: 2, nodes: 12_000, roots: 24, modules: 8, depsPerNode: 3, rootDeps: 2, project });

  test('above the single-document limits: completes; a violation across its parts is found there too', async () => {
    const s = big('large-valid');
    const parts = splitInto(s, 5, prng(8));
    expect(parts.reduce((n, p) => n + JSON.stringify(p).length, 0)).toBeGreaterThan(CHECK_INLINE_LIMIT);
    const ok = await c().all(s, parts);
    expect(ok.completion.status).toBe(201);
    expect(ok.completion.body).toMatchObject({ attributionMode: 'paged', moduleCount: 8 });

    const bad = big('large-invalid');
    const badParts = [
      { nodes: bad.nodes.slice(0, 6_000), modules: bad.modules },
      { nodes: [...bad.nodes.slice(6_000), bad.nodes[17]] },
      { roots: bad.roots },
    ];
    const refused = await c().all(bad, badParts);
    envelope(
      refused.completion,
      422,
      'invalid_snapshot',
      `part 2: /nodes/6000/id: duplicate node id "${bad.nodes[17].id}" (also part 1: /nodes/17)`,
    );
    expect((await c().get(refused.id)).body.upload.status).toBe('rejected');
  });

  test('a large part is checked on a thread: its refusals name the part and pointer as inline ones do', async () => {
    const s = big('large-part');
    const id = await open(2, 'large-part');
    const nodes = s.nodes.slice(0, 6_000).map((x) => ({ ...x }));
    delete (nodes[5_999] as Partial<(typeof nodes)[0]>).version;
    const body = JSON.stringify({ nodes });
    expect(body.length).toBeGreaterThan(256 * 1024);
    envelope(await c().put(id, 1, body), 422, 'invalid_snapshot', 'part 1: /nodes/5999/version: is required');
    envelope(await c().put(id, 1, body.slice(0, -1)), 422, 'invalid_snapshot', 'part 1: /: body is not valid JSON');
    const good = JSON.stringify({ nodes: s.nodes.slice(0, 6_000) });
    const r = await c().put(id, 1, good);
    expect(r.status).toBe(201);
    expect(r.body.part).toMatchObject({ n: 1, nodes: 6_000 });
    const stored = await t.store.c.uploadParts.findOne({ _id: `${id}:1` });
    expect(stored?.bytes).toBe(Buffer.byteLength(good));
    expect((await c().put(id, 1, good)).status).toBe(200);
  });
});
