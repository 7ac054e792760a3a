// Multipart upload, pure domain: the create body and part checks (counted budgets, structure with the v2 item
// schemas, errors naming the part), the ledger that decides budgets as parts arrive, and the merge with its
// whole-graph checks, errors told in the parts' terms.
import { validateSnapshot } from '../../../src/domain/snapshot';
import { syntheticSnapshot } from '../../../src/domain/snapshot/synthetic';
import {
  UPLOAD_BUDGETS,
  checkPart,
  checkUploadHeader,
  countPart,
  type PartBody,
  type PartCounts,
} from '../../../src/domain/snapshot/parts';
import { acceptedTotals, decideLedger, type LedgerEntry } from '../../../src/domain/snapshot/parts-ledger';
import { PartOrigin, inParts, mergeUpload, validateUpload } from '../../../src/domain/snapshot/parts-merge';
import { ApiError } from '../../../src/domain/errors';
import type { Snapshot } from '../../../src/shared/types';
import { v2Snapshot } from '../../helpers/v2';
import { errorOf, headerOf, prng, splitInto } from './parts-helpers';

const err = (status: number, code: string, message: string) => ({ status, code, message });
const asErr = (e: ApiError) => ({ status: e.status, code: e.code, message: e.message });

const header = () => ({ schemaVersion: 2, project: 'mono', ecosystem: 'gradle', parts: 3 });

describe('create body', () => {
  test('the v2 fields but the graph, and parts; unknown fields are ignored', () => {
    const h = {
      ...header(),
      manifests: ['settings.gradle'],
      suppressions: [{ cve: 'CVE-1', reason: 'r', expires: '2030-02-28' }],
      metadata: { commit: 'abc' },
      later: { x: 1 },
    };
    expect(checkUploadHeader(h)).toBe(h);
  });

  test.each([
    ['not an object', [], err(422, 'invalid_snapshot', '/: must be a JSON object')],
    ['null', null, err(422, 'invalid_snapshot', '/: must be a JSON object')],
    [
      'no schemaVersion',
      { project: 'p', ecosystem: 'gradle', parts: 1 },
      err(422, 'invalid_snapshot', '/schemaVersion: is required (2)'),
    ],
    [
      'schemaVersion 1',
      { ...header(), schemaVersion: 1 },
      err(422, 'invalid_snapshot', '/schemaVersion: 1: a multipart upload carries a snapshot v2 (schemaVersion 2)'),
    ],
    [
      'schemaVersion "2"',
      { ...header(), schemaVersion: '2' },
      err(422, 'invalid_snapshot', '/schemaVersion: "2": a multipart upload carries a snapshot v2 (schemaVersion 2)'),
    ],
    [
      'no parts',
      { schemaVersion: 2, project: 'p', ecosystem: 'gradle' },
      err(422, 'invalid_snapshot', '/parts: is required'),
    ],
    ['parts 0', { ...header(), parts: 0 }, err(422, 'invalid_snapshot', '/parts: must be >= 1')],
    ['parts -4', { ...header(), parts: -4 }, err(422, 'invalid_snapshot', '/parts: must be >= 1')],
    ['parts 1.5', { ...header(), parts: 1.5 }, err(422, 'invalid_snapshot', '/parts: must be integer')],
    ['parts "3"', { ...header(), parts: '3' }, err(422, 'invalid_snapshot', '/parts: must be integer')],
    [
      'parts over the budget',
      { ...header(), parts: 1001 },
      err(413, 'snapshot_too_large', '/parts: 1001 parts, over the budget of 1000'),
    ],
    [
      'a huge parts',
      { ...header(), parts: 1e300 },
      err(413, 'snapshot_too_large', '/parts: 1e+300 parts, over the budget of 1000'),
    ],
    [
      'an unknown ecosystem',
      { ...header(), ecosystem: 'cargo' },
      err(422, 'invalid_snapshot', '/ecosystem: must be one of gradle, python, javascript, typescript'),
    ],
    ['an empty project', { ...header(), project: '' }, err(422, 'invalid_snapshot', '/project: must not be empty')],
    [
      'a project with a control character',
      { ...header(), project: 'a\u0007b' },
      err(422, 'invalid_snapshot', '/project: must not contain control characters (U+0000 to U+001F, U+007F)'),
    ],
    [
      'a project over 200 characters',
      { ...header(), project: 'x'.repeat(201) },
      err(422, 'invalid_snapshot', '/project: must be at most 200 characters'),
    ],
    [
      'an empty manifest',
      { ...header(), manifests: [''] },
      err(422, 'invalid_snapshot', '/manifests/0: must not be empty'),
    ],
    [
      'a suppression date that is no date',
      { ...header(), suppressions: [{ cve: 'CVE-1', reason: 'r', expires: '2030-02-30' }] },
      err(422, 'invalid_snapshot', '/suppressions/0/expires: must be a calendar date YYYY-MM-DD'),
    ],
    [
      'a suppression without reason',
      { ...header(), suppressions: [{ cve: 'CVE-1' }] },
      err(422, 'invalid_snapshot', '/suppressions/0/reason: is required'),
    ],
    [
      'metadata of the wrong type',
      { ...header(), metadata: { commit: 7 } },
      err(422, 'invalid_snapshot', '/metadata/commit: must be string'),
    ],
    [
      'nodes in the create body',
      { ...header(), nodes: [] },
      err(422, 'invalid_snapshot', '/nodes: belongs in the parts of a multipart upload, not in its create body'),
    ],
    [
      'roots in the create body',
      { ...header(), roots: [] },
      err(422, 'invalid_snapshot', '/roots: belongs in the parts of a multipart upload, not in its create body'),
    ],
  ])('%s is refused', (_, body, expected) => {
    expect(asErr(errorOf(() => checkUploadHeader(body)))).toEqual(expected);
  });
});

