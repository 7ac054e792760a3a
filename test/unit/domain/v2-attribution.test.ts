// v2 attribution on small hand-checked graphs (docs/scanning.md, "Paths and attribution"): paths, relationship,
// origins, separate vertices, cycles, module order of attributions, the budget, and the shard plan.
import { validateSnapshot } from '../../../src/domain/snapshot';
import { AttributionLimitExceeded } from '../../../src/domain/attribution';
import { buildAttributionGraph } from '../../../src/domain/attribution/v2-graph';
import {
  assembleV2,
  attributeInline,
  BATCH_SIZE,
  checkShardBudget,
  planBatches,
  planShards,
  vulnerableMask,
} from '../../../src/domain/attribution/v2-assemble';
import { syntheticSnapshot } from '../../../src/domain/snapshot/synthetic';
import { walkShard } from '../../../src/domain/attribution/v2-walk';
import type { FindingAttribution, Snapshot } from '../../../src/shared/types';
import { v2Snapshot, type RootSpec } from '../../helpers/v2';

const STRATEGIES = ['backward', 'forward', 'auto'] as const;

/** Attributes with each strategy of the walk (forward where it applies): all must agree. */
function attribute(s: Snapshot, vulnerable: string[], order: string[] = []) {
  validateSnapshot(s, JSON.stringify(s).length); // every fixture is a legal upload
  const built = buildAttributionGraph(s);
  const [first, ...others] = STRATEGIES.map((strategy) =>
    attributeInline(s, built, vulnerable, new Map(order.map((m, i) => [m, i])), strategy),
  );
  for (const other of others) expect(other).toEqual(first);
  return first;
}

/** How many resolutions each strategy walked when the forward one is asked for. */
function forwardUse(s: Snapshot, vulnerable: string[]) {
  const built = buildAttributionGraph(s);
  const resolutions = Int32Array.from({ length: s.roots.length }, (_, i) => i);
  const out = walkShard({
    graph: built.graph,
    resolutions,
    vulnerable: vulnerableMask(built, vulnerable),
    maxSegments: 1e9,
    maxCharacters: 1e9,
    strategy: 'forward',
  });
  return { forward: out.forward, backward: out.backward };
}

const app = (vertices: RootSpec['vertices'], context = 'runtimeClasspath'): RootSpec => ({
  module: ':app',
  context,
  vertices,
});

test('diamond: the path through the smaller label, one origin per introducing dependency', () => {
  const s = v2Snapshot([
    app([
      ['r', ':app', 'a', 'b'],
      ['a', 'a@1', 'c'],
      ['b', 'b@1', 'c'],
      ['c', 'c@1'],
    ]),
  ]);
  const r = attribute(s, ['c@1']);
  expect(r.attributions.get('c@1')).toEqual([
    {
      module: ':app',
      context: 'runtimeClasspath',
      relationship: 'transitive',
      path: [':app', 'a@1', 'c@1'],
      origins: [
        { module: ':app', dependency: 'a@1', path: [':app', 'a@1', 'c@1'] },
        { module: ':app', dependency: 'b@1', path: [':app', 'b@1', 'c@1'] },
      ],
    },
  ]);
  expect(r.paths.get('c@1')).toEqual([':app', 'a@1', 'c@1']);
  expect(forwardUse(s, ['c@1'])).toEqual({ forward: 1, backward: 0 });
});

