// PATH... → one snapshot per ecosystem: find the lockfiles, run each through its producer, then assemble them with
// the project name, CODEOWNERS teams and CI metadata. The only part of `snapshot` and `scan` that reads files.
import fs from 'node:fs';
import path from 'node:path';
import type { SnapshotMetadata, SnapshotSuppression } from '../../shared/types';
import { asText, ciMetadata } from '../ci-metadata';
import { findGitRoot, ownersFor, readCodeowners, teamOf } from '../codeowners';
import { discover } from '../discover';
import { InputError, ToolMissingError } from '../errors';
import { PRODUCERS } from '../producers';
import { withSuppressions } from '../suppressions';
import { gradleBuildProducer } from '../producers/gradle-build';
import type { PackageLocation } from '../producers/types';
import { assemble, type Assembled, type PartFrom, type Team } from './assemble';

export interface MakeOptions {
  paths: string[];
  project?: string;
  metadataFlags: SnapshotMetadata;
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * Called with the project root once the lockfiles are found, before any is read: suppressions to add to every
   * snapshot (the repository's suppressions file, src/client/suppressions.ts). It may throw an InputError.
   */
  suppressions?: (root: string) => readonly SnapshotSuppression[];
}

export interface Made extends Assembled {
  /** Lockfiles and locations re-rooted at the git root (what SARIF and code scanning expect). */
  lockfilesFromGitRoot: string[];
  locationsFromGitRoot: Record<string, PackageLocation>;
}

const NO_CONTROL = /^[^\u0000-\u001F\u007F]{1,200}$/;
const toPosix = (p: string) => p.split(path.sep).join('/');

function readText(file: string): string | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      return undefined;
    throw err;
  }
}

export function makeSnapshots(opts: MakeOptions): Made[] {
  const { root, lockfiles } = discover(opts.paths, PRODUCERS, opts.cwd);
  if (lockfiles.length === 0) {
    throw new InputError(
      `nothing to scan: no lockfile found under ${root} (reads ${[...new Set(PRODUCERS.map((p) => p.format))].join(', ')}, and .txt files of pip pins in a requirements/ folder)`,
    );
  }
  const suppressions = opts.suppressions?.(root) ?? [];
  const readFile = (rel: string) => readText(path.join(root, rel));
  // Workspace globs ("packages/*") of formats whose lockfile does not list the workspaces (yarn classic).
  const listDir = (rel: string): string[] | undefined => {
    try {
      return fs.readdirSync(path.join(root, rel));
    } catch {
      return undefined;
    }
  };
  const produce = (l: (typeof lockfiles)[number]): PartFrom => {
    const text = readText(l.file);
    if (text === undefined) throw new InputError(`${l.relative}: cannot be read`);
    return {
      lockfile: l.relative,
      part: l.producer.produce({ path: l.relative, text, readFile, listDir, absoluteDir: path.dirname(l.file) }),
    };
  };
  // A Gradle build that runs gives the real graph of its projects: the gradle.lockfile files inside it are then the
  // same projects again, flat, and are left out. Where Gradle cannot run (no wrapper, not installed) they are the
  // next best source, and the run goes on with them.
  const builds = lockfiles.filter((l) => l.producer === gradleBuildProducer);
  const builtDirs: string[] = [];
  const insideBuild = (l: (typeof lockfiles)[number], dirs: string[]) =>
    path.basename(l.file) === 'gradle.lockfile' && dirs.some((d) => !path.relative(d, l.file).startsWith('..'));
  const buildParts: PartFrom[] = [];
  const fallbackWarnings: string[] = [];
  for (const b of builds) {
    const dir = path.dirname(b.file);
    try {
      buildParts.push(produce(b));
      builtDirs.push(dir);
    } catch (err) {
      if (!(err instanceof ToolMissingError) || !lockfiles.some((l) => insideBuild(l, [dir]))) throw err;
      fallbackWarnings.push(`${err.message}; its gradle.lockfile files are read instead (no edges)`);
    }
  }
  const parts: PartFrom[] = [
    ...buildParts,
    ...lockfiles.filter((l) => l.producer !== gradleBuildProducer && !insideBuild(l, builtDirs)).map(produce),
  ];

  const project = opts.project ?? parts.find((p) => p.part.projectName)?.part.projectName ?? path.basename(root);
  if (!NO_CONTROL.test(project))
    throw new InputError(`project ${JSON.stringify(project)}: 1 to 200 characters without control characters`);

  const gitRoot = findGitRoot(root);
  const codeowners = gitRoot ? readCodeowners(gitRoot) : undefined;
  const fromGitRoot = (rel: string) => (gitRoot ? toPosix(path.relative(gitRoot, path.join(root, rel))) : rel);
  const teamFor = (manifest: string): Team | undefined => {
    if (!codeowners) return undefined;
    const owners = ownersFor(codeowners.rules, fromGitRoot(manifest));
    return owners === undefined ? undefined : teamOf(owners);
  };
  for (const [flag, value] of Object.entries(opts.metadataFlags)) {
    if (value !== undefined && asText(value) === undefined)
      throw new InputError(
        `--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: 1 to 2000 characters without control characters`,
      );
  }
  const metadata = ciMetadata(opts.env, opts.metadataFlags, gitRoot);
  // A CODEOWNERS line GitHub would skip is skipped here too; saying so explains a rule that seems to have no effect.
  const skipped = (codeowners?.skipped ?? []).map((s) => `${codeowners!.path}:${s.line}: skipped (${s.reason})`);
  return assemble(parts, { project, metadata, teamOf: teamFor }).map((a, i) => ({
    ...a,
    snapshot: withSuppressions(a.snapshot, suppressions),
    warnings: i === 0 ? [...skipped, ...fallbackWarnings, ...a.warnings] : a.warnings,
    lockfilesFromGitRoot: a.lockfiles.map(fromGitRoot),
    locationsFromGitRoot: Object.fromEntries(
      Object.entries(a.locations).map(([id, loc]) => [id, { ...loc, file: fromGitRoot(loc.file) }]),
    ),
  }));
}