const vertex = (id: string, node: string, deps: string[] = []) => ({ id, node, dependencies: deps });
const pkg = (id: string, deps: string[] = []) => ({
  id,
  name: id.split('@')[0],
  version: id.split('@')[1],
  relationship: 'transitive',
  dependencies: deps,
});

describe('one part', () => {
  test('any grouping of v2 items is a part, {} included; its counts come back', () => {
    expect(checkPart(1, {}).counts).toEqual({ nodes: 0, modules: 0, roots: 0, vertices: 0, edges: 0 });
    const part = {
      modules: [{ path: ':a' }],
      roots: [
        {
          module: ':a',
          context: 'c',
          dependencies: [],
          resolution: {
            root: 'r',
            vertices: [{ id: 'r', module: ':a', dependencies: ['x'] }, vertex('x', 'p@1', ['r'])],
          },
        },
      ],
      extra: 'ignored',
    };
    expect(checkPart(2, part)).toEqual({ part, counts: { nodes: 0, modules: 1, roots: 1, vertices: 2, edges: 2 } });
    expect(checkPart(3, { nodes: [pkg('p@1')] }).counts.nodes).toBe(1);
  });

  test.each([
    ['an array', [], 'part 4: /: must be a JSON object'],
    ['a string', 'x', 'part 4: /: must be a JSON object'],
    ['nodes not an array', { nodes: {} }, 'part 4: /nodes: must be array'],
    [
      'an empty vertex id',
      {
        roots: [
          {
            module: ':a',
            context: 'c',
            dependencies: [],
            resolution: {
              root: 'r',
              vertices: Array.from({ length: 8 }, (_, i) => ({
                id: i === 7 ? '' : `v${i}`,
                node: 'p@1',
                dependencies: [],
              })),
            },
          },
        ],
      },
      'part 4: /roots/0/resolution/vertices/7/id: must not be empty',
    ],
    [
      'a root without resolution',
      { roots: [{ module: ':a', context: 'c', dependencies: [] }] },
      'part 4: /roots/0/resolution: is required',
    ],
    [
      'a node without version',
      { nodes: [{ id: 'a@1', name: 'a', relationship: 'direct', dependencies: [] }] },
      'part 4: /nodes/0/version: is required',
    ],
    [
      'a bad relationship',
      { nodes: [{ ...pkg('a@1'), relationship: 'indirect' }] },
      'part 4: /nodes/0/relationship: must be one of direct, transitive',
    ],
    [
      'a team name too long',
      { modules: [{ path: ':a', teamName: 't'.repeat(201) }] },
      'part 4: /modules/0/teamName: must be at most 200 characters',
    ],
    [
      'too many attributes',
      {
        modules: [{ path: ':a', attributes: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }],
      },
      'part 4: /modules/0/attributes: must have at most 50 entries',
    ],
    [
      'a control character in a dependency',
      { nodes: [pkg('a@1', ['b\n@1'])] },
      'part 4: /nodes/0/dependencies/0: must not contain control characters (U+0000 to U+001F, U+007F)',
    ],
  ])('%s: 422 naming the part and the pointer', (_, body, message) => {
    expect(asErr(errorOf(() => checkPart(4, body)))).toEqual(err(422, 'invalid_snapshot', message));
  });

  test('one resolution may hold more vertices than a single document allows', () => {
    const vertices = [
      { id: 'r', module: ':a', dependencies: [] as string[] },
      ...Array.from({ length: 100_001 }, (_, i) => vertex(`v${i}`, 'p@1')),
    ];
    expect(
      checkPart(1, { roots: [{ module: ':a', context: 'c', dependencies: [], resolution: { root: 'r', vertices } }] })
        .counts.vertices,
    ).toBe(100_002);
  });

  test('a part over a budget on its own is 413 before its structure is looked at', () => {
    const nodes = Array.from({ length: UPLOAD_BUDGETS.nodes + 1 }, () => 'not even an object');
    expect(asErr(errorOf(() => checkPart(9, { nodes })))).toEqual(
      err(413, 'snapshot_too_large', "part 9: /nodes: 100001 nodes, over the upload's budget of 100000"),
    );
    const roots = [
      {
        resolution: {
          vertices: [
            { dependencies: { length: 1 } },
            { dependencies: Array.from({ length: UPLOAD_BUDGETS.edges + 1 }) },
          ],
        },
      },
    ];
    expect(asErr(errorOf(() => checkPart(2, { roots })))).toEqual(
      err(413, 'snapshot_too_large', "part 2: /roots: 5000001 edges, over the upload's budget of 5000000"),
    );
  });

  test('counting survives any shape', () => {
    for (const body of [
      null,
      1,
      'x',
      [],
      { nodes: 'x' },
      {
        roots: [
          null,
          1,
          { resolution: null },
          { resolution: { vertices: [null, { dependencies: 'x' }, { dependencies: [1, 2] }] } },
        ],
      },
    ]) {
      expect(() => countPart(body)).not.toThrow();
    }
    expect(countPart({ roots: [null, { resolution: { vertices: [null, { dependencies: [1, 2] }] } }] })).toEqual({
      nodes: 0,
      modules: 0,
      roots: 2,
      vertices: 2,
      edges: 2,
    });
  });
});

