// A compact way to write v2 snapshots in tests. A vertex is [id, label, ...dependency vertex ids]; a label starting
// with ':' is a module path, anything else a package id name@version. Nodes, their flat dependencies and
// relationships are derived from the vertices (compatibility views), so every fixture passes validateSnapshot.
import type { Snapshot, SnapshotModule } from '../../src/shared/types';

export type V = [id: string, label: string, ...deps: string[]];

export interface RootSpec {
  module: string;
  context: string;
  vertices: V[];
}

export function v2Snapshot(roots: RootSpec[], modules?: SnapshotModule[], extra: Partial<Snapshot> = {}): Snapshot {
  const nodeDeps = new Map<string, Set<string>>();
  const direct = new Set<string>();
  const moduleSet = new Set<string>();
  const outRoots = roots.map((r) => {
    const byId = new Map(r.vertices.map((v) => [v[0], v[1]]));
    const rootVertex = r.vertices.find((v) => v[1] === r.module);
    if (!rootVertex) throw new Error(`root ${r.module}/${r.context} has no vertex of its module`);
    const rootDeps = new Set<string>();
    for (const [, label, ...deps] of r.vertices) {
      if (label.startsWith(':')) {
        moduleSet.add(label);
        continue;
      }
      const set = nodeDeps.get(label) ?? new Set<string>();
      nodeDeps.set(label, set);
      for (const d of deps) {
        const l = byId.get(d)!;
        if (!l.startsWith(':')) set.add(l);
      }
    }
    for (const d of rootVertex.slice(2)) {
      const l = byId.get(d)!;
      if (!l.startsWith(':')) {
        rootDeps.add(l);
        direct.add(l);
      }
    }
    return {
      module: r.module,
      context: r.context,
      dependencies: [...rootDeps].sort(),
      resolution: {
        root: rootVertex[0],
        vertices: r.vertices.map(([id, label, ...deps]) =>
          label.startsWith(':')
            ? { id, module: label, node: null, dependencies: deps }
            : { id, module: null, node: label, dependencies: deps },
        ),
      },
    };
  });
  const nodes = [...nodeDeps.keys()].sort().map((id) => {
    const at = id.lastIndexOf('@');
    return {
      id,
      name: id.slice(0, at),
      version: id.slice(at + 1),
      relationship: direct.has(id) ? ('direct' as const) : ('transitive' as const),
      dependencies: [...nodeDeps.get(id)!].sort(),
    };
  });
  for (const r of roots) moduleSet.add(r.module);
  const mods = modules ?? [...moduleSet].sort().map((path) => ({ path, dependencies: [] }));
  return {
    schemaVersion: 2,
    project: 'p',
    ecosystem: 'gradle',
    modules: mods,
    roots: outRoots,
    nodes,
    ...extra,
  } as Snapshot;
}
