// GET /v1/mcp/servers and /v1/mcp/servers/{id} over real HTTP against the real database, the
// inventory seeded as the MCP scan workflow writes it: order (identity, then id) across pages, the decision, issue
// and hostId filters, the registry decision over the versions seen, current issues and hosts from placements, and
// usage computed from the stored usage events (posted through the API).
import { newOrg } from '../helpers/context';
import { err, mcpContext, mcpEndpoints, registerHost, seedServer, type McpContext } from './mcp-helpers';

let c: McpContext;
let e: ReturnType<typeof mcpEndpoints>;
let reader: string;
let uploader: string;
let hostA: { id: string; credential: string };
let hostB: { id: string; credential: string };
const ids: Record<string, string> = {};

const high = { code: 'secret_in_config' as const, severity: 'high' as const, message: 'literal env' };
const low = { code: 'unpinned_package' as const, severity: 'low' as const, message: 'no pin' };

beforeAll(async () => {
  c = await mcpContext();
  e = mcpEndpoints(c);
  reader = await c.org.key(['mcp:read']);
  uploader = await c.org.key(['mcp:upload']);
  hostA = await registerHost(c, 'a');
  hostB = await registerHost(c, 'b');
  const s = c.store;
  const o = c.org.orgId;
  ids.allowed = (
    await seedServer(s, o, {
      identity: 'pkg:npm/allowed',
      versions: ['1.0.0'],
      placements: [
        { hostId: hostA.id, client: 'cursor', version: '1.0.0' },
        { hostId: hostB.id, client: 'vscode', version: '1.0.0', issues: [low] },
      ],
    })
  )._id;
  ids.partly = (
    await seedServer(s, o, {
      identity: 'pkg:npm/partly',
      versions: ['1.0.0', '2.0.0'],
      placements: [{ hostId: hostA.id, issues: [high, low] }],
    })
  )._id;
  ids.denied = (
    await seedServer(s, o, { identity: 'pkg:pypi/denied', versions: [], placements: [{ hostname: 'laptop' }] })
  )._id;
  ids.unreviewed = (
    await seedServer(s, o, {
      identity: 'https://mcp.example.com/mcp',
      transport: 'http',
      placements: [{ hostId: hostB.id, issues: [high] }],
    })
  )._id;
  ids.gone = (await seedServer(s, o, { identity: 'cmd:' + 'f'.repeat(64) }))._id; // no placement: configured nowhere now
  const put = await e.putEntries(c.owner, {
    entries: [
      { identity: 'pkg:npm/allowed', decision: 'allow' },
      { identity: 'pkg:npm/partly', decision: 'allow', versions: ['1.0.0'] },
      { identity: 'pkg:pypi/denied', decision: 'deny' },
    ],
  });
  expect(put.status).toBe(200);
  ids.allowEntry = put.body.entries[0].id;
  ids.denyEntry = put.body.entries[2].id;
  // another organization's server never shows
  const other = await newOrg(c.store, 'other');
  ids.foreign = (await seedServer(s, other.orgId, { identity: 'pkg:npm/allowed' }))._id;
}, 60_000);
afterAll(() => c?.close());

const listed = async (query = '') => {
  const res = await e.listServers(reader, query);
  expect(res.status).toBe(200);
  return res.body.servers as any[];
};

test('the list: ordered by identity, registry decision, hosts count, clients, current issues with their host, no usage yet', async () => {
  const servers = await listed();
  expect(servers.map((s) => s.identity)).toEqual([
    'cmd:' + 'f'.repeat(64),
    'https://mcp.example.com/mcp',
    'pkg:npm/allowed',
    'pkg:npm/partly',
    'pkg:pypi/denied',
  ]);
  const by = Object.fromEntries(servers.map((s) => [s.id, s]));
  expect(by[ids.allowed]).toMatchObject({
    hosts: 2,
    clients: ['cursor', 'vscode'],
    registry: { decision: 'allow', entryId: ids.allowEntry },
    usage: { calls: 0, errors: 0, blocked: 0, lastCalledAt: null },
  });
  expect(by[ids.allowed].issues).toEqual([{ ...low, serverId: ids.allowed, hostId: hostB.id, reportedHostname: null }]);
  // 2.0.0 is outside the entry's versions: unreviewed
  expect(by[ids.partly].registry).toEqual({ decision: 'unreviewed', entryId: null });
  expect(by[ids.denied]).toMatchObject({ hosts: 1, registry: { decision: 'deny', entryId: ids.denyEntry } });
  expect(by[ids.denied].issues).toEqual([]);
  expect(by[ids.gone]).toMatchObject({ hosts: 0, clients: [], issues: [] });
  expect(servers.map((s) => s.id)).not.toContain(ids.foreign);
});

