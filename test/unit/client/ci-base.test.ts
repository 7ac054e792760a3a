// Snapshot metadata {baseRef, baseCommit} and ciChangeKind: each CI's documented variables (GitHub's event payload
// read from a file, and given up without an error when it is missing, malformed or too big), the flags over the CI,
// and the flags passed through `scanner snapshot` into a snapshot the service accepts.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAX_EVENT_PAYLOAD_BYTES, ciChangeKind, ciMetadata, readEventPayload } from '../../../src/client/ci-metadata';
import { main } from '../../../src/client/main';
import { validateSnapshot } from '../../../src/domain/snapshot';
import { scanMetadata, type Snapshot } from '../../../src/shared/types';

const SHA = 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3';
const BASE = '0beec7b5ea3f0fdbc95d0dd47f3c5bc275da8a33';
const BASE2 = '62cdb7020ff920e5aa642c3d4066950dd1f01f4d';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ci-base-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The payload written to a file in tmp; its path. */
function payload(body: unknown, name = 'event.json'): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body));
  return file;
}

const base = (m: { baseRef?: string; baseCommit?: string }) => ({ baseRef: m.baseRef, baseCommit: m.baseCommit });

describe('GitHub Actions: the event payload', () => {
  const github = (event: string, file?: string): NodeJS.ProcessEnv => ({
    GITHUB_ACTIONS: 'true',
    GITHUB_SHA: SHA,
    GITHUB_REF: 'refs/pull/7/merge',
    GITHUB_EVENT_NAME: event,
    ...(file ? { GITHUB_EVENT_PATH: file } : {}),
  });
  const pr = {
    action: 'synchronize',
    number: 7,
    pull_request: { number: 7, head: { sha: SHA, ref: 'feature-x' }, base: { sha: BASE, ref: 'main' } },
  };

  it('pull_request: pull_request.base.sha and .ref; the rest of the metadata unchanged', () => {
    const env = { ...github('pull_request', payload(pr)), GITHUB_BASE_REF: 'main' };
    expect(ciMetadata(env, {})).toEqual({ commit: SHA, ref: 'refs/pull/7/merge', baseRef: 'main', baseCommit: BASE });
    expect(ciChangeKind(env)).toBe('pull_request');
  });

  it('pull_request_target: the same fields', () => {
    const env = github('pull_request_target', payload(pr));
    expect(base(ciMetadata(env, {}))).toEqual({ baseRef: 'main', baseCommit: BASE });
    expect(ciChangeKind(env)).toBe('pull_request');
  });

  it('merge_group: merge_group.base_sha and .base_ref (a full ref)', () => {
    const env = github(
      'merge_group',
      payload({
        action: 'checks_requested',
        merge_group: {
          head_sha: SHA,
          head_ref: 'refs/heads/gh-readonly-queue/main/pr-7-0beec7b5',
          base_sha: BASE,
          base_ref: 'refs/heads/main',
        },
      }),
    );
    expect(base(ciMetadata(env, {}))).toEqual({ baseRef: 'refs/heads/main', baseCommit: BASE });
    expect(ciChangeKind(env)).toBe('merge_queue');
  });

  it('a malformed payload: no base commit, GITHUB_BASE_REF for the ref, and no error', () => {
    const env = { ...github('pull_request', payload('{"pull_request": {"base": {"sha": "')), GITHUB_BASE_REF: 'main' };
    expect(ciMetadata(env, {})).toEqual({ commit: SHA, ref: 'refs/pull/7/merge', baseRef: 'main' });
    expect(base(ciMetadata(github('merge_group', payload('not json')), {}))).toEqual({});
  });

  it('payloads of another shape: fields of the wrong type, arrays, null, a non-object, a short sha are left out', () => {
    const cases: unknown[] = [
      { pull_request: { base: { sha: 42, ref: ['main'] } } },
      { pull_request: [{ base: { sha: BASE, ref: 'main' } }] },
      { pull_request: null },
      { pull_request: { base: { sha: BASE.slice(0, 12), ref: '' } } },
      [pr],
      'a string',
      null,
    ];
    for (const c of cases) expect(base(ciMetadata(github('pull_request', payload(c)), {}))).toEqual({});
    // own properties only: nothing comes from Object.prototype
    expect(
      base(ciMetadata(github('merge_group', payload({ merge_group: { base_ref: { toString: 'x' } } })), {})),
    ).toEqual({});
  });

  it('a missing or unreadable file, a directory: GITHUB_BASE_REF alone; a BOM is skipped', () => {
    const env = { ...github('pull_request', path.join(tmp, 'absent.json')), GITHUB_BASE_REF: 'develop' };
    expect(base(ciMetadata(env, {}))).toEqual({ baseRef: 'develop' });
    expect(base(ciMetadata({ ...env, GITHUB_EVENT_PATH: tmp }, {}))).toEqual({ baseRef: 'develop' });
    expect(base(ciMetadata({ ...env, GITHUB_EVENT_PATH: undefined }, {}))).toEqual({ baseRef: 'develop' });
    const bom = payload(`\ufeff${JSON.stringify(pr)}`);
    expect(base(ciMetadata({ ...env, GITHUB_EVENT_PATH: bom }, {}))).toEqual({ baseRef: 'main', baseCommit: BASE });
  });

  it('a payload over the cap is not read; one at the cap is', () => {
    const body = JSON.stringify(pr);
    const atCap = payload(body + ' '.repeat(MAX_EVENT_PAYLOAD_BYTES - body.length), 'at-cap.json');
    expect(fs.statSync(atCap).size).toBe(MAX_EVENT_PAYLOAD_BYTES);
    expect(readEventPayload(atCap)).toEqual(pr);
    const over = payload(body + ' '.repeat(MAX_EVENT_PAYLOAD_BYTES - body.length + 1), 'over.json');
    expect(readEventPayload(over)).toBeUndefined();
    expect(base(ciMetadata(github('pull_request', over), {}))).toEqual({});
  });

  it('a FIFO is not opened for reading (it would block)', () => {
    if (process.platform === 'win32') return;
    const fifo = path.join(tmp, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(readEventPayload(fifo)).toBeUndefined();
  });

  it('other events: no change, the payload not read, GITHUB_BASE_REF ignored', () => {
    for (const event of ['push', 'workflow_dispatch', 'schedule', 'pull_request_review', '']) {
      const env = { ...github(event, payload(pr)), GITHUB_BASE_REF: 'main' };
      expect(ciChangeKind(env)).toBeNull();
      expect(base(ciMetadata(env, {}))).toEqual({});
    }
    expect(ciChangeKind({ GITHUB_ACTIONS: 'true' })).toBeNull();
  });
});

describe('the other CIs', () => {
  const cases: Array<[name: string, env: NodeJS.ProcessEnv, kind: string | null, expected: object]> = [
    [
      'GitLab CI: merge request pipeline: the diff base',
      {
        GITLAB_CI: 'true',
        CI_MERGE_REQUEST_IID: '12',
        CI_MERGE_REQUEST_EVENT_TYPE: 'detached',
        CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
        CI_MERGE_REQUEST_TARGET_BRANCH_SHA: '',
        CI_MERGE_REQUEST_DIFF_BASE_SHA: BASE,
      },
      'merge_request',
      { baseRef: 'main', baseCommit: BASE },
    ],
    [
      'GitLab CI: merged results: the target branch SHA over the diff base',
      {
        GITLAB_CI: 'true',
        CI_MERGE_REQUEST_IID: '12',
        CI_MERGE_REQUEST_EVENT_TYPE: 'merged_result',
        CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
        CI_MERGE_REQUEST_TARGET_BRANCH_SHA: BASE2,
        CI_MERGE_REQUEST_DIFF_BASE_SHA: BASE,
      },
      'merge_request',
      { baseRef: 'main', baseCommit: BASE2 },
    ],
    [
      'GitLab CI: merge train',
      {
        GITLAB_CI: 'true',
        CI_PIPELINE_SOURCE: 'merge_request_event',
        CI_MERGE_REQUEST_IID: '12',
        CI_MERGE_REQUEST_EVENT_TYPE: 'merge_train',
        CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
        CI_MERGE_REQUEST_TARGET_BRANCH_SHA: BASE2,
        CI_MERGE_REQUEST_DIFF_BASE_SHA: BASE,
      },
      'merge_queue',
      { baseRef: 'main', baseCommit: BASE2 },
    ],
    ['GitLab CI: a branch pipeline', { GITLAB_CI: 'true', CI_COMMIT_BRANCH: 'main' }, null, {}],
    [
      'Azure Pipelines: the target branch, no commit',
      {
        TF_BUILD: 'True',
        BUILD_REASON: 'PullRequest',
        SYSTEM_PULLREQUEST_PULLREQUESTID: '17',
        SYSTEM_PULLREQUEST_TARGETBRANCH: 'refs/heads/main',
        SYSTEM_PULLREQUEST_SOURCECOMMITID: SHA,
      },
      'pull_request',
      { baseRef: 'refs/heads/main' },
    ],
    ['Azure Pipelines: a CI build', { TF_BUILD: 'True', BUILD_REASON: 'IndividualCI' }, null, {}],
    [
      'Bitbucket Pipelines: a full destination commit',
      {
        BITBUCKET_BUILD_NUMBER: '42',
        BITBUCKET_PR_ID: '5',
        BITBUCKET_PR_DESTINATION_BRANCH: 'main',
        BITBUCKET_PR_DESTINATION_COMMIT: BASE,
      },
      'pull_request',
      { baseRef: 'main', baseCommit: BASE },
    ],
    [
      'Bitbucket Pipelines: an abbreviated destination commit is left out',
      {
        BITBUCKET_BUILD_NUMBER: '42',
        BITBUCKET_PR_ID: '5',
        BITBUCKET_PR_DESTINATION_BRANCH: 'main',
        BITBUCKET_PR_DESTINATION_COMMIT: BASE.slice(0, 12),
      },
      'pull_request',
      { baseRef: 'main' },
    ],
    ['Bitbucket Pipelines: a branch build', { BITBUCKET_BUILD_NUMBER: '42', BITBUCKET_BRANCH: 'main' }, null, {}],
    [
      'Jenkins: a multibranch change request',
      { JENKINS_URL: 'https://ci.example.com/', CHANGE_ID: '24', CHANGE_TARGET: 'main', BRANCH_NAME: 'PR-24' },
      'pull_request',
      { baseRef: 'main' },
    ],
    ['Jenkins: a branch build', { JENKINS_HOME: '/var/jenkins_home', BRANCH_NAME: 'main' }, null, {}],
    [
      'CircleCI: a pull request, with no base (none documented)',
      { CIRCLECI: 'true', CIRCLE_PULL_REQUEST: 'https://github.com/o/r/pull/3', CIRCLE_BRANCH: 'feature' },
      'pull_request',
      {},
    ],
    ['CircleCI: a branch build', { CIRCLECI: 'true', CIRCLE_BRANCH: 'main' }, null, {}],
    [
      'Buildkite: the base branch, no commit',
      { BUILDKITE: 'true', BUILDKITE_PULL_REQUEST: '9', BUILDKITE_PULL_REQUEST_BASE_BRANCH: 'main' },
      'pull_request',
      { baseRef: 'main' },
    ],
    [
      'Buildkite: "false" is no pull request',
      { BUILDKITE: 'true', BUILDKITE_PULL_REQUEST: 'false', BUILDKITE_PULL_REQUEST_BASE_BRANCH: '' },
      null,
      {},
    ],
  ];

  it.each(cases)('%s', (_name, env, kind, expected) => {
    expect(ciChangeKind(env)).toBe(kind);
    const m = ciMetadata(env, {});
    expect({ baseRef: m.baseRef, baseCommit: m.baseCommit }).toEqual({ baseRef: undefined, ...expected });
  });

  it('invalid CI values are left out: control characters, blanks, a non-hex commit', () => {
    expect(
      ciMetadata(
        {
          GITLAB_CI: 'true',
          CI_MERGE_REQUEST_IID: '1',
          CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'ma\u0007in',
          CI_MERGE_REQUEST_TARGET_BRANCH_SHA: 'HEAD',
          CI_MERGE_REQUEST_DIFF_BASE_SHA: '   ',
        },
        {},
      ),
    ).toEqual({});
  });

  it('outside a known CI: no change, no base', () => {
    const env = { CI: 'true', CHANGE_ID: '1', CHANGE_TARGET: 'main', BUILDKITE_PULL_REQUEST: '3' };
    expect(ciChangeKind(env)).toBeNull();
    expect(ciChangeKind({})).toBeNull();
    expect(ciMetadata(env, {})).toEqual({});
  });
});

describe('flags', () => {
  const gitlab = {
    GITLAB_CI: 'true',
    CI_COMMIT_SHA: SHA,
    CI_MERGE_REQUEST_IID: '12',
    CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
    CI_MERGE_REQUEST_DIFF_BASE_SHA: BASE,
  };

  it('win over the CI', () => {
    expect(ciMetadata(gitlab, { baseRef: 'release/2', baseCommit: BASE2 })).toEqual({
      commit: SHA,
      baseRef: 'release/2',
      baseCommit: BASE2,
    });
  });

  it('are trimmed and taken as given (an abbreviated commit too); no CI needed', () => {
    expect(ciMetadata({}, { baseRef: ' main ', baseCommit: 'abc1234\n' })).toEqual({
      baseRef: 'main',
      baseCommit: 'abc1234',
    });
  });

  it('a base commit by flag keeps the CI base ref', () => {
    expect(base(ciMetadata(gitlab, { baseCommit: BASE2 }))).toEqual({ baseRef: 'main', baseCommit: BASE2 });
  });

  it("a base ref by flag: the CI's base commit only when the flag names the CI's branch", () => {
    expect(base(ciMetadata(gitlab, { baseRef: 'release/2' }))).toEqual({ baseRef: 'release/2' });
    expect(base(ciMetadata(gitlab, { baseRef: 'refs/heads/main' }))).toEqual({
      baseRef: 'refs/heads/main',
      baseCommit: BASE,
    });
    expect(base(ciMetadata(gitlab, { baseRef: 'origin/main' }))).toEqual({ baseRef: 'origin/main', baseCommit: BASE });
  });

  it('an invalid flag counts as absent: the CI applies', () => {
    expect(base(ciMetadata(gitlab, { baseRef: '', baseCommit: 'a\nb' }))).toEqual({
      baseRef: 'main',
      baseCommit: BASE,
    });
  });

  it("both flags given: GitHub's payload is not needed", () => {
    const env = { GITHUB_ACTIONS: 'true', GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: tmp };
    const spy = jest.spyOn(fs, 'openSync');
    try {
      expect(base(ciMetadata(env, { baseRef: 'main', baseCommit: BASE }))).toEqual({
        baseRef: 'main',
        baseCommit: BASE,
      });
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  it('never from git: a checkout does not know its base', () => {
    fs.mkdirSync(path.join(tmp, '.git', 'refs', 'heads'), { recursive: true });
    fs.writeFileSync(path.join(tmp, '.git', 'HEAD'), 'ref: refs/heads/feature\n');
    fs.writeFileSync(path.join(tmp, '.git', 'refs', 'heads', 'feature'), SHA);
    expect(ciMetadata({}, {}, tmp)).toEqual({ commit: SHA, ref: 'refs/heads/feature' });
  });
});

describe('through `scanner snapshot`', () => {
  async function run(args: string[], env: NodeJS.ProcessEnv) {
    fs.writeFileSync(
      path.join(tmp, 'package.json'),
      JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { a: '1.0.0' } }),
    );
    fs.writeFileSync(
      path.join(tmp, 'package-lock.json'),
      JSON.stringify({
        name: 'app',
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { name: 'app', version: '1.0.0', dependencies: { a: '1.0.0' } },
          'node_modules/a': { version: '1.0.0', resolved: 'https://registry.npmjs.org/a/-/a-1.0.0.tgz' },
        },
      }),
    );
    let out = '';
    let err = '';
    const code = await main(['snapshot', tmp, ...args], {
      out: (t) => void (out += t),
      err: (t) => void (err += t),
      env,
      cwd: tmp,
      stdoutIsTTY: false,
      stderrIsTTY: false,
    });
    return { code, out, err };
  }

  it('--base-ref and --base-commit reach the metadata, over the CI; the service accepts and echoes them', async () => {
    const env = {
      GITHUB_ACTIONS: 'true',
      GITHUB_SHA: SHA,
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: payload({ pull_request: { base: { sha: BASE, ref: 'main' } } }),
    };
    const { code, out, err } = await run(['--base-ref', 'release/2', '--base-commit', BASE2], env);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const snapshot = JSON.parse(out) as Snapshot;
    expect(snapshot.metadata).toEqual({ commit: SHA, baseRef: 'release/2', baseCommit: BASE2 });
    validateSnapshot(JSON.parse(out), Buffer.byteLength(out));
    expect(scanMetadata(snapshot.metadata)).toEqual({ commit: SHA, baseRef: 'release/2', baseCommit: BASE2 });

    const fromCi = JSON.parse((await run([], env)).out) as Snapshot;
    expect(fromCi.metadata).toEqual({ commit: SHA, baseRef: 'main', baseCommit: BASE });
  });

  it('an invalid flag is a usage error naming it', async () => {
    const { code, err } = await run(['--base-commit', ''], {});
    expect(code).toBe(2);
    expect(err).toContain('--base-commit: 1 to 2000 characters without control characters');
  });
});

describe('scanMetadata', () => {
  it('keeps the base fields with the others, and drops unknown ones', () => {
    expect(
      scanMetadata({ commit: SHA, ref: 'r', runUrl: 'u', baseRef: 'main', baseCommit: BASE, other: 'x' } as never),
    ).toEqual({ commit: SHA, ref: 'r', runUrl: 'u', baseRef: 'main', baseCommit: BASE });
  });
});
