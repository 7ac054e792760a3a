// Scan.modules order: SCCs as alphabetical groups, dependencies first, ties alphabetical.
import fc from 'fast-check';
import { orderModules } from '../../../src/domain/attribution/module-order';
import type { SnapshotModule } from '../../../src/shared/types';

const order = (mods: Array<[string, string[]]>) =>
  orderModules(mods.map(([path, dependencies]) => ({ path, dependencies }))).map((m) => m.path);

test('dependencies before consumers; ties between ready modules alphabetical', () => {
  expect(
    order([
      [':app', [':lib']],
      [':lib', [':core']],
      [':core', []],
    ]),
  ).toEqual([':core', ':lib', ':app']);
  expect(
    order([
      [':b', []],
      [':a', []],
      [':c', []],
    ]),
  ).toEqual([':a', ':b', ':c']);
  // diamond: :app → :x, :y → :core
  expect(
    order([
      [':app', [':y', ':x']],
      [':y', [':core']],
      [':x', [':core']],
      [':core', []],
    ]),
  ).toEqual([':core', ':x', ':y', ':app']);
  // the smallest *ready* module first: :a waits for :z
  expect(
    order([
      [':a', [':z']],
      [':z', []],
      [':m', []],
    ]),
  ).toEqual([':m', ':z', ':a']);
});

test('cycles form alphabetical groups, placed as one component', () => {
  expect(
    order([
      [':b', [':a']],
      [':a', [':b']],
      [':app', [':b']],
    ]),
  ).toEqual([':a', ':b', ':app']);
  expect(
    order([
      [':c', [':a']],
      [':a', [':b']],
      [':b', [':c', ':base']],
      [':base', []],
      [':0', [':a']],
    ]),
  ).toEqual([':base', ':a', ':b', ':c', ':0']);
  // a group is ranked by its smallest member among ready components
  expect(
    order([
      [':y', [':z']],
      [':z', [':y']],
      [':m', []],
    ]),
  ).toEqual([':m', ':y', ':z']);
});

test('self-dependencies and unknown dependencies order nothing but are kept as sent; labels are copied', () => {
  const mods: SnapshotModule[] = [
    { path: ':a', dependencies: [':a', ':missing'], teamName: null },
    { path: ':b', dependencies: [], teamName: 'web', attributes: { tier: 'x' } },
    { path: ':c' },
  ];
  expect(orderModules(mods)).toEqual([
    { path: ':a', dependencies: [':a', ':missing'], teamName: null },
    { path: ':b', dependencies: [], teamName: 'web', attributes: { tier: 'x' } },
    { path: ':c', dependencies: [] },
  ]);
});

test('a 1,000-module chain and a 1,000-module cycle: no recursion limits', () => {
  const chain = Array.from(
    { length: 1000 },
    (_, i) =>
      [`:m${String(i).padStart(4, '0')}`, i ? [`:m${String(i - 1).padStart(4, '0')}`] : []] as [string, string[]],
  );
  expect(order([...chain].reverse())).toEqual(chain.map(([p]) => p));
  const cycle = chain.map(([p], i) => [p, [chain[(i + 1) % 1000][0]]] as [string, string[]]);
  expect(order(cycle)).toEqual(chain.map(([p]) => p));
});

test("property: every dependency outside a module's cycle comes earlier, and the order does not depend on input order", () => {
  const graph = fc
    .integer({ min: 1, max: 12 })
    .chain((n) =>
      fc.tuple(
        fc.constant(n),
        fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 30 }),
        fc.array(fc.nat(), { minLength: n, maxLength: n }),
      ),
    );
  fc.assert(
    fc.property(graph, ([n, edges, shuffle]) => {
      const paths = Array.from({ length: n }, (_, i) => `:m${i}`);
      const deps = paths.map(() => new Set<string>());
      for (const [a, b] of edges) deps[a].add(paths[b]);
      const mods = paths.map((p, i) => ({ path: p, dependencies: [...deps[i]] }));
      const got = orderModules(mods).map((m) => m.path);
      const shuffled = mods
        .map((m, i) => [shuffle[i], m] as const)
        .sort((x, y) => x[0] - y[0])
        .map(([, m]) => m);
      expect(orderModules(shuffled).map((m) => m.path)).toEqual(got);
      const pos = new Map(got.map((p, i) => [p, i]));
      const reach = (from: string, to: string) => {
        const seen = new Set([from]);
        const stack = [from];
        while (stack.length)
          for (const d of deps[paths.indexOf(stack.pop()!)]) if (!seen.has(d)) (seen.add(d), stack.push(d));
        return seen.has(to);
      };
      for (let i = 0; i < n; i++) {
        for (const d of deps[i]) {
          const sameCycle = reach(d, paths[i]);
          if (!sameCycle) expect(pos.get(d)!).toBeLessThan(pos.get(paths[i])!);
        }
      }
    }),
    { numRuns: 300 },
  );
});