test('forward strategy: the root path is the smallest over its introductions, module prefixes included', () => {
  // Four ways of length 4 to v: :app a@1 c@1 v@1, :app a@1 d@1 v@1, :app :lib a@2 v@1 and :app :lib b@1 v@1.
  // Element by element ':lib' sorts before 'a@1' (':' < 'a'), then a@2 before b@1; the origin through a@1 takes c@1.
  const s = v2Snapshot([
    app([
      ['r', ':app', 'lib', 'a'],
      ['lib', ':lib', 'b', 'a2'],
      ['a', 'a@1', 'd', 'c'],
      ['a2', 'a@2', 'v'],
      ['b', 'b@1', 'v'],
      ['c', 'c@1', 'v'],
      ['d', 'd@1', 'v'],
      ['v', 'v@1'],
    ]),
  ]);
  const [a] = attribute(s, ['v@1']).attributions.get('v@1')!;
  expect(a.path).toEqual([':app', ':lib', 'a@2', 'v@1']);
  expect(a.origins).toEqual([
    { module: ':app', dependency: 'a@1', path: [':app', 'a@1', 'c@1', 'v@1'] },
    { module: ':lib', dependency: 'a@2', path: [':lib', 'a@2', 'v@1'] },
    { module: ':lib', dependency: 'b@1', path: [':lib', 'b@1', 'v@1'] },
  ]);
  expect(forwardUse(s, ['v@1'])).toEqual({ forward: 1, backward: 0 });
});

test('forward strategy: a shorter way through a module beats a smaller longer one; where it does not apply, backward', () => {
  const s = v2Snapshot([
    app([
      ['r', ':app', 'z', 'a'],
      ['z', ':z', 'y'],
      ['y', 'y@1', 'v'],
      ['a', 'a@1', 'b'],
      ['b', 'b@1', 'c'],
      ['c', 'c@1', 'v'],
      ['v', 'v@1'],
    ]),
    // duplicate labels (two vertices of x@1): the forward strategy does not apply
    app(
      [
        ['r', ':app', 'x1', 'x2'],
        ['x1', 'x@1', 'v'],
        ['x2', 'x@1'],
        ['v', 'v@1'],
      ],
      'other',
    ),
    // a package depending on a module vertex: nor here
    app(
      [
        ['r', ':app', 'p'],
        ['p', 'p@1', 'm'],
        ['m', ':m', 'v'],
        ['v', 'v@1'],
      ],
      'third',
    ),
  ]);
  const r = attribute(s, ['v@1']).attributions.get('v@1')!;
  expect(r.map((a) => a.context)).toEqual(['other', 'runtimeClasspath', 'third']);
  expect(r.map((a) => a.path)).toEqual([
    [':app', 'x@1', 'v@1'],
    [':app', ':z', 'y@1', 'v@1'],
    [':app', 'p@1', ':m', 'v@1'],
  ]);
  expect(r[1].origins.map((o) => o.path)).toEqual([
    [':app', 'a@1', 'b@1', 'c@1', 'v@1'],
    [':z', 'y@1', 'v@1'],
  ]);
  expect(forwardUse(s, ['v@1'])).toEqual({ forward: 1, backward: 2 });
});

test('a direct dependency is direct, and a longer introduction beside it is still an origin', () => {
  const s = v2Snapshot([
    app([
      ['r', ':app', 'x', 'v'],
      ['x', 'x@1', 'v'],
      ['v', 'v@1'],
    ]),
  ]);
  const [a] = attribute(s, ['v@1']).attributions.get('v@1')!;
  expect(a.relationship).toBe('direct');
  expect(a.path).toEqual([':app', 'v@1']);
  expect(a.origins).toEqual([
    { module: ':app', dependency: 'v@1', path: [':app', 'v@1'] },
    { module: ':app', dependency: 'x@1', path: [':app', 'x@1', 'v@1'] },
  ]);
});

test('a module consumer: the path runs through the module, the origin is the module that declares the dependency', () => {
  // :lib has no root of its own: it only appears as a vertex in the resolution of :app.
  const s = v2Snapshot(
    [
      app([
        ['r', ':app', 'lib', 'y'],
        ['lib', ':lib', 'x'],
        ['x', 'x@1', 'v'],
        ['y', 'y@1'],
        ['v', 'v@1'],
      ]),
    ],
    [
      { path: ':app', dependencies: [':lib'] },
      { path: ':lib', dependencies: [] },
    ],
  );
  const [a] = attribute(s, ['v@1'], [':lib', ':app']).attributions.get('v@1')!;
  expect(a).toEqual({
    module: ':app',
    context: 'runtimeClasspath',
    relationship: 'transitive',
    path: [':app', ':lib', 'x@1', 'v@1'],
    origins: [{ module: ':lib', dependency: 'x@1', path: [':lib', 'x@1', 'v@1'] }],
  });
});

