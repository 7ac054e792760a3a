// The built client's MCP commands (the bundle GET /cli/scanner.mjs serves, built here in memory, run as a child process)
// against the real service on the real database: `scanner mcp scan` with an mcp:upload key (the scan
// read back through GET /v1/mcp/scans/{id}, no planted secret in it), `scanner mcp hook` for both agents under the
// observe and block control levels (a registry deny entry, an unreviewed server), and `scanner sidecar --once
// --mcp-interval` reporting with the host credential, the host implied.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildClient } = require('../../tools/build-client.js');

const FIXTURES = path.resolve(__dirname, '../fixtures/mcp');
const SECRETS: string[] = Object.values(JSON.parse(fs.readFileSync(path.join(FIXTURES, 'SECRETS.json'), 'utf8')));

let t: TestContext;
let org: Org;
let dir: string;
let home: string;
let project: string;
let bundle: string;
let url: string;

beforeAll(async () => {
  t = await testContext();
  org = await newOrg(t.store);
  url = `http://127.0.0.1:${(t.server.address() as AddressInfo).port}`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-client-it-'));
  home = path.join(dir, 'home');
  project = path.join(dir, 'project');
  fs.mkdirSync(project, { recursive: true });
  // The fixture trees of Cursor and Claude Code (Linux), their /home/dev written as this test's home.
  for (const tree of ['cursor/home', 'claude-code/linux/home'])
    fs.cpSync(path.join(FIXTURES, tree), home, { recursive: true });
  const walk = (d: string): string[] =>
    fs
      .readdirSync(d, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  for (const f of walk(home)) fs.writeFileSync(f, fs.readFileSync(f, 'utf8').split('/home/dev').join(home));
  fs.writeFileSync(
    path.join(project, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github@2.0.0'] },
        local: { command: './tools/my-server' },
      },
    }),
  );
  const built = await buildClient({ write: false });
  bundle = path.join(dir, 'scanner.mjs');
  fs.writeFileSync(bundle, built.outputFiles[0].text);
}, 120_000);
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function client(
  args: string[],
  env: Record<string, string>,
  stdin?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, ...args], {
      env: { PATH: process.env.PATH, HOME: home, SCANNER_URL: url, ...env },
      cwd: project,
      stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => (stdout += c));
    child.stderr!.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (stdin !== undefined) child.stdin!.end(stdin);
  });
}

test('scanner mcp scan: uploaded with an mcp:upload key, read back by id, no planted secret anywhere; a key without the scope is exit 3', async () => {
  const key = await org.key(['mcp:upload']);
  const r = await client(['mcp', 'scan'], { SCANNER_TOKEN: key });
  expect([r.code, r.stderr]).toEqual([0, expect.any(String)]);
  const id = /^MCP scan (mcs_\S+) \(queued\)/m.exec(r.stdout)?.[1];
  expect(id).toBeDefined();
  expect(r.stdout).toMatch(/^cursor ~\/\.cursor\/mcp\.json \(user\): \d+ servers$/m);
  expect(r.stdout).toMatch(/^claude-code \.?.*\.mcp\.json \(project\): 2 servers$/m);
  const reader = await org.key(['mcp:read']);
  const got = await t.api.get(`/v1/mcp/scans/${id}`).set(bearer(reader));
  expect(got.status).toBe(200);
  expect(got.body).toMatchObject({ id, hostId: null, reportedHostname: os.hostname() });
  for (const s of SECRETS) {
    expect(r.stdout + r.stderr).not.toContain(s);
    expect(JSON.stringify(got.body)).not.toContain(s);
  }
  const denied = await client(['mcp', 'scan'], { SCANNER_TOKEN: await org.key(['mcp:read']) });
  expect(denied.code).toBe(3);
  expect(denied.stderr).toMatch(/403 insufficient_scope/);
  const refused = await client(['mcp', 'scan', '--host-id', 'hst_doesnotexist'], { SCANNER_TOKEN: key });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/422 invalid_parameter/);
}, 60_000);

