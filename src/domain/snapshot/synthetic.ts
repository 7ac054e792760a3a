// Deterministic synthetic snapshots of a chosen size, valid for validateSnapshot when the sizes are within the
// limits: for tests, benchmarks and integration runs that need big documents without shipping fixtures.
//
// Shape: root r owns a window of consecutive packages starting at r × nodes / roots, the windows together covering
// every node (every package occurs in some resolution). Package i depends on packages i + o (mod nodes) for
// `depsPerNode` offsets o (see dependencyOffsets), so every package of a window is reachable from its first one in few
// hops. In v2, root r's resolution is its window with the same edges restricted to the window; in v1 the roots depend
// on their windows.
import type {
  Ecosystem,
  Snapshot,
  SnapshotModule,
  SnapshotNode,
  SnapshotRoot,
  SnapshotVertex,
} from '../../shared/types';

export interface SyntheticOptions {
  schemaVersion: 1 | 2;
  nodes: number;
  roots: number;
  /** Out-degree of every package in the flat graph; v2 resolutions keep the edges that stay inside their window. */
  depsPerNode: number;
  /** Modules the roots are spread over (root r belongs to module r % modules). Default: one per root. */
  modules?: number;
  /** Packages in each root's window (v2: its resolution's package vertices); at least, and by default, ceil(nodes / roots). */
  packagesPerRoot?: number;
  /** Direct dependencies of each root, evenly spaced over its window. Default 1 (all of them when depsPerNode is 0). */
  rootDeps?: number;
  ecosystem?: Ecosystem;
  project?: string;
  /** Varies the versions; the same options give the same document. */
  seed?: number;
}

const CONTEXTS: Record<Ecosystem, string[]> = {
  gradle: ['runtimeClasspath', 'compileClasspath', 'testRuntimeClasspath', 'testCompileClasspath'],
  python: ['main', 'dev', 'test'],
  javascript: ['dependencies', 'devDependencies'],
  typescript: ['dependencies', 'devDependencies'],
};
const MANIFEST: Record<Ecosystem, string> = {
  gradle: 'build.gradle.kts',
  python: 'pyproject.toml',
  javascript: 'package.json',
  typescript: 'package.json',
};

/** mulberry32: a tiny deterministic PRNG; quality is irrelevant here. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` distinct offsets in [1, n): the powers 1, b, b², ... of the smallest base b ≥ 2 with b^count ≥ span,
 * then the other integers in order. Any position within `span` of another is then at most (b - 1) × count hops
 * from it (digits in base b), which keeps the hops of a window of `span` packages small.
 */
export function dependencyOffsets(count: number, span: number, n: number): number[] {
  let base = 2;
  while (count > 0 && base ** count < span) base++;
  const out: number[] = [];
  const taken = new Set<number>();
  for (let p = 1; p < n && out.length < count; p *= base) {
    out.push(p);
    taken.add(p);
  }
  for (let o = 2; o < n && out.length < count; o++) if (!taken.has(o)) out.push(o);
  return out;
}

const pad = (i: number, width: number) => String(i).padStart(width, '0');

function packageName(ecosystem: Ecosystem, i: number, width: number): string {
  if (ecosystem === 'gradle') return `org.example:lib-${pad(i, width)}`;
  if (ecosystem === 'python') return `lib-${pad(i, width)}`;
  return `pkg-${pad(i, width)}`;
}

function modulePath(ecosystem: Ecosystem, i: number): string {
  return ecosystem === 'gradle' ? (i === 0 ? ':' : `:module-${pad(i, 4)}`) : `module-${pad(i, 4)}`;
}

