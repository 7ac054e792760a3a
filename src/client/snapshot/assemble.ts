// The parts the producers made, merged into one snapshot per ecosystem. A flat (v1) part joins a
// graph (v2) snapshot through flat resolutions; otherwise the version is the parts' own. Pure: no I/O.
import type {
  Ecosystem,
  Snapshot,
  SnapshotMetadata,
  SnapshotModule,
  SnapshotNode,
  SnapshotRoot,
  SnapshotVertex,
} from '../../shared/types';
import type { PackageLocation, ProducedPart } from '../producers/types';

export interface PartFrom {
  /** The lockfile, relative to the project root. */
  lockfile: string;
  part: ProducedPart;
}

export interface Team {
  teamName: string | null;
  attributes?: Record<string, string>;
}

export interface AssembleOptions {
  project: string;
  metadata?: SnapshotMetadata;
  /** The team of a module, from its manifest path relative to the project root; undefined when none. */
  teamOf?: (manifest: string) => Team | undefined;
}

export interface Assembled {
  snapshot: Snapshot;
  lockfiles: string[];
  /** Package id → its first entry, file relative to the project root. */
  locations: Record<string, PackageLocation>;
  warnings: string[];
}

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A flat root as a resolution: the module's vertex, then every package its dependencies reach, one vertex each. */
export function flatResolution(root: SnapshotRoot, nodes: Map<string, SnapshotNode>): SnapshotRoot {
  const index = new Map<string, string>();
  const vertices: SnapshotVertex[] = [{ id: '0', module: root.module, dependencies: [] }];
  const queue: string[] = [];
  const vertexOf = (id: string): string => {
    let v = index.get(id);
    if (v === undefined) {
      v = String(vertices.length);
      index.set(id, v);
      vertices.push({ id: v, node: id, dependencies: [] });
      queue.push(id);
    }
    return v;
  };
  vertices[0].dependencies = root.dependencies.filter((d) => nodes.has(d)).map(vertexOf);
  for (let q = 0; q < queue.length; q++) {
    const id = queue[q];
    const v = vertices[Number(index.get(id))];
    v.dependencies = (nodes.get(id)?.dependencies ?? []).filter((d) => nodes.has(d)).map(vertexOf);
  }
  return { ...root, resolution: { root: '0', vertices } };
}

function mergeEcosystem(ecosystem: Ecosystem, parts: PartFrom[], opts: AssembleOptions): Assembled {
  const version: 1 | 2 = parts.some((p) => p.part.schemaVersion === 2) ? 2 : 1;
  const warnings: string[] = [];
  const modules = new Map<string, SnapshotModule & { manifest: string }>();
  const roots: SnapshotRoot[] = [];
  const nodes = new Map<string, SnapshotNode>();
  const manifests: string[] = [];
  const locations: Record<string, PackageLocation> = {};
  const lockfiles: string[] = [];
  const rootKeys = new Set<string>();
  for (const { lockfile, part } of parts) {
    // Two lockfiles that resolve the same module and context (a nested lockfile inside a workspace of another, a
    // package-lock.json beside a yarn.lock) would send duplicate roots, which the service refuses: the first found
    // (the outer one) is kept. Different contexts of one module (requirements.txt and requirements-dev.txt) merge.
    const clash = part.roots.find((r) => rootKeys.has(`${r.module}\u0000${r.context}`));
    if (clash) {
      warnings.push(
        `${lockfile}: skipped, its module "${clash.module}" (${clash.context}) is already described by ${lockfiles.join(', ')}`,
      );
      continue;
    }
    for (const r of part.roots) rootKeys.add(`${r.module}\u0000${r.context}`);
    lockfiles.push(lockfile);
    warnings.push(...part.warnings.map((w) => `${lockfile}: ${w}`));
    for (const m of part.modules) if (!modules.has(m.path)) modules.set(m.path, m);
    for (const n of part.nodes) {
      const have = nodes.get(n.id);
      if (!have) nodes.set(n.id, { ...n, dependencies: [...n.dependencies] });
      else have.dependencies = [...new Set([...have.dependencies, ...n.dependencies])].sort(byId);
    }
    roots.push(...part.roots.map((r) => ({ ...r })));
    for (const m of part.manifests) if (!manifests.includes(m)) manifests.push(m);
    for (const [id, loc] of Object.entries(part.locations)) if (!Object.hasOwn(locations, id)) locations[id] = loc;
  }
  const nodeList = [...nodes.values()].sort((a, b) => byId(a.id, b.id));
  const direct = new Set(roots.flatMap((r) => r.dependencies));
  for (const n of nodeList) n.relationship = direct.has(n.id) ? 'direct' : 'transitive';

  const snapshot: Snapshot = {
    schemaVersion: version,
    project: opts.project,
    ecosystem,
    manifests,
    roots,
    nodes: nodeList,
  };
  if (version === 2) {
    snapshot.roots = roots.map((r) => (r.resolution ? r : flatResolution(r, nodes)));
    for (const r of snapshot.roots) {
      if (!modules.has(r.module))
        modules.set(r.module, { path: r.module, manifest: r.manifest ?? r.module, dependencies: [] });
    }
    snapshot.modules = [...modules.values()].map(({ manifest, ...m }) => {
      const team = opts.teamOf?.(manifest);
      return team ? { ...m, teamName: team.teamName, ...(team.attributes ? { attributes: team.attributes } : {}) } : m;
    });
  }
  if (opts.metadata && Object.keys(opts.metadata).length > 0) snapshot.metadata = opts.metadata;
  return { snapshot, lockfiles, locations, warnings };
}

/** One snapshot per ecosystem, in the order the ecosystems were first found. */
export function assemble(parts: PartFrom[], opts: AssembleOptions): Assembled[] {
  const groups = new Map<Ecosystem, PartFrom[]>();
  for (const p of parts) {
    const list = groups.get(p.part.ecosystem) ?? [];
    list.push(p);
    groups.set(p.part.ecosystem, list);
  }
  return [...groups].map(([ecosystem, list]) => mergeEcosystem(ecosystem, list, opts));
}
