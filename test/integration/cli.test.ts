// The operator CLI as an operator runs it (`npx scanner`, compiled), against the test run's database.
import { execFile } from 'node:child_process';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { bearer, requireEnv, testContext, type TestContext } from '../helpers/context';

const run = promisify(execFile);
const BIN = path.resolve(__dirname, '../../bin/scanner.js');
const SHARED = path.resolve(__dirname, '../../../shared/data');

let t: TestContext;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const dbName = `cli_${randomBytes(4).toString('hex')}`;
  t = await testContext({ dbName });
  env = { ...process.env, MONGODB_URI: requireEnv('MONGODB_URI'), MONGODB_DB: dbName, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'cli-')) };
});
afterAll(() => t.close());

const scanner = async (...args: string[]) => (await run(process.execPath, [BIN, ...args], { env })).stdout;

test('admin bootstrap prints a session that the API accepts as the owner', async () => {
  const out = JSON.parse(await scanner('admin', 'bootstrap', '--org', 'Acme', '--email', 'Owner@Example.test', '--json'));
  expect(out).toMatchObject({ sessionToken: expect.stringMatching(/^svc_ses_/), org: { id: expect.stringMatching(/^org_/), name: 'Acme' }, user: { email: 'owner@example.test' }, member: { role: 'owner' } });
  const me = await t.api.get('/v1/me').set(bearer(out.sessionToken));
  expect(me.body).toMatchObject({ org: { id: out.org.id }, member: { id: out.member.id, role: 'owner' } });
  // The token is stored only as a hash.
  expect(JSON.stringify(await t.store.c.sessions.find().toArray())).not.toContain(out.sessionToken);
});

test('admin session creates a user without an organization when needed; --revoke ends it', async () => {
  const out = JSON.parse(await scanner('admin', 'session', '--email', 'newcomer@example.test', '--json'));
  const me = await t.api.get('/v1/me').set(bearer(out.sessionToken));
  expect(me.body).toEqual({ user: { id: out.user.id, email: 'newcomer@example.test' }, org: null, member: null });
  const scans = await t.api.get('/v1/scans').set(bearer(out.sessionToken));
  expect(scans.status).toBe(403);
  expect(scans.body.error.message).toContain('organization');
  await scanner('admin', 'session', '--revoke', out.sessionToken);
  expect((await t.api.get('/v1/me').set(bearer(out.sessionToken))).status).toBe(401);
});

test('advisories import reports counts, skips a bad file and keeps the rest; a re-import changes nothing', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adv-'));
  fs.copyFileSync(path.join(SHARED, 'advisories/npm/GHSA-35jh-r3h4-6jhm.json'), path.join(dir, 'good.json'));
  fs.writeFileSync(path.join(dir, 'broken.json'), '{"id": "GHSA-xxxx", ');
  const first = JSON.parse(await scanner('advisories', 'import', dir, '--json'));
  expect(first).toMatchObject({ new: 1, updated: 0, unchanged: 0, rejected: [{ source: expect.stringContaining('broken.json'), reason: expect.any(String) }] });
  expect(first.generation).toMatch(/^adv_/);
  const again = JSON.parse(await scanner('advisories', 'import', dir, '--json'));
  expect(again).toMatchObject({ new: 0, updated: 0, unchanged: 1, generation: first.generation });
  const text = await scanner('advisories', 'import', path.join(SHARED, 'advisories/npm'));
  expect(text).toMatch(/new \d+, updated 0, unchanged 1/);
});

test('admin users lists every user with organization, role and active sessions', async () => {
  const boot = JSON.parse(await scanner('admin', 'bootstrap', '--org', 'Users Inc', '--email', 'lister@example.test', '--json'));
  const loner = JSON.parse(await scanner('admin', 'session', '--email', 'loner-cli@example.test', '--json'));
  await scanner('admin', 'session', '--revoke', loner.sessionToken);
  const { users } = JSON.parse(await scanner('admin', 'users', '--json'));
  expect(users.find((u: any) => u.email === 'lister@example.test')).toMatchObject({ org: { id: boot.org.id, name: 'Users Inc' }, member: { role: 'owner' }, activeSessions: 1 });
  expect(users.find((u: any) => u.email === 'loner-cli@example.test')).toMatchObject({ org: null, member: null, activeSessions: 0, lastSessionAt: null });
  expect(await scanner('admin', 'users')).toContain('lister@example.test');
});
