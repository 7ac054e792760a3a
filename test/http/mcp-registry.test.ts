// The MCP registry and control level over real HTTP against the real database: upsert by identity
// (one entry per identity, same id on update, concurrent PUTs of one identity leave one entry), identity forms
// validated, delete, pagination ordered by identity, who may change what (admins and owners the registry, owners the
// level), audit events for every change, and the default level.
import { newOrg } from '../helpers/context';
import { err, mcpContext, mcpEndpoints, type McpContext } from './mcp-helpers';

let c: McpContext;
let e: ReturnType<typeof mcpEndpoints>;
let reader: string;

beforeAll(async () => {
  c = await mcpContext();
  e = mcpEndpoints(c);
  reader = await c.org.key(['mcp:read']);
}, 60_000);
afterAll(() => c?.close());

const CMD = `cmd:${'a'.repeat(64)}`;

describe('registry', () => {
  test('PUT upserts by identity: the same id on update, every field replaced; GET lists it; updatedBy is the member', async () => {
    const first = await e.putEntries(c.owner, {
      entries: [
        {
          identity: 'pkg:npm/%40modelcontextprotocol/server-github',
          decision: 'allow',
          versions: ['1.0.0', '1.0.1'],
          note: 'reviewed',
        },
      ],
    });
    expect(first.status).toBe(200);
    const [entry] = first.body.entries;
    expect(Object.keys(entry)).toEqual(['id', 'identity', 'versions', 'decision', 'note', 'updatedBy', 'updatedAt']);
    expect(entry).toMatchObject({
      id: expect.stringMatching(/^mre_[0-9a-f]{22}$/),
      identity: 'pkg:npm/%40modelcontextprotocol/server-github',
      versions: ['1.0.0', '1.0.1'],
      decision: 'allow',
      note: 'reviewed',
      updatedBy: c.org.memberId,
    });
    const admin = await c.org.session('admin');
    const second = await e.putEntries(admin, {
      entries: [{ identity: 'pkg:npm/%40modelcontextprotocol/server-github', decision: 'deny' }],
    });
    expect(second.body.entries[0]).toMatchObject({ id: entry.id, decision: 'deny', versions: null, note: null });
    expect(second.body.entries[0].updatedBy).not.toBe(c.org.memberId);
    const list = await e.listRegistry(reader);
    expect(list.body.entries.filter((x: any) => x.identity === entry.identity)).toEqual([second.body.entries[0]]);
    expect(await c.store.c.mcpRegistry.countDocuments({ orgId: c.org.orgId, identity: entry.identity })).toBe(1);
  });

  test('identities of every documented form are accepted; anything else (or one named twice) is 422', async () => {
    const good = [
      'pkg:npm/left-pad',
      'pkg:pypi/mcp-server-fetch',
      'pkg:oci/docker.io/library/nginx',
      'pkg:oci/ghcr.io/github/github-mcp-server',
      'https://mcp.example.com/mcp',
      'http://localhost:8080/sse',
      CMD,
    ];
    const res = await e.putEntries(c.owner, { entries: good.map((identity) => ({ identity, decision: 'allow' })) });
    expect(res.status).toBe(200);
    expect(res.body.entries.map((x: any) => x.identity)).toEqual(good);
    const bad = [
      'npm:left-pad',
      'pkg:npm/@scope/x',
      'pkg:npm/Left-Pad',
      'pkg:pypi/Mcp_Server',
      'pkg:oci/nginx',
      'https://u:p@mcp.example.com/',
      'https://mcp.example.com/?a=1',
      'ftp://x.example/',
      'cmd:abc',
      `cmd:${'A'.repeat(64)}`,
      'x'.repeat(3000),
      '',
    ];
    for (const identity of bad) {
      const r = await e.putEntries(c.owner, { entries: [{ identity, decision: 'allow' }] });
      expect([422]).toContain(r.status);
      expect(r.body.error.message).toMatch(/^entries\[0\]\.identity/);
    }
    const twice = await e.putEntries(c.owner, {
      entries: [
        { identity: CMD, decision: 'allow' },
        { identity: CMD, decision: 'deny' },
      ],
    });
    expect(err(twice)).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(twice.body.error.message).toMatch(/^entries\[1\]\.identity: named twice/);
  });

  test('1 to 500 entries; decision, versions and note checked', async () => {
    expect(err(await e.putEntries(c.owner, { entries: [] }))).toEqual({ status: 422, code: 'missing_parameter' });
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ identity: `pkg:npm/bulk-${i}`, decision: 'allow' }));
    expect((await e.putEntries(c.owner, { entries: many(500) })).status).toBe(200);
    expect(err(await e.putEntries(c.owner, { entries: many(501) }))).toEqual({
      status: 422,
      code: 'invalid_parameter',
    });
    for (const entry of [
      { identity: CMD, decision: 'maybe' },
      { identity: CMD, decision: 'allow', versions: [] },
      { identity: CMD, decision: 'allow', versions: [1] },
      { identity: CMD, decision: 'allow', note: 5 },
      { identity: CMD, decision: 'allow', note: 'n'.repeat(2001) },
    ]) {
      expect(err(await e.putEntries(c.owner, { entries: [entry] }))).toMatchObject({ status: 422 });
    }
  });

  test('concurrent PUTs of one identity: every one 200, one entry left, one id', async () => {
    const identity = 'pkg:pypi/race-server';
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        e.putEntries(c.owner, { entries: [{ identity, decision: i % 2 ? 'allow' : 'deny', note: `n${i}` }] }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(new Set(results.map((r) => r.body.entries[0].id)).size).toBe(1);
    const docs = await c.store.c.mcpRegistry.find({ orgId: c.org.orgId, identity }).toArray();
    expect(docs).toHaveLength(1);
    expect(results.map((r) => r.body.entries[0].note)).toContain(docs[0].note);
  });

  test('pagination: ordered by identity, every entry once across pages; a tampered cursor is 422', async () => {
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await e.listRegistry(
        reader,
        `?limit=37${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(page.status).toBe(200);
      all.push(...page.body.entries.map((x: any) => x.identity));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(all).toEqual([...all].sort());
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(await c.store.c.mcpRegistry.countDocuments({ orgId: c.org.orgId }));
    expect(err(await e.listRegistry(reader, '?cursor=abc.def'))).toEqual({ status: 422, code: 'invalid_cursor' });
  });

  test("DELETE: 204, then 404; another organization's entry is 404 and stays", async () => {
    const [entry] = (await e.putEntries(c.owner, { entries: [{ identity: 'pkg:npm/to-delete', decision: 'deny' }] }))
      .body.entries;
    const other = await newOrg(c.store, 'other');
    expect(err(await e.deleteEntry(other.ownerToken, entry.id))).toEqual({ status: 404, code: 'not_found' });
    expect((await e.deleteEntry(c.owner, entry.id)).status).toBe(204);
    expect(err(await e.deleteEntry(c.owner, entry.id))).toEqual({ status: 404, code: 'not_found' });
    expect((await e.listRegistry(reader, '?limit=200')).body.entries.map((x: any) => x.identity)).not.toContain(
      'pkg:npm/to-delete',
    );
  });

  test('members, auditors and API keys cannot change the registry; they (and auditors) can read it', async () => {
    const body = { entries: [{ identity: CMD, decision: 'allow' }] };
    for (const token of [
      await c.org.session('member'),
      await c.org.session('auditor'),
      await c.org.key(['mcp:read', 'mcp:upload']),
    ]) {
      expect(err(await e.putEntries(token, body))).toEqual({ status: 403, code: 'insufficient_scope' });
    }
    expect((await e.listRegistry(await c.org.session('auditor'))).status).toBe(200);
  });

  test('every change is an audit event; reads are not', async () => {
    const before = await c.store.c.auditEvents.countDocuments({ orgId: c.org.orgId });
    const [entry] = (await e.putEntries(c.owner, { entries: [{ identity: 'pkg:npm/audited', decision: 'allow' }] }))
      .body.entries;
    await e.listRegistry(reader);
    await e.deleteEntry(c.owner, entry.id);
    const events = await c.store.c.auditEvents.find({ orgId: c.org.orgId }).sort({ _id: 1 }).toArray();
    expect(events.length - before).toBe(2);
    const [put, del] = events.slice(-2);
    expect(put).toMatchObject({
      type: 'mcp_registry.entries_upserted',
      actor: { memberId: c.org.memberId },
      target: {
        kind: 'mcp_registry',
        entries: [{ id: entry.id, identity: 'pkg:npm/audited', decision: 'allow', versions: null }],
      },
    });
    expect(del).toMatchObject({
      type: 'mcp_registry.entry_deleted',
      target: { kind: 'mcp_registry_entry', id: entry.id, identity: 'pkg:npm/audited' },
    });
  });
});

describe('control level', () => {
  test('observe by default, never set; the owner sets it (audited with the previous level); admins cannot', async () => {
    const org = await newOrg(c.store, 'levels');
    const read = await org.key(['mcp:read']);
    expect((await e.getControl(read)).body).toEqual({ level: 'observe', updatedAt: null, updatedBy: null });
    const admin = await org.session('admin');
    expect(err(await e.putControl(admin, { level: 'block' }))).toEqual({ status: 403, code: 'insufficient_scope' });
    expect(err(await e.putControl(read, { level: 'block' }))).toEqual({ status: 403, code: 'insufficient_scope' });
    const set = await e.putControl(org.ownerToken, { level: 'block' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ level: 'block', updatedBy: org.memberId });
    expect((await e.getControl(await org.session('auditor'))).body).toEqual(set.body);
    await e.putControl(org.ownerToken, { level: 'warn' });
    const audit = await c.store.c.auditEvents
      .find({ orgId: org.orgId, type: 'mcp_control_level.changed' })
      .sort({ _id: 1 })
      .toArray();
    expect(audit.map((a) => [a.target.previous, a.target.level])).toEqual([
      ['observe', 'block'],
      ['block', 'warn'],
    ]);
    for (const body of [{}, { level: 'panic' }, { level: 1 }, [], 'x'])
      expect([413, 422]).toContain((await e.putControl(org.ownerToken, body)).status);
  });
});
