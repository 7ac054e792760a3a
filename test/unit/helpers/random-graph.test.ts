// The random graphs of the paged-equivalence property test are valid single uploads, and cut into parts they hold
// exactly the graph's items.
import fc from 'fast-check';
import { validateSnapshot } from '../../../src/domain/snapshot';
import { randomGraph, splitIntoParts } from '../../helpers/random-graph';

test('every random graph passes the single upload validation', () => {
  fc.assert(
    fc.property(randomGraph(), (s) => {
      const body = Buffer.from(JSON.stringify(s));
      validateSnapshot(JSON.parse(body.toString()), body);
    }),
    { numRuns: 300 },
  );
});

test('the parts of a graph hold each of its items exactly once', () => {
  fc.assert(
    fc.property(randomGraph(), fc.integer({ min: 1, max: 6 }), fc.nat(), (s, n, seed) => {
      const parts = splitIntoParts(s, n, seed);
      expect(parts).toHaveLength(n);
      for (const kind of ['modules', 'nodes', 'roots'] as const) {
        const items = parts.flatMap((p) => p[kind] ?? []);
        expect(items).toHaveLength((s[kind] ?? []).length);
        expect(new Set(items)).toEqual(new Set(s[kind] ?? []));
      }
    }),
    { numRuns: 200 },
  );
});
