// The snapshot's `metadata` {commit, ref, runUrl}: from the flags, else the CI's predefined
// variables, else the git checkout. Each value is a v2 "text" or left out, so the service never refuses a snapshot
// over it. Variable names are each CI's documented ones:
//   GitHub Actions   docs.github.com/actions/reference/variables-reference
//   GitLab CI        docs.gitlab.com/ci/variables/predefined_variables
//   Jenkins          the git plugin's GIT_COMMIT/GIT_BRANCH, core BUILD_URL, multibranch BRANCH_NAME (env-vars.html)
//   CircleCI         circleci.com/docs/reference/variables
//   Azure Pipelines  learn.microsoft.com/azure/devops/pipelines/build/variables
//   Bitbucket        support.atlassian.com/bitbucket-cloud/docs/variables-and-secrets
//   Buildkite        buildkite.com/docs/pipelines/environment_variables
// `ref` is the CI's own name for what it built, in its own form (GitHub and Azure: full refs such as
// refs/heads/main or refs/pull/7/merge; GitLab, CircleCI, Bitbucket, Buildkite: the branch or tag name; Jenkins:
// GIT_BRANCH as the git plugin sets it, often origin/main). On pull requests that keeps commit and ref describing the
// same checkout: GitHub's GITHUB_SHA is the merge commit of refs/pull/N/merge, not a commit of GITHUB_HEAD_REF.
// `runUrl` is the run (workflow run, pipeline, build), not one attempt or job, where the CI offers both: re-running a
// failed job then sends the same body, which the service answers with the same scan (Idempotency-Key).
import fs from 'node:fs';
import path from 'node:path';
import type { SnapshotMetadata } from '../shared/types';
import { MAX_TEXT } from '../shared/snapshot-schema-parts';

type Env = NodeJS.ProcessEnv;
type Raw = { commit?: string; ref?: string; runUrl?: string };

interface Ci {
  name: string;
  detect: (env: Env) => boolean;
  read: (env: Env) => Raw;
}

const CONTROL = /[\u0000-\u001F\u007F]/;
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/; // SHA-1 and SHA-256 repositories
const set = (v: string | undefined) => v !== undefined && v.trim() !== '';

/** `base/part/...` when every part is present: a URL assembled from a missing variable is no URL. */
function joinUrl(base: string | undefined, ...parts: Array<string | undefined>): string | undefined {
  if (!set(base) || !parts.every(set)) return undefined;
  return [base!.trim().replace(/\/+$/, ''), ...parts.map((p) => p!.trim())].join('/');
}

/** In the order tried: the first CI whose marker variable is set is the one we are in. */
const CIS: readonly Ci[] = [
  {
    name: 'GitHub Actions',
    detect: (e) => set(e.GITHUB_ACTIONS),
    read: (e) => ({
      commit: e.GITHUB_SHA,
      ref: e.GITHUB_REF,
      runUrl: joinUrl(e.GITHUB_SERVER_URL, e.GITHUB_REPOSITORY, 'actions/runs', e.GITHUB_RUN_ID),
    }),
  },
  {
    name: 'GitLab CI',
    detect: (e) => set(e.GITLAB_CI),
    read: (e) => ({ commit: e.CI_COMMIT_SHA, ref: e.CI_COMMIT_REF_NAME, runUrl: e.CI_PIPELINE_URL || e.CI_JOB_URL }),
  },
  {
    name: 'CircleCI',
    detect: (e) => set(e.CIRCLECI),
    read: (e) => ({ commit: e.CIRCLE_SHA1, ref: e.CIRCLE_TAG || e.CIRCLE_BRANCH, runUrl: e.CIRCLE_BUILD_URL }),
  },
  {
    name: 'Azure Pipelines',
    detect: (e) => set(e.TF_BUILD),
    read: (e) => {
      const collection = e.SYSTEM_COLLECTIONURI || e.SYSTEM_TEAMFOUNDATIONCOLLECTIONURI;
      const project = set(e.SYSTEM_TEAMPROJECT) ? encodeURIComponent(e.SYSTEM_TEAMPROJECT!.trim()) : undefined;
      const build = set(e.BUILD_BUILDID)
        ? `_build/results?buildId=${encodeURIComponent(e.BUILD_BUILDID!.trim())}`
        : undefined;
      return { commit: e.BUILD_SOURCEVERSION, ref: e.BUILD_SOURCEBRANCH, runUrl: joinUrl(collection, project, build) };
    },
  },
  {
    name: 'Bitbucket Pipelines',
    detect: (e) => set(e.BITBUCKET_BUILD_NUMBER),
    read: (e) => ({
      commit: e.BITBUCKET_COMMIT,
      ref: e.BITBUCKET_TAG || e.BITBUCKET_BRANCH,
      // Pipelines runs on Bitbucket Cloud only; BITBUCKET_REPO_FULL_NAME is "everything after bitbucket.org/".
      runUrl: joinUrl(
        'https://bitbucket.org',
        e.BITBUCKET_REPO_FULL_NAME,
        'pipelines/results',
        e.BITBUCKET_BUILD_NUMBER,
      ),
    }),
  },
  {
    name: 'Buildkite',
    detect: (e) => set(e.BUILDKITE),
    read: (e) => ({
      // Buildkite documents BUILDKITE_COMMIT as possibly symbolic (HEAD): only an object id is a commit here.
      commit:
        e.BUILDKITE_COMMIT && OBJECT_ID.test(e.BUILDKITE_COMMIT.trim().toLowerCase()) ? e.BUILDKITE_COMMIT : undefined,
      ref: e.BUILDKITE_TAG || e.BUILDKITE_BRANCH,
      runUrl: e.BUILDKITE_BUILD_URL,
    }),
  },
  {
    name: 'Jenkins',
    // JENKINS_URL is only set when the Jenkins URL is configured; JENKINS_HOME always is.
    detect: (e) => set(e.JENKINS_URL) || set(e.JENKINS_HOME),
    read: (e) => ({ commit: e.GIT_COMMIT, ref: e.GIT_BRANCH || e.BRANCH_NAME, runUrl: e.BUILD_URL }),
  },
];

