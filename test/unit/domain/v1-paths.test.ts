// v1 display paths (docs/scanning.md, "Paths and attribution"): [manifest, direct dependency id, ..., package id], the
// shortest over all roots, ties broken element by element; and the derived-path output budget.
import fc from 'fast-check';
import {
  AttributionLimitExceeded,
  derivePathBudget,
  MAX_PATH_CHARACTERS,
  MAX_PATH_SEGMENTS,
} from '../../../src/domain/attribution/budget';
import { v1Paths } from '../../../src/domain/attribution/v1-paths';
import type { Snapshot, SnapshotRoot } from '../../../src/shared/types';
import { node } from './helpers';

type Graph = Record<string, string[]>;

function snap(
  graph: Graph,
  roots: Array<Partial<SnapshotRoot> & { dependencies: string[] }>,
  manifests?: string[],
): Snapshot {
  return {
    schemaVersion: 1,
    project: 'proj',
    ecosystem: 'javascript',
    ...(manifests ? { manifests } : {}),
    roots: roots.map((r, i) => ({ module: `mod${i}`, context: 'dependencies', ...r })),
    nodes: Object.keys(graph)
      .sort()
      .map((id) => node(id, graph[id])),
  };
}
const pathsOf = (s: Snapshot, targets: string[]) => Object.fromEntries(v1Paths(s, targets));

