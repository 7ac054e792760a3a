// The synthetic snapshot generator: valid at the largest sizes the limits allow, and deterministic.
import {
  crossReferenceV2,
  attributionWork,
  dependencyOffsets,
  LIMITS,
  MAX_BODY_BYTES,
  syntheticSnapshot,
  validateSnapshot,
} from '../../../src/domain/snapshot';

/** Validates as the upload does: from the JSON text, with its byte size. */
function upload(body: unknown) {
  const json = JSON.stringify(body);
  const bytes = Buffer.byteLength(json);
  return { bytes, ...validateSnapshot(JSON.parse(json), bytes) };
}

describe('syntheticSnapshot', () => {
  test('the largest v2 document: 10,000 nodes, 1,000 roots, ~81,000 vertices, ~430,000 edges, under 10 MB', () => {
    const body = syntheticSnapshot({
      schemaVersion: 2,
      nodes: 10_000,
      roots: 1000,
      packagesPerRoot: 79,
      depsPerNode: 7,
      ecosystem: 'javascript',
    });
    const { bytes, stats } = upload(body);
    expect(bytes).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(bytes).toBeGreaterThan(8_000_000);
    expect(stats).toEqual({ nodes: 10_000, roots: 1000, modules: 1000, vertices: 80_999, edges: expect.any(Number) });
    expect(stats.edges).toBeGreaterThan(400_000);
    expect(stats.edges).toBeLessThanOrEqual(LIMITS.edges);
    const work = attributionWork(crossReferenceV2(body));
    expect(work).toBeGreaterThan(30_000_000);
    expect(work).toBeLessThanOrEqual(LIMITS.attributionWork);
  });

  test('the largest v1 document: 10,000 nodes, 1,000 roots, 491,000 edges, under 10 MB', () => {
    const { bytes, stats } = upload(
      syntheticSnapshot({ schemaVersion: 1, nodes: 10_000, roots: 1000, depsPerNode: 49 }),
    );
    expect(bytes).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(stats).toEqual({ nodes: 10_000, roots: 1000, modules: 0, vertices: 0, edges: 491_000 });
  });

  test.each(['gradle', 'python', 'javascript', 'typescript'] as const)(
    'v1 and v2 documents of ecosystem %s are valid',
    (ecosystem) => {
      for (const schemaVersion of [1, 2] as const) {
        const body = syntheticSnapshot({
          schemaVersion,
          nodes: 300,
          roots: 12,
          modules: 5,
          depsPerNode: 3,
          rootDeps: 2,
          ecosystem,
        });
        expect(upload(body).stats).toMatchObject({ nodes: 300, roots: 12, modules: schemaVersion === 2 ? 5 : 0 });
        expect(body.ecosystem).toBe(ecosystem);
        expect(body.nodes.map((n) => n.id)).toEqual(body.nodes.map((n) => n.id).sort());
      }
    },
  );

  test('modules without roots of their own, and several contexts per module, are produced', () => {
    const body = syntheticSnapshot({ schemaVersion: 2, nodes: 50, roots: 6, modules: 3, depsPerNode: 2 });
    expect(body.roots.map((r) => `${r.module} ${r.context}`)).toEqual([
      ': runtimeClasspath',
      ':module-0001 runtimeClasspath',
      ':module-0002 runtimeClasspath',
      ': compileClasspath',
      ':module-0001 compileClasspath',
      ':module-0002 compileClasspath',
    ]);
    expect(
      upload(syntheticSnapshot({ schemaVersion: 2, nodes: 50, roots: 2, modules: 9, depsPerNode: 2 })).stats.modules,
    ).toBe(9);
  });

  test('direct dependencies are marked direct, the rest transitive', () => {
    const body = syntheticSnapshot({ schemaVersion: 1, nodes: 100, roots: 4, depsPerNode: 2, rootDeps: 3 });
    const direct = new Set(body.roots.flatMap((r) => r.dependencies));
    expect(direct.size).toBe(12);
    for (const n of body.nodes) expect(n.relationship).toBe(direct.has(n.id) ? 'direct' : 'transitive');
  });

  test('the same options give the same document; another seed other versions', () => {
    const opts = { schemaVersion: 2, nodes: 40, roots: 3, depsPerNode: 3, seed: 7 } as const;
    expect(syntheticSnapshot(opts)).toEqual(syntheticSnapshot(opts));
    expect(syntheticSnapshot({ ...opts, seed: 8 }).nodes.map((n) => n.version)).not.toEqual(
      syntheticSnapshot(opts).nodes.map((n) => n.version),
    );
  });

  test('without package dependencies every package is a direct dependency of its root', () => {
    const body = syntheticSnapshot({ schemaVersion: 2, nodes: 30, roots: 3, depsPerNode: 0 });
    // 10 per root, and for the two roots of non-root modules: root → parent module → one package.
    expect(upload(body).stats.edges).toBe(30 + 2 * 2);
    expect(body.nodes.every((n) => n.relationship === 'direct' && n.dependencies.length === 0)).toBe(true);
  });

  test('empty documents are valid', () => {
    expect(upload(syntheticSnapshot({ schemaVersion: 1, nodes: 0, roots: 0, depsPerNode: 3 })).stats.nodes).toBe(0);
    expect(upload(syntheticSnapshot({ schemaVersion: 2, nodes: 0, roots: 2, depsPerNode: 3 })).stats.vertices).toBe(2);
  });
});

describe('dependencyOffsets', () => {
  test.each([
    [6, 64, 10_000, [1, 2, 4, 8, 16, 32]],
    [2, 10_000, 10_000, [1, 100]],
    [3, 10, 5, [1, 3, 2]],
    [10, 8, 8, [1, 2, 4, 3, 5, 6, 7]],
    [0, 100, 100, []],
    [4, 0, 0, []],
  ])('%i offsets within %i of %i packages', (count, span, n, expected) => {
    expect(dependencyOffsets(count, span, n)).toEqual(expected);
  });
});