test('a direct path beside origins from other modules', () => {
  const s = v2Snapshot([
    app([
      ['r', ':app', 'lib', 'v'],
      ['lib', ':lib', 'x'],
      ['x', 'x@1', 'v'],
      ['v', 'v@1'],
    ]),
  ]);
  const [a] = attribute(s, ['v@1'], [':lib', ':app']).attributions.get('v@1')!;
  expect(a.relationship).toBe('direct');
  expect(a.path).toEqual([':app', 'v@1']);
  // origins in module order (:lib before :app), then by dependency
  expect(a.origins).toEqual([
    { module: ':lib', dependency: 'x@1', path: [':lib', 'x@1', 'v@1'] },
    { module: ':app', dependency: 'v@1', path: [':app', 'v@1'] },
  ]);
});

test('a package introduced by two modules through separate vertices of one package id: one origin per module', () => {
  const s = v2Snapshot([
    app([
      ['r', ':app', 'l1', 'l2'],
      ['l1', ':lib1', 'x1'],
      ['l2', ':lib2', 'x2'],
      ['x1', 'x@1', 'v'],
      ['x2', 'x@1', 'w'],
      ['w', 'w@1', 'v'],
      ['v', 'v@1'],
    ]),
  ]);
  const [a] = attribute(s, ['v@1']).attributions.get('v@1')!;
  expect(a.path).toEqual([':app', ':lib1', 'x@1', 'v@1']);
  expect(a.origins).toEqual([
    { module: ':lib1', dependency: 'x@1', path: [':lib1', 'x@1', 'v@1'] },
    { module: ':lib2', dependency: 'x@1', path: [':lib2', 'x@1', 'w@1', 'v@1'] },
  ]);
});

test('two variants of one package with different dependencies stay apart: no edge leaks between them', () => {
  // a2 (a@1 without dependencies) is direct; only a1 (a@1 → v) reaches v, through b. Merged by package id, the
  // path would be [:app, a@1, v@1] and a@1 an origin; kept apart it is neither.
  const s = v2Snapshot([
    app([
      ['r', ':app', 'a2', 'b'],
      ['a2', 'a@1'],
      ['b', 'b@1', 'a1'],
      ['a1', 'a@1', 'v'],
      ['v', 'v@1'],
    ]),
  ]);
  const [a] = attribute(s, ['v@1']).attributions.get('v@1')!;
  expect(a.path).toEqual([':app', 'b@1', 'a@1', 'v@1']);
  expect(a.origins).toEqual([{ module: ':app', dependency: 'b@1', path: [':app', 'b@1', 'a@1', 'v@1'] }]);
});

test('the same package in two configurations: each resolution keeps its own edges', () => {
  const s = v2Snapshot([
    app(
      [
        ['r', ':app', 'a'],
        ['a', 'a@1', 'v'],
        ['v', 'v@1'],
      ],
      'compileClasspath',
    ),
    app(
      [
        ['r', ':app', 'a'],
        ['a', 'a@1'],
      ],
      'testCompileClasspath',
    ),
  ]);
  const r = attribute(s, ['v@1', 'a@1']);
  expect(r.attributions.get('v@1')!.map((a) => a.context)).toEqual(['compileClasspath']);
  expect(r.attributions.get('a@1')!.map((a) => a.context)).toEqual(['compileClasspath', 'testCompileClasspath']);
});