export function syntheticSnapshot(opts: SyntheticOptions): Snapshot {
  const n = Math.max(0, Math.floor(opts.nodes));
  const rootCount = Math.max(0, Math.floor(opts.roots));
  const moduleCount = Math.max(1, Math.floor(opts.modules ?? rootCount));
  const ecosystem = opts.ecosystem ?? (opts.schemaVersion === 1 ? 'javascript' : 'gradle');
  const random = prng(opts.seed ?? 1);
  const width = Math.max(5, String(n).length);

  const ids: string[] = [];
  const nodes: SnapshotNode[] = [];
  for (let i = 0; i < n; i++) {
    const name = packageName(ecosystem, i, width);
    const version = `${1 + Math.floor(random() * 5)}.${Math.floor(random() * 20)}.${Math.floor(random() * 10)}`;
    ids.push(`${name}@${version}`);
    nodes.push({ id: ids[i], name, version, relationship: 'transitive', dependencies: [] });
  }
  const window = n === 0 ? 0 : Math.min(n, Math.max(opts.packagesPerRoot ?? 0, Math.ceil(n / Math.max(rootCount, 1))));
  const offsets = dependencyOffsets(Math.max(0, Math.floor(opts.depsPerNode)), window, n);
  for (let i = 0; i < n; i++) nodes[i].dependencies = offsets.map((o) => ids[(i + o) % n]);
  const entryCount = Math.min(window, offsets.length === 0 ? window : Math.max(1, opts.rootDeps ?? 1));
  const entries = Array.from({ length: entryCount }, (_, q) => Math.floor((q * window) / entryCount));
  const contexts = CONTEXTS[ecosystem];

  const roots: SnapshotRoot[] = [];
  for (let r = 0; r < rootCount; r++) {
    const m = r % moduleCount;
    const round = Math.floor(r / moduleCount);
    const start = Math.floor((r * n) / rootCount);
    const context = round < contexts.length ? contexts[round] : `${contexts[0]}-${round}`;
    const root: SnapshotRoot = {
      module: modulePath(ecosystem, m),
      context,
      dependencies: entries.map((t) => ids[(start + t) % n]),
    };
    if (opts.schemaVersion === 2)
      root.resolution = resolution(root.module, m, start, window, entries, offsets, ids, ecosystem);
    roots.push(root);
    for (const t of entries) nodes[(start + t) % n].relationship = 'direct';
  }

  const snapshot: Snapshot = {
    schemaVersion: opts.schemaVersion,
    project: opts.project ?? `synthetic-${n}-${rootCount}`,
    ecosystem,
    manifests: [MANIFEST[ecosystem]],
    roots,
    nodes,
  };
  if (opts.schemaVersion === 2) snapshot.modules = syntheticModules(ecosystem, moduleCount);
  return snapshot;
}

/** Module m depends on module (m - 1) / 2: a binary tree, the root project at the top. */
function parentModule(m: number): number | undefined {
  return m === 0 ? undefined : Math.floor((m - 1) / 2);
}

function syntheticModules(ecosystem: Ecosystem, count: number): SnapshotModule[] {
  const modules: SnapshotModule[] = [];
  for (let m = 0; m < count; m++) {
    const parent = parentModule(m);
    const mod: SnapshotModule = {
      path: modulePath(ecosystem, m),
      dependencies: parent === undefined ? [] : [modulePath(ecosystem, parent)],
    };
    // A third of the modules stay unassigned, as the format allows.
    if (m % 3 !== 2) mod.teamName = `team-${m % 5}`;
    mod.attributes = { tier: m % 2 === 0 ? 'backend' : 'frontend' };
    modules.push(mod);
  }
  return modules;
}

function resolution(
  module: string,
  m: number,
  start: number,
  window: number,
  entries: number[],
  offsets: number[],
  ids: string[],
  ecosystem: Ecosystem,
): { root: string; vertices: SnapshotVertex[] } {
  const n = ids.length;
  const rootDeps = entries.map(String);
  const vertices: SnapshotVertex[] = [{ id: 'r', module, dependencies: rootDeps }];
  const parent = parentModule(m);
  // The module this one depends on appears as a vertex too: a project dependency bringing one package of its own.
  if (parent !== undefined && window > 0) {
    rootDeps.push('m');
    vertices.push({ id: 'm', module: modulePath(ecosystem, parent), dependencies: [String(window >> 1)] });
  }
  for (let t = 0; t < window; t++) {
    const deps: string[] = [];
    for (const o of offsets) if (t + o < window) deps.push(String(t + o));
    vertices.push({ id: String(t), node: ids[(start + t) % n], dependencies: deps });
  }
  return { root: 'r', vertices };
}