test('scanner mcp hook: observe allows (no decision); block denies an unreviewed server, allows a registry allow, denies a registry deny (warn: ask); both agents', async () => {
  const key = await org.key(['mcp:upload']);
  const claude = (tool: string) =>
    JSON.stringify({ hook_event_name: 'PreToolUse', cwd: project, tool_name: tool, tool_input: { q: 'x' } });
  const cursor = JSON.stringify({
    hook_event_name: 'beforeMCPExecution',
    workspace_roots: [project],
    tool_name: 'search',
    tool_input: '{}',
    command: './tools/my-server',
  });

  const observed = await client(
    ['mcp', 'hook', '--client', 'claude-code'],
    { SCANNER_TOKEN: key },
    claude('mcp__github__create_issue'),
  );
  expect([observed.code, JSON.parse(observed.stdout)]).toEqual([0, {}]);

  expect((await t.api.put('/v1/mcp/control-level').set(bearer(org.ownerToken)).send({ level: 'block' })).status).toBe(
    200,
  );
  const unreviewed = await client(
    ['mcp', 'hook', '--client', 'claude-code'],
    { SCANNER_TOKEN: key },
    claude('mcp__github__create_issue'),
  );
  expect(unreviewed.code).toBe(0);
  expect(JSON.parse(unreviewed.stdout).hookSpecificOutput).toMatchObject({
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
  });
  const cursorBlocked = await client(['mcp', 'hook', '--client', 'cursor'], { SCANNER_TOKEN: key }, cursor);
  expect(JSON.parse(cursorBlocked.stdout)).toMatchObject({ permission: 'deny' });

  // Allowed in the registry: allow under block.
  const put = await t.api
    .put('/v1/mcp/registry/entries')
    .set(bearer(org.ownerToken))
    .send({ entries: [{ identity: 'pkg:npm/%40modelcontextprotocol/server-github', decision: 'allow' }] });
  expect(put.status).toBe(200);
  const allowed = await client(
    ['mcp', 'hook', '--client', 'claude-code'],
    { SCANNER_TOKEN: key },
    claude('mcp__github__create_issue'),
  );
  expect([allowed.code, JSON.parse(allowed.stdout)]).toEqual([0, {}]);

  // Denied in the registry: deny under block, "ask" under warn.
  await t.api
    .put('/v1/mcp/registry/entries')
    .set(bearer(org.ownerToken))
    .send({
      entries: [
        { identity: 'pkg:npm/%40modelcontextprotocol/server-github', decision: 'deny', note: 'use the internal one' },
      ],
    });
  const denied = await client(
    ['mcp', 'hook', '--client', 'claude-code'],
    { SCANNER_TOKEN: key },
    claude('mcp__github__create_issue'),
  );
  expect(JSON.parse(denied.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
  expect((await t.api.put('/v1/mcp/control-level').set(bearer(org.ownerToken)).send({ level: 'warn' })).status).toBe(
    200,
  );
  const warned = await client(
    ['mcp', 'hook', '--client', 'claude-code'],
    { SCANNER_TOKEN: key },
    claude('mcp__github__create_issue'),
  );
  expect(JSON.parse(warned.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'ask' });

  // The events are stored: the tool, never the arguments.
  const events = await t.api.get('/v1/mcp/usage-events').set(bearer(await org.key(['mcp:read'])));
  expect(events.status).toBe(200);
  expect(events.body.events.length).toBeGreaterThanOrEqual(6);
  expect(events.body.events.map((e: { tool: string }) => e.tool)).toEqual(
    expect.arrayContaining(['create_issue', 'search']),
  );
  expect((await t.api.put('/v1/mcp/control-level').set(bearer(org.ownerToken)).send({ level: 'observe' })).status).toBe(
    200,
  );
}, 60_000);

test('scanner sidecar --once --mcp-interval: the MCP report goes with the host credential, the host implied', async () => {
  const issued = await t.api
    .post('/v1/hosts/registration-tokens')
    .set(bearer(org.ownerToken))
    .send({ name: 'mcp-hosts' });
  expect(issued.status).toBe(201);
  const tokenFile = path.join(dir, 'reg-token');
  fs.writeFileSync(tokenFile, `${issued.body.token}\n`, { mode: 0o600 });
  const stateFile = path.join(dir, 'state', 'sidecar.json');
  const r = await client(
    ['sidecar', '--registration-token', tokenFile, '--state', stateFile, '--once', '--mcp-interval', '3600'],
    {},
  );
  expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/MCP scan mcs_\S+: \d+ configuration file\(s\)/)]);
  const id = /MCP scan (mcs_[^:\s]+):/.exec(r.stderr)![1];
  const hostId = JSON.parse(fs.readFileSync(stateFile, 'utf8')).hostId;
  const got = await t.api.get(`/v1/mcp/scans/${id}`).set(bearer(await org.key(['mcp:read'])));
  expect(got.status).toBe(200);
  expect(got.body).toMatchObject({ id, hostId });
  for (const s of SECRETS) expect(r.stderr + JSON.stringify(got.body)).not.toContain(s);
}, 60_000);