test('ties on equal labels are carried together: the smallest whole path wins', () => {
  // Two vertices labelled a@1 at the same distance: through the second the rest of the path is smaller.
  const s = v2Snapshot([
    app([
      ['r', ':app', 'a1', 'a2'],
      ['a1', 'a@1', 'p'],
      ['a2', 'a@1', 'o'],
      ['p', 'p@1', 'v'],
      ['o', 'o@1', 'v'],
      ['v', 'v@1'],
    ]),
  ]);
  const [a] = attribute(s, ['v@1']).attributions.get('v@1')!;
  expect(a.path).toEqual([':app', 'a@1', 'o@1', 'v@1']);
  expect(a.origins).toEqual([{ module: ':app', dependency: 'a@1', path: [':app', 'a@1', 'o@1', 'v@1'] }]);
});

test('cycles between packages and between modules end, with shortest paths', () => {
  const s = v2Snapshot([
    app([
      ['r', ':app', 'lib', 'a'],
      ['lib', ':lib', 'r2'],
      ['r2', ':app'],
      ['a', 'a@1', 'b'],
      ['b', 'b@1', 'a', 'v'],
      ['v', 'v@1', 'a'],
    ]),
  ]);
  const [a] = attribute(s, ['v@1', 'a@1']).attributions.get('v@1')!;
  expect(a.path).toEqual([':app', 'a@1', 'b@1', 'v@1']);
  expect(a.origins).toEqual([{ module: ':app', dependency: 'a@1', path: [':app', 'a@1', 'b@1', 'v@1'] }]);
});

test('attributions follow the module order, then the context; Finding.path is the shortest of them', () => {
  const s = v2Snapshot(
    [
      {
        module: ':web',
        context: 'runtime',
        vertices: [
          ['r', ':web', 'core'],
          ['core', ':core', 'x'],
          ['x', 'x@1', 'v'],
          ['v', 'v@1'],
        ],
      },
      {
        module: ':core',
        context: 'test',
        vertices: [
          ['r', ':core', 'x'],
          ['x', 'x@1', 'v'],
          ['v', 'v@1'],
        ],
      },
      {
        module: ':core',
        context: 'main',
        vertices: [
          ['r', ':core', 'x'],
          ['x', 'x@1', 'v'],
          ['v', 'v@1'],
        ],
      },
    ],
    [
      { path: ':core', dependencies: [] },
      { path: ':web', dependencies: [':core'] },
    ],
  );
  const r = attribute(s, ['v@1'], [':core', ':web']);
  expect(r.attributions.get('v@1')!.map((a) => `${a.module}/${a.context}`)).toEqual([
    ':core/main',
    ':core/test',
    ':web/runtime',
  ]);
  expect(r.paths.get('v@1')).toEqual([':core', 'x@1', 'v@1']);
});

test('a package no vulnerable match names is not attributed; a resolution without it contributes nothing', () => {
  const s = v2Snapshot([
    app([
      ['r', ':app', 'a'],
      ['a', 'a@1'],
    ]),
    {
      module: ':b',
      context: 'c',
      vertices: [
        ['r', ':b', 'v'],
        ['v', 'v@1'],
      ],
    },
  ]);
  const r = attribute(s, ['v@1']);
  expect([...r.attributions.keys()]).toEqual(['v@1']);
  expect(r.attributions.get('v@1')!.map((a) => a.module)).toEqual([':b']);
});

test('derived paths over the budget fail with AttributionLimitExceeded', () => {
  const s = v2Snapshot([
    app([
      ['r', ':app', 'v'],
      ['v', 'v@1'],
    ]),
  ]);
  const built = buildAttributionGraph(s);
  const vulnerable = vulnerableMask(built, ['v@1']);
  const out = walkShard({
    graph: built.graph,
    resolutions: Int32Array.of(0),
    vulnerable,
    maxSegments: 3,
    maxCharacters: 1e9,
  });
  expect(out.overBudget).toBe(true); // path (2) + origin path (2) = 4 segments
  expect(() => checkShardBudget([out])).toThrow(AttributionLimitExceeded);
  const ok = walkShard({
    graph: built.graph,
    resolutions: Int32Array.of(0),
    vulnerable,
    maxSegments: 4,
    maxCharacters: 1e9,
  });
  expect([ok.overBudget, ok.segments, ok.characters]).toEqual([false, 4, 2 * ':app'.length + 2 * 'v@1'.length]);
  expect(() => checkShardBudget([ok, ok].map((o) => ({ ...o, segments: 600_000 })))).toThrow(AttributionLimitExceeded);
});

