// Cross-reference rules of the snapshot format (violations: 422 invalid_snapshot), checked on a structurally valid
// snapshot. Every lookup goes through a Map built once, and the graphs come out integer-indexed for the limit checks,
// so the whole pass is linear in the size of the document. The first violation found is reported, in this order:
// modules, nodes, duplicate roots, then each root with its resolution, then packages that no resolution uses.
import { invalidSnapshot, pointer } from '../errors';
import type { Snapshot, SnapshotNode, SnapshotRoot } from '../../shared/types';
import { bfs, type Csr, type FlatGraph, type ResolutionGraph } from './graph-checks';

/** A value quoted for a message; long values are cut so that the message stays readable. */
export function quote(s: string): string {
  return JSON.stringify(s.length > 120 ? `${s.slice(0, 120)}…` : s);
}

type At = (...segments: Array<string | number>) => string;

function indexNodes(nodes: SnapshotNode[], requireNameAtVersion: boolean): Map<string, number> {
  const ids = new Map<string, number>();
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    const first = ids.get(n.id);
    if (first !== undefined)
      throw invalidSnapshot(pointer('nodes', i, 'id'), `duplicate node id ${quote(n.id)} (also /nodes/${first})`);
    if (requireNameAtVersion && n.id !== `${n.name}@${n.version}`) {
      throw invalidSnapshot(pointer('nodes', i, 'id'), `must equal name@version (${quote(`${n.name}@${n.version}`)})`);
    }
    ids.set(n.id, i);
  }
  return ids;
}

/** Integer ids of references, each of which must be a key of `ids`. */
function resolveRefs(refs: string[], ids: Map<string, number>, at: (k: number) => string, kind: string): Int32Array {
  const out = new Int32Array(refs.length);
  for (let k = 0; k < refs.length; k++) {
    const j = ids.get(refs[k]);
    if (j === undefined) throw invalidSnapshot(at(k), `unknown ${kind} ${quote(refs[k])}`);
    out[k] = j;
  }
  return out;
}

/** Adjacency of `count` elements whose dependency lists reference keys of `ids`. */
function buildCsr(
  count: number,
  deps: (i: number) => string[],
  ids: Map<string, number>,
  at: (i: number, k: number) => string,
  kind: string,
): Csr {
  const offsets = new Int32Array(count + 1);
  for (let i = 0; i < count; i++) offsets[i + 1] = offsets[i] + deps(i).length;
  const targets = new Int32Array(offsets[count]);
  for (let i = 0; i < count; i++) {
    const refs = deps(i);
    for (let k = 0, t = offsets[i]; k < refs.length; k++, t++) {
      const j = ids.get(refs[k]);
      if (j === undefined) throw invalidSnapshot(at(i, k), `unknown ${kind} ${quote(refs[k])}`);
      targets[t] = j;
    }
  }
  return { offsets, targets };
}

/** One root per (module, context): a second one would make attributions ambiguous. */
function checkRootKeys(roots: SnapshotRoot[]): void {
  const seen = new Map<string, Map<string, number>>();
  for (let i = 0; i < roots.length; i++) {
    const { module, context } = roots[i];
    let contexts = seen.get(module);
    if (!contexts) seen.set(module, (contexts = new Map()));
    const first = contexts.get(context);
    if (first !== undefined) {
      throw invalidSnapshot(
        pointer('roots', i),
        `duplicate root for module ${quote(module)} and context ${quote(context)} (also /roots/${first})`,
      );
    }
    contexts.set(context, i);
  }
}

/** v1: node ids are used as sent; references must resolve within nodes. */
export function crossReferenceV1(s: Snapshot): FlatGraph {
  const ids = indexNodes(s.nodes, false);
  checkRootKeys(s.roots);
  const rootDeps = s.roots.map((r, i) =>
    resolveRefs(r.dependencies, ids, (k) => pointer('roots', i, 'dependencies', k), 'node'),
  );
  const g = buildCsr(
    s.nodes.length,
    (i) => s.nodes[i].dependencies,
    ids,
    (i, k) => pointer('nodes', i, 'dependencies', k),
    'node',
  );
  return { ...g, rootDeps };
}

interface V2Context {
  modulePaths: Map<string, number>;
  nodeIds: Map<string, number>;
  /** Per node: 1 once a resolution uses it (rule 4). */
  covered: Uint8Array;
  /** Per node: the last resolution that counted it, for distinct packages per resolution. */
  stamp: Int32Array;
}

