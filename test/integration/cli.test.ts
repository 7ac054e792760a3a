// The operator CLI as an operator runs it (`npx scanner`, compiled), against the test run's database.
import { execFile } from 'node:child_process';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { newId } from '../../src/domain/ids';
import type { Finding } from '../../src/shared/types';
import { writeResults } from '../../src/storage/results';
import { insertScan, markCompleted, markRunning } from '../../src/storage/scans';
import { bearer, requireEnv, testContext, type TestContext } from '../helpers/context';
import { itWithSharedData, sharedDataDir } from '../helpers/shared-data';

const run = promisify(execFile);
const BIN = path.resolve(__dirname, '../../bin/scanner.js');
const SHARED = sharedDataDir();

let t: TestContext;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const dbName = `cli_${randomBytes(4).toString('hex')}`;
  t = await testContext({ dbName });
  env = {
    ...process.env,
    MONGODB_URI: requireEnv('MONGODB_URI'),
    MONGODB_DB: dbName,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'cli-')),
  };
});
afterAll(() => t.close());

const scanner = async (...args: string[]) => (await run(process.execPath, [BIN, ...args], { env })).stdout;

/** Runs the CLI with `input` on standard input; resolves with the exit code and output, failures included. */
function scannerWithInput(input: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { env }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
    child.stdin!.end(input);
  });
}

test('admin bootstrap prints a session that the API accepts as the owner', async () => {
  const out = JSON.parse(
    await scanner('admin', 'bootstrap', '--org', 'Acme', '--email', 'Owner@Example.test', '--json'),
  );
  expect(out).toMatchObject({
    sessionToken: expect.stringMatching(/^svc_ses_/),
    org: { id: expect.stringMatching(/^org_/), name: 'Acme' },
    user: { email: 'owner@example.test' },
    member: { role: 'owner' },
  });
  const me = await t.api.get('/v1/me').set(bearer(out.sessionToken));
  expect(me.body).toMatchObject({ org: { id: out.org.id }, member: { id: out.member.id, role: 'owner' } });
  // The token is stored only as a hash.
  expect(JSON.stringify(await t.store.c.sessions.find().toArray())).not.toContain(out.sessionToken);
});

test('admin session creates a user without an organization when needed; --revoke ends it, the token read from stdin', async () => {
  const out = JSON.parse(await scanner('admin', 'session', '--email', 'newcomer@example.test', '--json'));
  const me = await t.api.get('/v1/me').set(bearer(out.sessionToken));
  expect(me.body).toEqual({ user: { id: out.user.id, email: 'newcomer@example.test' }, org: null, member: null });
  const scans = await t.api.get('/v1/scans').set(bearer(out.sessionToken));
  expect(scans.status).toBe(403);
  expect(scans.body.error.message).toContain('organization');
  const revoked = await scannerWithInput(`${out.sessionToken}\n`, 'admin', 'session', '--revoke'); // as `echo "$TOKEN" |` sends it
  expect([revoked.code, revoked.stdout.trim()]).toEqual([0, 'session revoked']);
  expect((await t.api.get('/v1/me').set(bearer(out.sessionToken))).status).toBe(401);
  const again = await scannerWithInput(out.sessionToken, 'admin', 'session', '--revoke', '-', '--json');
  expect([again.code, JSON.parse(again.stdout)]).toEqual([1, { revoked: false }]);
});

test('admin session --revoke refuses a token on the command line, an empty stdin and anything but one session token', async () => {
  const out = JSON.parse(await scanner('admin', 'session', '--email', 'argv-revoke@example.test', '--json'));
  for (const args of [
    ['--revoke', out.sessionToken],
    [`--revoke=${out.sessionToken}`],
    ['--revoke', '-', out.sessionToken],
  ]) {
    const res = await scannerWithInput('', 'admin', 'session', ...args);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('echo "$TOKEN" | npx scanner admin session --revoke');
    expect(res.stdout + res.stderr).not.toContain(out.sessionToken);
  }
  expect((await t.api.get('/v1/me').set(bearer(out.sessionToken))).status).toBe(200); // still active
  for (const [input, message] of [
    ['', 'standard input is empty'],
    [' \n\n', 'standard input is empty'],
    [`${out.sessionToken} ${out.sessionToken}\n`, 'one session token'],
    ['not-a-token\n', 'not a session token'],
  ]) {
    const res = await scannerWithInput(input, 'admin', 'session', '--revoke');
    expect([res.code, res.stderr]).toEqual([1, expect.stringContaining(message)]);
    expect(res.stderr).not.toContain(out.sessionToken);
  }
  expect((await t.api.get('/v1/me').set(bearer(out.sessionToken))).status).toBe(200);
  expect((await scannerWithInput(`  ${out.sessionToken}\r\n`, 'admin', 'session', '--revoke')).code).toBe(0); // whitespace trimmed
  expect((await t.api.get('/v1/me').set(bearer(out.sessionToken))).status).toBe(401);
});

