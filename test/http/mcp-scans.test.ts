// POST /v1/mcp/scans and GET /v1/mcp/scans/{id} over real HTTP against the real database: who may
// upload (mcp:upload keys and sessions, a host credential for its own host only), the host rules ({hostId} active in
// the organization, {hostname} kept as reported and never a host), limits and enums, what is stored (redacted by the
// shared function: env and header names only, secrets listed), the starter called with the stored scan, and reads
// (queued: servers and issues null; completed: counts; another organization's id: 404).
import { randomBytes } from 'node:crypto';
import { newOrg } from '../helpers/context';
import { err, mcpContext, mcpEndpoints, registerHost, type McpContext } from './mcp-helpers';

let c: McpContext;
let e: ReturnType<typeof mcpEndpoints>;
let uploader: string;
let reader: string;
let host: { id: string; credential: string };

beforeAll(async () => {
  c = await mcpContext();
  e = mcpEndpoints(c);
  uploader = await c.org.key(['mcp:upload']);
  reader = await c.org.key(['mcp:read']);
  host = await registerHost(c, 'dev-laptop');
}, 60_000);
afterAll(() => c?.close());

const server = (extra: Record<string, unknown> = {}) => ({
  name: 'memory',
  transport: 'stdio',
  command: 'npx',
  args: ['-y', '@modelcontextprotocol/server-memory@2025.4.25'],
  ...extra,
});
const scanBody = (extra: Record<string, unknown> = {}, servers: unknown[] = [server()]) => ({
  host: { hostname: 'laptop-1' },
  clients: [{ client: 'cursor', configPath: '~/.cursor/mcp.json', scope: 'user', servers }],
  ...extra,
});

