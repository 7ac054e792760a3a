// What the init script (gradle-build-script.ts) wrote, one document per Gradle project → a schemaVersion 2 part.
// The documents come from a build the user controls, so they are checked like a lockfile: anything unexpected is an
// InputError naming the settings file, never a TypeError in the graph code.
//
// Modules: the Gradle project paths (":" the root project, ":lib"); a build in a subfolder of the project root gets
// that folder's Gradle path in front (":backend", ":backend:lib"), as the gradle.lockfile producer names the same
// projects, so two builds in one scan never share a module. Manifest: the project's build file. Roots: one per
// project and resolvable configuration that selected at least one dependency (context: the configuration's name).
// Vertices are Gradle's own graph, in the walk's order: vertex "0" is the project, every other one was reached from
// it, and a component Gradle selected as two variants (6.8+) stays two vertices of one node.
import { posix, relative, sep } from 'node:path';
import type { SnapshotNode, SnapshotRoot, SnapshotVertex } from '../../shared/types';
import { GRAPH_FORMAT } from './gradle-build-script';
import { gradleProjectPath } from './gradle-lockfile';
import { byCodeUnit, inputError, isObject, lockDir, someOf, sortedUnique, type Obj } from './npm-common';
import type { PackageLocation, ProducedPart } from './types';

interface GraphVertex {
  project?: string;
  node?: { id: string; name: string; version: string };
  dependencies: number[];
}

interface GraphConfiguration {
  name: string;
  vertices: GraphVertex[];
  unresolved: Array<{ requested: string; failure?: string }>;
  skipped: string[];
}

interface GraphProject {
  path: string;
  buildFile: string;
  buildFileExists: boolean;
  rootProjectName: string;
  configurations: GraphConfiguration[];
  failed: Array<{ name: string; error: string }>;
}

const firstLine = (s: string) => s.split('\n')[0].trim();

/** Checks one document and reads the parts the conversion uses. */
function readProject(file: string, doc: unknown, n: number): GraphProject {
  const where = `Gradle graph document ${n + 1}`;
  const bad = (what: string) => inputError(file, `${where}: ${what}`);
  if (!isObject(doc) || doc.format !== GRAPH_FORMAT || doc.version !== 1)
    throw bad(`not a ${GRAPH_FORMAT} version 1 document`);
  const str = (o: Obj, k: string, at: string, optional = false): string | undefined => {
    const v = o[k];
    if (optional && (v === undefined || v === null)) return undefined;
    if (typeof v !== 'string') throw bad(`${at}.${k} must be a string`);
    return v;
  };
  const list = (o: Obj, k: string, at: string): unknown[] => {
    if (!Array.isArray(o[k])) throw bad(`${at}.${k} must be an array`);
    return o[k] as unknown[];
  };
  const path = str(doc, 'path', 'document')!;
  if (!path.startsWith(':')) throw bad(`path ${JSON.stringify(path)} is not a Gradle project path`);
  const rootDir = str(doc, 'rootDir', 'document')!;
  const buildFile = relative(rootDir, str(doc, 'buildFile', 'document')!)
    .split(sep)
    .join('/');
  if (typeof doc.buildFileExists !== 'boolean') throw bad('buildFileExists must be a boolean');
  const configurations = list(doc, 'configurations', 'document').map((c, i): GraphConfiguration => {
    const at = `configurations[${i}]`;
    if (!isObject(c)) throw bad(`${at} must be an object`);
    const rawVertices = list(c, 'vertices', at);
    const vertices = rawVertices.map((v, j): GraphVertex => {
      const vat = `${at}.vertices[${j}]`;
      if (!isObject(v) || v.id !== j) throw bad(`${vat} must be an object whose id is its index`);
      const dependencies = list(v, 'dependencies', vat);
      if (
        !dependencies.every(
          (d): d is number => Number.isInteger(d) && (d as number) >= 0 && (d as number) < rawVertices.length,
        )
      ) {
        throw bad(`${vat}.dependencies must be vertex ids`);
      }
      str(v, 'variant', vat, true);
      const project = str(v, 'project', vat, true);
      if (project !== undefined) return { project, dependencies };
      // Gradle reports a module without a version (a flatDir jar) with an empty one; ids need one.
      const group = str(v, 'group', vat)!;
      const name = `${group}:${str(v, 'name', vat)}`;
      const version = str(v, 'version', vat) || 'unspecified';
      return { node: { id: `${name}@${version}`, name, version }, dependencies };
    });
    if (vertices[0]?.project !== path) throw bad(`${at}.vertices[0] must be the project ${path} itself`);
    const unresolved = list(c, 'unresolved', at).map((u, j) => {
      if (!isObject(u)) throw bad(`${at}.unresolved[${j}] must be an object`);
      return {
        requested: str(u, 'requested', `${at}.unresolved[${j}]`)!,
        failure: str(u, 'failure', `${at}.unresolved[${j}]`, true),
      };
    });
    const skipped = list(c, 'skipped', at);
    if (!skipped.every((s): s is string => typeof s === 'string')) throw bad(`${at}.skipped must be strings`);
    return { name: str(c, 'name', at)!, vertices, unresolved, skipped };
  });
  const failed = list(doc, 'failed', 'document').map((f, i) => {
    if (!isObject(f)) throw bad(`failed[${i}] must be an object`);
    return { name: str(f, 'name', `failed[${i}]`)!, error: str(f, 'error', `failed[${i}]`)! };
  });
  return {
    path,
    buildFile,
    buildFileExists: doc.buildFileExists,
    rootProjectName: str(doc, 'rootProjectName', 'document')!,
    configurations,
    failed,
  };
}

