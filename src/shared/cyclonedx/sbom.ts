// The CycloneDX 1.6 SBOM of a scan's snapshot: every package as a library component (bom-ref = its
// inventory dep_ id, purl), the first-party modules (v2 modules; v1 the manifests its paths start from) as the
// project's sub-components, and the dependency graph. Pure and order-independent: the service answers
// GET /v1/scans/{id}/sbom with it, and the CI client (`scanner scan --format cyclonedx`) writes the same bytes from the
// snapshot it uploaded.
import type { Snapshot } from '../types';
import {
  byCodePoints,
  byRef,
  frame,
  metadata,
  moduleRef,
  packageComponents,
  projectComponent,
  PROPERTY_PREFIX,
} from './common';
import type { BomScan, BomTool, CdxBom, CdxComponent, CdxDependency, CdxProperty } from './types';

// What the CI client needs besides buildSbom, from the one module it loads for `--format cyclonedx`.
export { serializeBom } from './common';
export { TOOL_NAME } from './types';

export interface SbomInput {
  scan: BomScan;
  snapshot: Snapshot;
  tool: BomTool;
}

/**
 * The manifest a v1 root's paths start from (the root's manifest, else the snapshot's first, else the
 * root's module): the first element of its findings' paths and of the inventory's, so the first-party component a
 * v1 package hangs from is the one its path names.
 */
const v1Manifest = (snapshot: Snapshot, root: Snapshot['roots'][number]): string =>
  root.manifest || snapshot.manifests?.[0] || root.module;

interface Modules {
  /** Module paths (v2) or manifests (v1), sorted. */
  paths: string[];
  index: Map<string, number>;
}

function moduleSet(paths: Iterable<string>): Modules {
  const sorted = [...new Set(paths)].sort(byCodePoints);
  return { paths: sorted, index: new Map(sorted.map((p, i) => [p, i])) };
}

/** A v2 module's labels as properties: its team and attributes (snapshot-local labels, spec: Module). */
function moduleProperties(m: NonNullable<Snapshot['modules']>[number] | undefined): CdxProperty[] {
  const out: CdxProperty[] = [];
  if (typeof m?.teamName === 'string') out.push({ name: `${PROPERTY_PREFIX}team`, value: m.teamName });
  const attributes = m?.attributes ?? {};
  for (const k of Object.keys(attributes).sort(byCodePoints))
    out.push({ name: `${PROPERTY_PREFIX}attribute:${k}`, value: String(attributes[k]) });
  return out;
}

/**
 * Edges between components, numbered: packages are 0..P-1 (their order in the document), modules P..P+M-1. A Set of
 * numbers per source keeps the graph deduplicated by bom-ref in memory linear in the distinct edges.
 */
class Edges {
  private readonly out = new Map<number, Set<number>>();
  add(from: number, to: number): void {
    if (from === to || from < 0 || to < 0) return; // a merged package naming itself; a reference the upload would refuse
    let s = this.out.get(from);
    if (!s) this.out.set(from, (s = new Set()));
    s.add(to);
  }
  of(from: number): Set<number> | undefined {
    return this.out.get(from);
  }
}

export function buildSbom({ scan, snapshot, tool }: SbomInput): CdxBom {
  const packages = packageComponents(snapshot, scan.projectId);
  const P = packages.list.length;
  const nodeIndex = new Map<string, number>();
  snapshot.nodes.forEach((n, i) => nodeIndex.set(n.id, packages.ofNode[i]));
  const pkg = (nodeId: string) => nodeIndex.get(nodeId) ?? -1;
  const edges = new Edges();
  let modules: Modules;

  if (snapshot.schemaVersion === 2) {
    // Every module a vertex or a root names is a component, listed or not (the upload refuses unlisted ones; an
    // export never fails on what it reads).
    const declared = snapshot.modules ?? [];
    const paths: string[] = declared.map((m) => m.path);
    for (const r of snapshot.roots) {
      paths.push(r.module);
      for (const v of r.resolution?.vertices ?? []) if (typeof v.module === 'string') paths.push(v.module);
    }
    modules = moduleSet(paths);
    const mod = (path: string) => P + (modules.index.get(path) ?? -P - 1);
    for (const m of declared) for (const d of m.dependencies ?? []) edges.add(mod(m.path), mod(d));
    // The resolutions are authoritative (the flat lists are only compatibility views): a module vertex's edges are what
    // the module declares (packages) and depends on (modules); a package vertex's edges are its dependencies in that
    // resolution. The union over all resolutions, deduplicated by bom-ref; nodes[].dependencies are not read.
    for (const r of snapshot.roots) {
      const vertices = r.resolution?.vertices ?? [];
      const at = new Map<string, number>();
      for (const v of vertices)
        at.set(v.id, typeof v.module === 'string' ? mod(v.module) : typeof v.node === 'string' ? pkg(v.node) : -1);
      for (const v of vertices) {
        const from = at.get(v.id)!;
        for (const d of v.dependencies) edges.add(from, at.get(d) ?? -1);
      }
    }
  } else {
    modules = moduleSet(snapshot.roots.map((r) => v1Manifest(snapshot, r)));
    for (const r of snapshot.roots) {
      const from = P + modules.index.get(v1Manifest(snapshot, r))!;
      for (const d of r.dependencies) edges.add(from, pkg(d));
    }
    snapshot.nodes.forEach((n, i) => {
      for (const d of n.dependencies) edges.add(packages.ofNode[i], pkg(d));
    });
  }

  const declaredModules = new Map((snapshot.modules ?? []).map((m) => [m.path, m]));
  const moduleComponents: CdxComponent[] = modules.paths.map((path) => {
    const properties = snapshot.schemaVersion === 2 ? moduleProperties(declaredModules.get(path)) : [];
    return {
      type: 'application',
      'bom-ref': moduleRef(scan.projectId, snapshot.ecosystem, path),
      name: path,
      ...(properties.length ? { properties } : {}),
    };
  });
  const refOf = (k: number) => (k < P ? packages.list[k]['bom-ref'] : moduleComponents[k - P]['bom-ref']);
  const entry = (ref: string, targets: Iterable<number> | undefined): CdxDependency => {
    const dependsOn = targets ? [...targets].map(refOf).sort(byRef) : [];
    return dependsOn.length ? { ref, dependsOn } : { ref };
  };
  // The project is made of its modules: it depends on each of them, as a dependency graph's root does.
  const dependencies: CdxDependency[] = [
    entry(
      scan.projectId,
      moduleComponents.map((_, i) => P + i),
    ),
    ...moduleComponents.map((c, i) => entry(c['bom-ref'], edges.of(P + i))),
    ...packages.list.map((c, k) => entry(c['bom-ref'], edges.of(k))),
  ];
  const project = projectComponent(scan, moduleComponents);
  return {
    ...frame(scan, 'sbom', metadata(scan, snapshot, tool, scan.startedAt, project)),
    components: packages.list,
    dependencies,
  };
}