describe('hand-checked graphs', () => {
  test('the shortest path over all roots, whichever root comes first', () => {
    const g: Graph = { 'a@1': ['b@1'], 'b@1': ['t@1'], 't@1': [], 'c@1': ['t@1'] };
    const roots = [
      { manifest: 'z/package.json', dependencies: ['a@1'] },
      { manifest: 'y/package.json', dependencies: ['c@1'] },
    ];
    expect(pathsOf(snap(g, roots), ['t@1'])).toEqual({ 't@1': ['y/package.json', 'c@1', 't@1'] });
    expect(pathsOf(snap(g, [...roots].reverse()), ['t@1'])).toEqual({ 't@1': ['y/package.json', 'c@1', 't@1'] });
  });

  test('equal lengths from two roots: the smaller manifest wins, in either root order', () => {
    const g: Graph = { 'a@1': ['t@1'], 'b@1': ['t@1'], 't@1': [] };
    const roots = [
      { manifest: 'b/package.json', dependencies: ['a@1'] },
      { manifest: 'a/package.json', dependencies: ['b@1'] },
    ];
    expect(pathsOf(snap(g, roots), ['t@1'])).toEqual({ 't@1': ['a/package.json', 'b@1', 't@1'] });
    expect(pathsOf(snap(g, [...roots].reverse()), ['t@1'])).toEqual({ 't@1': ['a/package.json', 'b@1', 't@1'] });
  });

  test('a diamond: the lexicographically smaller parent wins, whatever the edge order', () => {
    const g: Graph = { 'top@1': ['right@1', 'left@1'], 'right@1': ['t@1'], 'left@1': ['t@1'], 't@1': [] };
    expect(pathsOf(snap(g, [{ manifest: 'package.json', dependencies: ['top@1'] }]), ['t@1', 'right@1'])).toEqual({
      't@1': ['package.json', 'top@1', 'left@1', 't@1'],
      'right@1': ['package.json', 'top@1', 'right@1'],
    });
  });

  test('the tie is decided at the first differing element, not at the parent', () => {
    // [m, a, z, t] < [m, b, y, t] although y < z: a rule looking only at the immediate parent picks y.
    const g: Graph = { 'a@1': ['z@1'], 'b@1': ['y@1'], 'z@1': ['t@1'], 'y@1': ['t@1'], 't@1': [] };
    const s = snap(g, [{ manifest: 'package.json', dependencies: ['b@1', 'a@1'] }]);
    expect(pathsOf(s, ['t@1'])).toEqual({ 't@1': ['package.json', 'a@1', 'z@1', 't@1'] });
    // One level deeper: the order of the grandparents decides between two parents of equal name rank.
    const g2: Graph = {
      'a@1': ['q@1'],
      'b@1': ['p@1'],
      'q@1': ['n@1'],
      'p@1': ['m@1'],
      'n@1': ['t@1'],
      'm@1': ['t@1'],
      't@1': [],
    };
    expect(pathsOf(snap(g2, [{ manifest: 'package.json', dependencies: ['b@1', 'a@1'] }]), ['t@1'])).toEqual({
      't@1': ['package.json', 'a@1', 'q@1', 'n@1', 't@1'],
    });
  });

  test('a shorter path beats a lexicographically smaller longer one; a direct dependency is [manifest, id]', () => {
    const g: Graph = { 'a@1': ['b@1'], 'b@1': ['t@1'], 'z@1': ['t@1'], 't@1': [] };
    expect(pathsOf(snap(g, [{ manifest: 'package.json', dependencies: ['a@1', 'z@1'] }]), ['t@1', 'a@1'])).toEqual({
      't@1': ['package.json', 'z@1', 't@1'],
      'a@1': ['package.json', 'a@1'],
    });
  });

  test('manifest fallback: root.manifest, else snapshot.manifests[0], else root.module', () => {
    const g: Graph = { 't@1': [] };
    expect(pathsOf(snap(g, [{ manifest: 'own.json', dependencies: ['t@1'] }], ['first.json']), ['t@1'])).toEqual({
      't@1': ['own.json', 't@1'],
    });
    expect(pathsOf(snap(g, [{ dependencies: ['t@1'] }], ['first.json', 'second.json']), ['t@1'])).toEqual({
      't@1': ['first.json', 't@1'],
    });
    expect(pathsOf(snap(g, [{ module: 'web', dependencies: ['t@1'] }]), ['t@1'])).toEqual({ 't@1': ['web', 't@1'] });
    expect(pathsOf(snap(g, [{ module: 'web', dependencies: ['t@1'] }], []), ['t@1'])).toEqual({
      't@1': ['web', 't@1'],
    });
  });

  test('cycles and self-loops terminate and give simple shortest paths', () => {
    const g: Graph = { 'a@1': ['b@1', 'a@1'], 'b@1': ['a@1', 'c@1'], 'c@1': ['a@1', 't@1'], 't@1': ['a@1'] };
    expect(pathsOf(snap(g, [{ manifest: 'package.json', dependencies: ['a@1'] }]), ['t@1', 'a@1', 'c@1'])).toEqual({
      't@1': ['package.json', 'a@1', 'b@1', 'c@1', 't@1'],
      'a@1': ['package.json', 'a@1'],
      'c@1': ['package.json', 'a@1', 'b@1', 'c@1'],
    });
  });

  test("a target no root reaches: [first root's manifest, id]; unknown targets are left out", () => {
    const g: Graph = { 'a@1': [], 'orphan@1': [] };
    const s = snap(g, [{ dependencies: ['a@1'] }, { manifest: 'second.json', dependencies: [] }], ['m.json']);
    expect(pathsOf(s, ['orphan@1', 'nope@1'])).toEqual({ 'orphan@1': ['m.json', 'orphan@1'] });
    expect(pathsOf(snap(g, [{ module: 'web', dependencies: [] }]), ['orphan@1'])).toEqual({
      'orphan@1': ['web', 'orphan@1'],
    });
    expect(pathsOf(snap(g, [], ['m.json']), ['orphan@1'])).toEqual({ 'orphan@1': ['m.json', 'orphan@1'] });
    expect(pathsOf(snap(g, []), ['orphan@1'])).toEqual({ 'orphan@1': ['proj', 'orphan@1'] });
  });
});

