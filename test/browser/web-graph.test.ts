// The web app's pure pieces (web/src) behind a finding's row text and its SVG graph.
import { layout } from '../../web/src/graph-layout';
import { filtersFromQuery } from '../../web/src/filters';
import { buildRows, viaText } from '../../web/src/rows';
import type { Finding } from '../../web/src/types';

function finding(origins: [consumer: string, declarer: string, dependency: string][]): Finding {
  return {
    id: 'f',
    scanId: 's',
    severity: 'high',
    cve: 'CVE-1',
    publishedAt: null,
    package: 'p',
    installedVersion: '1',
    fixedVersion: null,
    path: [],
    suppressed: false,
    suppressionReason: null,
    summary: '',
    attributions: origins.map(([module, from, dependency]) => ({
      module,
      context: 'c',
      relationship: 'transitive',
      origins: [{ module: from, dependency }],
    })),
  };
}

test('graph layout: every arrow points right, also when one path starts in the middle of another', () => {
  const { nodes, edges } = layout([
    [':checkout', ':common', 'yaml@1', 'snake@1'],
    [':common', 'yaml@1', 'snake@1'],
  ]);
  const col = new Map(nodes.map((n) => [n.id, n.col]));
  expect(Object.fromEntries(col)).toEqual({ ':checkout': 0, ':common': 1, 'yaml@1': 2, 'snake@1': 3 });
  for (const [a, b] of edges) expect(col.get(b)!).toBeGreaterThan(col.get(a)!);
  expect(edges).toHaveLength(3);
  // two starts in one column take two rows
  const two = layout([
    [':a', 'x@1'],
    [':b', 'x@1'],
  ]);
  expect(two.nodes.map((n) => [n.id, n.col, n.row])).toEqual([
    [':a', 0, 0],
    ['x@1', 1, 0],
    [':b', 0, 1],
  ]);
  // a cycle does not hang the layout
  expect(layout([['a', 'b', 'a']]).nodes).toHaveLength(2);
});

test("a row's origins text leads with the origins that put the finding in its group", () => {
  const teamOf = () => null;
  // jackson: declared by :checkout itself, and brought to :checkout and :common by :common's yaml dependency
  const x = finding([
    [':checkout', ':common', 'yaml@1'],
    [':common', ':common', 'yaml@1'],
    [':checkout', ':checkout', 'jackson@1'],
  ]);
  expect(viaText(x)).toBe('introduced by :common via yaml@1; :checkout via jackson@1');
  const rows = buildRows([x], filtersFromQuery({}), teamOf)
    .filter((r) => r.kind === 'finding')
    .map((r) => (r.kind === 'finding' ? r.via : ''));
  expect(rows).toEqual([
    'introduced by :common via yaml@1; :checkout via jackson@1',
    'introduced by :checkout via jackson@1; :common via yaml@1',
  ]);
  // by dependency: the group's dependency first
  const byDep = buildRows([x], filtersFromQuery({ group: 'dependency' }), teamOf).filter((r) => r.kind === 'finding');
  expect(byDep.map((r) => (r.kind === 'finding' ? r.via.split(';')[0] : ''))).toEqual([
    'introduced by :common via yaml@1',
    'introduced by :checkout via jackson@1',
  ]);
});
