// POST and GET /v1/mcp/usage-events over real HTTP against the real database: the decision of every
// pre event across control levels, registry decisions and high or critical issues on the event's host; the server
// resolved by serverId, by launch (the shared identity function) or by name on the host; idempotency per (organization,
// eventId) with the first decision returned again, in one batch and across concurrent requests; raw tool arguments
// refused; hosts as for scans; the list's filters and pagination, newest first.
import { identity } from '../../src/domain/mcp/identity';
import { newOrg } from '../helpers/context';
import { err, mcpContext, mcpEndpoints, registerHost, seedServer, type McpContext } from './mcp-helpers';

let c: McpContext;
let e: ReturnType<typeof mcpEndpoints>;
let reader: string;
let uploader: string;
let hostA: { id: string; credential: string };
let hostB: { id: string; credential: string };
const ids: Record<string, string> = {};
const memory = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory@2025.4.25'] };
const memoryId = identity(memory);

beforeAll(async () => {
  c = await mcpContext();
  e = mcpEndpoints(c);
  reader = await c.org.key(['mcp:read']);
  uploader = await c.org.key(['mcp:upload']);
  hostA = await registerHost(c, 'a');
  hostB = await registerHost(c, 'b');
  const high = { code: 'tool_definition_changed' as const, severity: 'high' as const, message: 'rug pull' };
  const medium = { code: 'tool_shadowing' as const, severity: 'medium' as const, message: 'shadows' };
  // memory: allowed, with a high issue on host A only; fetch: denied; notes: unreviewed
  ids.memory = (
    await seedServer(c.store, c.org.orgId, {
      identity: memoryId.identity,
      names: ['memory'],
      versions: [memoryId.version!],
      placements: [
        { hostId: hostA.id, name: 'memory', version: memoryId.version, issues: [high] },
        { hostId: hostB.id, name: 'memory', version: memoryId.version, issues: [medium] },
      ],
    })
  )._id;
  ids.fetch = (
    await seedServer(c.store, c.org.orgId, {
      identity: 'pkg:pypi/mcp-server-fetch',
      names: ['fetch'],
      placements: [{ hostId: hostA.id, name: 'fetch', client: 'claude-code' }],
    })
  )._id;
  ids.notes = (
    await seedServer(c.store, c.org.orgId, {
      identity: 'https://notes.example.com/mcp',
      names: ['notes'],
      transport: 'http',
      placements: [{ hostId: hostA.id, name: 'notes' }],
    })
  )._id;
  expect(
    (
      await e.putEntries(c.owner, {
        entries: [
          { identity: memoryId.identity, decision: 'allow' },
          { identity: 'pkg:pypi/mcp-server-fetch', decision: 'deny' },
        ],
      })
    ).status,
  ).toBe(200);
}, 60_000);
afterAll(() => c?.close());

let seq = 0;
const eid = () => `ev-${Date.now()}-${seq++}`;
const pre = (
  server: Record<string, unknown>,
  host: Record<string, unknown> = { hostId: hostA.id },
  extra: Record<string, unknown> = {},
) => ({
  eventId: eid(),
  occurredAt: new Date().toISOString(),
  host,
  client: 'cursor',
  server,
  tool: 'read',
  phase: 'pre',
  ...extra,
});

async function decide(level: 'observe' | 'warn' | 'block', events: unknown[]) {
  expect((await e.putControl(c.owner, { level })).status).toBe(200);
  const res = await e.postEvents(uploader, { events });
  expect(res.status).toBe(200);
  return res.body.decisions.map((d: any) => `${d.decision}:${d.reason}`);
}

test('decisions across levels: registry allow/deny/unreviewed × high issues on that host (medium ones do not count)', async () => {
  const events = () => [
    pre({ serverId: ids.memory }), // allowed, high issue on A
    pre({ serverId: ids.memory }, { hostId: hostB.id }), // allowed, medium only on B
    pre({ serverId: ids.fetch }), // denied
    pre({ serverId: ids.notes }), // unreviewed
  ];
  expect(await decide('observe', events())).toEqual(Array(4).fill('allow:control_level_observe'));
  expect(await decide('warn', events())).toEqual([
    'warn:high_severity_issues',
    'allow:registry_allowed',
    'warn:registry_denied',
    'warn:not_in_registry',
  ]);
  expect(await decide('block', events())).toEqual([
    'warn:high_severity_issues',
    'allow:registry_allowed',
    'block:registry_denied',
    'block:not_in_registry',
  ]);
});