// Reference: every simple path from every root, the shortest then smallest element by element.
function reference(s: Snapshot, target: string): string[] {
  const deps = new Map(s.nodes.map((n) => [n.id, n.dependencies]));
  let best: string[] | null = null;
  const better = (a: string[], b: string[] | null) => {
    if (!b || a.length !== b.length) return !b || a.length < b.length;
    const i = a.findIndex((x, k) => x !== b[k]);
    return i >= 0 && a[i] < b[i];
  };
  for (const r of s.roots) {
    const manifest = r.manifest ?? s.manifests?.[0] ?? r.module;
    const walk = (path: string[]) => {
      const last = path[path.length - 1];
      if (last === target) {
        if (better(path, best)) best = [...path];
        return;
      }
      for (const d of deps.get(last) ?? []) if (!path.includes(d)) walk([...path, d]);
    };
    for (const d of new Set(r.dependencies)) walk([manifest, d]);
  }
  return (
    best ?? [
      s.roots[0] ? (s.roots[0].manifest ?? s.manifests?.[0] ?? s.roots[0].module) : (s.manifests?.[0] ?? s.project),
      target,
    ]
  );
}

test('property: equals the exhaustive reference on random small graphs', () => {
  const ids = ['a@1', 'b@1', 'c@1', 'd@1', 'e@1', 'f@1', 'g@1'];
  const pick = fc.subarray(ids);
  fc.assert(
    fc.property(
      fc.tuple(...ids.map(() => pick)),
      fc.array(
        fc.record({ manifest: fc.option(fc.constantFrom('m1', 'm2', 'm0'), { nil: undefined }), dependencies: pick }),
        { minLength: 1, maxLength: 3 },
      ),
      fc.option(fc.constantFrom<string[]>(['m1'], ['m3', 'm0']), { nil: undefined }),
      (edges, roots, manifests) => {
        const g: Graph = Object.fromEntries(ids.map((id, i) => [id, edges[i]]));
        const s = snap(
          g,
          roots.map((r) => (r.manifest === undefined ? { dependencies: r.dependencies } : r)),
          manifests,
        );
        const got = v1Paths(s, ids);
        for (const id of ids) expect(got.get(id)).toEqual(reference(s, id));
      },
    ),
    { numRuns: 400, seed: 20240601 },
  );
});

describe('derived-path budget', () => {
  test('sums segments and characters over every path', () => {
    expect(derivePathBudget([['package.json', 'a@1'], [], ['x']])).toEqual({ segments: 3, characters: 12 + 3 + 1 });
    expect(derivePathBudget([])).toEqual({ segments: 0, characters: 0 });
  });

  test('exactly at either limit is accepted; one past it throws AttributionLimitExceeded with the totals', () => {
    expect(MAX_PATH_SEGMENTS).toBe(1_000_000);
    expect(MAX_PATH_CHARACTERS).toBe(8_000_000);
    expect(derivePathBudget([new Array(MAX_PATH_SEGMENTS).fill('')])).toEqual({
      segments: MAX_PATH_SEGMENTS,
      characters: 0,
    });
    expect(derivePathBudget([['x'.repeat(MAX_PATH_CHARACTERS)]])).toEqual({
      segments: 1,
      characters: MAX_PATH_CHARACTERS,
    });
    let err: unknown;
    try {
      derivePathBudget([new Array(MAX_PATH_SEGMENTS).fill(''), ['a']]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AttributionLimitExceeded);
    expect(err).toMatchObject({ name: 'AttributionLimitExceeded', segments: MAX_PATH_SEGMENTS + 1, characters: 1 });
    expect(() => derivePathBudget([['x'.repeat(4_000_000)], ['y'.repeat(4_000_001)]])).toThrow(
      AttributionLimitExceeded,
    );
  });

  test('stops at the first path that passes a limit (the rest is never pulled)', () => {
    let pulled = 0;
    function* paths() {
      for (;;) {
        pulled++;
        yield ['z'.repeat(3_000_000)];
      }
    }
    expect(() => derivePathBudget(paths())).toThrow(/exceeds 1000000 segments or 8000000 characters/);
    expect(pulled).toBe(3);
  });
});