/** The CI the process runs in, by name; undefined outside the CIs we know. */
export function detectCi(env: Env): string | undefined {
  return CIS.find((c) => c.detect(env))?.name;
}

/** A v2 "text" (1 to 2000 characters, no control characters) after trimming blanks, else undefined. */
export function asText(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const t = v.trim();
  return t.length >= 1 && t.length <= MAX_TEXT && !CONTROL.test(t) ? t : undefined;
}

function asUrl(v: string | undefined): string | undefined {
  const t = asText(v);
  if (!t) return undefined;
  try {
    const u = new URL(t);
    return u.protocol === 'https:' || u.protocol === 'http:' ? t : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Metadata for a snapshot: each field the first valid of the flag, the CI's variable, the git checkout at gitRoot.
 * From git, the commit only when neither flag nor CI gives one, and the ref only when it names the commit chosen
 * (a CI's detached checkout, or a commit given by flag, is not described by whatever branch git has checked out).
 * An invalid value counts as absent, so the next source applies.
 */
export function ciMetadata(env: Env, flags: SnapshotMetadata, gitRoot?: string): SnapshotMetadata {
  const ci = CIS.find((c) => c.detect(env));
  const raw: Raw = ci ? ci.read(env) : {};
  let commit = asText(flags.commit) ?? asText(raw.commit);
  let ref = asText(flags.ref) ?? asText(raw.ref);
  const runUrl = asText(flags.runUrl) ?? asUrl(raw.runUrl);
  if (gitRoot && (!commit || !ref)) {
    const git = readGitHead(gitRoot);
    if (!commit && git.commit) commit = git.commit;
    if (!ref && git.ref && (!commit || commit.toLowerCase() === git.commit)) ref = asText(git.ref);
  }
  const out: SnapshotMetadata = {};
  if (commit) out.commit = commit;
  if (ref) out.ref = ref;
  if (runUrl) out.runUrl = runUrl;
  return out;
}

// ----------------------------------------------------------------------------------------- the git checkout --
// Read from files, never by running git: the client must work where git is not installed, and reading HEAD does not
// execute any repository configuration. Loose refs, packed-refs, worktrees (commondir) and submodules (.git file).

function readSmall(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The git directory of a checkout: `.git`, or where a `.git` file's `gitdir:` line points. */
function gitDirOf(gitRoot: string): string | undefined {
  const dotGit = path.join(gitRoot, '.git');
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dotGit);
  } catch {
    return undefined;
  }
  if (stat.isDirectory()) return dotGit;
  const m = /^gitdir:[ \t]*(.+?)[ \t]*$/m.exec(readSmall(dotGit) ?? '');
  return m ? path.resolve(gitRoot, m[1]) : undefined;
}

/** A ref name safe to join to a directory: under refs/, no `..`, `.` or empty components. */
function safeRefName(ref: string): boolean {
  return (
    ref.startsWith('refs/') && !CONTROL.test(ref) && ref.split('/').every((p) => p !== '' && p !== '.' && p !== '..')
  );
}

function resolveRef(gitDir: string, commonDir: string, ref: string, depth = 0): string | undefined {
  if (depth > 5 || !safeRefName(ref)) return undefined;
  // A worktree keeps its own per-worktree refs; branches and tags live in the common directory.
  for (const dir of gitDir === commonDir ? [gitDir] : [gitDir, commonDir]) {
    const loose = readSmall(path.join(dir, ...ref.split('/')))?.trim();
    if (loose === undefined) continue;
    if (OBJECT_ID.test(loose)) return loose;
    const sym = /^ref:\s*(\S+)$/.exec(loose);
    return sym ? resolveRef(gitDir, commonDir, sym[1], depth + 1) : undefined;
  }
  const packed = readSmall(path.join(commonDir, 'packed-refs'));
  if (!packed) return undefined;
  for (const line of packed.split('\n')) {
    if (line.startsWith('#') || line.startsWith('^')) continue; // header, peeled tag
    const sp = line.indexOf(' ');
    if (sp > 0 && line.slice(sp + 1).trimEnd() === ref) {
      const id = line.slice(0, sp);
      return OBJECT_ID.test(id) ? id : undefined;
    }
  }
  return undefined;
}

/**
 * HEAD of the checkout at gitRoot: on a branch, its ref and (unless the branch has no commit yet) its commit;
 * detached, the commit alone. Empty when there is no readable repository, or its refs are in the reftable format.
 */
export function readGitHead(gitRoot: string): { commit?: string; ref?: string } {
  const gitDir = gitDirOf(gitRoot);
  if (!gitDir) return {};
  const head = readSmall(path.join(gitDir, 'HEAD'))?.trim();
  if (!head) return {};
  if (OBJECT_ID.test(head)) return { commit: head };
  const m = /^ref:\s*(\S+)$/.exec(head);
  // Reftable repositories point HEAD at refs/heads/.invalid and keep the real refs in a binary table.
  if (!m || !safeRefName(m[1]) || m[1].endsWith('/.invalid')) return {};
  const common = readSmall(path.join(gitDir, 'commondir'))?.trim();
  const commonDir = common ? path.resolve(gitDir, common) : gitDir;
  const commit = resolveRef(gitDir, commonDir, m[1]);
  return commit ? { commit, ref: m[1] } : { ref: m[1] };
}
