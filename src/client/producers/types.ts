// The one interface every lockfile or build format implements (osv-scalibr's one-extractor-per-format shape): a
// producer reads one file and returns the part of a snapshot it describes. The assembler (../snapshot/assemble.ts)
// merges the parts of one ecosystem into one snapshot and adds what no single file knows (project, teams, metadata).
//
// Paths: every path a producer returns (manifests, module paths, locations) is relative to the project root and
// '/'-separated; a module at the project root is ".". Producers are pure: they read only through LockfileInput.
import type { Ecosystem, SnapshotModule, SnapshotNode, SnapshotRoot } from '../../shared/types';

export interface LockfileInput {
  /** The lockfile's path relative to the project root ("package-lock.json", "web/package-lock.json"). */
  path: string;
  /** Its text (UTF-8; a leading BOM is already removed). */
  text: string;
  /** Reads another file by its path relative to the project root; undefined when it does not exist. */
  readFile(path: string): string | undefined;
  /** The names of the entries of a folder (relative to the project root), undefined when it is not a folder. Optional:
   *  only yarn v1 workspace globs ("packages/*") need it, since yarn.lock v1 does not list the workspaces. */
  listDir?(path: string): string[] | undefined;
  /** The absolute folder the file sits in. Optional: only producers that run the build tool there (the Gradle build
   *  producer, gradle-build.ts) need it; they are the one exception to "pure" above, since the graph exists only
   *  inside Gradle. */
  absoluteDir?: string;
}

/** Where a package's entry sits, for reports (SARIF's region.startLine); line is 1-based, absent when unknown. */
export interface PackageLocation {
  file: string;
  line?: number;
}

export interface ProducedPart {
  ecosystem: Ecosystem;
  /** 2 when the source records a graph per module and context (roots carry resolutions), 1 when it is flat. */
  schemaVersion: 1 | 2;
  /** The lockfile first, then the manifests read or named (root package.json, workspace package.json files). */
  manifests: string[];
  /** First-party modules: v2 parts list every module of their roots (and module vertices); v1 parts may list them
   *  too (the assembler needs each module's manifest for CODEOWNERS) but they are not sent in a v1 snapshot. */
  modules: Array<SnapshotModule & { manifest: string }>;
  /** One per module and context; v2 parts carry resolution. */
  roots: SnapshotRoot[];
  /** Third-party packages, once per name@version, sorted by id, relationship as the snapshot format defines it. */
  nodes: SnapshotNode[];
  /** Package id → where its (first) entry is in the lockfile. */
  locations: Record<string, PackageLocation>;
  /** Things the user should know that did not stop the producer (an entry skipped, a manifest missing). */
  warnings: string[];
  /** A project name the source suggests (the root package.json's name), used when --project is not given. */
  projectName?: string;
}

export interface Producer {
  /** What the producer reads, as users name it: "package-lock.json". */
  readonly format: string;
  /** Whether a file with this base name is this producer's format. */
  matches(fileName: string): boolean;
  /** @throws InputError (../errors) when the file is not a valid instance of the format. */
  produce(input: LockfileInput): ProducedPart;
}
