// The PR gate end to end on real data through the real service and the built client: JabRef's gradle.lockfile (the
// shared test data) scanned on the main branch is the baseline; a pull request's revision (made by
// test/fixtures/pr-gate/make-revisions.js: one vulnerable package bumped to a fixed version, one added, one bumped to
// a version that stays vulnerable) and a suppression the change adds itself; an advisory imported between the two
// scans hits a package both revisions hold. Compare gives exactly those classes; `--gate new` fails on the added one
// only and passes once it is fixed; the markdown names each class; a missing baseline under each policy; a GitHub
// merge queue payload and a GitLab merge train environment give the right base.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from '@temporalio/worker';
import { importAdvisories } from '../../src/advisories/import';
import { createLogger } from '../../src/logger';
import type { CompareResult } from '../../src/shared/compare';
import { createScanWorker } from '../../workers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { runClient } from '../helpers/client';
import { bearer, newOrg, requireEnv, testContext, type TestContext } from '../helpers/context';
import { describeWithSharedData, sharedDataDir } from '../helpers/shared-data';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { revisions } = require('../fixtures/pr-gate/make-revisions.js') as {
  revisions(source: string): { head: string; fixed: string };
};

const FIXTURES = path.resolve(__dirname, '../fixtures/pr-gate');
const DISCLOSED = 'GHSA-rgv9-q543-rqg4'; // jackson-databind < 2.13.4: imported after the baseline's scan
const COMMIT = { base: 'a'.repeat(40), later: 'c'.repeat(40), pr: 'b'.repeat(40), fixed: 'd'.repeat(40) };

let t: TestContext;
let worker: Worker;
let running: Promise<void>;
let env: Record<string, string>;
let key: string;
const dirs: string[] = [];