const counts = (c: Partial<PartCounts>): PartCounts => ({
  nodes: 0,
  modules: 0,
  roots: 0,
  vertices: 0,
  edges: 0,
  ...c,
});
const entry = (seq: number, n: number, c: Partial<PartCounts>, sha = `sha-${n}`): LedgerEntry => ({
  seq,
  n,
  sha256: sha,
  counts: counts(c),
});

describe('ledger', () => {
  test('parts are accepted in sequence order until one crosses a budget; that one is refused and counts nothing', () => {
    const entries = [
      entry(1, 1, { nodes: 60_000 }),
      entry(2, 2, { nodes: 40_000 }),
      entry(3, 3, { nodes: 1 }),
      entry(4, 4, { modules: 10 }),
    ];
    expect(decideLedger(entries)).toEqual([
      { kind: 'accepted' },
      { kind: 'accepted' },
      { kind: 'refused', budget: 'nodes', total: 100_001, limit: 100_000 },
      { kind: 'accepted' },
    ]);
    expect(acceptedTotals(entries)).toEqual(counts({ nodes: 100_000, modules: 10 }));
  });

  test('who crosses is decided by the order of the entries, not by the parts numbers', () => {
    const a = entry(1, 7, { vertices: 600_000 });
    const b = entry(2, 2, { vertices: 600_000 });
    expect(decideLedger([a, b])[1]).toEqual({
      kind: 'refused',
      budget: 'vertices',
      total: 1_200_000,
      limit: 1_000_000,
    });
    expect(
      decideLedger([
        { ...b, seq: 1 },
        { ...a, seq: 2 },
      ])[1],
    ).toMatchObject({ kind: 'refused' });
  });

  test('a refused part leaves room for a smaller one after it; a second entry of an accepted part is a duplicate', () => {
    const entries = [
      entry(1, 1, { edges: 4_000_000 }),
      entry(2, 2, { edges: 2_000_000 }),
      entry(3, 3, { edges: 900_000 }),
      entry(4, 1, { edges: 4_000_000 }, 'other'),
    ];
    const d = decideLedger(entries);
    expect(d.map((x) => x.kind)).toEqual(['accepted', 'refused', 'accepted', 'duplicate']);
    expect(d[3]).toEqual({ kind: 'duplicate', of: entries[0] });
  });

  test('a part refused once and sent again is refused again; a refused part retried after nothing changed stays refused', () => {
    const d = decideLedger([entry(1, 1, { roots: 10_000 }), entry(2, 2, { roots: 1 }), entry(3, 2, { roots: 1 })]);
    expect(d.map((x) => x.kind)).toEqual(['accepted', 'refused', 'refused']);
  });
});

