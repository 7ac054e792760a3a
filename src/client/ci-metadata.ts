// The snapshot's `metadata` {commit, ref, runUrl, baseRef, baseCommit}: from the flags, else the CI's predefined
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
// `baseRef` and `baseCommit` describe a change under review (pull request, merge request, merge queue entry): the
// branch it goes into and the commit of that branch it is compared with, so that the service can compare the change's
// scan with its base's. From the flags, else the CI; never from git (a checkout does not know where it will be merged):
//   GitHub Actions   the event payload at GITHUB_EVENT_PATH (docs.github.com/webhooks/webhook-events-and-payloads;
//                    pull_request and pull_request_target: pull_request.base.{sha,ref}, else GITHUB_BASE_REF for the
//                    ref; merge_group: merge_group.base_{sha,ref})
//   GitLab CI        CI_MERGE_REQUEST_TARGET_BRANCH_SHA (merged results and merge trains), else
//                    CI_MERGE_REQUEST_DIFF_BASE_SHA; CI_MERGE_REQUEST_TARGET_BRANCH_NAME
//   Azure Pipelines  System.PullRequest.TargetBranch; no commit (System.PullRequest.SourceCommitId is the source's)
//   Bitbucket        BITBUCKET_PR_DESTINATION_BRANCH, BITBUCKET_PR_DESTINATION_COMMIT
//   Jenkins          CHANGE_TARGET (branch-api's multibranch change requests); no commit
//   CircleCI         none: CircleCI documents no base branch or commit of a pull request (CIRCLE_PULL_REQUEST is its
//                    URL; pipeline.git.base_revision is no environment variable, and is the previous build's commit)
//   Buildkite        BUILDKITE_PULL_REQUEST_BASE_BRANCH; no commit
// The base ref too is in the CI's own form (GitHub merge_group and Azure: refs/heads/main; the others: main).
import fs from 'node:fs';
import path from 'node:path';
import type { SnapshotMetadata } from '../shared/types';
import { MAX_TEXT } from '../shared/snapshot-schema-parts';

type Env = NodeJS.ProcessEnv;
type Raw = { commit?: string; ref?: string; runUrl?: string };
type Base = { baseRef?: string; baseCommit?: string };

/** What kind of change under review a build is for: a pull request, a merge request, a merge queue's group. */
export type ChangeKind = 'pull_request' | 'merge_request' | 'merge_queue';

interface Ci {
  name: string;
  detect: (env: Env) => boolean;
  read: (env: Env) => Raw;
  /** The change under review the build is for; null when it builds no change (a push, a tag, a schedule). */
  change: (env: Env) => ChangeKind | null;
  /** The base of that change; read only when the flags leave part of it open (GitHub's is in a file). */
  base: (env: Env) => Base;
}

const CONTROL = /[\u0000-\u001F\u007F]/;
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/; // SHA-1 and SHA-256 repositories
const set = (v: string | undefined) => v !== undefined && v.trim() !== '';
const first = (...vs: Array<string | undefined>) => vs.find(set);
/** v when it is a full object id: some CIs give abbreviated or symbolic commits, which name no commit for sure. */
const objectId = (v: string | undefined) => (v !== undefined && OBJECT_ID.test(v.trim().toLowerCase()) ? v : undefined);

/** `base/part/...` when every part is present: a URL assembled from a missing variable is no URL. */
function joinUrl(base: string | undefined, ...parts: Array<string | undefined>): string | undefined {
  if (!set(base) || !parts.every(set)) return undefined;
  return [base!.trim().replace(/\/+$/, ''), ...parts.map((p) => p!.trim())].join('/');
}

/** GitHub's events for a change under review (GITHUB_EVENT_NAME); any other event builds none. */
function githubChange(e: Env): ChangeKind | null {
  switch (e.GITHUB_EVENT_NAME?.trim()) {
    case 'pull_request':
    case 'pull_request_target':
      return 'pull_request';
    case 'merge_group':
      return 'merge_queue';
    default:
      return null;
  }
}