function tmp(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A checkout holding one gradle.lockfile. */
function checkout(lockfile: string): string {
  const dir = tmp('pr-gate-');
  fs.writeFileSync(path.join(dir, 'gradle.lockfile'), lockfile);
  return dir;
}

const scanIdOf = (stderr: string) => /→ scan (scn_[A-Za-z0-9_-]+)/.exec(stderr)?.[1];

async function compare(scanId: string, query = ''): Promise<CompareResult> {
  const res = await t.api.get(`/v1/scans/${scanId}/compare${query}`).set(bearer(key));
  expect(res.status).toBe(200);
  return res.body;
}

/** `package GHSA-id` of each finding (the display id of Maven advisories is their CVE; the GHSA id is an alias). */
const names = (list: Array<{ package: string; cve: string; aliases?: string[] }>) =>
  list.map((f) => `${f.package} ${[f.cve, ...(f.aliases ?? [])].find((id) => id.startsWith('GHSA-')) ?? f.cve}`).sort();

describeWithSharedData('the PR gate on a real Gradle lockfile', () => {
  const lock = () =>
    fs.readFileSync(path.join(sharedDataDir(), 'lockfiles/maven/JabRef__jabref__gradle.lockfile'), 'utf8');
  let dirsOf: { base: string; head: string; fixed: string };
  let baseScan: string;
  let laterScan: string;

  beforeAll(async () => {
    installRuntime('error');
    t = await testContext();
    // Every Maven advisory but one: that one is published (imported) between the baseline's scan and the change's.
    const maven = path.join(sharedDataDir(), 'advisories/maven');
    const first = tmp('adv-');
    for (const f of fs.readdirSync(maven))
      if (f !== `${DISCLOSED}.json`) fs.copyFileSync(path.join(maven, f), path.join(first, f));
    expect((await importAdvisories(t.store, [first])).rejected).toEqual([]);
    worker = (
      await createScanWorker({
        store: t.store,
        logger: createLogger('worker', 'silent'),
        temporalAddress: requireEnv('TEMPORAL_ADDRESS'),
        namespace: 'default',
        taskQueue: t.taskQueue,
      })
    ).worker;
    running = worker.run();
    const org = await newOrg(t.store);
    key = await org.key(['sca:upload', 'scans:read', 'findings:read']);
    env = { SCANNER_URL: `http://127.0.0.1:${(t.server.address() as { port: number }).port}`, SCANNER_TOKEN: key };
    const made = revisions(lock());
    dirsOf = { base: checkout(lock()), head: checkout(made.head), fixed: checkout(made.fixed) };

    // The default branch at the base commit: the baseline.
    const base = await scan(dirsOf.base, ['--ref', 'main', '--commit', COMMIT.base, '--fail-on', 'none']);
    expect(base.code).toBe(0);
    baseScan = scanIdOf(base.stderr)!;
    // The advisory published since.
    expect((await importAdvisories(t.store, [maven])).rejected).toEqual([]);
    // The default branch moves on (a later commit): newer than the base commit's scan, never the PR's baseline.
    const later = await scan(dirsOf.fixed, ['--ref', 'refs/heads/main', '--commit', COMMIT.later, '--fail-on', 'none']);
    expect(later.code).toBe(0);
    laterScan = scanIdOf(later.stderr)!;
  }, 240_000);

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await t?.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  function scan(dir: string, args: string[], extraEnv: Record<string, string> = {}, project = 'jabref') {
    return runClient(['scan', dir, '--project', project, '--timeout', '120', ...args], { ...env, ...extraEnv });
  }

  test('the committed revisions are what the script makes from the shared lockfile', () => {
    const made = revisions(lock());
    expect(made.head).toBe(fs.readFileSync(path.join(FIXTURES, 'head/gradle.lockfile'), 'utf8'));
    expect(made.fixed).toBe(fs.readFileSync(path.join(FIXTURES, 'fixed/gradle.lockfile'), 'utf8'));
  });

  test('compare: exactly the added, unchanged, disclosed and removed findings, the suppression added, the changes', async () => {
    // The change's snapshot as the client makes it, with a suppression the change adds to itself.
    const made = await runClient(
      [
        'snapshot',
        dirsOf.head,
        '--project',
        'jabref',
        '--ref',
        'feature/pr-7',
        '--commit',
        COMMIT.pr,
        '--base-commit',
        COMMIT.base,
      ],
      env,
    );
    expect(made.code).toBe(0);
    const snapshot = JSON.parse(made.stdout);
    expect(snapshot.metadata).toMatchObject({ baseCommit: COMMIT.base, ref: 'feature/pr-7' });
    const suppression = {
      cve: 'CVE-2024-47554',
      package: 'commons-io:commons-io',
      reason: 'not reachable from our code',
    };
    snapshot.suppressions = [suppression];
    const up = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(snapshot);
    expect(up.status).toBe(201);
    const done = await t.api.get(`/v1/scans/${up.body.id}?wait=60`).set(bearer(key));
    expect(done.body.status).toBe('completed');
    expect(done.body.metadata).toMatchObject({ baseCommit: COMMIT.base });

    const c = await compare(up.body.id);
    expect(c.baseline).toMatchObject({ id: baseScan, commit: COMMIT.base, ref: 'main' });
    expect(c.baselineMissing).toBeNull();
    expect(names(c.findings.added)).toEqual(['org.apache.logging.log4j:log4j-core GHSA-7rjr-3q55-vv33']);
    expect(names(c.findings.disclosed)).toEqual([`com.fasterxml.jackson.core:jackson-databind ${DISCLOSED}`]);
    expect(names(c.findings.removed)).toEqual([
      'com.google.guava:guava GHSA-7g45-4rm6-3mm3',
      'org.yaml:snakeyaml GHSA-3mc7-4q67-w48m',
    ]);
    // Unsuppressed by default: commons-io's finding is suppressed by the change, listed with suppressed=all.
    expect(names(c.findings.unchanged)).toEqual([
      'org.bouncycastle:bcprov-jdk18on GHSA-8xfc-gm6g-vgpv',
      'org.yaml:snakeyaml GHSA-9w3m-gqgf-c4p9',
      'org.yaml:snakeyaml GHSA-mjmj-j48q-9wg2',
    ]);
    for (const f of c.findings.unchanged.filter((x) => x.package === 'org.yaml:snakeyaml'))
      expect(f).toMatchObject({ installedVersion: '1.31', baselineVersions: ['1.30'], versionsChanged: true });
    const all = await compare(up.body.id, '?suppressed=all');
    expect(all.findings.unchanged.find((f) => f.package === 'commons-io:commons-io')).toMatchObject({
      suppressed: true,
      suppressionReason: suppression.reason,
    });
    expect(c.suppressionsAdded).toEqual([suppression]);
    // Counts: unsuppressed, by severity (the added log4j-core finding is critical).
    expect(Object.values(c.counts.added).reduce((a, b) => a + b, 0)).toBe(1);
    expect(c.counts.added.critical).toBe(1);
    expect(c.dependencies).toEqual({
      added: [{ name: 'org.apache.logging.log4j:log4j-core', version: '2.14.1' }],
      removed: [],
      changed: [
        { name: 'com.google.guava:guava', from: ['31.1-jre'], to: ['32.0.0-jre'] },
        { name: 'org.yaml:snakeyaml', from: ['1.30'], to: ['1.31'] },
      ],
    });
    expect(Object.values(c.parts).every((p) => p.nextCursor === null)).toBe(true);
    // Deterministic: the same answer again.
    expect(await compare(up.body.id)).toEqual(c);

    // A chosen baseline: the later main scan, which had the disclosed advisory's finding already.
    const chosen = await compare(up.body.id, `?baseline=${laterScan}`);
    expect(chosen.baseline?.id).toBe(laterScan);
    expect(names(chosen.findings.disclosed)).toEqual([]);
    expect(names(chosen.findings.unchanged)).toContain(`com.fasterxml.jackson.core:jackson-databind ${DISCLOSED}`);
    expect(names(chosen.findings.added)).toEqual(['org.apache.logging.log4j:log4j-core GHSA-7rjr-3q55-vv33']);
    // A tracked scan compares with the tracked scan before it.
    expect((await compare(laterScan)).baseline?.id).toBe(baseScan);
  });

  test('--gate new fails on the added finding only, and passes once it is fixed; --gate all fails on what was there', async () => {
    const pr = ['--ref', 'feature/pr-7', '--base-commit', COMMIT.base];
    const head = await scan(dirsOf.head, [...pr, '--commit', COMMIT.pr, '--gate', 'new', '--format', 'json']);
    expect(head.stderr).toContain('1 new finding(s) at or above --fail-on low: exit 1');
    expect(head.code).toBe(1);
    const high = await scan(dirsOf.head, [...pr, '--commit', COMMIT.pr, '--gate', 'new', '--fail-on', 'critical']);
    expect(high.code).toBe(1);

    const fixed = await scan(dirsOf.fixed, [...pr, '--commit', COMMIT.fixed, '--gate', 'new']);
    expect(fixed.stderr).toContain('nothing new at or above --fail-on low');
    expect(fixed.code).toBe(0);
    const all = await scan(dirsOf.fixed, [...pr, '--commit', COMMIT.fixed, '--gate', 'all']);
    expect(all.code).toBe(1);
  });

  test('--format markdown: every class in the comment, and on GitHub Actions the job summary too', async () => {
    const summary = path.join(tmp('summary-'), 'step-summary.md');
    fs.writeFileSync(summary, '# earlier step\n');
    const run = await scan(
      dirsOf.head,
      ['--ref', 'feature/pr-7', '--commit', COMMIT.pr, '--base-commit', COMMIT.base, '--format', 'markdown'],
      { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
    );
    // On GitHub Actions without a pull_request event the default gate is all.
    expect(run.code).toBe(1);
    const md = run.stdout;
    const text = md.replace(/\\/g, ''); // the comment escapes Markdown punctuation in every value
    expect(md.startsWith('<!-- scanner-pr-comment -->')).toBe(true);
    for (const id of ['GHSA-7rjr-3q55-vv33', DISCLOSED, 'GHSA-7g45-4rm6-3mm3', 'GHSA-3mc7-4q67-w48m'])
      expect(text).toContain(id);
    expect(text).toContain('org.apache.logging.log4j:log4j-core');
    expect(text).toContain(baseScan);
    expect(fs.readFileSync(summary, 'utf8')).toBe(`# earlier step\n${md.endsWith('\n') ? md : `${md}\n`}`);
  });

  test('a GitHub merge queue payload and a GitLab merge train give the base commit, and the gate defaults to new', async () => {
    const eventFile = path.join(tmp('event-'), 'event.json');
    fs.writeFileSync(
      eventFile,
      JSON.stringify({
        merge_group: {
          head_sha: 'e'.repeat(40),
          head_ref: 'refs/heads/gh-readonly-queue/main/pr-7-' + 'b'.repeat(40),
          base_sha: COMMIT.base,
          base_ref: 'refs/heads/main',
        },
      }),
    );
    const queue = await scan(dirsOf.fixed, [], {
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: 'merge_group',
      GITHUB_EVENT_PATH: eventFile,
      GITHUB_SHA: 'e'.repeat(40),
      GITHUB_REF: 'refs/heads/gh-readonly-queue/main/pr-7-' + 'b'.repeat(40),
    });
    expect(queue.stderr).toContain('nothing new at or above');
    expect(queue.code).toBe(0);
    const queued = scanIdOf(queue.stderr)!;
    expect((await compare(queued)).baseline?.id).toBe(baseScan);

    const train = await scan(dirsOf.head, [], {
      GITLAB_CI: 'true',
      CI_MERGE_REQUEST_IID: '7',
      CI_MERGE_REQUEST_EVENT_TYPE: 'merge_train',
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
      CI_MERGE_REQUEST_TARGET_BRANCH_SHA: COMMIT.base,
      CI_COMMIT_SHA: 'f'.repeat(40),
      CI_COMMIT_REF_NAME: 'feature/pr-7',
    });
    expect(train.stderr).toContain('1 new finding(s)');
    expect(train.code).toBe(1);
    const trained = scanIdOf(train.stderr)!;
    const scanned = await t.api.get(`/v1/scans/${trained}`).set(bearer(key));
    expect(scanned.body.metadata).toMatchObject({ baseCommit: COMMIT.base, baseRef: 'main' });
    expect((await compare(trained)).baseline?.id).toBe(baseScan);
  });

  test('no baseline: all (the default, with a warning), pass and fail', async () => {
    const lonely = (policy?: string) =>
      scan(
        dirsOf.fixed,
        ['--ref', 'feature/first', '--gate', 'new', ...(policy ? ['--baseline-missing', policy] : [])],
        {},
        'lonely',
      );
    const byDefault = await lonely();
    expect(byDefault.stderr).toMatch(/warning: no baseline for scan scn_\S+ \(gradle\).*every finding counts as new/);
    expect(byDefault.code).toBe(1);
    const scanId = scanIdOf(byDefault.stderr)!;
    const c = await compare(scanId);
    expect(c).toMatchObject({ baseline: null, baselineMissing: 'no_tracked_scan' });
    expect(c.findings.unchanged).toEqual([]);
    expect(c.findings.added.length).toBeGreaterThan(0);
    const pass = await lonely('pass');
    expect(pass.code).toBe(0);
    expect(pass.stderr).toContain('--baseline-missing pass');
    const fail = await lonely('fail');
    expect(fail.code).toBe(1);
    expect(fail.stderr).toContain('--baseline-missing fail: exit 1');
  });

  test('refusals: a baseline of another project is 422, an unknown one 404, a bad part 422', async () => {
    const other = await scan(dirsOf.fixed, ['--ref', 'main', '--fail-on', 'none'], {}, 'other-project');
    const otherScan = scanIdOf(other.stderr)!;
    const res = await t.api.get(`/v1/scans/${baseScan}/compare?baseline=${otherScan}`).set(bearer(key));
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(res.body.error.message).toMatch(/^baseline: /);
    const unknown = await t.api.get(`/v1/scans/${baseScan}/compare?baseline=scn_nope`).set(bearer(key));
    expect({ status: unknown.status, code: unknown.body.error?.code }).toEqual({ status: 404, code: 'not_found' });
    for (const q of ['baseline=auto&baseline=auto', 'limit=0', 'suppressed=maybe', 'cursor=abc', 'baseline=']) {
      const bad = await t.api.get(`/v1/scans/${baseScan}/compare?${q}`).set(bearer(key));
      expect([q, bad.status, bad.body.error?.code]).toEqual([q, 422, 'invalid_parameter']);
    }
    const wrongKind = await t.api.get(`/v1/scans/${baseScan}/compare?baseline=${'x'.repeat(5000)}`).set(bearer(key));
    expect({ status: wrongKind.status, code: wrongKind.body.error?.code }).toEqual({ status: 404, code: 'not_found' });
    const part = await t.api.get(`/v1/scans/${baseScan}/compare?part=findings.nope`).set(bearer(key));
    expect({ status: part.status, code: part.body.error?.code }).toEqual({ status: 422, code: 'invalid_parameter' });
    // A part page, and a cursor of another part refused.
    const page = await t.api.get(`/v1/scans/${laterScan}/compare?part=dependencies.changed&limit=1`).set(bearer(key));
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ part: 'dependencies.changed', baseline: { id: baseScan } });
    expect(page.body.items).toHaveLength(1);
    expect(page.body.nextCursor).toEqual(expect.any(String));
    const wrong = await t.api
      .get(`/v1/scans/${laterScan}/compare?part=findings.added&cursor=${encodeURIComponent(page.body.nextCursor)}`)
      .set(bearer(key));
    expect({ status: wrong.status, code: wrong.body.error?.code }).toEqual({ status: 422, code: 'invalid_cursor' });
    const next = await t.api
      .get(
        `/v1/scans/${laterScan}/compare?part=dependencies.changed&limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`,
      )
      .set(bearer(key));
    expect(next.status).toBe(200);
    expect(next.body.items[0]).not.toEqual(page.body.items[0]);
  });
});
