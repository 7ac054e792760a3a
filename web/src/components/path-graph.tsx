// A finding's path and origins as a small SVG graph drawn with Preact elements (text nodes only, never markup
// from data): columns by longest distance from a start (graph-layout.ts), an arrow per step. Modules, packages and the
// vulnerable package are told apart by shape class and by the text alternative.
import { layout, type Node } from '../graph-layout';

export interface GraphPath {
  steps: string[];
}

const COL_W = 200;
const ROW_H = 44;
const BOX_W = 176;
const BOX_H = 28;
const MAX_LABEL = 26;

function short(s: string): string {
  return s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL - 1)}…` : s;
}

export function PathGraph({ paths, vulnerable, title }: { paths: string[][]; vulnerable: string; title: string }) {
  const { nodes, edges } = layout(paths.filter((p) => p.length));
  if (!nodes.length) return null;
  const at = new Map(nodes.map((n) => [n.id, n]));
  const width = (Math.max(...nodes.map((n) => n.col)) + 1) * COL_W;
  const height = (Math.max(...nodes.map((n) => n.row)) + 1) * ROW_H + 8;
  const x = (n: Node) => n.col * COL_W + 8;
  const y = (n: Node) => n.row * ROW_H + 8;
  const kind = (id: string) =>
    id === vulnerable ? 'node-vulnerable' : id.includes('@') && !id.startsWith(':') ? 'node-package' : 'node-module';
  return (
    <svg
      class="graph"
      role="img"
      aria-labelledby="graph-title graph-desc"
      viewBox={`0 0 ${width} ${height}`}
      width={width}
      height={height}
    >
      <title id="graph-title">{title}</title>
      <desc id="graph-desc">{edges.map(([a, b]) => `${a} depends on ${b}`).join('; ')}</desc>
      <defs>
        <marker
          id="arrow"
          viewBox="0 0 10 10"
          refX="10"
          refY="5"
          markerWidth="6"
          markerHeight="6"
          orient="auto-start-reverse"
        >
          <path d="M 0 0 L 10 5 L 0 10 z" />
        </marker>
      </defs>
      {edges.map(([a, b]) => {
        const from = at.get(a)!;
        const to = at.get(b)!;
        return (
          <path
            key={`${a}>${b}`}
            class="edge"
            marker-end="url(#arrow)"
            d={`M ${x(from) + BOX_W} ${y(from) + BOX_H / 2} L ${x(to)} ${y(to) + BOX_H / 2}`}
          />
        );
      })}
      {nodes.map((n) => (
        <g key={n.id} class={kind(n.id)} data-node={n.id}>
          <title>{n.id}</title>
          <rect x={x(n)} y={y(n)} width={BOX_W} height={BOX_H} rx={4} />
          <text x={x(n) + 6} y={y(n) + 18}>
            {short(n.id)}
          </text>
        </g>
      ))}
    </svg>
  );
}