/** Every vertex must be reachable from vertex 0 (the walk guarantees it; a hand-made document may not). */
function checkReachable(file: string, project: string, conf: GraphConfiguration): void {
  const seen = new Uint8Array(conf.vertices.length);
  const queue = [0];
  seen[0] = 1;
  for (let q = 0; q < queue.length; q++) {
    for (const d of conf.vertices[queue[q]].dependencies) if (!seen[d]) ((seen[d] = 1), queue.push(d));
  }
  const lost = seen.indexOf(0);
  if (lost !== -1)
    throw inputError(file, `Gradle graph of ${project} ${conf.name}: vertex ${lost} is not reachable from the project`);
}

/**
 * @param file the settings file's path relative to the project root (the discovered file; names the build)
 * @param docs the parsed JSON documents, one per project, in any order
 */
export function partFromGradleGraph(file: string, docs: unknown[]): ProducedPart {
  const dir = lockDir(file);
  const projects = docs.map((d, i) => readProject(file, d, i)).sort((a, b) => byCodeUnit(a.path, b.path));
  if (projects.length === 0)
    throw inputError(file, 'Gradle ran but wrote no dependency graph (no project ran the task)');
  const known = new Set<string>();
  for (const p of projects) {
    if (known.has(p.path)) throw inputError(file, `Gradle graph: project ${p.path} reported twice`);
    known.add(p.path);
  }
  // ":" + the build's folder in front of its project paths (see the top of the file).
  const prefix = dir === '.' ? '' : gradleProjectPath(dir);
  const moduleOf = (path: string) => (prefix === '' ? path : path === ':' ? prefix : `${prefix}${path}`);
  const manifestOf = (p: GraphProject) => posix.join(dir, p.buildFile);

  const nodes = new Map<string, SnapshotNode>();
  const nodeDeps = new Map<string, Set<string>>();
  const roots: SnapshotRoot[] = [];
  const moduleDeps = new Map<string, Set<string>>(projects.map((p) => [p.path, new Set<string>()]));
  const unresolved = new Map<string, { failure?: string; where: string[] }>();
  const warnings: string[] = [];
  const locations: Record<string, PackageLocation> = {};

  for (const p of projects) {
    for (const conf of [...p.configurations].sort((a, b) => byCodeUnit(a.name, b.name))) {
      const where = `project ${moduleOf(p.path)} ${conf.name}`;
      for (const u of conf.unresolved) {
        const seen = unresolved.get(u.requested) ?? { failure: u.failure, where: [] };
        seen.where.push(where);
        unresolved.set(u.requested, seen);
      }
      if (conf.skipped.length > 0)
        warnings.push(
          `${where}: components without module coordinates are left out: ${someOf(sortedUnique(conf.skipped))}`,
        );
      // A configuration that selected nothing (compileOnly, archives...) is no resolution worth a root.
      if (conf.vertices[0].dependencies.length === 0) continue;
      checkReachable(file, p.path, conf);
      const vertices: SnapshotVertex[] = conf.vertices.map((v, j) => {
        if (v.project !== undefined && !known.has(v.project))
          throw inputError(
            file,
            `Gradle graph of ${where}: vertex ${j} is project ${v.project}, which the build did not report`,
          );
        const targets = v.dependencies.map(String);
        return v.project !== undefined
          ? { id: String(j), module: moduleOf(v.project), dependencies: targets }
          : { id: String(j), node: v.node!.id, dependencies: targets };
      });
      for (const v of conf.vertices) {
        if (!v.node) continue;
        if (!nodes.has(v.node.id)) {
          nodes.set(v.node.id, { ...v.node, relationship: 'transitive', dependencies: [] });
          nodeDeps.set(v.node.id, new Set());
        }
        const deps = nodeDeps.get(v.node.id)!;
        for (const d of v.dependencies) if (conf.vertices[d].node) deps.add(conf.vertices[d].node!.id);
      }
      const direct: string[] = [];
      for (const d of conf.vertices[0].dependencies) {
        const t = conf.vertices[d];
        if (t.node) direct.push(t.node.id);
        else if (t.project !== p.path) moduleDeps.get(p.path)!.add(moduleOf(t.project!));
      }
      const dependencies = sortedUnique(direct);
      for (const id of dependencies) {
        nodes.get(id)!.relationship = 'direct';
        // The first project (by path) that declares it; Gradle does not say on which line.
        locations[id] ??= { file: manifestOf(p) };
      }
      roots.push({
        module: moduleOf(p.path),
        manifest: manifestOf(p),
        context: conf.name,
        dependencies,
        resolution: { root: '0', vertices },
      });
    }
    for (const f of p.failed)
      warnings.push(`project ${moduleOf(p.path)} ${f.name}: not resolved (${firstLine(f.error)})`);
  }
  for (const [requested, u] of [...unresolved].sort((a, b) => byCodeUnit(a[0], b[0]))) {
    warnings.push(
      `could not resolve ${requested}${u.failure ? ` (${firstLine(u.failure)})` : ''} in ${someOf(u.where)}`,
    );
  }
  for (const [id, deps] of nodeDeps) nodes.get(id)!.dependencies = sortedUnique(deps);

  return {
    ecosystem: 'gradle',
    schemaVersion: 2,
    manifests: [file, ...projects.filter((p) => p.buildFileExists).map(manifestOf)],
    modules: projects.map((p) => ({
      path: moduleOf(p.path),
      manifest: manifestOf(p),
      dependencies: sortedUnique(moduleDeps.get(p.path)!),
    })),
    roots,
    nodes: [...nodes.values()].sort((a, b) => byCodeUnit(a.id, b.id)),
    locations,
    warnings,
    projectName: projects[0].rootProjectName || undefined,
  };
}