test('filters: decision, issue, hostId, and together', async () => {
  expect((await listed('?decision=allow')).map((s) => s.id)).toEqual([ids.allowed]);
  expect((await listed('?decision=deny')).map((s) => s.id)).toEqual([ids.denied]);
  expect((await listed('?decision=unreviewed')).map((s) => s.id)).toEqual([ids.gone, ids.unreviewed, ids.partly]);
  expect((await listed('?issue=secret_in_config')).map((s) => s.id)).toEqual([ids.unreviewed, ids.partly]);
  expect((await listed('?issue=unpinned_package')).map((s) => s.id)).toEqual([ids.allowed, ids.partly]);
  expect((await listed(`?hostId=${hostA.id}`)).map((s) => s.id)).toEqual([ids.allowed, ids.partly]);
  expect((await listed(`?hostId=${hostB.id}&issue=secret_in_config`)).map((s) => s.id)).toEqual([ids.unreviewed]);
  expect((await listed(`?hostId=${hostB.id}&decision=allow`)).map((s) => s.id)).toEqual([ids.allowed]);
  expect(await listed('?hostId=hst_nothing')).toEqual([]);
  for (const q of [
    '?decision=maybe',
    '?issue=bad_code',
    '?limit=0',
    '?decision=allow&decision=deny',
    '?hostId=' + 'x'.repeat(201),
  ]) {
    expect(err(await e.listServers(reader, q))).toEqual({ status: 422, code: 'invalid_parameter' });
  }
});

test('pagination, with and without a decision filter: every server once, in order; a cursor of other filters is refused', async () => {
  for (const query of ['', '&decision=unreviewed']) {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await e.listServers(
        reader,
        `?limit=1${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(res.body.servers.length).toBeLessThanOrEqual(1);
      seen.push(...res.body.servers.map((s: any) => s.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual((await listed(query ? `?${query.slice(1)}` : '')).map((s) => s.id));
  }
  const first = await e.listServers(reader, '?limit=1');
  expect(
    err(await e.listServers(reader, `?limit=1&decision=allow&cursor=${encodeURIComponent(first.body.nextCursor)}`)),
  ).toEqual({ status: 422, code: 'invalid_cursor' });
});

test("the detail adds the hosts (its placements); another organization's server is 404", async () => {
  const res = await e.getServer(reader, ids.allowed);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    id: ids.allowed,
    identity: 'pkg:npm/allowed',
    hostCount: 2,
    registry: { decision: 'allow' },
  });
  expect(res.body.hosts.map((h: any) => [h.hostId, h.client, h.version])).toEqual(
    [
      [hostA.id, 'cursor', '1.0.0'],
      [hostB.id, 'vscode', '1.0.0'],
    ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
  );
  expect(err(await e.getServer(reader, ids.foreign))).toEqual({ status: 404, code: 'not_found' });
  expect(err(await e.getServer(reader, 'mcp_unknown'))).toEqual({ status: 404, code: 'not_found' });
});

test('usage is computed from the stored events: calls (post), errors, blocked (post blocked and pre answered block), last call', async () => {
  await e.putControl(c.owner, { level: 'block' });
  const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
  const ev = (eventId: string, serverId: string, extra: Record<string, unknown>) => ({
    eventId,
    occurredAt: at(0),
    host: { hostId: hostA.id },
    client: 'cursor',
    server: { serverId },
    tool: 'run',
    ...extra,
  });
  const res = await e.postEvents(uploader, {
    events: [
      ev('u1', ids.partly, { phase: 'post', outcome: 'ok', occurredAt: at(5) }),
      ev('u2', ids.partly, { phase: 'post', outcome: 'error', occurredAt: at(9) }),
      ev('u3', ids.partly, { outcome: 'blocked', occurredAt: at(7) }),
      ev('u4', ids.partly, { phase: 'pre', occurredAt: at(3) }), // unreviewed under block: blocked
      ev('u5', ids.allowed, { phase: 'pre', occurredAt: at(1) }), // allowed: allow
    ],
  });
  expect(res.status).toBe(200);
  expect(res.body.decisions.map((d: any) => d.decision)).toEqual(['block', 'allow']);
  const by = Object.fromEntries((await listed()).map((s) => [s.id, s.usage]));
  expect(by[ids.partly]).toEqual({ calls: 3, errors: 1, blocked: 2, lastCalledAt: at(9) });
  expect(by[ids.allowed]).toEqual({ calls: 0, errors: 0, blocked: 0, lastCalledAt: at(1) });
  expect((await e.getServer(reader, ids.partly)).body.usage).toEqual(by[ids.partly]);
  await e.putControl(c.owner, { level: 'observe' });
});
