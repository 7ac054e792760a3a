// Single-document upload limits (docs/api.md) and the counted ones, checked first on the untrusted body: they
// bound the work of everything after them. The body is not yet known to
// have any shape here, so only what is really an array is counted, and nothing here may throw a TypeError.
import { pointer, tooLarge } from '../errors';
import type { SnapshotStats } from '../../shared/types';

/** 10 MB read as MiB, the same cap the HTTP layer streams with (config.maxBodyBytes). */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

export const LIMITS = {
  bodyBytes: MAX_BODY_BYTES,
  nodes: 10_000,
  modules: 1_000,
  roots: 1_000,
  vertices: 100_000,
  verticesPerResolution: 100_000,
  edges: 500_000,
  hops: 256,
  attributionWork: 50_000_000,
} as const;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const arrayAt = (o: unknown, key: string): unknown[] | undefined => {
  if (!isObject(o)) return undefined;
  const v = o[key];
  return Array.isArray(v) ? v : undefined;
};
const lengthAt = (o: unknown, key: string): number => arrayAt(o, key)?.length ?? 0;

/** Remembers the element at which a running total first passes its limit, for the error's pointer. */
class Tally {
  total = 0;
  at: string | undefined;
  constructor(private readonly limit: number) {}
  add(n: number, where: () => string): void {
    this.total += n;
    if (this.at === undefined && this.total > this.limit) this.at = where();
  }
}

/**
 * Edges are the dependency references of the graph a version's paths are computed on: v1 the flat graph
 * (roots[].dependencies and nodes[].dependencies), v2 the resolution graphs (vertex dependencies). The v2 flat
 * lists are compatibility views, not checked against the resolutions; they stay bounded by the node and body limits.
 */
export function checkCountedLimits(body: unknown, bodyBytes: number): SnapshotStats {
  if (bodyBytes > MAX_BODY_BYTES) {
    throw tooLarge('', `body is ${bodyBytes} bytes, over the limit of ${MAX_BODY_BYTES}`);
  }
  const v2 = isObject(body) && body.schemaVersion === 2;
  const nodes = arrayAt(body, 'nodes') ?? [];
  const roots = arrayAt(body, 'roots') ?? [];
  const modules = v2 ? lengthAt(body, 'modules') : 0;
  if (nodes.length > LIMITS.nodes) throw tooLarge('/nodes', `${nodes.length} nodes, over the limit of ${LIMITS.nodes}`);
  if (modules > LIMITS.modules) throw tooLarge('/modules', `${modules} modules, over the limit of ${LIMITS.modules}`);
  if (roots.length > LIMITS.roots) throw tooLarge('/roots', `${roots.length} roots, over the limit of ${LIMITS.roots}`);

  const vertices = new Tally(LIMITS.vertices);
  const edges = new Tally(LIMITS.edges);
  if (v2) {
    for (let r = 0; r < roots.length; r++) {
      const list = arrayAt(isObject(roots[r]) ? (roots[r] as Obj).resolution : undefined, 'vertices') ?? [];
      vertices.add(list.length, () => pointer('roots', r, 'resolution', 'vertices'));
      // Vertices beyond the limit are not walked: their edges cannot change the answer, only the time it takes.
      if (vertices.at !== undefined) break;
      for (let v = 0; v < list.length; v++) {
        edges.add(lengthAt(list[v], 'dependencies'), () =>
          pointer('roots', r, 'resolution', 'vertices', v, 'dependencies'),
        );
      }
    }
  } else {
    for (let r = 0; r < roots.length; r++)
      edges.add(lengthAt(roots[r], 'dependencies'), () => pointer('roots', r, 'dependencies'));
    for (let n = 0; n < nodes.length; n++)
      edges.add(lengthAt(nodes[n], 'dependencies'), () => pointer('nodes', n, 'dependencies'));
  }
  if (vertices.at !== undefined) {
    throw tooLarge(vertices.at, `more than ${LIMITS.vertices} vertices in all resolutions (${vertices.total} so far)`);
  }
  if (edges.at !== undefined) {
    throw tooLarge(edges.at, `${edges.total} edges, over the limit of ${LIMITS.edges}`);
  }
  return { nodes: nodes.length, roots: roots.length, modules, vertices: vertices.total, edges: edges.total };
}