/** v2: the resolution graphs are authoritative; the flat lists must still resolve. */
export function crossReferenceV2(s: Snapshot): ResolutionGraph[] {
  const modules = s.modules ?? [];
  const modulePaths = new Map<string, number>();
  for (let i = 0; i < modules.length; i++) {
    const first = modulePaths.get(modules[i].path);
    if (first !== undefined) {
      throw invalidSnapshot(
        pointer('modules', i, 'path'),
        `duplicate module path ${quote(modules[i].path)} (also /modules/${first})`,
      );
    }
    modulePaths.set(modules[i].path, i);
  }
  modules.forEach((m, i) =>
    resolveRefs(m.dependencies ?? [], modulePaths, (k) => pointer('modules', i, 'dependencies', k), 'module'),
  );

  const nodeIds = indexNodes(s.nodes, true);
  buildCsr(
    s.nodes.length,
    (i) => s.nodes[i].dependencies,
    nodeIds,
    (i, k) => pointer('nodes', i, 'dependencies', k),
    'node',
  );

  checkRootKeys(s.roots);
  const ctx: V2Context = {
    modulePaths,
    nodeIds,
    covered: new Uint8Array(s.nodes.length),
    stamp: new Int32Array(s.nodes.length).fill(-1),
  };
  const graphs = s.roots.map((root, i) => {
    if (!modulePaths.has(root.module))
      throw invalidSnapshot(pointer('roots', i, 'module'), `unknown module ${quote(root.module)}`);
    resolveRefs(root.dependencies, nodeIds, (k) => pointer('roots', i, 'dependencies', k), 'node');
    return resolutionGraph(root, i, ctx);
  });

  const unused = ctx.covered.indexOf(0);
  if (unused !== -1)
    throw invalidSnapshot(pointer('nodes', unused), `package ${quote(s.nodes[unused].id)} occurs in no resolution`);
  return graphs;
}

function resolutionGraph(root: SnapshotRoot, ri: number, ctx: V2Context): ResolutionGraph {
  const at: At = (...segments) => pointer('roots', ri, 'resolution', ...segments);
  // The schema requires a resolution on every v2 root.
  const { root: rootId, vertices } = root.resolution!;
  const vertexIds = new Map<string, number>();
  let packages = 0;
  for (let j = 0; j < vertices.length; j++) {
    const v = vertices[j];
    const first = vertexIds.get(v.id);
    if (first !== undefined)
      throw invalidSnapshot(at('vertices', j, 'id'), `duplicate vertex id ${quote(v.id)} (also vertex ${first})`);
    vertexIds.set(v.id, j);
    const { module, node } = v;
    if (module != null && node != null)
      throw invalidSnapshot(at('vertices', j), 'exactly one of module and node must be set, not both');
    if (module != null) {
      if (!ctx.modulePaths.has(module))
        throw invalidSnapshot(at('vertices', j, 'module'), `unknown module ${quote(module)}`);
    } else if (node != null) {
      const n = ctx.nodeIds.get(node);
      if (n === undefined) throw invalidSnapshot(at('vertices', j, 'node'), `unknown node ${quote(node)}`);
      ctx.covered[n] = 1;
      if (ctx.stamp[n] !== ri) {
        ctx.stamp[n] = ri;
        packages++;
      }
    } else {
      throw invalidSnapshot(at('vertices', j), 'exactly one of module and node must be set, neither is');
    }
  }

  const rootIndex = vertexIds.get(rootId);
  if (rootIndex === undefined) throw invalidSnapshot(at('root'), `unknown vertex ${quote(rootId)}`);
  if (vertices[rootIndex].module !== root.module) {
    throw invalidSnapshot(
      at('root'),
      `vertex ${quote(rootId)} is not a vertex of the root's own module ${quote(root.module)}`,
    );
  }

  const g = buildCsr(
    vertices.length,
    (j) => vertices[j].dependencies,
    vertexIds,
    (j, k) => at('vertices', j, 'dependencies', k),
    'vertex',
  );
  const dist = bfs(g, [rootIndex], 0);
  const unreachable = dist.indexOf(-1);
  if (unreachable !== -1) {
    throw invalidSnapshot(
      at('vertices', unreachable),
      `vertex ${quote(vertices[unreachable].id)} is not reachable from the resolution root ${quote(rootId)}`,
    );
  }
  return { ...g, root: rootIndex, dist, packages };
}
