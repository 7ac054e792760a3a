// Paged scans' attribution: assembled one package at a time from shard outputs, it equals the
// inline assembly (assembleV2) on random multi-root graphs; the scope index and per-module counts equal a plain
// computation over the attributions; attribution ids are deterministic; chunks cover their items.
import fc from 'fast-check';
import { buildAttributionGraph } from '../../../src/domain/attribution/v2-graph';
import { assembleV2, planShards, vulnerableMask } from '../../../src/domain/attribution/v2-assemble';
import { walkShard } from '../../../src/domain/attribution/v2-walk';
import {
  assemblePackage,
  attributionCountOf,
  indexShardOutputs,
  shortestPaths,
} from '../../../src/domain/attribution/v2-paged';
import { moduleRank, orderModules } from '../../../src/domain/attribution/module-order';
import {
  attributionId,
  attributionInScope,
  indexedModuleCounts,
  inlineModuleCounts,
  listItem,
  pathItem,
  ScopeIndexBuilder,
  type Scope,
  type View,
} from '../../../src/domain/attribution/views';
import { chunkStarts } from '../../../src/storage/attributions';
import { validateSnapshot } from '../../../src/domain/snapshot';
import type { FindingAttribution, Severity, Snapshot } from '../../../src/shared/types';
import { v2Snapshot, type RootSpec } from '../../helpers/v2';

const MODULES = [':app', ':lib', ':web', ':core'];

/** A random resolution rooted at `module`: other module vertices and package vertices (labels repeat: variants). */
const randomRoot = (module: string, context: string) =>
  fc
    .record({
      packages: fc.integer({ min: 1, max: 8 }),
      modules: fc.array(fc.constantFrom(...MODULES.filter((m) => m !== module)), { maxLength: 2 }),
      edges: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 30 }),
      labels: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 8, maxLength: 8 }),
    })
    .map(({ packages, modules, edges, labels }): RootSpec => {
      const mods = [...new Set(modules)];
      const ids = Array.from({ length: 1 + mods.length + packages }, (_, i) => `v${i}`);
      const label = (i: number) =>
        i === 0 ? module : i <= mods.length ? mods[i - 1] : `p${labels[i - mods.length - 1]}@1`;
      const deps = ids.map(() => new Set<string>());
      for (const [a, b] of edges) if (a % ids.length !== b % ids.length) deps[a % ids.length].add(ids[b % ids.length]);
      for (let i = 1; i < ids.length; i++) deps[i % 2 === 1 ? 0 : i - 1].add(ids[i]); // every vertex reachable
      return {
        module,
        context,
        vertices: ids.map((id, i) => [id, label(i), ...deps[i]] as RootSpec['vertices'][number]),
      };
    });

const randomSnapshot = fc
  .array(fc.tuple(fc.constantFrom(...MODULES), fc.constantFrom('compile', 'runtime', 'test')), {
    minLength: 1,
    maxLength: 9,
  })
  .chain((pairs) => {
    const unique = [...new Map(pairs.map(([m, c]) => [`${m} ${c}`, [m, c] as const])).values()];
    return fc.tuple(
      fc.tuple(...unique.map(([m, c]) => randomRoot(m, c))),
      fc.array(fc.constantFrom('web', 'platform', null), { minLength: 4, maxLength: 4 }),
      fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
    );
  })
  .map(([roots, teams, deps]) => {
    // modules: every module of the graph, with random teams and dependencies (cycles allowed)
    const modules = MODULES.map((path, i) => ({
      path,
      dependencies: deps[i] % 3 === 0 ? [] : [MODULES[(i + deps[i]) % 4]].filter((d) => d !== path),
      teamName: teams[i],
    }));
    return v2Snapshot(roots, modules);
  });

function pagedOf(s: Snapshot, vulnerable: string[], shardCount: number) {
  const built = buildAttributionGraph(s);
  const mask = vulnerableMask(built, vulnerable);
  const outputs = planShards(built.graph, shardCount).map(
    (resolutions) =>
      walkShard({ graph: built.graph, resolutions, vulnerable: mask, maxSegments: Infinity, maxCharacters: Infinity })
        .data,
  );
  return { built, index: indexShardOutputs(outputs), outputs };
}