describe('upload', () => {
  test('an mcp:upload key with {hostname}: 201 queued, kept as reportedHostname, no host created, the starter given the stored scan', async () => {
    const hostsBefore = await c.store.c.hosts.countDocuments({});
    const before = Date.now();
    const res = await e.uploadScan(uploader, scanBody({ scannedAt: '2026-01-02T03:04:05Z' }));
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'status', 'hostId', 'receivedAt']);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^mcs_[0-9a-z]{22}$/), status: 'queued', hostId: null });
    expect(Date.parse(res.body.receivedAt)).toBeGreaterThanOrEqual(before - 5);
    expect(await c.store.c.hosts.countDocuments({})).toBe(hostsBefore);
    const stored = await c.store.c.mcpScans.findOne({ _id: res.body.id });
    expect(stored).toMatchObject({
      orgId: c.org.orgId,
      hostId: null,
      reportedHostname: 'laptop-1',
      status: 'queued',
      servers: null,
      issues: null,
      scannedAt: new Date('2026-01-02T03:04:05Z'),
    });
    expect(stored!.clients).toEqual([
      {
        client: 'cursor',
        configPath: '~/.cursor/mcp.json',
        scope: 'user',
        servers: [
          {
            name: 'memory',
            transport: 'stdio',
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-memory@2025.4.25'],
            url: null,
            envNames: [],
            headerNames: [],
            secrets: [],
            tools: null,
          },
        ],
      },
    ]);
    await new Promise((r) => setTimeout(r, 20));
    expect(c.started.map((s) => s._id)).toContain(res.body.id);
  });

  test("{hostId} of an active host of the organization is kept; an unknown, revoked or other organization's host is 422", async () => {
    const ok = await e.uploadScan(uploader, scanBody({ host: { hostId: host.id } }));
    expect(ok.status).toBe(201);
    expect(ok.body.hostId).toBe(host.id);
    const other = await newOrg(c.store, 'other');
    const otherHost = await registerHost({ api: c.api, owner: other.ownerToken });
    const revoked = await registerHost(c);
    await c.api.delete(`/v1/hosts/${revoked.id}`).set({ Authorization: `Bearer ${c.owner}` });
    const expired = await registerHost(c);
    await c.store.c.hosts.updateOne(
      { _id: expired.id },
      { $set: { lastHeartbeatAt: new Date(Date.now() - 3600_000) } },
    );
    for (const hostId of ['hst_unknown', otherHost.id, revoked.id, expired.id]) {
      const res = await e.uploadScan(uploader, scanBody({ host: { hostId } }));
      expect(err(res)).toEqual({ status: 422, code: 'invalid_parameter' });
      expect(res.body.error.message).toMatch(/^host\.hostId: must name an active host/);
    }
  });

  test('host is required with a key: absent, both or neither form is 4xx', async () => {
    const body = scanBody();
    delete (body as any).host;
    expect(err(await e.uploadScan(uploader, body))).toEqual({ status: 422, code: 'missing_parameter' });
    expect(err(await e.uploadScan(uploader, scanBody({ host: { hostId: host.id, hostname: 'x' } })))).toEqual({
      status: 422,
      code: 'invalid_parameter',
    });
    expect(err(await e.uploadScan(uploader, scanBody({ host: {} })))).toEqual({
      status: 422,
      code: 'invalid_parameter',
    });
  });

  test('a host credential: its host implied (host left out, or its own id, or a hostname kept as reported); another host id is 403', async () => {
    const body = scanBody();
    delete (body as any).host;
    const implied = await e.uploadScan(host.credential, body);
    expect(implied.status).toBe(201);
    expect(implied.body.hostId).toBe(host.id);
    expect((await e.uploadScan(host.credential, scanBody({ host: { hostId: host.id } }))).body.hostId).toBe(host.id);
    const named = await e.uploadScan(host.credential, scanBody({ host: { hostname: 'what-it-calls-itself' } }));
    expect(named.body.hostId).toBe(host.id);
    expect(await c.store.c.mcpScans.findOne({ _id: named.body.id })).toMatchObject({
      hostId: host.id,
      reportedHostname: 'what-it-calls-itself',
    });
    const other = await registerHost(c);
    const res = await e.uploadScan(host.credential, scanBody({ host: { hostId: other.id } }));
    expect(err(res)).toEqual({ status: 403, code: 'insufficient_scope' });
  });

  test('sessions of members may upload (their role holds mcp:upload); auditors and keys without the scope may not', async () => {
    expect((await e.uploadScan(await c.org.session('member'), scanBody())).status).toBe(201);
    expect(err(await e.uploadScan(await c.org.session('auditor'), scanBody()))).toEqual({
      status: 403,
      code: 'insufficient_scope',
    });
    expect(err(await e.uploadScan(reader, scanBody()))).toEqual({ status: 403, code: 'insufficient_scope' });
  });

  test('limits: 100 clients, 200 servers per client, 500 tools per server (one more is 422); exactly at the limit is 201', async () => {
    const clients = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ client: 'other', configPath: `/c/${i}`, scope: 'user', servers: [] }));
    expect((await e.uploadScan(uploader, { host: { hostname: 'h' }, clients: clients(100) })).status).toBe(201);
    const tooMany = await e.uploadScan(uploader, { host: { hostname: 'h' }, clients: clients(101) });
    expect(err(tooMany)).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(tooMany.body.error.message).toMatch(/^clients: at most 100/);
    const servers = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ name: `s${i}`, transport: 'stdio', command: 'x' }));
    expect((await e.uploadScan(uploader, scanBody({}, servers(200)))).status).toBe(201);
    expect((await e.uploadScan(uploader, scanBody({}, servers(201)))).body.error.message).toMatch(
      /^clients\[0\]\.servers: at most 200/,
    );
    const tools = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `t${i}` }));
    expect((await e.uploadScan(uploader, scanBody({}, [server({ tools: tools(500) })]))).status).toBe(201);
    expect((await e.uploadScan(uploader, scanBody({}, [server({ tools: tools(501) })]))).body.error.message).toMatch(
      /^clients\[0\]\.servers\[0\]\.tools: at most 500/,
    );
  });

  test('enums: client, scope, transport; each wrong one is 422 naming its path', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [
        { host: { hostname: 'h' }, clients: [{ client: 'emacs', configPath: 'x', scope: 'user', servers: [] }] },
        /^clients\[0\]\.client: must be one of claude-desktop/,
      ],
      [
        { host: { hostname: 'h' }, clients: [{ client: 'cursor', configPath: 'x', scope: 'global', servers: [] }] },
        /^clients\[0\]\.scope/,
      ],
      [scanBody({}, [server({ transport: 'websocket' })]), /^clients\[0\]\.servers\[0\]\.transport/],
      [scanBody({}, [server({ args: 'not-a-list' })]), /^clients\[0\]\.servers\[0\]\.args: must be an array/],
      [scanBody({}, [server({ args: [1] })]), /^clients\[0\]\.servers\[0\]\.args\[0\]: must be a string/],
      [scanBody({}, [server({ env: ['A'] })]), /^clients\[0\]\.servers\[0\]\.env: must be an object/],
      [scanBody({ scannedAt: 'yesterday' }), /^scannedAt/],
    ];
    for (const [body, message] of cases) {
      const res = await e.uploadScan(uploader, body);
      expect(err(res)).toEqual({ status: 422, code: 'invalid_parameter' });
      expect(res.body.error.message).toMatch(message);
    }
    for (const missingClient of [
      { configPath: 'x', scope: 'user', servers: [] },
      { client: 'cursor', scope: 'user', servers: [] },
      { client: 'cursor', configPath: 'x', scope: 'user' },
    ]) {
      expect(err(await e.uploadScan(uploader, { host: { hostname: 'h' }, clients: [missingClient] }))).toEqual({
        status: 422,
        code: 'missing_parameter',
      });
    }
  });

  test('stored redacted: env and header names only (literals listed as secrets, references not), args, url and command redacted, tool texts redacted, inputSchema kept as JSON text', async () => {
    const token = `ghp_${randomBytes(18).toString('hex')}`;
    const key = `sk-proj-${randomBytes(16).toString('hex')}`;
    const res = await e.uploadScan(
      uploader,
      scanBody({}, [
        server({
          name: 'gh',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-github@1.0.0', `--token=${token}`],
          env: { GITHUB_TOKEN: token, HOME_DIR: '${HOME}' },
          tools: [
            {
              name: 'search',
              description: `use key ${key}`,
              inputSchema: {
                $schema: 'https://json-schema.org/draft/2020-12/schema',
                type: 'object',
                properties: { 'a.b': { default: key } },
              },
            },
          ],
        }),
        {
          name: 'remote',
          transport: 'http',
          url: `https://user:${token}@mcp.example.com/mcp?api_key=${key}`,
          headers: { Authorization: `Bearer ${token}`, 'X-Ref': 'Bearer ${env:TOKEN}' },
        },
      ]),
    );
    expect(res.status).toBe(201);
    const stored = await c.store.c.mcpScans.findOne({ _id: res.body.id });
    const text = JSON.stringify(stored);
    expect(text).not.toContain(token);
    expect(text).not.toContain(key);
    const [gh, remote] = stored!.clients[0].servers;
    expect(gh.envNames).toEqual(['GITHUB_TOKEN', 'HOME_DIR']);
    expect(gh.secrets).toEqual(['args', 'env:GITHUB_TOKEN']);
    expect(gh.args.slice(0, 2)).toEqual(['-y', '@modelcontextprotocol/server-github@1.0.0']);
    expect(gh.args[2]).toContain('[REDACTED]');
    expect(gh.tools![0].description).toBe('use key [REDACTED]');
    expect(JSON.parse(gh.tools![0].inputSchema as string)).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { 'a.b': { default: '[REDACTED]' } },
    });
    expect(remote.headerNames).toEqual(['Authorization', 'X-Ref']);
    expect(remote.secrets).toEqual(['url', 'header:Authorization']);
    expect(remote.url).not.toContain('mcp.example.com/mcp?api_key=sk');
  });

  test('unknown fields are ignored and never stored', async () => {
    const res = await e.uploadScan(uploader, {
      ...scanBody({}, [server({ password: 'hunter2-extra-field', extra: { deep: 1 } })]),
      note: 'ignored-top-level',
    });
    expect(res.status).toBe(201);
    const text = JSON.stringify(await c.store.c.mcpScans.findOne({ _id: res.body.id }));
    expect(text).not.toContain('hunter2-extra-field');
    expect(text).not.toContain('ignored-top-level');
  });

  test('1 MB is accepted; 1 MB + 1 byte is 413 invalid_parameter', async () => {
    const base = JSON.stringify(scanBody({ pad: '' }));
    const exact = base.replace('"pad":""', `"pad":"${'x'.repeat(1024 * 1024 - base.length)}"`);
    expect(Buffer.byteLength(exact)).toBe(1024 * 1024);
    expect((await e.uploadScan(uploader, exact)).status).toBe(201);
    const over = base.replace('"pad":""', `"pad":"${'x'.repeat(1024 * 1024 - base.length + 1)}"`);
    expect(err(await e.uploadScan(uploader, over))).toEqual({ status: 413, code: 'invalid_parameter' });
  });
});