test('the shard plan covers every resolution once, in order, in at most the shards asked for, whatever the sizes', () => {
  const roots: RootSpec[] = Array.from({ length: 37 }, (_, i) => ({
    module: `:m${String(i).padStart(2, '0')}`,
    context: 'c',
    vertices: [
      ['r', `:m${String(i).padStart(2, '0')}`, ...Array.from({ length: (i * 7) % 5 }, (_, k) => `p${k}`)],
      ...Array.from({ length: (i * 7) % 5 }, (_, k) => [`p${k}`, `p${k}@1`] as [string, string]),
    ],
  }));
  const g = buildAttributionGraph(v2Snapshot(roots)).graph;
  for (const max of [1, 2, 5, 16, 37, 100]) {
    const shards = planShards(g, max);
    expect(shards.length).toBeLessThanOrEqual(Math.min(max, 37));
    expect(shards.flatMap((s) => [...s])).toEqual(Array.from({ length: 37 }, (_, i) => i));
    expect(planShards(g, max)).toEqual(shards);
  }
});

test('batches: every pending shard once, in order, consecutive, at least one per thread when there are enough', () => {
  const roots: RootSpec[] = Array.from({ length: 40 }, (_, i) => ({
    module: `:m${i}`,
    context: 'c',
    vertices: [
      ['r', `:m${i}`, 'a'],
      ['a', 'a@1'],
    ],
  }));
  const g = buildAttributionGraph(v2Snapshot(roots)).graph;
  const shards = planShards(g, 32);
  const all = shards.map((_, k) => k);
  for (const [pending, threads] of [
    [all, 1],
    [all, 2],
    [all, 8],
    [[3, 4, 9, 30], 2],
    [[5], 4],
    [[], 2],
  ] as [number[], number][]) {
    const batches = planBatches(g, shards, pending, threads);
    expect(batches.flat()).toEqual(pending);
    expect(batches.every((b) => b.length > 0)).toBe(true);
    expect(batches.length).toBe(Math.min(pending.length, threads)); // a small graph: the thread count decides
  }
  // A large one: batches of about BATCH_SIZE vertices + edges.
  const big = buildAttributionGraph(
    syntheticSnapshot({
      schemaVersion: 2,
      nodes: 4000,
      roots: 400,
      packagesPerRoot: 60,
      depsPerNode: 6,
      rootDeps: 3,
      project: 'b',
    }),
  ).graph;
  const bigShards = planShards(big, 32);
  const size = big.label.length + big.targets.length;
  const batches = planBatches(
    big,
    bigShards,
    bigShards.map((_, k) => k),
    2,
  );
  expect(batches.length).toBe(Math.ceil(size / BATCH_SIZE));
  expect(batches.flat()).toEqual(bigShards.map((_, k) => k));
});