itWithSharedData(
  'advisories import reports counts, skips a bad file and keeps the rest (exit 1); a re-import changes nothing',
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adv-'));
    fs.copyFileSync(path.join(SHARED, 'advisories/npm/GHSA-35jh-r3h4-6jhm.json'), path.join(dir, 'good.json'));
    fs.writeFileSync(path.join(dir, 'broken.json'), '{"id": "GHSA-xxxx", ');
    const res = await scannerWithInput('', 'advisories', 'import', dir, '--json');
    expect(res.code).toBe(1); // a file that could not be read fails the import, the rest of its source applied
    const first = JSON.parse(res.stdout);
    expect(first).toMatchObject({
      new: 1,
      updated: 0,
      unchanged: 0,
      rejected: [],
      failedFiles: [
        { source: expect.stringContaining('broken.json'), reason: expect.stringMatching(/^invalid JSON: /) },
      ],
    });
    expect(first.generation).toMatch(/^adv_/);
    fs.rmSync(path.join(dir, 'broken.json'));
    const again = JSON.parse(await scanner('advisories', 'import', dir, '--json'));
    expect(again).toMatchObject({ new: 0, updated: 0, unchanged: 1, generation: first.generation });
    const text = await scanner('advisories', 'import', path.join(SHARED, 'advisories/npm'));
    expect(text).toMatch(/new \d+, updated 0, unchanged 1/);
  },
);

test('admin users lists every user with organization, role and active sessions', async () => {
  const boot = JSON.parse(
    await scanner('admin', 'bootstrap', '--org', 'Users Inc', '--email', 'lister@example.test', '--json'),
  );
  const loner = JSON.parse(await scanner('admin', 'session', '--email', 'loner-cli@example.test', '--json'));
  expect((await scannerWithInput(loner.sessionToken, 'admin', 'session', '--revoke')).code).toBe(0);
  const { users } = JSON.parse(await scanner('admin', 'users', '--json'));
  expect(users.find((u: any) => u.email === 'lister@example.test')).toMatchObject({
    org: { id: boot.org.id, name: 'Users Inc' },
    member: { role: 'owner' },
    activeSessions: 1,
  });
  expect(users.find((u: any) => u.email === 'loner-cli@example.test')).toMatchObject({
    org: null,
    member: null,
    activeSessions: 0,
    lastSessionAt: null,
  });
  expect(await scanner('admin', 'users')).toContain('lister@example.test');
});

test('db show prints a stored scan and its findings decoded, where mongosh shows Binary blobs', async () => {
  const scanId = newId('scn');
  const finding = {
    id: 'fnd_1',
    scanId,
    severity: 'high',
    cve: 'GHSA-xxxx-yyyy-zzzz',
    publishedAt: null,
    package: 'left-pad',
    installedVersion: '1.0.0',
    fixedVersion: '1.0.1',
    path: ['app', 'left-pad'],
    suppressed: false,
    suppressionReason: null,
    attributions: [],
    summary: 'a finding',
    aliases: ['CVE-2099-0001'],
    packageRef: 'dep_x',
  };
  await insertScan(t.store, {
    _id: scanId,
    orgId: 'org_db',
    projectId: 'prj_db',
    target: 'db-show',
    ecosystem: 'javascript',
    schemaVersion: 1,
    status: 'queued',
    startedAt: new Date(),
    finishedAt: null,
    failureReason: null,
    findings: null,
    suppressed: null,
    nodeCount: 2,
    bodyBytes: 10,
  });
  await markRunning(t.store, scanId, null);
  const chunks = await writeResults(t.store, scanId, [finding as Finding]);
  await markCompleted(t.store, scanId, {
    findings: { critical: 0, high: 1, medium: 0, low: 0 },
    suppressed: 0,
    advisoryGeneration: null,
    unmatchedVersions: 0,
    resultChunks: chunks,
    findingCount: 1,
  });

  const shown = JSON.parse(await scanner('db', 'show', 'scan', scanId));
  expect(shown.stored).toMatchObject({
    _id: scanId,
    status: 'completed',
    target: 'db-show',
    findings: { high: 1 },
    details: { schemaVersion: 1, nodeCount: 2 },
    outcome: { resultChunks: 1, findingCount: 1 },
  });
  expect(shown.scan).toMatchObject({ _id: scanId, status: 'completed', nodeCount: 2, findingCount: 1 });
  expect(JSON.parse(await scanner('db', 'show', 'findings', scanId))).toEqual({
    scanId,
    status: 'completed',
    chunks: 1,
    findings: [finding],
  });

  const missing = await scannerWithInput('', 'db', 'show', 'scan', 'scn_nope');
  expect([missing.code, missing.stderr.trim()]).toEqual([1, 'no scan scn_nope in this database']);
  const wrong = await scannerWithInput('', 'db', 'show', 'project', scanId);
  expect(wrong.code).not.toBe(0);
  expect(wrong.stderr).toContain('give scan ID or findings ID');
});
