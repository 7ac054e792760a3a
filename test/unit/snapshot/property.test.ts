// Property tests: whatever the body, validateSnapshot returns or throws ApiError 413/422, never anything else; and
// generated valid snapshots of random sizes are accepted with exact counts.
import fc from 'fast-check';
import { ApiError } from '../../../src/domain/errors';
import { syntheticSnapshot, validateSnapshot } from '../../../src/domain/snapshot';
import { bytesOf, v1, v2, type Doc } from './fixtures';
import { apply, mutation } from './mutations';

/** True when the body is accepted; false on a 413/422 ApiError; anything else fails the property. */
function outcome(body: unknown): boolean {
  try {
    validateSnapshot(body, bytesOf(body));
    return true;
  } catch (err) {
    if (err instanceof ApiError && (err.status === 413 || err.status === 422)) {
      expect(err.code).toBe(err.status === 413 ? 'snapshot_too_large' : 'invalid_snapshot');
      expect(err.message).toMatch(/^\/.*?: ./s);
      return false;
    }
    throw err;
  }
}

const RUNS = 3000;

describe('validateSnapshot on hostile input', () => {
  test('arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (body) => void outcome(body)),
      { numRuns: RUNS },
    );
  });

  test('objects shaped almost like snapshots', () => {
    const shaped = fc.record(
      {
        schemaVersion: fc.oneof(fc.constantFrom(1, 2), fc.jsonValue({ maxDepth: 1 })),
        project: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 1 })),
        ecosystem: fc.oneof(fc.constantFrom('gradle', 'javascript'), fc.jsonValue({ maxDepth: 1 })),
        modules: fc.jsonValue({ maxDepth: 3 }),
        roots: fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 4 }),
        nodes: fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 4 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(shaped, (body) => void outcome(body)),
      { numRuns: RUNS },
    );
  });

  test.each([
    ['v1', v1],
    ['v2', v2],
    ['synthetic v2', () => syntheticSnapshot({ schemaVersion: 2, nodes: 12, roots: 3, modules: 2, depsPerNode: 2 })],
  ])('mutations of a valid %s snapshot', (_, base) => {
    const seen = { accepted: 0, refused: 0 };
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (ms) => {
        let doc: Doc = structuredClone(base());
        for (const m of ms) doc = apply(doc, m);
        seen[outcome(doc) ? 'accepted' : 'refused']++;
      }),
      { numRuns: RUNS },
    );
    // Both sides are exercised: the mutations are neither all harmless nor all fatal.
    expect(seen.accepted).toBeGreaterThan(RUNS / 20);
    expect(seen.refused).toBeGreaterThan(RUNS / 20);
  });

  test('the outcome does not depend on earlier calls (no hidden state)', () => {
    fc.assert(
      fc.property(mutation, (m) => {
        const doc = apply(structuredClone(v2()), m);
        expect(outcome(doc)).toBe(outcome(structuredClone(doc)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('generated valid snapshots', () => {
  test('are accepted with exact counts', () => {
    const opts = fc.record({
      schemaVersion: fc.constantFrom(1 as const, 2 as const),
      nodes: fc.integer({ min: 0, max: 200 }),
      roots: fc.integer({ min: 1, max: 20 }),
      modules: fc.integer({ min: 1, max: 25 }),
      depsPerNode: fc.integer({ min: 0, max: 8 }),
      rootDeps: fc.integer({ min: 1, max: 5 }),
      packagesPerRoot: fc.integer({ min: 0, max: 60 }),
      ecosystem: fc.constantFrom('gradle' as const, 'python' as const, 'javascript' as const, 'typescript' as const),
      seed: fc.nat(),
    });
    fc.assert(
      fc.property(opts, (o) => {
        const body = syntheticSnapshot(o);
        const { stats } = validateSnapshot(body, bytesOf(body));
        const edges =
          o.schemaVersion === 1
            ? body.roots.reduce((n, r) => n + r.dependencies.length, 0) +
              body.nodes.reduce((n, x) => n + x.dependencies.length, 0)
            : body.roots.reduce((n, r) => n + r.resolution!.vertices.reduce((m, v) => m + v.dependencies.length, 0), 0);
        const vertices = o.schemaVersion === 1 ? 0 : body.roots.reduce((n, r) => n + r.resolution!.vertices.length, 0);
        expect(stats).toEqual({
          nodes: o.nodes,
          roots: o.roots,
          modules: o.schemaVersion === 2 ? o.modules : 0,
          vertices,
          edges,
        });
      }),
      { numRuns: 300 },
    );
  });
});
