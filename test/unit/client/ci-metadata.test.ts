// Snapshot metadata {commit, ref, runUrl}: each CI's documented variables, flags over the
// environment, the git checkout as the last source (loose and packed refs, detached HEAD, worktrees, submodules), and
// values that are not a v2 "text" left out.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asText, ciMetadata, detectCi, readGitHead } from '../../../src/client/ci-metadata';

const SHA = 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3';
const SHA2 = '0beec7b5ea3f0fdbc95d0dd47f3c5bc275da8a33';
const SHA256 = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ci-metadata-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function write(rel: string, text: string) {
  const file = path.join(tmp, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

describe('CI variables', () => {
  const cases: Array<[ci: string, env: NodeJS.ProcessEnv, expected: object]> = [
    [
      'GitHub Actions',
      {
        GITHUB_ACTIONS: 'true',
        GITHUB_SHA: SHA,
        GITHUB_REF: 'refs/heads/main',
        GITHUB_SERVER_URL: 'https://github.com',
        GITHUB_REPOSITORY: 'octo-org/octo-repo',
        GITHUB_RUN_ID: '1658821493',
        GITHUB_RUN_ATTEMPT: '2',
      },
      { commit: SHA, ref: 'refs/heads/main', runUrl: 'https://github.com/octo-org/octo-repo/actions/runs/1658821493' },
    ],
    [
      'GitLab CI',
      {
        GITLAB_CI: 'true',
        CI_COMMIT_SHA: SHA,
        CI_COMMIT_REF_NAME: 'feature/login',
        CI_PIPELINE_URL: 'https://gitlab.example.com/group/proj/-/pipelines/77',
        CI_JOB_URL: 'https://gitlab.example.com/group/proj/-/jobs/1234',
      },
      { commit: SHA, ref: 'feature/login', runUrl: 'https://gitlab.example.com/group/proj/-/pipelines/77' },
    ],
    [
      'CircleCI',
      {
        CIRCLECI: 'true',
        CIRCLE_SHA1: SHA,
        CIRCLE_BRANCH: 'main',
        CIRCLE_BUILD_URL: 'https://circleci.com/gh/org/repo/123',
      },
      { commit: SHA, ref: 'main', runUrl: 'https://circleci.com/gh/org/repo/123' },
    ],
    [
      'Azure Pipelines',
      {
        TF_BUILD: 'True',
        BUILD_SOURCEVERSION: SHA,
        BUILD_SOURCEBRANCH: 'refs/pull/17/merge',
        SYSTEM_COLLECTIONURI: 'https://dev.azure.com/fabrikamfiber/',
        SYSTEM_TEAMPROJECT: 'Fabrikam Fiber',
        BUILD_BUILDID: '4711',
      },
      {
        commit: SHA,
        ref: 'refs/pull/17/merge',
        runUrl: 'https://dev.azure.com/fabrikamfiber/Fabrikam%20Fiber/_build/results?buildId=4711',
      },
    ],
    [
      'Bitbucket Pipelines',
      {
        CI: 'true',
        BITBUCKET_BUILD_NUMBER: '42',
        BITBUCKET_COMMIT: SHA,
        BITBUCKET_BRANCH: 'develop',
        BITBUCKET_REPO_FULL_NAME: 'acme/web',
      },
      { commit: SHA, ref: 'develop', runUrl: 'https://bitbucket.org/acme/web/pipelines/results/42' },
    ],
    [
      'Buildkite',
      {
        BUILDKITE: 'true',
        BUILDKITE_COMMIT: SHA,
        BUILDKITE_BRANCH: 'main',
        BUILDKITE_BUILD_URL: 'https://buildkite.com/acme/web/builds/9',
      },
      { commit: SHA, ref: 'main', runUrl: 'https://buildkite.com/acme/web/builds/9' },
    ],
    [
      'Jenkins',
      {
        JENKINS_URL: 'https://ci.example.com/',
        GIT_COMMIT: SHA,
        GIT_BRANCH: 'origin/main',
        BUILD_URL: 'https://ci.example.com/job/web/66/',
      },
      { commit: SHA, ref: 'origin/main', runUrl: 'https://ci.example.com/job/web/66/' },
    ],
  ];

  it.each(cases)('%s', (ci, env, expected) => {
    expect(detectCi(env)).toBe(ci);
    expect(ciMetadata(env, {})).toEqual(expected);
  });

  it('GitHub pull requests keep the merge ref that GITHUB_SHA belongs to, not GITHUB_HEAD_REF', () => {
    const env = {
      GITHUB_ACTIONS: 'true',
      GITHUB_SHA: SHA,
      GITHUB_REF: 'refs/pull/7/merge',
      GITHUB_HEAD_REF: 'feature-x',
    };
    expect(ciMetadata(env, {})).toEqual({ commit: SHA, ref: 'refs/pull/7/merge' });
  });

  it('GitLab falls back to the job URL without a pipeline URL', () => {
    expect(ciMetadata({ GITLAB_CI: 'true', CI_JOB_URL: 'https://gitlab.com/g/p/-/jobs/1' }, {})).toEqual({
      runUrl: 'https://gitlab.com/g/p/-/jobs/1',
    });
  });

  it('tags: the tag where the CI names one', () => {
    expect(ciMetadata({ CIRCLECI: 'true', CIRCLE_TAG: 'v1.2.0' }, {}).ref).toBe('v1.2.0');
    expect(ciMetadata({ BITBUCKET_BUILD_NUMBER: '1', BITBUCKET_TAG: 'v2' }, {}).ref).toBe('v2');
    expect(ciMetadata({ BUILDKITE: 'true', BUILDKITE_TAG: 'v3', BUILDKITE_BRANCH: 'v3' }, {}).ref).toBe('v3');
    expect(ciMetadata({ TF_BUILD: 'True', BUILD_SOURCEBRANCH: 'refs/tags/v4' }, {}).ref).toBe('refs/tags/v4');
  });

  it('Jenkins: detected by JENKINS_HOME too; multibranch BRANCH_NAME without the git plugin', () => {
    expect(detectCi({ JENKINS_HOME: '/var/jenkins_home' })).toBe('Jenkins');
    expect(ciMetadata({ JENKINS_HOME: '/var/jenkins_home', BRANCH_NAME: 'PR-24' }, {})).toEqual({ ref: 'PR-24' });
  });

  it('no run URL from missing parts', () => {
    expect(
      ciMetadata({ GITHUB_ACTIONS: 'true', GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'o/r' }, {}),
    ).toEqual({});
    expect(
      ciMetadata({ TF_BUILD: 'True', SYSTEM_COLLECTIONURI: 'https://dev.azure.com/x/', BUILD_BUILDID: '1' }, {}),
    ).toEqual({});
  });

  it('a CI variable that is not a URL gives no runUrl', () => {
    expect(ciMetadata({ BUILDKITE: 'true', BUILDKITE_BUILD_URL: 'not a url' }, {})).toEqual({});
    expect(ciMetadata({ BUILDKITE: 'true', BUILDKITE_BUILD_URL: 'javascript:alert(1)' }, {})).toEqual({});
  });

  it('outside a known CI, no variable is read', () => {
    expect(detectCi({ CI: 'true', GITHUB_SHA: SHA, GIT_COMMIT: SHA, BUILD_URL: 'https://x/1' })).toBeUndefined();
    expect(ciMetadata({ CI: 'true', GITHUB_SHA: SHA, GIT_COMMIT: SHA, BUILD_URL: 'https://x/1' }, {})).toEqual({});
  });
});

describe('flags', () => {
  const env = {
    GITHUB_ACTIONS: 'true',
    GITHUB_SHA: SHA,
    GITHUB_REF: 'refs/heads/main',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: 'o/r',
    GITHUB_RUN_ID: '5',
  };

  it('win over the environment, field by field', () => {
    expect(ciMetadata(env, { commit: SHA2 })).toEqual({
      commit: SHA2,
      ref: 'refs/heads/main',
      runUrl: 'https://github.com/o/r/actions/runs/5',
    });
    expect(ciMetadata(env, { commit: 'abc', ref: 'release', runUrl: 'https://ci.internal/run/1' })).toEqual({
      commit: 'abc',
      ref: 'release',
      runUrl: 'https://ci.internal/run/1',
    });
  });

  it('an invalid flag counts as absent: the environment applies', () => {
    expect(ciMetadata(env, { commit: '', ref: 'a\nb', runUrl: 'x'.repeat(2001) })).toEqual(ciMetadata(env, {}));
  });

  it('are trimmed; a runUrl flag is taken as given', () => {
    expect(ciMetadata({}, { commit: `  ${SHA}\n`, runUrl: 'build 42' })).toEqual({ commit: SHA, runUrl: 'build 42' });
  });
});

describe('invalid values are left out', () => {
  it('control characters, empty, blank, over 2000 characters', () => {
    const env = {
      GITLAB_CI: 'true',
      CI_COMMIT_SHA: 'abc\u0007',
      CI_COMMIT_REF_NAME: '   ',
      CI_PIPELINE_URL: `https://x/${'a'.repeat(2000)}`,
    };
    expect(ciMetadata(env, {})).toEqual({});
    expect(ciMetadata({ GITLAB_CI: 'true', CI_COMMIT_REF_NAME: 'x\u007f' }, {})).toEqual({});
  });

  it('asText: 1 to 2000 characters, no U+0000-U+001F or U+007F, after trimming', () => {
    expect(asText('x'.repeat(2000))).toHaveLength(2000);
    expect(asText('x'.repeat(2001))).toBeUndefined();
    expect(asText(' a ')).toBe('a');
    expect(asText('a\tb')).toBeUndefined();
    expect(asText('\u0080ok')).toBe('\u0080ok'); // C1 controls are not in the schema's range
    expect(asText(undefined)).toBeUndefined();
  });

  it("Buildkite's symbolic HEAD is no commit: the checkout's commit is taken instead", () => {
    write('.git/HEAD', `${SHA}\n`);
    expect(ciMetadata({ BUILDKITE: 'true', BUILDKITE_COMMIT: 'HEAD', BUILDKITE_BRANCH: 'main' }, {}, tmp)).toEqual({
      commit: SHA,
      ref: 'main',
    });
  });
});

describe('the git checkout', () => {
  it('a branch with a loose ref', () => {
    write('.git/HEAD', 'ref: refs/heads/feature/x\n');
    write('.git/refs/heads/feature/x', `${SHA}\n`);
    expect(readGitHead(tmp)).toEqual({ commit: SHA, ref: 'refs/heads/feature/x' });
    expect(ciMetadata({}, {}, tmp)).toEqual({ commit: SHA, ref: 'refs/heads/feature/x' });
  });

  it('a branch in packed-refs (peeled lines and the header skipped); a loose ref overrides the packed one', () => {
    write('.git/HEAD', 'ref: refs/heads/main\n');
    write(
      '.git/packed-refs',
      `# pack-refs with: peeled fully-peeled sorted \n${SHA2} refs/heads/dev\n${SHA} refs/heads/main\n^${SHA2}\n`,
    );
    expect(readGitHead(tmp)).toEqual({ commit: SHA, ref: 'refs/heads/main' });
    write('.git/refs/heads/main', SHA2);
    expect(readGitHead(tmp)).toEqual({ commit: SHA2, ref: 'refs/heads/main' });
  });

  it('a detached HEAD: the commit alone (SHA-1 or SHA-256)', () => {
    write('.git/HEAD', `${SHA}\n`);
    expect(readGitHead(tmp)).toEqual({ commit: SHA });
    write('.git/HEAD', SHA256);
    expect(ciMetadata({}, {}, tmp)).toEqual({ commit: SHA256 });
  });

  it('a branch without commits yet: the ref alone', () => {
    write('.git/HEAD', 'ref: refs/heads/main\n');
    expect(readGitHead(tmp)).toEqual({ ref: 'refs/heads/main' });
  });

  it('a worktree: .git file → gitdir with its own HEAD, refs in the common directory', () => {
    write('main/.git/refs/heads/topic', SHA2);
    write('main/.git/worktrees/wt/HEAD', 'ref: refs/heads/topic\n');
    write('main/.git/worktrees/wt/commondir', '../..\n');
    write('wt/.git', `gitdir: ${path.join(tmp, 'main', '.git', 'worktrees', 'wt')}\n`);
    expect(readGitHead(path.join(tmp, 'wt'))).toEqual({ commit: SHA2, ref: 'refs/heads/topic' });
  });

  it('a submodule: relative gitdir', () => {
    write('super/.git/modules/lib/HEAD', `${SHA}\n`);
    write('super/lib/.git', 'gitdir: ../.git/modules/lib\n');
    expect(readGitHead(path.join(tmp, 'super', 'lib'))).toEqual({ commit: SHA });
  });

  it('nothing readable: no repository, garbage HEAD, refs outside refs/, reftable', () => {
    expect(readGitHead(tmp)).toEqual({});
    write('.git/HEAD', 'garbage');
    expect(readGitHead(tmp)).toEqual({});
    write('.git/HEAD', 'ref: refs/../../etc/passwd');
    expect(readGitHead(tmp)).toEqual({});
    write('.git/HEAD', 'ref: refs/heads/.invalid\n');
    fs.mkdirSync(path.join(tmp, '.git', 'reftable'));
    expect(readGitHead(tmp)).toEqual({});
    write('.git/HEAD', 'ref: refs/heads/main');
    write('.git/refs/heads/main', 'not-a-sha');
    expect(readGitHead(tmp)).toEqual({ ref: 'refs/heads/main' });
  });

  it('a symbolic loose ref is followed', () => {
    write('.git/HEAD', 'ref: refs/heads/alias\n');
    write('.git/refs/heads/alias', 'ref: refs/heads/main\n');
    write('.git/refs/heads/main', SHA);
    expect(readGitHead(tmp)).toEqual({ commit: SHA, ref: 'refs/heads/alias' });
  });

  it('fills only what flags and CI leave open; the ref only when it names the chosen commit', () => {
    write('.git/HEAD', 'ref: refs/heads/main\n');
    write('.git/refs/heads/main', SHA);
    // CI gives everything: git is not read
    expect(ciMetadata({ GITLAB_CI: 'true', CI_COMMIT_SHA: SHA2, CI_COMMIT_REF_NAME: 'dev' }, {}, tmp)).toEqual({
      commit: SHA2,
      ref: 'dev',
    });
    // CI commit differs from the checkout's branch tip: that branch does not describe it
    expect(ciMetadata({ GITLAB_CI: 'true', CI_COMMIT_SHA: SHA2 }, {}, tmp)).toEqual({ commit: SHA2 });
    // same commit (any case): the branch does
    expect(ciMetadata({ GITLAB_CI: 'true', CI_COMMIT_SHA: SHA.toUpperCase() }, {}, tmp)).toEqual({
      commit: SHA.toUpperCase(),
      ref: 'refs/heads/main',
    });
    // a ref from the flags, the commit from git
    expect(ciMetadata({}, { ref: 'release/1' }, tmp)).toEqual({ commit: SHA, ref: 'release/1' });
    // no gitRoot: nothing from git
    expect(ciMetadata({}, {})).toEqual({});
  });
});