/** A multi-module v2 graph of `nodes` packages (synthetic: deterministic, valid). */
const graph = (nodes: number, roots: number, modules = roots): Snapshot => ({
  ...syntheticSnapshot({ schemaVersion: 2, nodes, roots, modules, depsPerNode: 3, rootDeps: 2 }),
  suppressions: [{ cve: 'CVE-2020-1', reason: 'r' }],
  metadata: { commit: 'c0ffee' },
});

describe('merge and whole-graph checks', () => {
  test('any split merges back to the snapshot, item for item, and checks like the single document (property)', () => {
    const random = prng(7);
    for (let round = 0; round < 40; round++) {
      const s = graph(20 + Math.floor(random() * 200), 1 + Math.floor(random() * 12), 1 + Math.floor(random() * 6));
      const parts = splitInto(s, 1 + Math.floor(random() * 8), random);
      const h = headerOf(s, parts.length);
      const { snapshot } = mergeUpload(h, parts);
      expect(snapshot).toEqual(s);
      const single = validateSnapshot(JSON.parse(JSON.stringify(s)), 1);
      expect(validateUpload(h, parts).stats).toEqual(single.stats);
    }
  });

  test('the merged arrays hold the parts own objects (no copies)', () => {
    const s = graph(50, 3);
    const parts = splitInto(s, 3, prng(1));
    const { snapshot } = mergeUpload(headerOf(s, 3), parts);
    const all = parts.flatMap((p) => p.roots ?? []);
    snapshot.roots.forEach((r, i) => expect(r).toBe(all[i]));
  });

  test('a graph above the single-document limits is accepted within the budgets, with no attribution-work limit', () => {
    const s = graph(12_000, 40, 12);
    expect(() => validateSnapshot(JSON.parse(JSON.stringify(s)), 1)).toThrow(/12000 nodes, over the limit of 10000/);
    const parts = splitInto(s, 5, prng(3));
    expect(validateUpload(headerOf(s, 5), parts).stats).toMatchObject({ nodes: 12_000, roots: 40, modules: 12 });
    // attribution work: one root whose resolution holds every package, well over 50 million
    const wide = graph(9_000, 1);
    expect(() => validateSnapshot(JSON.parse(JSON.stringify(wide)), 1)).toThrow(/attribution work/);
    expect(validateUpload(headerOf(wide, 2), splitInto(wide, 2, prng(4))).stats.vertices).toBe(9_001);
  });

  /** Two parts of a small graph: part 1 modules and the first node, part 2 the rest. */
  function twoParts() {
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
    );
    const parts: PartBody[] = [
      { modules: s.modules, nodes: s.nodes.slice(0, 1) },
      { nodes: s.nodes.slice(1), roots: s.roots },
    ];
    expect(() => validateUpload(headerOf(s, 2), parts)).not.toThrow();
    return { h: headerOf(s, 2), parts, s };
  }

  test.each([
    [
      'a node id duplicated across parts',
      (p: PartBody[]) => p[1].nodes!.push({ ...p[0].nodes![0] }),
      'part 2: /nodes/2/id: duplicate node id "a@1" (also part 1: /nodes/0)',
    ],
    [
      'a module duplicated across parts',
      (p: PartBody[]) => (p[1].modules = [{ path: ':lib' }]),
      'part 2: /modules/0/path: duplicate module path ":lib" (also part 1: /modules/1)',
    ],
    [
      'a root duplicated across parts',
      (p: PartBody[]) => (p[0].roots = [{ ...p[1].roots![1] }]),
      'part 2: /roots/1: duplicate root for module ":lib" and context "runtime" (also part 1: /roots/0)',
    ],
    [
      'a vertex of a node that no part holds',
      (p: PartBody[]) => (p[1].roots![0].resolution!.vertices[3].node = 'b@2'),
      'part 2: /roots/0/resolution/vertices/3/node: unknown node "b@2"',
    ],
    [
      'a vertex of a module that no part holds',
      (p: PartBody[]) => (p[0].modules = [{ path: ':app' }]),
      'part 2: /roots/0/resolution/vertices/1/module: unknown module ":lib"',
    ],
    [
      'a dangling flat dependency',
      (p: PartBody[]) => p[0].nodes![0].dependencies.push('zz@9'),
      'part 1: /nodes/0/dependencies/1: unknown node "zz@9"',
    ],
    [
      'a dangling vertex edge',
      (p: PartBody[]) => p[1].roots![1].resolution!.vertices[0].dependencies.push('nope'),
      'part 2: /roots/1/resolution/vertices/0/dependencies/1: unknown vertex "nope"',
    ],
    [
      'a package in no resolution',
      (p: PartBody[]) =>
        p[1].nodes!.push({ id: 'd@1', name: 'd', version: '1', relationship: 'transitive', dependencies: [] }),
      'part 2: /nodes/2: package "d@1" occurs in no resolution',
    ],
    [
      'a resolution root of another module',
      (p: PartBody[]) => (p[1].roots![1].resolution!.root = 'c'),
      'part 2: /roots/1/resolution/root: vertex "c" is not a vertex of the root\'s own module ":lib"',
    ],
    [
      'an unreachable vertex',
      (p: PartBody[]) => p[1].roots![1].resolution!.vertices.push({ id: 'x', node: 'a@1', dependencies: [] }),
      'part 2: /roots/1/resolution/vertices/2: vertex "x" is not reachable from the resolution root "r"',
    ],
  ])('%s: 422 naming the part and pointer', (_, change, message) => {
    const { h, parts } = twoParts();
    change(parts);
    expect(asErr(errorOf(() => validateUpload(h, parts)))).toEqual(err(422, 'invalid_snapshot', message));
  });

  test('the first violation in snapshot order is the one reported, as for the single document', () => {
    const { h, parts, s } = twoParts();
    parts[1].nodes!.push({ ...parts[0].nodes![0] }); // duplicate node (nodes are checked before roots)
    parts[1].roots![0].resolution!.vertices[3].node = 'b@2';
    const merged = mergeUpload(h, parts).snapshot;
    const single = errorOf(() => validateSnapshot(JSON.parse(JSON.stringify({ ...s, ...merged })), 1));
    expect(single.message).toBe('/nodes/3/id: duplicate node id "a@1" (also /nodes/0)');
    expect(errorOf(() => validateUpload(h, parts)).message).toBe(
      'part 2: /nodes/2/id: duplicate node id "a@1" (also part 1: /nodes/0)',
    );
  });

  test('shortest hops over 256: 413 at the vertex, after the cross-references', () => {
    const chain: Array<[string, string, ...string[]]> = [['r', ':app', 'v0']];
    for (let i = 0; i < 257; i++) chain.push([`v${i}`, `p${i}@1`, ...(i < 256 ? [`v${i + 1}`] : [])]);
    const s = v2Snapshot([{ module: ':app', context: 'runtime', vertices: chain }]);
    const parts: PartBody[] = [{ nodes: s.nodes, modules: s.modules }, {}, { roots: s.roots }];
    expect(asErr(errorOf(() => validateUpload(headerOf(s, 3), parts)))).toEqual(
      err(
        413,
        'snapshot_too_large',
        'part 3: /roots/0/resolution/vertices/257: 257 dependency hops from the resolution root, over the limit of 256',
      ),
    );
    parts[0].nodes!.push({ ...parts[0].nodes![0] }); // a cross-reference violation is reported first
    expect(errorOf(() => validateUpload(headerOf(s, 3), parts)).status).toBe(422);
  });

  test('the counted budgets are checked again over the whole upload, naming the part that crosses', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ path: `:m${i}` }));
    const e = errorOf(() =>
      validateUpload({ ...header(), parts: 2 } as never, [{ modules: many(6_000) }, { modules: many(4_001) }]),
    );
    expect(asErr(e)).toEqual(
      err(
        413,
        'snapshot_too_large',
        "part 2: /modules: with the parts received before it, 10001 modules, over the upload's budget of 10000",
      ),
    );
  });
});

