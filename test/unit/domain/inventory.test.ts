// The dependency inventory of one scan: ids, direct, path (the rule of Finding.path, for every
// package at once), manifest, on v1 and v2 graphs; property tests against the existing path code (v1Paths and the v2
// attribution walk); and packageRef on findings.
import fc from 'fast-check';
import { v1Paths } from '../../../src/domain/attribution/v1-paths';
import { attributeInline } from '../../../src/domain/attribution/v2-assemble';
import { buildAttributionGraph } from '../../../src/domain/attribution/v2-graph';
import { buildFindings } from '../../../src/domain/findings';
import { compareCodePoints, computeInventory, dependencyId, type InventoryItem } from '../../../src/domain/inventory';
import { validateSnapshot } from '../../../src/domain/snapshot';
import type { Snapshot, SnapshotRoot } from '../../../src/shared/types';
import { randomGraph } from '../../helpers/random-graph';
import { v2Snapshot, type RootSpec } from '../../helpers/v2';
import { node } from './helpers';

const PRJ = 'prj_one';
type Graph = Record<string, string[]>;

function v1(
  graph: Graph,
  roots: Array<Partial<SnapshotRoot> & { dependencies: string[] }>,
  extra: Partial<Snapshot> = {},
): Snapshot {
  return {
    schemaVersion: 1,
    project: 'proj',
    ecosystem: 'javascript',
    roots: roots.map((r, i) => ({ module: `mod${i}`, context: 'dependencies', ...r })),
    nodes: Object.keys(graph)
      .sort()
      .map((id) => node(id, graph[id])),
    ...extra,
  };
}

/** The inventory by package id (name@version), without the ids. */
function byPackage(items: InventoryItem[]): Record<string, Omit<InventoryItem, 'id' | 'name' | 'version'>> {
  return Object.fromEntries(items.map(({ id: _id, name, version, ...rest }) => [`${name}@${version}`, rest]));
}

describe('dependencyId', () => {
  test('dep_ + hash of project, ecosystem, the name as the ecosystem compares it, and the version', () => {
    const id = dependencyId(PRJ, 'python', 'Foo_Bar', '1.0');
    expect(id).toMatch(/^dep_[0-9a-f]{24}$/);
    expect(dependencyId(PRJ, 'python', 'foo.bar', '1.0')).toBe(id);
    expect(dependencyId(PRJ, 'python', 'foo--bar', '1.0')).toBe(id);
    expect(dependencyId(PRJ, 'python', 'foobar', '1.0')).not.toBe(id);
    expect(dependencyId(PRJ, 'python', 'Foo_Bar', '1.0.0')).not.toBe(id);
    expect(dependencyId('prj_two', 'python', 'Foo_Bar', '1.0')).not.toBe(id);
    expect(dependencyId(PRJ, 'javascript', 'Foo_Bar', '1.0')).not.toBe(id);
    // npm compares names lowercased, Maven as written (trimmed)
    expect(dependencyId(PRJ, 'javascript', 'Axios', '1.0.0')).toBe(dependencyId(PRJ, 'javascript', 'axios', '1.0.0'));
    expect(dependencyId(PRJ, 'gradle', 'Org.X:Y', '1.0')).not.toBe(dependencyId(PRJ, 'gradle', 'org.x:y', '1.0'));
  });

  test('compareCodePoints is code-point order, where UTF-16 order differs', () => {
    const words = ['b', 'a', '\u{1F600}', '\uFF5A', '\uE000', 'ab', '', '\u{10000}'];
    const sorted = [...words].sort(compareCodePoints);
    expect(sorted).toEqual(
      [...words].sort((x, y) => (x.codePointAt(0) ?? -1) - (y.codePointAt(0) ?? -1) || x.length - y.length),
    );
    expect(sorted).toEqual(['', 'a', 'ab', 'b', '\uE000', '\uFF5A', '\u{10000}', '\u{1F600}']);
    expect(['\u{1F600}', '\uFF5A'].sort()).toEqual(['\u{1F600}', '\uFF5A']); // what plain sort would give
  });
});

