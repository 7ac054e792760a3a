// The init script the Gradle build producer (gradle-build.ts) runs the build with: it adds a task to every project
// that walks each resolvable configuration's ResolutionResult and writes what it saw as JSON (gradle-build-graph.ts
// reads it). Public API only and no plugin, so nothing is downloaded beyond what the build's own repositories serve,
// and it runs on every Gradle from 4.4 (Debian's) on: what older versions lack is guarded by version or by
// respondsTo, never called.
//
// One file per project (named by a random UUID, so parallel builds cannot clash): each project resolves only its own
// configurations, from its own task, since Gradle 7+ deprecates resolving another project's configurations.
//
// Per configuration: vertices in breadth-first order from the project itself (vertex 0), each
// {id, project} for a project of this build or {id, group, name, version} for anything else (an external module, or a
// project of an included build by its module coordinates), plus `variant` on Gradle 6.8+ where one component
// selected as two variants is two vertices with each variant's own dependencies; dependencies are vertex ids.
// Constraints are not edges (they introduce nothing); unresolved dependencies are listed; components without
// coordinates are left out and named in `skipped`.

/** The task the init script adds to every project; `gradle <task>` runs it in all of them. */
export const GRAPH_TASK = 'scannerResolutionGraph';
/** The system property that carries the folder the JSON files go to. */
export const OUT_PROPERTY = 'scanner.graph.out';
/** What the files say they are, so that stray JSON in the folder is not mistaken for output. */
export const GRAPH_FORMAT = 'scanner-gradle-graph';

export const INIT_SCRIPT = String.raw`// Written by the scanner CI client for one run, then deleted.
import groovy.json.JsonOutput
import org.gradle.api.artifacts.component.ModuleComponentIdentifier
import org.gradle.api.artifacts.component.ProjectComponentIdentifier
import org.gradle.api.artifacts.result.ResolvedDependencyResult
import org.gradle.api.artifacts.result.UnresolvedDependencyResult
import org.gradle.util.GradleVersion

def scannerOut = System.getProperty('${OUT_PROPERTY}')
// ResolvedDependencyResult.getResolvedVariant: Gradle 6.8+ (getDependenciesForVariant: 5.6+).
def scannerVariants = GradleVersion.current() >= GradleVersion.version('6.8')

def scannerDescribe = { comp, variant, rootBuild ->
  def id = comp.id
  def v = [:]
  if (id instanceof ProjectComponentIdentifier) {
    // ProjectComponentIdentifier.getBuild: a project of an included build is not a project of this one.
    def same = true
    try { same = rootBuild == null || id.build == rootBuild } catch (MissingPropertyException ignored) {}
    if (same) v.project = id.projectPath
  }
  if (v.project == null) {
    if (id instanceof ModuleComponentIdentifier) {
      v.group = id.group; v.name = id.module; v.version = id.version
    } else if (comp.moduleVersion != null) {
      v.group = comp.moduleVersion.group; v.name = comp.moduleVersion.name; v.version = comp.moduleVersion.version
    } else {
      return null
    }
  }
  if (variant != null) v.variant = variant.displayName
  return v
}

def scannerWalk = { conf ->
  def root = conf.incoming.resolutionResult.root
  def rootBuild = null
  try { rootBuild = root.id.build } catch (MissingPropertyException ignored) {}
  def vertices = []
  def ids = [:]
  def queue = []
  def unresolved = []
  def skipped = []
  def vertexOf = { comp, variant ->
    def key = [comp.id, variant == null ? null : variant.displayName]
    def found = ids[key]
    if (found != null) return found
    def v = scannerDescribe(comp, variant, rootBuild)
    if (v == null) return null
    v.id = vertices.size()
    v.dependencies = []
    vertices << v
    ids[key] = v.id
    queue << [v, comp, variant]
    return v.id
  }
  vertexOf(root, null)
  for (int i = 0; i < queue.size(); i++) {
    def (v, comp, variant) = queue[i]
    def deps = variant != null ? comp.getDependenciesForVariant(variant) : comp.dependencies
    def out = new LinkedHashSet()
    for (d in deps) {
      // Constraints (Gradle 4.6+) select nothing by themselves: not an introduction.
      if (d.respondsTo('isConstraint') && d.isConstraint()) continue
      if (d instanceof ResolvedDependencyResult) {
        def target = vertexOf(d.selected, scannerVariants ? d.resolvedVariant : null)
        if (target == null) skipped << d.selected.id.displayName
        else out << target
      } else if (d instanceof UnresolvedDependencyResult) {
        unresolved << [requested: d.requested.displayName, failure: d.failure == null ? null : String.valueOf(d.failure.message)]
      }
    }
    v.dependencies = out as List
  }
  return [name: conf.name, vertices: vertices, unresolved: unresolved, skipped: skipped]
}

allprojects { p ->
  def action = { t ->
    t.doLast {
      def confs = []
      def failed = []
      // A copy: resolving may add configurations (detached ones) while the list is walked.
      new ArrayList(p.configurations).each { conf ->
        // isCanBeResolved: Gradle 3.3+; before it every configuration could be resolved.
        if (conf.respondsTo('isCanBeResolved') && !conf.isCanBeResolved()) return
        try {
          confs << scannerWalk(conf)
        } catch (Exception e) {
          failed << [name: conf.name, error: String.valueOf(e.message)]
        }
      }
      def doc = [format: '${GRAPH_FORMAT}', version: 1, gradleVersion: GradleVersion.current().version,
                 variants: scannerVariants, rootProjectName: p.rootProject.name, rootDir: p.rootDir.absolutePath,
                 path: p.path, buildFile: p.buildFile.absolutePath, buildFileExists: p.buildFile.exists(),
                 configurations: confs, failed: failed]
      new File(scannerOut, UUID.randomUUID().toString() + '.json').setText(JsonOutput.toJson(doc), 'UTF-8')
    }
  }
  // register (Gradle 4.9+) keeps the task lazy; create is the only way before it.
  if (p.tasks.respondsTo('register')) p.tasks.register('${GRAPH_TASK}', action as Action)
  else p.tasks.create('${GRAPH_TASK}', action as Action)
}
`;