test('property: assembled package by package from any shard plan, attributions and Finding.path equal assembleV2', () => {
  fc.assert(
    fc.property(
      randomSnapshot,
      fc.uniqueArray(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 4 }),
      fc.integer({ min: 1, max: 6 }),
      (s, picked, shardCount) => {
        validateSnapshot(s, JSON.stringify(s).length); // a legal upload
        const vulnerable = picked.map((p) => `p${p}@1`);
        const rank = moduleRank(orderModules(s.modules!));
        const { built, index, outputs } = pagedOf(s, vulnerable, shardCount);
        const whole = assembleV2(s, built.labels, outputs, rank);
        const paths = shortestPaths(index, built.labels);
        expect(new Map([...paths].sort())).toEqual(new Map([...whole.paths].sort()));
        for (const id of vulnerable) {
          const label = built.labelOf.get(id);
          const got = label === undefined ? [] : assemblePackage(s.roots, built.labels, index, label, rank);
          expect(got).toEqual(whole.attributions.get(id) ?? []);
          if (label !== undefined) expect(attributionCountOf(index, label)).toBe(got.length);
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('an empty shard output indexes nothing; a package no shard attributes assembles to []', () => {
  const index = indexShardOutputs([new Int32Array(0), new Int32Array(0)]);
  expect(index.records.size).toBe(0);
  expect(assemblePackage([], [], index, 3, new Map())).toEqual([]);
  expect(shortestPaths(index, [])).toEqual(new Map());
});

test('shortest path ties are broken element by element, as for inline scans', () => {
  // two roots reach v@1 in two hops: :a through b@1, :b through a@1; the path of :b sorts first (':a' < ':b')
  const s = v2Snapshot([
    {
      module: ':b',
      context: 'c',
      vertices: [
        ['r', ':b', 'a'],
        ['a', 'a@1', 'v'],
        ['v', 'v@1'],
      ],
    },
    {
      module: ':a',
      context: 'c',
      vertices: [
        ['r', ':a', 'b'],
        ['b', 'b@1', 'v'],
        ['v', 'v@1'],
      ],
    },
  ]);
  const { built, index } = pagedOf(s, ['v@1'], 2);
  expect(shortestPaths(index, built.labels).get('v@1')).toEqual([':a', 'b@1', 'v@1']);
  expect(
    assemblePackage(
      s.roots,
      built.labels,
      index,
      built.labelOf.get('v@1')!,
      new Map([
        [':b', 0],
        [':a', 1],
      ]),
    ).map((a) => a.module),
  ).toEqual([':b', ':a']);
});

// ------------------------------------------------------------------------------------------------------ views --

const attr = (module: string, context: string, origins: string[]): FindingAttribution => ({
  module,
  context,
  relationship: 'transitive',
  path: [module, 'x@1'],
  origins: origins.map((m) => ({ module: m, dependency: 'x@1', path: [m, 'x@1'] })),
});

test('attribution ids: att_ + 24 hex, the same for the same package, module and context, different otherwise', () => {
  const id = attributionId('x@1', ':app', 'runtime');
  expect(id).toMatch(/^att_[0-9a-f]{24}$/);
  expect(attributionId('x@1', ':app', 'runtime')).toBe(id);
  expect(
    new Set([
      id,
      attributionId('x@2', ':app', 'runtime'),
      attributionId('x@1', ':lib', 'runtime'),
      attributionId('x@1', ':app', 'test'),
    ]).size,
  ).toBe(4);
  // the separator keeps ("a", "b\0c") and ("a\0b", "c") apart
  expect(attributionId('x@1', ':a', 'b c')).not.toBe(attributionId('x@1', ':a b', 'c'));
});

test("list and path items: the list item has the id and no paths; the path item is exactly the attribution's paths", () => {
  const a = attr(':app', 'runtime', [':lib', ':app']);
  expect(listItem('x@1', a)).toEqual({
    id: attributionId('x@1', ':app', 'runtime'),
    module: ':app',
    context: 'runtime',
    relationship: 'transitive',
    origins: [
      { module: ':lib', dependency: 'x@1' },
      { module: ':app', dependency: 'x@1' },
    ],
  });
  expect(pathItem(a)).toEqual({ path: a.path, origins: a.origins });
});

const teams: Record<string, string | null> = { ':app': 'web', ':lib': 'platform', ':web': 'web', ':core': null };
const teamOf = (m: string) => teams[m];

const randomFindings = fc.array(
  fc.record({
    severity: fc.constantFrom<Severity>('critical', 'high', 'medium', 'low'),
    suppressed: fc.boolean(),
    attributions: fc.array(
      fc.tuple(
        fc.constantFrom(...MODULES),
        fc.constantFrom('c1', 'c2'),
        fc.array(fc.constantFrom(...MODULES), { minLength: 1, maxLength: 3 }),
      ),
      { maxLength: 5 },
    ),
  }),
  { maxLength: 12 },
);

test('property: the scope index lists, per view and module or team, exactly the findings in scope with their attributions in it', () => {
  fc.assert(
    fc.property(randomFindings, (raw) => {
      const findings = raw.map((f) => ({
        ...f,
        attributions: [...new Map(f.attributions.map(([m, c, o]) => [`${m} ${c}`, attr(m, c, o)])).values()],
      }));
      const builder = new ScopeIndexBuilder(teamOf);
      findings.forEach((f, i) => builder.add([i], f.attributions));
      const entries = builder.entries();
      const scopes: Array<{ scope: Scope; kind: 'module' | 'team'; key: string }> = [];
      for (const view of ['affected', 'introduced'] as View[]) {
        for (const m of MODULES) scopes.push({ scope: { view, module: m }, kind: 'module', key: m });
        for (const t of ['web', 'platform']) scopes.push({ scope: { view, team: t }, kind: 'team', key: t });
      }
      for (const { scope, kind, key } of scopes) {
        const want: number[] = [];
        findings.forEach((f, i) => {
          const n = f.attributions.filter((a) => attributionInScope(a, scope, teamOf)).length;
          if (n) want.push(i, n);
        });
        const entry = entries.find((e) => e.view === scope.view && e.kind === kind && e.key === key);
        expect(entry ? Array.from(entry.pairs) : []).toEqual(want);
      }
      // nothing listed for a scope that selects nothing (an unassigned team is no team)
      expect(entries.every((e) => e.pairs.length > 0 && e.key !== null)).toBe(true);
      const modules = MODULES.map((path) => ({ path }));
      expect(indexedModuleCounts(entries, findings, modules)).toEqual(inlineModuleCounts(findings, modules));
    }),
    { numRuns: 300 },
  );
});

test('findings sharing a package share its attributions: each listed at its own position, positions ascending', () => {
  const builder = new ScopeIndexBuilder(teamOf);
  builder.add([4, 1], [attr(':app', 'c', [':lib']), attr(':web', 'c', [':lib'])]);
  builder.add([2], [attr(':app', 'c', [':app'])]);
  const byKey = new Map(builder.entries().map((e) => [`${e.view} ${e.kind} ${e.key}`, Array.from(e.pairs)]));
  expect(byKey.get('affected module :app')).toEqual([1, 1, 2, 1, 4, 1]);
  expect(byKey.get('affected team web')).toEqual([1, 2, 2, 1, 4, 2]);
  expect(byKey.get('introduced module :lib')).toEqual([1, 2, 4, 2]);
  expect(byKey.get('introduced team platform')).toEqual([1, 2, 4, 2]);
  expect(byKey.get('introduced team web')).toEqual([2, 1]);
});

test('module counts: a finding once per module it affects, suppressed apart', () => {
  const findings = [
    {
      severity: 'high' as Severity,
      suppressed: false,
      attributions: [attr(':app', 'c1', [':lib']), attr(':app', 'c2', [':lib'])],
    },
    {
      severity: 'low' as Severity,
      suppressed: true,
      attributions: [attr(':app', 'c1', [':app']), attr(':lib', 'c1', [':lib'])],
    },
  ];
  expect(inlineModuleCounts(findings, [{ path: ':lib' }, { path: ':app' }, { path: ':web' }])).toEqual([
    { critical: 0, high: 0, medium: 0, low: 0, suppressed: 1 },
    { critical: 0, high: 1, medium: 0, low: 0, suppressed: 1 },
    { critical: 0, high: 0, medium: 0, low: 0, suppressed: 0 },
  ]);
});

test('chunks: bounded by items and bytes, at least one item each, covering every item once', () => {
  expect(chunkStarts([], 3, 100)).toEqual([0]);
  expect(chunkStarts([1, 1, 1, 1, 1, 1, 1], 3, 100)).toEqual([0, 3, 6]);
  expect(chunkStarts([60, 60, 30, 10, 200, 5], 10, 100)).toEqual([0, 1, 4, 5]);
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 60 }),
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 1, max: 120 }),
      (sizes, items, bytes) => {
        const starts = chunkStarts(sizes, items, bytes);
        expect(starts[0]).toBe(0);
        for (let k = 0; k < starts.length; k++) {
          const end = k + 1 < starts.length ? starts[k + 1] : sizes.length;
          if (sizes.length) expect(end).toBeGreaterThan(starts[k]);
          expect(end - starts[k]).toBeLessThanOrEqual(items);
          const total = sizes.slice(starts[k], end).reduce((a, b) => a + b, 0);
          if (end - starts[k] > 1) expect(total).toBeLessThanOrEqual(bytes);
        }
      },
    ),
  );
});