test('sharded walks assemble to exactly the inline result', () => {
  const roots: RootSpec[] = Array.from({ length: 12 }, (_, i) => ({
    module: `:m${i}`,
    context: i % 2 ? 'runtime' : 'compile',
    vertices: [
      ['r', `:m${i}`, 'a', ...(i % 3 ? ['b'] : [])],
      ['a', 'a@1', 'v'],
      ['b', 'b@1', 'a', 'w'],
      ['v', 'v@1'],
      ['w', 'w@2', 'v'],
    ],
  }));
  const s = v2Snapshot(roots);
  const built = buildAttributionGraph(s);
  const order = new Map<string, number>();
  const whole = attributeInline(s, built, ['v@1', 'w@2'], order);
  const vulnerable = vulnerableMask(built, ['v@1', 'w@2']);
  for (const strategy of STRATEGIES) {
    const parts = planShards(built.graph, 5).map(
      (resolutions) =>
        walkShard({ graph: built.graph, resolutions, vulnerable, maxSegments: 1e6, maxCharacters: 8e6, strategy }).data,
    );
    expect(assembleV2(s, built.labels, parts.reverse(), order)).toEqual(whole);
  }
});

// ------------------------------------------------------------------------------------------------------------------
// Property: on random graphs the walk equals a plain reference written another way (forward DP over BFS layers with
// whole string paths, per source), for paths and origins alike.
import fc from 'fast-check';

const cmpPath = (a: string[], b: string[]) => {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
};

/** Smallest shortest label path from `from` to any vertex labelled `target`, or null. */
function reference(vertices: RootSpec['vertices'], from: string, target: string): string[] | null {
  const byId = new Map(vertices.map((v) => [v[0], v]));
  let layer = new Map<string, string[]>([[from, [byId.get(from)![1]]]]);
  const seen = new Set([from]);
  while (layer.size) {
    const hits = [...layer.entries()].filter(([id]) => byId.get(id)![1] === target).map(([, p]) => p);
    if (hits.length) return hits.sort(cmpPath)[0];
    const next = new Map<string, string[]>();
    for (const [id, p] of layer) {
      for (const d of byId.get(id)!.slice(2)) {
        if (seen.has(d)) continue;
        const cand = [...p, byId.get(d)![1]];
        const prev = next.get(d);
        if (!prev || cmpPath(cand, prev) < 0) next.set(d, cand);
      }
    }
    for (const id of next.keys()) seen.add(id);
    layer = next;
  }
  return null;
}

const randomResolution = fc
  .record({
    packages: fc.integer({ min: 1, max: 9 }),
    modules: fc.integer({ min: 0, max: 3 }),
    edges: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 40 }),
    labels: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 9, maxLength: 9 }),
  })
  .map(({ packages, modules, edges, labels }) => {
    // vertex 0 is the root module; 1..modules other modules; then packages whose labels repeat (variants)
    const ids = Array.from({ length: 1 + modules + packages }, (_, i) => `v${i}`);
    const label = (i: number) => (i === 0 ? ':app' : i <= modules ? `:m${i}` : `p${labels[i - modules - 1]}@1`);
    const deps = ids.map(() => new Set<string>());
    for (const [a, b] of edges) deps[a % ids.length].add(ids[b % ids.length]);
    // keep every vertex reachable from the root (rule 3): chain the unreached ones from the root
    for (let i = 1; i < ids.length; i++) if (i % 2 === 1) deps[0].add(ids[i]);
    for (let i = 2; i < ids.length; i += 2) deps[i - 1].add(ids[i]);
    return ids.map(
      (id, i) => [id, label(i), ...[...deps[i]].filter((d) => d !== id || i > modules)] as RootSpec['vertices'][number],
    );
  });

/** The attribution of `target` in the one resolution of `vertices` (root v0) equals the reference. */
function expectReference(vertices: RootSpec['vertices'], target: string, got: FindingAttribution | undefined): void {
  const want = reference(vertices, 'v0', target);
  if (!want) return expect(got).toBeUndefined();
  expect(got!.path).toEqual(want);
  const origins = new Map<string, string[]>();
  for (const m of vertices.filter((v) => v[1].startsWith(':'))) {
    for (const d of m.slice(2)) {
      const dv = vertices.find((v) => v[0] === d)!;
      if (dv[1].startsWith(':')) continue;
      const rest = reference(vertices, d, target);
      if (!rest) continue;
      const key = `${m[1]} ${dv[1]}`;
      const cand = [m[1], ...rest];
      const prev = origins.get(key);
      if (!prev || cmpPath(cand, prev) < 0) origins.set(key, cand);
    }
  }
  const expected = [...origins.values()].sort((a, b) =>
    a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0,
  );
  expect(got!.origins.map((o) => o.path)).toEqual(expected);
}

