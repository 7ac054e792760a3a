// Single-document limits: each at exactly the limit (accepted) and one over (413 snapshot_too_large), and the order
// of the checks: counted limits, then structure and cross-references, then hops and work.
import { LIMITS, MAX_BODY_BYTES, syntheticSnapshot, validateSnapshot } from '../../../src/domain/snapshot';
import { bytesOf, invalid, refused, tooLarge, v1, type Doc } from './fixtures';

const ok = (d: Doc) => validateSnapshot(d, bytesOf(d)).stats;
const pkg = (i: number, deps: string[] = []) => ({
  id: `p${i}@1`,
  name: `p${i}`,
  version: '1',
  relationship: 'transitive',
  dependencies: deps,
});
const v1Doc = (nodes: Doc[], roots: Doc[]) => ({
  schemaVersion: 1,
  project: 'limits',
  ecosystem: 'javascript',
  roots,
  nodes,
});
const v2Doc = (nodes: Doc[], vertices: Doc[], modules: Doc[] = [{ path: ':' }]) => ({
  schemaVersion: 2,
  project: 'limits',
  ecosystem: 'gradle',
  modules,
  roots: [{ module: ':', context: 'runtimeClasspath', dependencies: [], resolution: { root: 'r', vertices } }],
  nodes,
});
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('body size', () => {
  test(`${MAX_BODY_BYTES} bytes are accepted, one more is 413 before anything else is looked at`, () => {
    expect(() => validateSnapshot(v1(), MAX_BODY_BYTES)).not.toThrow();
    expect(refused(v1(), MAX_BODY_BYTES + 1)).toEqual(
      tooLarge(`/: body is ${MAX_BODY_BYTES + 1} bytes, over the limit of ${MAX_BODY_BYTES}`),
    );
    expect(refused('not a snapshot', MAX_BODY_BYTES + 1)[0]).toBe(413);
  });
});

describe('counted limits', () => {
  test('10,000 nodes are accepted; 10,001 are 413 whatever they hold', () => {
    expect(ok(syntheticSnapshot({ schemaVersion: 1, nodes: 10_000, roots: 1, depsPerNode: 2 })).nodes).toBe(10_000);
    expect(refused({ schemaVersion: 1, nodes: range(10_001) })).toEqual(
      tooLarge('/nodes: 10001 nodes, over the limit of 10000'),
    );
    expect(refused({ schemaVersion: 7, nodes: range(10_001) })[0]).toBe(413);
  });

  test('1,000 modules are accepted; 1,001 are 413 (v2; v1 has no modules and ignores the field)', () => {
    expect(
      ok(syntheticSnapshot({ schemaVersion: 2, nodes: 10, roots: 1, modules: 1000, depsPerNode: 2 })).modules,
    ).toBe(1000);
    expect(refused({ schemaVersion: 2, modules: range(1001) })).toEqual(
      tooLarge('/modules: 1001 modules, over the limit of 1000'),
    );
    expect(ok({ ...v1(), modules: range(1001) }).modules).toBe(0);
  });

  test('1,000 roots are accepted in v1 and v2; 1,001 are 413', () => {
    expect(ok(syntheticSnapshot({ schemaVersion: 1, nodes: 1000, roots: 1000, depsPerNode: 3 })).roots).toBe(1000);
    expect(
      ok(syntheticSnapshot({ schemaVersion: 2, nodes: 1000, roots: 1000, modules: 10, depsPerNode: 3 })).roots,
    ).toBe(1000);
    expect(refused({ roots: range(1001) })).toEqual(tooLarge('/roots: 1001 roots, over the limit of 1000'));
  });

  // 100,000 vertices in one resolution, variants of 10 packages (attribution work stays small).
  const manyVertices = (count: number) => {
    const nodes = range(10).map((i) => pkg(i));
    const vertices: Doc[] = [{ id: 'r', module: ':', dependencies: range(count - 1).map((i) => `v${i}`) }];
    for (let i = 0; i < count - 1; i++) vertices.push({ id: `v${i}`, node: nodes[i % 10].id, dependencies: [] });
    return v2Doc(nodes, vertices);
  };
  test('100,000 vertices in all are accepted; 100,001 are 413', () => {
    expect(ok(manyVertices(100_000)).vertices).toBe(100_000);
    expect(refused(manyVertices(100_001))).toEqual(
      tooLarge('/roots/0/resolution/vertices: more than 100000 vertices in all resolutions (100001 so far)'),
    );
  });
  test('the vertex total is over all resolutions; the message points at the one that crosses the limit', () => {
    const resolution = (n: number) => ({ root: 'r', vertices: range(n).map((i) => ({ id: `v${i}` })) });
    const body = { schemaVersion: 2, roots: [{ resolution: resolution(60_000) }, { resolution: resolution(40_001) }] };
    expect(refused(body)).toEqual(
      tooLarge('/roots/1/resolution/vertices: more than 100000 vertices in all resolutions (100001 so far)'),
    );
  });

  test('v1: 500,000 edges (roots and nodes) are accepted; 500,001 are 413', () => {
    const doc = (extraRoot: boolean) => {
      const nodes = range(10_000).map((i) =>
        pkg(
          i,
          range(49).map((k) => `p${(i + k + 1) % 10_000}@1`),
        ),
      );
      const roots: Doc[] = [{ module: 'app', context: 'dependencies', dependencies: nodes.map((n) => n.id) }];
      if (extraRoot) roots.push({ module: 'app', context: 'devDependencies', dependencies: ['p0@1'] });
      return v1Doc(nodes, roots);
    };
    expect(ok(doc(false)).edges).toBe(500_000);
    expect(refused(doc(true))).toEqual(tooLarge('/nodes/9999/dependencies: 500001 edges, over the limit of 500000'));
  });

  test('v2: 500,000 vertex edges are accepted; 500,001 are 413', () => {
    // 10,000 variant vertices of 50 packages, each depending on the next 49: work (10,001 + 500,000) × 50 is fine.
    const doc = (extra: boolean) => {
      const nodes = range(50).map((i) => pkg(i));
      const vertices: Doc[] = [{ id: 'r', module: ':', dependencies: range(10_000).map((i) => `v${i}`) }];
      for (let i = 0; i < 10_000; i++) {
        const deps = range(extra && i === 9999 ? 50 : 49).map((k) => `v${(i + k + 1) % 10_000}`);
        vertices.push({ id: `v${i}`, node: nodes[i % 50].id, dependencies: deps });
      }
      return v2Doc(nodes, vertices);
    };
    expect(ok(doc(false)).edges).toBe(500_000);
    expect(refused(doc(true))).toEqual(
      tooLarge('/roots/0/resolution/vertices/10000/dependencies: 500001 edges, over the limit of 500000'),
    );
  });

  test('v2 edges are the resolution graphs: the flat compatibility lists do not count', () => {
    const body = syntheticSnapshot({ schemaVersion: 2, nodes: 20, roots: 2, depsPerNode: 3 });
    const vertexEdges = body.roots.reduce(
      (n, r) => n + r.resolution!.vertices.reduce((m, v) => m + v.dependencies.length, 0),
      0,
    );
    expect(ok(body).edges).toBe(vertexEdges);
  });
});