test('the server resolved by launch (identity), by name on the host (same client first), or not at all (unreviewed)', async () => {
  const decisions = await decide('block', [
    pre({ name: 'anything', transport: 'stdio', ...memory }, { hostId: hostB.id }),
    pre({ name: 'fetch' }, { hostId: hostA.id }, { client: 'claude-code' }),
    pre({ name: 'never-seen' }),
    pre({ name: 'x', transport: 'http', url: 'https://user:pw@notes.example.com/mcp?key=abc' }),
    pre(
      { name: 'memory', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory@9.9.9'] },
      { hostId: hostB.id },
    ), // a version outside no list: the entry allows any
  ]);
  expect(decisions).toEqual([
    'allow:registry_allowed',
    'block:registry_denied',
    'block:not_in_registry',
    'block:not_in_registry',
    'allow:registry_allowed',
  ]);
  const stored = await c.store.c.mcpUsageEvents.find({ orgId: c.org.orgId }).sort({ id: -1 }).limit(5).toArray();
  const byName = Object.fromEntries(stored.map((s) => [s.serverName, s]));
  expect(byName.anything).toMatchObject({ serverId: ids.memory, identity: memoryId.identity });
  expect(byName.fetch).toMatchObject({ serverId: ids.fetch, identity: 'pkg:pypi/mcp-server-fetch' });
  expect(byName['never-seen']).toMatchObject({ serverId: null, identity: null });
  expect(byName.x).toMatchObject({ serverId: ids.notes, identity: 'https://notes.example.com/mcp' });
  await e.putControl(c.owner, { level: 'observe' });
});

test('versions listed in an entry: a version outside the list is unreviewed', async () => {
  const org = await newOrg(c.store, 'versions');
  const key = await org.key(['mcp:upload']);
  await e.putEntries(org.ownerToken, {
    entries: [{ identity: memoryId.identity, decision: 'allow', versions: ['2025.4.25'] }],
  });
  await e.putControl(org.ownerToken, { level: 'block' });
  const ev = (v: string) =>
    pre(
      { name: 'memory', command: 'npx', args: ['-y', `@modelcontextprotocol/server-memory@${v}`] },
      { hostname: 'laptop' },
    );
  const res = await e.postEvents(key, { events: [ev('2025.4.25'), ev('2025.4.26')] });
  expect(res.body.decisions.map((d: any) => d.decision)).toEqual(['allow', 'block']);
});

test('idempotent per eventId: duplicates counted, the first decision returned again (even after the level changed), one stored', async () => {
  await e.putControl(c.owner, { level: 'block' });
  const first = pre({ serverId: ids.notes });
  const post = { ...pre({ serverId: ids.notes }), phase: 'post', outcome: 'ok' };
  const r1 = await e.postEvents(uploader, { events: [first, post] });
  expect(r1.body).toEqual({
    accepted: 2,
    duplicates: 0,
    decisions: [{ eventId: first.eventId, decision: 'block', reason: 'not_in_registry' }],
  });
  await e.putControl(c.owner, { level: 'observe' });
  const r2 = await e.postEvents(uploader, { events: [first, post, { ...first }] });
  expect(r2.body).toEqual({
    accepted: 0,
    duplicates: 3,
    decisions: [
      { eventId: first.eventId, decision: 'block', reason: 'not_in_registry' },
      { eventId: first.eventId, decision: 'block', reason: 'not_in_registry' },
    ],
  });
  expect(await c.store.c.mcpUsageEvents.countDocuments({ orgId: c.org.orgId, eventId: first.eventId })).toBe(1);
  // another organization's same eventId is its own event
  const other = await newOrg(c.store, 'other');
  const r3 = await e.postEvents(await other.key(['mcp:upload']), {
    events: [{ ...first, host: { hostname: 'x' }, server: { name: 'n' } }],
  });
  expect(r3.body).toMatchObject({ accepted: 1, duplicates: 0 });
});

test('concurrent requests with the same events: each event stored once, every request answered the same decisions', async () => {
  await e.putControl(c.owner, { level: 'warn' });
  const events = Array.from({ length: 20 }, () => pre({ serverId: ids.fetch }));
  const results = await Promise.all(Array.from({ length: 8 }, () => e.postEvents(uploader, { events })));
  expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
  expect(results.reduce((n, r) => n + r.body.accepted, 0)).toBe(20);
  expect(results.reduce((n, r) => n + r.body.duplicates, 0)).toBe(20 * 7);
  for (const r of results)
    expect(r.body.decisions).toEqual(
      events.map((x) => ({ eventId: x.eventId, decision: 'warn', reason: 'registry_denied' })),
    );
  expect(
    await c.store.c.mcpUsageEvents.countDocuments({
      orgId: c.org.orgId,
      eventId: { $in: events.map((x) => x.eventId) },
    }),
  ).toBe(20);
  await e.putControl(c.owner, { level: 'observe' });
});

test('raw tool arguments and any unknown field are refused: nothing stored', async () => {
  const before = await c.store.c.mcpUsageEvents.countDocuments({});
  for (const extra of [
    { arguments: { path: '/etc/passwd' } },
    { input: 'x' },
    { args: ['a'] },
    { params: {} },
    { somethingElse: 1 },
  ]) {
    const res = await e.postEvents(uploader, {
      events: [pre({ serverId: ids.memory }), { ...pre({ serverId: ids.memory }), ...extra }],
    });
    expect(err(res)).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(res.body.error.message).toMatch(/^events\[1\]\./);
  }
  for (const server of [
    { serverId: ids.memory, env: { A: 'b' } },
    { name: 'x', headers: {} },
  ])
    expect(err(await e.postEvents(uploader, { events: [pre(server)] }))).toEqual({
      status: 422,
      code: 'invalid_parameter',
    });
  expect(
    err(await e.postEvents(uploader, { events: [pre({ serverId: ids.memory }, { hostId: hostA.id, extra: 1 })] })),
  ).toEqual({ status: 422, code: 'invalid_parameter' });
  expect(await c.store.c.mcpUsageEvents.countDocuments({})).toBe(before);
});

test('bounds and fields: 1..1000 events, eventId 1..128, enums, occurredAt, durationMs, unknown serverId, hosts', async () => {
  expect(err(await e.postEvents(uploader, { events: [] }))).toEqual({ status: 422, code: 'missing_parameter' });
  const many = (n: number) => Array.from({ length: n }, () => ({ ...pre({ serverId: ids.memory }), phase: 'post' }));
  expect((await e.postEvents(uploader, { events: many(1000) })).body).toMatchObject({
    accepted: 1000,
    duplicates: 0,
    decisions: [],
  });
  expect(err(await e.postEvents(uploader, { events: many(1001) }))).toEqual({ status: 422, code: 'invalid_parameter' });
  const bad: Array<Record<string, unknown>> = [
    { eventId: 'x'.repeat(129) },
    { eventId: 5 },
    { occurredAt: 'now' },
    { client: 'emacs' },
    { phase: 'during' },
    { outcome: 'maybe' },
    { durationMs: -1 },
    { durationMs: 1.5 },
    { tool: '' },
    { server: { serverId: 'mcp_nothing' } },
    { server: { serverId: ids.memory, name: 'both' } },
    { host: { hostId: 'hst_nothing' } },
  ];
  for (const b of bad) {
    const res = await e.postEvents(uploader, { events: [{ ...pre({ serverId: ids.memory }), ...b }] });
    expect(res.status).toBe(422);
  }
  const noPhase = pre({ serverId: ids.memory });
  delete (noPhase as any).phase;
  expect((await e.postEvents(uploader, { events: [noPhase] })).body).toMatchObject({ accepted: 1, decisions: [] }); // post by default
});

test('a host credential reports for its own host only; a key reporting by hostname keeps it as reported', async () => {
  const own = await e.postEvents(hostA.credential, {
    events: [pre({ serverId: ids.memory }), pre({ serverId: ids.memory }, { hostname: 'what-it-calls-itself' })],
  });
  expect(own.status).toBe(200);
  const mine = await c.store.c.mcpUsageEvents
    .find({ orgId: c.org.orgId, hostId: hostA.id, reportedHostname: 'what-it-calls-itself' })
    .toArray();
  expect(mine).toHaveLength(1);
  expect(
    err(await e.postEvents(hostA.credential, { events: [pre({ serverId: ids.memory }, { hostId: hostB.id })] })),
  ).toEqual({ status: 403, code: 'insufficient_scope' });
  const byName = await e.postEvents(uploader, { events: [pre({ serverId: ids.memory }, { hostname: 'ci-runner-7' })] });
  expect(byName.status).toBe(200);
  expect(
    await c.store.c.mcpUsageEvents.countDocuments({
      orgId: c.org.orgId,
      hostId: null,
      reportedHostname: 'ci-runner-7',
    }),
  ).toBe(1);
});

test("the list: newest first, filters serverId, hostId, tool, since/until, pagination; no other organization's events", async () => {
  const org = await newOrg(c.store, 'list');
  const key = await org.key(['mcp:upload', 'mcp:read']);
  const host = await registerHost({ api: c.api, owner: org.ownerToken });
  const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
  const events = Array.from({ length: 7 }, (_, i) => ({
    eventId: `l${i}`,
    occurredAt: at(i),
    host: i % 2 ? { hostId: host.id } : { hostname: 'h' },
    client: 'codex',
    server: { name: i < 4 ? 'alpha' : 'beta' },
    tool: i % 3 ? 'read' : 'write',
    phase: 'post',
  }));
  for (const ev of events) expect((await e.postEvents(key, { events: [ev] })).status).toBe(200);
  const all = await e.listEvents(key);
  expect(all.body.events.map((x: any) => x.eventId)).toEqual(['l6', 'l5', 'l4', 'l3', 'l2', 'l1', 'l0']);
  expect(Object.keys(all.body.events[0])).toEqual([
    'id',
    'eventId',
    'occurredAt',
    'receivedAt',
    'hostId',
    'reportedHostname',
    'client',
    'serverId',
    'identity',
    'serverName',
    'tool',
    'phase',
    'outcome',
    'durationMs',
    'decision',
  ]);
  expect((await e.listEvents(key, `?hostId=${host.id}`)).body.events.map((x: any) => x.eventId)).toEqual([
    'l5',
    'l3',
    'l1',
  ]);
  expect((await e.listEvents(key, '?tool=write')).body.events.map((x: any) => x.eventId)).toEqual(['l6', 'l3', 'l0']);
  expect((await e.listEvents(key, `?since=${at(2)}&until=${at(5)}`)).body.events.map((x: any) => x.eventId)).toEqual([
    'l4',
    'l3',
    'l2',
  ]);
  const pages: string[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await e.listEvents(key, `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    pages.push(...page.body.events.map((x: any) => x.eventId));
    cursor = page.body.nextCursor;
  } while (cursor);
  expect(pages).toEqual(['l6', 'l5', 'l4', 'l3', 'l2', 'l1', 'l0']);
  expect((await e.listEvents(reader)).body.events.map((x: any) => x.eventId)).not.toContain('l0');
  expect(
    (await e.listEvents(reader, `?serverId=${ids.memory}&limit=200`)).body.events.every(
      (x: any) => x.serverId === ids.memory,
    ),
  ).toBe(true);
  for (const q of [
    '?since=yesterday',
    '?until=2026-13-01T00:00:00Z',
    '?tool=',
    '?limit=abc',
    '?serverId=a&serverId=b',
    '?cursor=x',
  ])
    expect((await e.listEvents(reader, q)).status).toBe(422);
  expect(err(await e.listEvents(uploader))).toEqual({ status: 403, code: 'insufficient_scope' });
  expect(err(await e.listEvents(hostA.credential))).toEqual({ status: 403, code: 'insufficient_scope' });
});

test('the events of one request list in the order they occurred (newest first), ties in the order sent', async () => {
  const org = await newOrg(c.store, 'batch-order');
  const key = await org.key(['mcp:upload', 'mcp:read']);
  const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
  const minutes = [3, 0, 7, 3, 5, 1];
  const events = minutes.map((m, i) => ({
    eventId: `b${i}`,
    occurredAt: at(m),
    host: { hostname: 'h' },
    client: 'codex',
    server: { name: 'alpha' },
    tool: 'read',
    phase: 'post',
  }));
  expect((await e.postEvents(key, { events })).status).toBe(200);
  // newest first: 7 (b2), 5 (b4), 3 (b3 sent after b0, so newer in the list), 3 (b0), 1 (b5), 0 (b1)
  expect((await e.listEvents(key)).body.events.map((x: any) => x.eventId)).toEqual([
    'b2',
    'b4',
    'b3',
    'b0',
    'b5',
    'b1',
  ]);
});

test('usage events are never audit events', async () => {
  const before = await c.store.c.auditEvents.countDocuments({ orgId: c.org.orgId });
  await e.postEvents(uploader, { events: [pre({ serverId: ids.memory })] });
  expect(await c.store.c.auditEvents.countDocuments({ orgId: c.org.orgId })).toBe(before);
});