/** Payloads above this are not read: GitHub's pull request and merge group payloads are tens of kilobytes. */
export const MAX_EVENT_PAYLOAD_BYTES = 4 * 1024 * 1024;

/**
 * The webhook payload GitHub writes for the run's event (GITHUB_EVENT_PATH), parsed; undefined when the file is
 * missing, not a regular file (a FIFO would block, a device never end), over MAX_EVENT_PAYLOAD_BYTES, or not JSON.
 * Never throws: the base is optional, and no snapshot is refused for want of it.
 */
export function readEventPayload(file: string | undefined): unknown {
  if (!set(file)) return undefined;
  let fd: number | undefined;
  try {
    fd = fs.openSync(file!, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_EVENT_PAYLOAD_BYTES) return undefined;
    // One byte over the size seen, so a file that grew meanwhile shows as such rather than being cut.
    const buf = Buffer.alloc(stat.size + 1);
    let n = 0;
    let r: number;
    while (n < buf.length && (r = fs.readSync(fd, buf, n, buf.length - n, null)) > 0) n += r;
    if (n > stat.size) return undefined;
    const text = buf.toString('utf8', 0, n);
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        // nothing to do: the payload is read or given up
      }
    }
  }
}

/** The string at payload.k1.k2..., own properties only; undefined when any step is missing or of another type. */
function field(payload: unknown, ...keys: string[]): string | undefined {
  let v: unknown = payload;
  for (const k of keys) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.prototype.hasOwnProperty.call(v, k))
      return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return typeof v === 'string' ? v : undefined;
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
    change: githubChange,
    base: (e) => {
      const kind = githubChange(e);
      if (!kind) return {};
      const payload = readEventPayload(e.GITHUB_EVENT_PATH);
      if (kind === 'merge_queue')
        return {
          baseCommit: objectId(field(payload, 'merge_group', 'base_sha')),
          baseRef: field(payload, 'merge_group', 'base_ref'),
        };
      return {
        baseCommit: objectId(field(payload, 'pull_request', 'base', 'sha')),
        baseRef: first(field(payload, 'pull_request', 'base', 'ref'), e.GITHUB_BASE_REF),
      };
    },
  },
  {
    name: 'GitLab CI',
    detect: (e) => set(e.GITLAB_CI),
    read: (e) => ({ commit: e.CI_COMMIT_SHA, ref: e.CI_COMMIT_REF_NAME, runUrl: e.CI_PIPELINE_URL || e.CI_JOB_URL }),
    // CI_MERGE_REQUEST_EVENT_TYPE is detached, merged_result or merge_train in merge request pipelines.
    change: (e) =>
      e.CI_MERGE_REQUEST_EVENT_TYPE?.trim() === 'merge_train'
        ? 'merge_queue'
        : set(e.CI_MERGE_REQUEST_IID)
          ? 'merge_request'
          : null,
    // The target branch's SHA is only given to merged results pipelines (merge trains run them too): the commit the
    // merge was made on. Elsewhere the diff base, where the merge request's branch left the target branch.
    base: (e) => ({
      baseCommit: objectId(e.CI_MERGE_REQUEST_TARGET_BRANCH_SHA) ?? objectId(e.CI_MERGE_REQUEST_DIFF_BASE_SHA),
      baseRef: e.CI_MERGE_REQUEST_TARGET_BRANCH_NAME,
    }),
  },
  {
    name: 'CircleCI',
    detect: (e) => set(e.CIRCLECI),
    read: (e) => ({ commit: e.CIRCLE_SHA1, ref: e.CIRCLE_TAG || e.CIRCLE_BRANCH, runUrl: e.CIRCLE_BUILD_URL }),
    change: (e) => (set(e.CIRCLE_PULL_REQUEST) ? 'pull_request' : null),
    // No variable names the pull request's base: see the top of the file.
    base: () => ({}),
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
    change: (e) => (e.BUILD_REASON?.trim() === 'PullRequest' ? 'pull_request' : null),
    // Documented as a full ref (refs/heads/main), like BUILD_SOURCEBRANCH; no variable names its commit.
    base: (e) => ({ baseRef: e.SYSTEM_PULLREQUEST_TARGETBRANCH }),
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
    change: (e) => (set(e.BITBUCKET_PR_ID) ? 'pull_request' : null),
    // The destination commit is often abbreviated (12 hex digits): only an object id is a commit here.
    base: (e) => ({
      baseRef: e.BITBUCKET_PR_DESTINATION_BRANCH,
      baseCommit: objectId(e.BITBUCKET_PR_DESTINATION_COMMIT),
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
    // BUILDKITE_PULL_REQUEST is the pull request's number, or "false".
    change: (e) =>
      set(e.BUILDKITE_PULL_REQUEST) && e.BUILDKITE_PULL_REQUEST!.trim() !== 'false' ? 'pull_request' : null,
    base: (e) => ({ baseRef: e.BUILDKITE_PULL_REQUEST_BASE_BRANCH }),
  },
  {
    name: 'Jenkins',
    // JENKINS_URL is only set when the Jenkins URL is configured; JENKINS_HOME always is.
    detect: (e) => set(e.JENKINS_URL) || set(e.JENKINS_HOME),
    read: (e) => ({ commit: e.GIT_COMMIT, ref: e.GIT_BRANCH || e.BRANCH_NAME, runUrl: e.BUILD_URL }),
    // A multibranch job's change request: a pull request, or whatever the branch source calls it (a GitLab merge
    // request too); Jenkins does not tell them apart.
    change: (e) => (set(e.CHANGE_ID) ? 'pull_request' : null),
    base: (e) => ({ baseRef: e.CHANGE_TARGET }),
  },
];

/** The CI the process runs in, by name; undefined outside the CIs we know. */
export function detectCi(env: Env): string | undefined {
  return CIS.find((c) => c.detect(env))?.name;
}

/** Whether the build is for a change under review, and which kind; null for any other build, and outside a known CI. */
export function ciChangeKind(env: Env): ChangeKind | null {
  return CIS.find((c) => c.detect(env))?.change(env) ?? null;
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

/** A branch by its name: `main`, `refs/heads/main`, `origin/main` and `refs/remotes/origin/main` alike. */
const branchName = (ref: string) => ref.replace(/^refs\/heads\//, '').replace(/^(?:refs\/remotes\/)?origin\//, '');

/**
 * Metadata for a snapshot: each field the first valid of the flag, the CI's variable, the git checkout at gitRoot.
 * From git, the commit only when neither flag nor CI gives one, and the ref only when it names the commit chosen
 * (a CI's detached checkout, or a commit given by flag, is not described by whatever branch git has checked out).
 * The base (baseRef, baseCommit) from the flag, else the CI, never git; the CI's base commit only with the CI's
 * base branch (a base ref given by flag for another branch is not described by a commit of the CI's).
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
  let baseRef = asText(flags.baseRef);
  let baseCommit = asText(flags.baseCommit);
  if (ci && (!baseRef || !baseCommit)) {
    const base = ci.base(env);
    const ciRef = asText(base.baseRef);
    if (!baseCommit && (!baseRef || (ciRef !== undefined && branchName(ciRef) === branchName(baseRef))))
      baseCommit = asText(base.baseCommit);
    baseRef ??= ciRef;
  }
  const out: SnapshotMetadata = {};
  if (commit) out.commit = commit;
  if (ref) out.ref = ref;
  if (runUrl) out.runUrl = runUrl;
  if (baseRef) out.baseRef = baseRef;
  if (baseCommit) out.baseCommit = baseCommit;
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