describe('shortest dependency hops', () => {
  // root → p0 → p1 → ... : p(k) is k + 1 hops from the root.
  const chain = (n: number) => range(n).map((i) => pkg(i, i + 1 < n ? [`p${i + 1}@1`] : []));
  const rootOn = (...ids: string[]) => ({ module: 'app', context: 'dependencies', dependencies: ids });

  test('v1: a node 256 hops from the root is accepted; 257 is 413', () => {
    expect(() => ok(v1Doc(chain(256), [rootOn('p0@1')]))).not.toThrow();
    expect(refused(v1Doc(chain(257), [rootOn('p0@1')]))).toEqual(
      tooLarge('/nodes/256: 257 dependency hops from the nearest root, over the limit of 256'),
    );
  });

  test("v1: a node's hops are its smallest distance over all roots", () => {
    const roots = [rootOn('p0@1'), { ...rootOn('p200@1'), context: 'devDependencies' }];
    expect(() => ok(v1Doc(chain(400), roots))).not.toThrow();
    expect(refused(v1Doc(chain(457), roots))).toEqual(
      tooLarge('/nodes/456: 257 dependency hops from the nearest root, over the limit of 256'),
    );
  });

  test('v1: nodes no root reaches are not counted', () => {
    expect(() => ok(v1Doc(chain(1000), [rootOn()]))).not.toThrow();
  });

  test('v1: a shortcut edge shortens the hops', () => {
    const nodes = chain(300);
    nodes[0].dependencies.push('p150@1');
    expect(() => ok(v1Doc(nodes, [rootOn('p0@1')]))).not.toThrow();
  });

  // r → v0 → v1 → ... : vertex v(k), at index k + 1, is k + 1 hops from the resolution root.
  const v2Chain = (n: number) => {
    const vertices: Doc[] = [{ id: 'r', module: ':', dependencies: ['v0'] }];
    for (let i = 0; i < n; i++)
      vertices.push({ id: `v${i}`, node: `p${i}@1`, dependencies: i + 1 < n ? [`v${i + 1}`] : [] });
    return v2Doc(
      range(n).map((i) => pkg(i)),
      vertices,
    );
  };
  test('v2: a vertex 256 hops from its resolution root is accepted; 257 is 413', () => {
    expect(() => ok(v2Chain(256))).not.toThrow();
    expect(refused(v2Chain(257))).toEqual(
      tooLarge('/roots/0/resolution/vertices/257: 257 dependency hops from the resolution root, over the limit of 256'),
    );
  });

  test('v2: every vertex counts, module vertices too', () => {
    const body = v2Chain(256);
    body.modules.push({ path: ':late' });
    body.roots[0].resolution.vertices.push({ id: 'late', module: ':late', dependencies: [] });
    body.roots[0].resolution.vertices[256].dependencies = ['late'];
    expect(refused(body)).toEqual(
      tooLarge('/roots/0/resolution/vertices/257: 257 dependency hops from the resolution root, over the limit of 256'),
    );
  });
});