describe('read', () => {
  test("queued: servers and issues null; completed: the counts; another organization's or an unknown id: 404", async () => {
    const up = await e.uploadScan(uploader, scanBody());
    const queued = await e.getScan(reader, up.body.id);
    expect(queued.status).toBe(200);
    expect(queued.body).toMatchObject({
      id: up.body.id,
      status: 'queued',
      hostId: null,
      reportedHostname: 'laptop-1',
      receivedAt: up.body.receivedAt,
      finishedAt: null,
      servers: null,
      issues: null,
    });
    const finishedAt = new Date();
    await c.store.c.mcpScans.updateOne(
      { _id: up.body.id },
      { $set: { status: 'completed', finishedAt, servers: 3, issues: { unpinned_package: 2, secret_in_config: 1 } } },
    );
    const done = await e.getScan(reader, up.body.id);
    expect(done.body).toMatchObject({
      status: 'completed',
      finishedAt: finishedAt.toISOString(),
      servers: 3,
      issues: { unpinned_package: 2, secret_in_config: 1 },
    });
    const other = await newOrg(c.store, 'other');
    expect(err(await e.getScan(await other.key(['mcp:read']), up.body.id))).toEqual({ status: 404, code: 'not_found' });
    expect(err(await e.getScan(reader, 'mcs_00000000000000000000'))).toEqual({ status: 404, code: 'not_found' });
    // a host credential reads nothing
    expect(err(await e.getScan(host.credential, up.body.id))).toEqual({ status: 403, code: 'insufficient_scope' });
  });
});
