// The layout of a finding's path graph (components/path-graph.tsx): pure, unit-tested in test/browser/web-graph.test.ts.
export interface Node {
  id: string;
  col: number;
  row: number;
}

/**
 * Columns by longest distance from a start (every arrow points right, also where one path's start is another's
 * middle: `:app → :lib → x` beside `:lib → x` puts :lib in the second column), rows in order of appearance.
 */
export function layout(paths: string[][]): { nodes: Node[]; edges: [string, string][] } {
  const col = new Map<string, number>();
  const edges = new Map<string, [string, string]>();
  for (const p of paths) {
    for (const id of p) if (!col.has(id)) col.set(id, 0);
    for (let i = 1; i < p.length; i++) if (p[i - 1] !== p[i]) edges.set(`${p[i - 1]}\u0000${p[i]}`, [p[i - 1], p[i]]);
  }
  // relax until stable; a cycle (not expected in dependency paths) is cut off after |nodes| rounds
  for (let round = 0, changed = true; changed && round < col.size; round++) {
    changed = false;
    for (const [a, b] of edges.values()) {
      if (col.get(b)! < col.get(a)! + 1) {
        col.set(b, col.get(a)! + 1);
        changed = true;
      }
    }
  }
  const rows = new Map<number, number>();
  const nodes = [...col].map(([id, c]) => {
    const row = rows.get(c) ?? 0;
    rows.set(c, row + 1);
    return { id, col: c, row };
  });
  return { nodes, edges: [...edges.values()] };
}
