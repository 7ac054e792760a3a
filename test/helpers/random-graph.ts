// Random module-aware (v2) graphs for property tests: a few modules depending on each other, several roots per
// module (contexts), resolutions that share packages, hold several vertices of one package (variants), reach other
// modules' vertices, and have cycles. Every graph passes the single upload's validation (test/helpers/v2.ts derives
// nodes, flat dependencies and relationships from the vertices).
import fc from 'fast-check';
import type { Snapshot, SnapshotModule } from '../../src/shared/types';
import { v2Snapshot, type RootSpec, type V } from './v2';

/** Packages org.example:lib-00000 ... (every 10th one has a synthetic advisory in the tests that use this). */
export const libId = (i: number, version = '1.0') => `org.example:lib-${String(i).padStart(5, '0')}@${version}`;

const CONTEXTS = ['runtimeClasspath', 'testRuntimeClasspath', 'compileClasspath'];

interface Shape {
  modules: number;
  moduleDeps: Array<[number, number]>;
  roots: Array<{
    module: number;
    context: number;
    packages: Array<[lib: number, version: 0 | 1]>;
    modulesReached: number[];
    edges: Array<[number, number]>;
    rootDeps: number[];
  }>;
  teams: Array<string | null>;
  suppress: number[];
}

const shapeArb: fc.Arbitrary<Shape> = fc.integer({ min: 1, max: 5 }).chain((modules) =>
  fc.record({
    modules: fc.constant(modules),
    moduleDeps: fc.array(fc.tuple(fc.nat(modules - 1), fc.nat(modules - 1)), { maxLength: 6 }),
    roots: fc.array(
      fc.record({
        module: fc.nat(modules - 1),
        context: fc.nat(CONTEXTS.length - 1),
        // lib-0000 .. lib-0060: dense enough that advisories (every 10th lib) match often and packages repeat
        packages: fc.array(fc.tuple(fc.nat(60), fc.constantFrom<0 | 1>(0, 1)), { minLength: 1, maxLength: 14 }),
        modulesReached: fc.array(fc.nat(modules - 1), { maxLength: 2 }),
        edges: fc.array(fc.tuple(fc.nat(40), fc.nat(40)), { maxLength: 30 }),
        rootDeps: fc.array(fc.nat(40), { minLength: 1, maxLength: 4 }),
      }),
      { minLength: 1, maxLength: 8 },
    ),
    teams: fc.array(fc.constantFrom<string | null>('web', 'platform', null), {
      minLength: modules,
      maxLength: modules,
    }),
    suppress: fc.array(fc.nat(60), { maxLength: 3 }),
  }),
);

/** A graph from a shape: one root per distinct (module, context), vertex ids random-looking but deterministic. */
export function graphOf(shape: Shape, project = 'p'): Snapshot {
  const mod = (i: number) => `:m${i}`;
  const seen = new Set<string>();
  const roots: RootSpec[] = [];
  for (const r of shape.roots) {
    const key = `${r.module}/${r.context}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // vertex 0 is the root module; then one vertex per listed package (a package listed twice gets two vertices:
    // variants), then the other modules this resolution reaches
    const labels = [
      mod(r.module),
      ...r.packages.map(([lib, v]) => libId(lib, v ? '2.0' : '1.0')),
      ...r.modulesReached.filter((m) => m !== r.module).map(mod),
    ];
    const unique = labels.filter((l, i) => !l.startsWith(':') || labels.indexOf(l) === i);
    const deps = unique.map(() => new Set<number>());
    const n = unique.length;
    // every vertex reachable from the root (the single upload's rule): a random tree first, then the extra edges
    for (let i = 1; i < n; i++) deps[(i * 31 + (r.edges[i % Math.max(1, r.edges.length)]?.[0] ?? 0)) % i].add(i);
    for (const d of r.rootDeps) if (d % n !== 0) deps[0].add(d % n);
    for (const [a, b] of r.edges) if (a % n !== b % n && b % n !== 0) deps[a % n].add(b % n);
    const vertices: V[] = unique.map((label, i) => [
      `v${(i * 7919) % 10007}`,
      label,
      ...[...deps[i]].sort((x, y) => x - y).map((j) => `v${(j * 7919) % 10007}`),
    ]);
    roots.push({ module: mod(r.module), context: CONTEXTS[r.context], vertices });
  }
  const used = new Set(roots.flatMap((r) => r.vertices.map((v) => v[1]).filter((l) => l.startsWith(':'))));
  const modules: SnapshotModule[] = [...used].sort().map((path) => {
    const i = Number(path.slice(2));
    const dependencies = [
      ...new Set(shape.moduleDeps.filter(([a, b]) => a === i && a !== b && used.has(mod(b))).map(([, b]) => mod(b))),
    ].sort();
    const team = shape.teams[i] ?? null;
    return team ? { path, dependencies, teamName: team } : { path, dependencies };
  });
  const suppressions = [...new Set(shape.suppress.filter((i) => i % 10 === 0))].map((i) => ({
    package: `org.example:lib-${String(i).padStart(5, '0')}`,
    cve: `GHSA-test-${String(i).padStart(4, '0')}-v2v2`,
    reason: `accepted risk ${i}`,
  }));
  return v2Snapshot(roots, modules, { project, ...(suppressions.length ? { suppressions } : {}) });
}

export const randomGraph = (project = 'p'): fc.Arbitrary<Snapshot> => shapeArb.map((s) => graphOf(s, project));

/** The graph's items cut into `parts` groups, any grouping: items of one kind may spread over several parts. */
export function splitIntoParts(
  s: Snapshot,
  parts: number,
  seed: number,
): Array<{ modules?: unknown[]; nodes?: unknown[]; roots?: unknown[] }> {
  let a = seed >>> 0;
  const next = () => (a = (Math.imul(a ^ (a >>> 15), 2246822507) + 0x6d2b79f5) >>> 0) % parts;
  const out = Array.from({ length: parts }, () => ({
    modules: [] as unknown[],
    nodes: [] as unknown[],
    roots: [] as unknown[],
  }));
  for (const m of s.modules ?? []) out[next()].modules.push(m);
  for (const n of s.nodes) out[next()].nodes.push(n);
  for (const r of s.roots) out[next()].roots.push(r);
  return out.map((p) => Object.fromEntries(Object.entries(p).filter(([, v]) => v.length > 0)));
}