describe('v1', () => {
  test('direct, path (shortest over all roots, then element by element), manifest = path[0]', () => {
    const g: Graph = { 'a@1': ['b@1'], 'b@1': ['t@1'], 'c@1': ['t@1'], 't@1': [], 'z@1': ['t@1'] };
    const s = v1(g, [
      { manifest: 'z/package.json', dependencies: ['a@1', 'z@1'] },
      { manifest: 'y/package.json', dependencies: ['c@1'] },
    ]);
    expect(byPackage(computeInventory(s, PRJ))).toEqual({
      'a@1': { direct: true, path: ['z/package.json', 'a@1'], manifest: 'z/package.json' },
      'b@1': { direct: false, path: ['z/package.json', 'a@1', 'b@1'], manifest: 'z/package.json' },
      'c@1': { direct: true, path: ['y/package.json', 'c@1'], manifest: 'y/package.json' },
      // two of length 3: [y, c, t] < [z, z, t]
      't@1': { direct: false, path: ['y/package.json', 'c@1', 't@1'], manifest: 'y/package.json' },
      'z@1': { direct: true, path: ['z/package.json', 'z@1'], manifest: 'z/package.json' },
    });
  });

  test('the tie is decided at the first differing element, not at the parent', () => {
    const g: Graph = { 'a@1': ['z@1'], 'b@1': ['y@1'], 'z@1': ['t@1'], 'y@1': ['t@1'], 't@1': [] };
    const s = v1(g, [{ manifest: 'package.json', dependencies: ['b@1', 'a@1'] }]);
    expect(byPackage(computeInventory(s, PRJ))['t@1'].path).toEqual(['package.json', 'a@1', 'z@1', 't@1']);
  });

  test("manifest: the root's, else the snapshot's first, else the root's module; unreached packages fall back as findings do", () => {
    const g: Graph = { 'a@1': [], 'b@1': [], 'lonely@1': [] };
    const s = v1(g, [{ dependencies: ['a@1'] }, { manifest: 'b/requirements.txt', dependencies: ['b@1'] }], {
      manifests: ['requirements.txt', 'other.txt'],
    });
    const inv = byPackage(computeInventory(s, PRJ));
    expect(inv['a@1']).toEqual({ direct: true, path: ['requirements.txt', 'a@1'], manifest: 'requirements.txt' });
    expect(inv['b@1']).toEqual({ direct: true, path: ['b/requirements.txt', 'b@1'], manifest: 'b/requirements.txt' });
    expect(inv['lonely@1']).toEqual({
      direct: false,
      path: ['requirements.txt', 'lonely@1'],
      manifest: 'requirements.txt',
    });
    const bare = byPackage(computeInventory(v1(g, [{ module: 'web', dependencies: ['a@1'] }]), PRJ));
    expect(bare['a@1'].manifest).toBe('web');
    expect(bare['lonely@1'].path).toEqual(['web', 'lonely@1']);
  });

  test('one item per package: nodes of one name@version (ids as sent), and PyPI names alike after PEP 503', () => {
    const s: Snapshot = {
      schemaVersion: 1,
      project: 'proj',
      ecosystem: 'python',
      manifests: ['requirements.txt'],
      roots: [{ module: '.', context: 'main', dependencies: ['x', 'Foo_Bar==1.0'] }],
      nodes: [
        { id: 'x', name: 'wrapper', version: '2.0', relationship: 'direct', dependencies: ['y'] },
        { id: 'y', name: 'foo.bar', version: '1.0', relationship: 'transitive', dependencies: [] },
        { id: 'Foo_Bar==1.0', name: 'Foo_Bar', version: '1.0', relationship: 'direct', dependencies: [] },
        { id: 'z', name: 'foo-bar', version: '1.1', relationship: 'transitive', dependencies: [] },
      ],
    };
    const items = computeInventory(s, PRJ);
    expect(items.map((i) => [i.name, i.version])).toEqual([
      ['Foo_Bar', '1.0'], // the node with the best path names the item: [requirements.txt, Foo_Bar==1.0] < [.., x, y]
      ['foo-bar', '1.1'],
      ['wrapper', '2.0'],
    ]);
    expect(items[0]).toEqual({
      id: dependencyId(PRJ, 'python', 'foo-bar', '1.0'),
      name: 'Foo_Bar',
      version: '1.0',
      direct: true,
      path: ['requirements.txt', 'Foo_Bar==1.0'],
      manifest: 'requirements.txt',
    });
    expect(new Set(items.map((i) => i.id)).size).toBe(3);
  });

  test('sorted by name, version, id in code-point order', () => {
    const ids = ['\u{1F600}x@1', '\uFF5Ax@1', 'b@2', 'b@10', 'a@1'];
    const s = v1(Object.fromEntries(ids.map((id) => [id, []])), [{ manifest: 'package.json', dependencies: ids }]);
    expect(computeInventory(s, PRJ).map((i) => `${i.name}@${i.version}`)).toEqual([
      'a@1',
      'b@10',
      'b@2',
      '\uFF5Ax@1',
      '\u{1F600}x@1',
    ]);
  });

  test("property: every package's path is what v1Paths gives a finding of it", () => {
    const ids = ['a@1', 'b@1', 'c@1', 'd@2', 'e@1', 'f@1', 'g@1'];
    const pick = fc.subarray(ids);
    fc.assert(
      fc.property(
        fc.tuple(...ids.map(() => pick)),
        fc.array(
          fc.record({
            manifest: fc.option(fc.constantFrom('m1', 'm2', 'm0', 'b@1'), { nil: undefined }),
            dependencies: pick,
          }),
          { minLength: 1, maxLength: 4 },
        ),
        fc.option(fc.constantFrom<string[]>(['m1'], ['m3', 'm0']), { nil: undefined }),
        (deps, roots, manifests) => {
          const g: Graph = Object.fromEntries(ids.map((id, i) => [id, deps[i]]));
          const s = v1(g, roots, manifests ? { manifests } : {});
          const items = computeInventory(s, PRJ);
          const expected = v1Paths(s, ids);
          const direct = new Set(roots.flatMap((r) => r.dependencies));
          expect(items.map((i) => `${i.name}@${i.version}`)).toEqual(ids);
          for (const item of items) {
            const id = `${item.name}@${item.version}`;
            expect(item.path).toEqual(expected.get(id));
            expect(item.manifest).toBe(item.path[0]);
            expect(item.direct).toBe(direct.has(id));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

const app = (vertices: RootSpec['vertices'], context = 'runtimeClasspath'): RootSpec => ({
  module: ':app',
  context,
  vertices,
});

describe('v2', () => {
  test('paths: module paths then package ids, the shortest over all resolutions, ties element by element', () => {
    // Four ways of length 4 to v@1; element by element ':lib' sorts before 'a@1', then a@2 before b@1.
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
      {
        module: ':lib',
        context: 'runtimeClasspath',
        vertices: [
          ['r', ':lib', 'b'],
          ['b', 'b@1', 'x'],
          ['x', 'x@1'],
        ],
      },
    ]);
    validateSnapshot(s, JSON.stringify(s).length);
    expect(byPackage(computeInventory(s, PRJ))).toEqual({
      'a@1': { direct: true, path: [':app', 'a@1'], manifest: ':app' },
      'a@2': { direct: true, path: [':app', ':lib', 'a@2'], manifest: ':app' },
      // [:lib, b@1] from :lib's own resolution is shorter than [:app, :lib, b@1]
      'b@1': { direct: true, path: [':lib', 'b@1'], manifest: ':lib' },
      'c@1': { direct: false, path: [':app', 'a@1', 'c@1'], manifest: ':app' },
      'd@1': { direct: false, path: [':app', 'a@1', 'd@1'], manifest: ':app' },
      'v@1': { direct: false, path: [':app', ':lib', 'a@2', 'v@1'], manifest: ':app' },
      'x@1': { direct: false, path: [':lib', 'b@1', 'x@1'], manifest: ':lib' },
    });
  });

  test('direct: an edge from any module vertex, also a module reached through another; variants are one package', () => {
    const s = v2Snapshot([
      app([
        ['r', ':app', 'lib', 'p'],
        ['lib', ':lib', 'q2'],
        ['p', 'p@1', 'q1'],
        ['q1', 'q@1', 'w'],
        ['q2', 'q@1'],
        ['w', 'w@1'],
      ]),
    ]);
    const inv = byPackage(computeInventory(s, PRJ));
    expect(inv['q@1']).toEqual({ direct: true, path: [':app', ':lib', 'q@1'], manifest: ':app' });
    expect(inv['w@1']).toEqual({ direct: false, path: [':app', 'p@1', 'q@1', 'w@1'], manifest: ':app' });
    expect(Object.keys(inv)).toEqual(['p@1', 'q@1', 'w@1']);
  });

  test("manifest: of the root whose resolution gives the path (the first such root on equal paths), else the snapshot's first, else its module", () => {
    const roots = [
      app(
        [
          ['r', ':app', 'a'],
          ['a', 'a@1', 'b'],
          ['b', 'b@1'],
        ],
        'runtimeClasspath',
      ),
      app(
        [
          ['r', ':app', 'b'],
          ['b', 'b@1'],
        ],
        'testRuntimeClasspath',
      ),
      {
        module: ':z',
        context: 'runtimeClasspath',
        vertices: [
          ['r', ':z', 'a'],
          ['a', 'a@1'],
        ],
      } as RootSpec,
    ];
    const s = v2Snapshot(roots, undefined, { manifests: ['settings.gradle', 'build.gradle'] });
    s.roots[1].manifest = 'app/test.gradle';
    s.roots[2].manifest = 'z/build.gradle';
    const inv = byPackage(computeInventory(s, PRJ));
    expect(inv['a@1']).toEqual({ direct: true, path: [':app', 'a@1'], manifest: 'settings.gradle' }); // root 0: none of its own
    expect(inv['b@1']).toEqual({ direct: true, path: [':app', 'b@1'], manifest: 'app/test.gradle' }); // root 1 gives the path
    s.roots[0].manifest = 'app/build.gradle';
    s.roots[1].resolution!.vertices[0].dependencies = ['b'];
    s.roots.splice(1, 0, { ...s.roots[1], context: 'compileClasspath', manifest: 'app/compile.gradle' });
    // [:app, a@1] from roots 0 and 3 alike: the first root in snapshot order names the manifest
    expect(byPackage(computeInventory(s, PRJ))['a@1'].manifest).toBe('app/build.gradle');
    expect(byPackage(computeInventory(s, PRJ))['b@1'].manifest).toBe('app/compile.gradle');
    delete s.manifests;
    s.roots.forEach((r) => delete r.manifest);
    expect(byPackage(computeInventory(s, PRJ))['a@1'].manifest).toBe(':app');
  });

  test("variants: two vertices of one package under different parents keep their parents' order", () => {
    // Both q@1 vertices sit at depth 2; the one under a@1 leads to the smaller path to t@1, although the vertices
    // under b@1 come first in the resolution.
    const s = v2Snapshot([
      app([
        ['r', ':app', 'a', 'b'],
        ['qb', 'q@1', 'tb'],
        ['tb', 't@1'],
        ['b', 'b@1', 'qb'],
        ['a', 'a@1', 'qa'],
        ['qa', 'q@1', 'ta'],
        ['ta', 't@1'],
      ]),
    ]);
    const inv = byPackage(computeInventory(s, PRJ));
    expect(inv['t@1'].path).toEqual([':app', 'a@1', 'q@1', 't@1']);
    expect(inv['q@1'].path).toEqual([':app', 'a@1', 'q@1']);
  });

  test('a package reached only through a package → module edge', () => {
    const s = v2Snapshot([
      app([
        ['r', ':app', 'p'],
        ['p', 'p@1', 'lib'],
        ['lib', ':lib', 'q'],
        ['q', 'q@1'],
      ]),
    ]);
    const inv = byPackage(computeInventory(s, PRJ));
    expect(inv['q@1']).toEqual({ direct: true, path: [':app', 'p@1', ':lib', 'q@1'], manifest: ':app' });
  });

  test('ids are stable across two different scans of one project, and differ between projects', () => {
    const one = v2Snapshot([
      app([
        ['r', ':app', 'a'],
        ['a', 'org.x:a@1.0', 'b'],
        ['b', 'org.x:b@2.0'],
      ]),
    ]);
    const two = v2Snapshot([
      app([
        ['r', ':app', 'b', 'c'],
        ['b', 'org.x:b@2.0'],
        ['c', 'org.x:c@1.0', 'b'],
      ]),
      {
        module: ':web',
        context: 'runtimeClasspath',
        vertices: [
          ['w', ':web', 'a'],
          ['a', 'org.x:a@1.0'],
        ],
      },
    ]);
    const idsOf = (s: Snapshot, project = PRJ) =>
      Object.fromEntries(computeInventory(s, project).map((i) => [`${i.name}@${i.version}`, i.id]));
    const [a, b] = [idsOf(one), idsOf(two)];
    expect(a['org.x:b@2.0']).toBe(b['org.x:b@2.0']);
    expect(a['org.x:a@1.0']).toBe(b['org.x:a@1.0']);
    expect(a['org.x:a@1.0']).toBe(dependencyId(PRJ, 'gradle', 'org.x:a', '1.0'));
    expect(idsOf(one, 'prj_other')['org.x:a@1.0']).not.toBe(a['org.x:a@1.0']);
    expect(Object.values(b).every((id) => /^dep_[0-9a-f]{24}$/.test(id))).toBe(true);
  });

  test('PyPI: names alike after PEP 503 are one item', () => {
    const s = v2Snapshot(
      [
        app([
          ['r', ':app', 'a', 'b'],
          ['a', 'Foo_Bar@1.0'],
          ['b', 'foo-bar@1.0'],
        ]),
      ],
      undefined,
      { ecosystem: 'python' },
    );
    const items = computeInventory(s, PRJ);
    expect(items).toEqual([
      {
        id: dependencyId(PRJ, 'python', 'foo.bar', '1.0'),
        name: 'Foo_Bar',
        version: '1.0',
        direct: true,
        path: [':app', 'Foo_Bar@1.0'],
        manifest: ':app',
      },
    ]);
  });

  test("property: every package's path is the Finding.path the attribution walk gives it, direct = an origin of itself", () => {
    fc.assert(
      fc.property(randomGraph(), (s) => {
        const built = buildAttributionGraph(s);
        const ids = s.nodes.map((n) => n.id);
        const walked = attributeInline(s, built, ids, new Map());
        const items = computeInventory(s, PRJ, built);
        expect(items.map((i) => `${i.name}@${i.version}`)).toEqual([...ids].sort(compareCodePoints));
        expect(computeInventory(s, PRJ)).toEqual(items); // with or without the caller's graph
        for (const item of items) {
          const id = `${item.name}@${item.version}`;
          expect(item.path).toEqual(walked.paths.get(id));
          expect(item.direct).toBe(
            walked.attributions.get(id)!.some((a) => a.origins.some((o) => o.dependency === id)),
          );
          expect(item.manifest).toBe(item.path[0]); // no manifests in these graphs: the module of the root
        }
      }),
      { numRuns: 200 },
    );
  });

  test('a long chain and a wide fan (one walk for every package, whatever their number)', () => {
    const n = 20_000;
    const chain: RootSpec['vertices'] = [['r', ':app', 'v0']];
    for (let i = 0; i < n; i++)
      chain.push([`v${i}`, `p${String(i).padStart(5, '0')}@1`, ...(i + 1 < n ? [`v${i + 1}`] : [])]);
    const fan: RootSpec['vertices'] = [['r', ':fan', ...Array.from({ length: n }, (_, i) => `f${i}`)]];
    for (let i = 0; i < n; i++) fan.push([`f${i}`, `p${String(i).padStart(5, '0')}@1`]);
    const s = v2Snapshot([app(chain), { module: ':fan', context: 'runtimeClasspath', vertices: fan }]);
    const items = computeInventory(s, PRJ);
    expect(items).toHaveLength(n);
    expect(items[n - 1].path).toEqual([':fan', 'p19999@1']);
    expect(items.every((i) => i.direct && i.path.length === 2)).toBe(true);
  });
});

describe('findings', () => {
  test("packageRef is the dep_ id of the finding's package in its project", () => {
    const group = {
      key: 'g',
      ids: ['GHSA-1'],
      cve: 'GHSA-1',
      severity: 'high' as const,
      publishedAt: null,
      summary: 's',
    };
    const matches = [
      { nodeId: 'Foo_Bar@1.0', name: 'Foo_Bar', version: '1.0', group, fixedVersion: null },
      { nodeId: 'requests@2.0', name: 'requests', version: '2.0', group, fixedVersion: '2.1' },
    ];
    const built = buildFindings({
      scanId: 'scn_1',
      projectId: PRJ,
      snapshot: { ecosystem: 'python' },
      matches: matches as never,
      paths: new Map(),
      processingDay: '2026-01-01',
    });
    expect(built.findings.map((f) => [f.package, f.packageRef]).sort()).toEqual(
      [
        ['Foo_Bar', dependencyId(PRJ, 'python', 'foo-bar', '1.0')],
        ['requests', dependencyId(PRJ, 'python', 'requests', '2.0')],
      ].sort(),
    );
    const inv = computeInventory(
      {
        schemaVersion: 1,
        project: 'p',
        ecosystem: 'python',
        roots: [{ module: '.', context: 'main', dependencies: ['foo-bar@1.0'] }],
        nodes: [node('foo-bar@1.0')],
      },
      PRJ,
    );
    expect(built.findings.find((f) => f.package === 'Foo_Bar')!.packageRef).toBe(inv[0].id);
  });
});