test('property: paths and origins equal the forward-DP reference on random graphs with variants and module vertices', () => {
  fc.assert(
    fc.property(randomResolution, fc.integer({ min: 0, max: 4 }), (vertices, t) => {
      const target = `p${t}@1`;
      if (!vertices.some((v) => v[1] === target)) return;
      const s = v2Snapshot([app(vertices)]);
      const built = buildAttributionGraph(s);
      for (const strategy of STRATEGIES)
        expectReference(
          vertices,
          target,
          attributeInline(s, built, [target], new Map(), strategy).attributions.get(target)?.[0],
        );
    }),
    { numRuns: 500 },
  );
});

/** Random resolutions the forward strategy applies to: distinct labels, no package depending on a module vertex. */
const forwardResolution = fc
  .record({
    packages: fc.integer({ min: 1, max: 12 }),
    modules: fc.integer({ min: 0, max: 3 }),
    edges: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 60 }),
    parents: fc.array(fc.nat(), { minLength: 16, maxLength: 16 }),
  })
  .map(({ packages, modules, edges, parents }) => {
    const n = 1 + modules + packages;
    const ids = Array.from({ length: n }, (_, i) => `v${i}`);
    const isModule = (i: number) => i <= modules;
    // labels shuffled against the vertex order, so that label order and discovery order differ
    const label = (i: number) =>
      i === 0 ? ':app' : isModule(i) ? `:m${(i * 5) % 7}` : `p${((i - modules - 1) * 7) % 13}@1`;
    const deps = ids.map(() => new Set<number>());
    const link = (a: number, b: number) => {
      if (a === b && isModule(a)) return;
      if (!isModule(a) && isModule(b)) return;
      deps[a].add(b);
    };
    for (const [a, b] of edges) link(a % n, b % n);
    // every vertex reachable from the root: an edge from an earlier vertex (the root for a module under a package)
    for (let i = 1; i < n; i++) {
      const p = parents[i] % i;
      link(isModule(i) && !isModule(p) ? 0 : p, i);
    }
    return ids.map((id, i) => [id, label(i), ...[...deps[i]].map((d) => ids[d])] as RootSpec['vertices'][number]);
  });

test('property: on resolutions both strategies apply to, forward and backward write the same output, equal to the reference', () => {
  fc.assert(
    fc.property(
      forwardResolution,
      forwardResolution,
      fc.uniqueArray(fc.integer({ min: 0, max: 12 }), { maxLength: 6 }),
      (one, two, picked) => {
        const targets = picked.map((t) => `p${t}@1`);
        const s = v2Snapshot([app(one, 'first'), app(two, 'second')]);
        const built = buildAttributionGraph(s);
        const vulnerable = vulnerableMask(built, targets);
        const walk = (strategy: 'forward' | 'backward') =>
          walkShard({
            graph: built.graph,
            resolutions: Int32Array.of(0, 1),
            vulnerable,
            maxSegments: 1e9,
            maxCharacters: 1e9,
            strategy,
          });
        const forward = walk('forward');
        const backward = walk('backward');
        expect(forward.backward).toBe(0);
        expect(Array.from(forward.data)).toEqual(Array.from(backward.data));
        expect([forward.segments, forward.characters]).toEqual([backward.segments, backward.characters]);
        const result = assembleV2(s, built.labels, [forward.data], new Map());
        for (const target of targets) {
          if (!one.some((v) => v[1] === target)) continue;
          expectReference(
            one,
            target,
            result.attributions.get(target)?.find((a) => a.context === 'first'),
          );
        }
      },
    ),
    { numRuns: 500 },
  );
});