describe('attribution work (v2)', () => {
  // One root, 4,000 packages: V = 4,001, E = 4,000 (root → every package) + extra; work = (8,001 + extra) × 4,000.
  const workDoc = (extra: number) => {
    const P = 4000;
    const nodes = range(P).map((i) => pkg(i));
    const vertices: Doc[] = [{ id: 'r', module: ':', dependencies: range(P).map((i) => `v${i}`) }];
    for (let i = 0; i < P; i++) {
      const deps = [`v${(i + 1) % P}`];
      if (i < extra - P) deps.push(`v${(i + 2) % P}`);
      vertices.push({ id: `v${i}`, node: nodes[i].id, dependencies: deps });
    }
    return v2Doc(nodes, vertices);
  };

  test('exactly 50,000,000 is accepted; more is 413', () => {
    expect(() => ok(workDoc(4499))).not.toThrow();
    expect(refused(workDoc(4500))).toEqual(
      tooLarge(
        '/roots: attribution work 50004000 (sum over roots of (vertices + edges) × distinct packages) is over the limit of 50000000',
      ),
    );
  });

  test('packages count once per resolution however many variant vertices they have', () => {
    // 20,000 vertices of 100 packages: (20,001 + 39,999) × 100 = 6,000,000, far below the limit.
    const nodes = range(100).map((i) => pkg(i));
    const vertices: Doc[] = [{ id: 'r', module: ':', dependencies: range(20_000).map((i) => `v${i}`) }];
    for (let i = 0; i < 20_000; i++)
      vertices.push({ id: `v${i}`, node: nodes[i % 100].id, dependencies: i + 1 < 20_000 ? [`v${i + 1}`] : [] });
    expect(() => ok(v2Doc(nodes, vertices))).not.toThrow();
  });

  test('v1 has no work limit: its paths need one BFS per root', () => {
    const body = syntheticSnapshot({ schemaVersion: 1, nodes: 10_000, roots: 1000, depsPerNode: 20 });
    expect(() => ok(body)).not.toThrow();
  });

  test('the limits are the published ones', () => {
    expect(LIMITS).toMatchObject({
      nodes: 10_000,
      modules: 1000,
      roots: 1000,
      vertices: 100_000,
      edges: 500_000,
      hops: 256,
      attributionWork: 50_000_000,
    });
    expect(MAX_BODY_BYTES).toBe(10 * 1024 * 1024);
  });
});

describe('order of the checks', () => {
  test('counted limits come before structure: a malformed body with too many roots is 413', () => {
    expect(refused({ schemaVersion: 'x', roots: range(1001).map(() => 'junk') })[0]).toBe(413);
  });

  test('structure comes before the graph limits: a too-deep chain with a structural error is 422', () => {
    const body = v1Doc(
      range(300).map((i) => pkg(i, i + 1 < 300 ? [`p${i + 1}@1`] : [])),
      [{ module: 'app', context: 'd', dependencies: ['p0@1'] }],
    );
    body.nodes[5].relationship = 'indirect';
    expect(refused(body)).toEqual(invalid('/nodes/5/relationship: must be one of direct, transitive'));
  });

  test('cross-references come before the graph limits: a too-deep chain with a dangling edge is 422', () => {
    const body = v1Doc(
      range(300).map((i) => pkg(i, i + 1 < 300 ? [`p${i + 1}@1`] : [])),
      [{ module: 'app', context: 'd', dependencies: ['p0@1'] }],
    );
    body.nodes[299].dependencies = ['p300@1'];
    expect(refused(body)).toEqual(invalid('/nodes/299/dependencies/0: unknown node "p300@1"'));
  });

  test('bodies of the wrong shape are counted without failing', () => {
    const shapes: unknown[] = [
      { schemaVersion: 2, nodes: 'many', roots: { length: 5000 }, modules: 3 },
      {
        schemaVersion: 2,
        roots: [
          null,
          1,
          'x',
          [],
          { resolution: null },
          { resolution: { vertices: {} } },
          { resolution: { vertices: [null, 2, { dependencies: 'x' }] } },
        ],
      },
      { schemaVersion: 1, roots: [null, { dependencies: {} }], nodes: [7, { dependencies: null }] },
    ];
    for (const body of shapes) expect(refused(body)[0]).toBe(422);
  });
});