describe('errors in the parts terms', () => {
  const origin = new PartOrigin({ modules: [0, 0, 0], nodes: [0, 4, 4], roots: [0, 0, 3] });

  test('items are located in their part; parts without items of a kind are skipped', () => {
    expect(origin.locate('nodes', 0)).toEqual({ part: 1, index: 0 });
    expect(origin.locate('nodes', 3)).toEqual({ part: 1, index: 3 });
    expect(origin.locate('nodes', 4)).toEqual({ part: 3, index: 0 });
    expect(origin.locate('roots', 2)).toEqual({ part: 2, index: 2 });
    expect(origin.locate('roots', 3)).toEqual({ part: 3, index: 0 });
    expect(origin.locate('modules', 5)).toEqual({ part: 3, index: 5 });
  });

  test('only the trailing "also" is translated; a quoted value that looks like one stays as sent', () => {
    const e = new ApiError(
      422,
      'invalid_snapshot',
      '/nodes/5/id: duplicate node id "x (also /nodes/1)" (also /nodes/2)',
    );
    expect(inParts(e, origin).message).toBe(
      'part 3: /nodes/1/id: duplicate node id "x (also /nodes/1)" (also part 1: /nodes/2)',
    );
    const other = new ApiError(413, 'snapshot_too_large', '/roots: attribution work');
    expect(inParts(other, origin)).toBe(other);
  });
});

describe("the worker's deep check of a merged snapshot", () => {
  test('a graph above the single-document limits passes; what completion refuses is refused', async () => {
    const { checkPagedSnapshot } = await import('../../../src/domain/snapshot/parts-merge');
    const s = graph(12_000, 40, 12);
    expect(checkPagedSnapshot(s)).toEqual({
      nodes: 12_000,
      roots: 40,
      modules: 12,
      vertices: validateUpload(headerOf(s, 1), [s]).stats.vertices,
      edges: validateUpload(headerOf(s, 1), [s]).stats.edges,
    });
    const dup = { ...s, nodes: [...s.nodes, s.nodes[0]] };
    expect(asErr(errorOf(() => checkPagedSnapshot(dup)))).toMatchObject({
      status: 422,
      message: expect.stringMatching(/^\/nodes\/12000\/id: duplicate node id/),
    });
    const many = { ...s, modules: Array.from({ length: 10_001 }, (_, i) => ({ path: `:m${i}` })) };
    expect(asErr(errorOf(() => checkPagedSnapshot(many)))).toEqual(
      err(413, 'snapshot_too_large', "/modules: 10001 modules, over the upload's budget of 10000"),
    );
  });
});
