// Hostile input on every MCP endpoint: malformed and non-JSON bodies, wrong shapes, wrong types in
// every field, NULs, oversized fields and bodies (1 MB + 1), deep nesting (in the body and in a tool's inputSchema),
// hostile path ids and query values, then generated bodies (fast-check). Whatever is sent, the answer is a documented
// 2xx or a 4xx envelope: never a 5xx, never another shape.
import fc from 'fast-check';
import { bearer } from '../helpers/context';
import { documented, type Res } from './hosts-helpers';
import { mcpContext, registerHost, seedServer, type McpContext } from './mcp-helpers';

let c: McpContext;
let key: string;
let hostCred: string;
let serverId: string;

beforeAll(async () => {
  c = await mcpContext();
  key = await c.org.key(['mcp:upload', 'mcp:read']);
  hostCred = (await registerHost(c)).credential;
  serverId = (await seedServer(c.store, c.org.orgId, { identity: 'pkg:npm/x', placements: [{ hostname: 'h' }] }))._id;
}, 60_000);
afterAll(() => c?.close());

type Target = { method: 'post' | 'put'; path: string; token: () => string; valid: () => unknown };
const TARGETS: Record<string, Target> = {
  scans: {
    method: 'post',
    path: '/v1/mcp/scans',
    token: () => key,
    valid: () => ({
      host: { hostname: 'h' },
      clients: [
        {
          client: 'cursor',
          configPath: 'p',
          scope: 'user',
          servers: [
            {
              name: 'n',
              transport: 'stdio',
              command: 'npx',
              args: ['x'],
              tools: [{ name: 't', inputSchema: { type: 'object' } }],
            },
          ],
        },
      ],
    }),
  },
  'scans (host credential)': {
    method: 'post',
    path: '/v1/mcp/scans',
    token: () => hostCred,
    valid: () => ({ clients: [] }),
  },
  'usage-events': {
    method: 'post',
    path: '/v1/mcp/usage-events',
    token: () => key,
    valid: () => ({
      events: [
        {
          eventId: `e${Math.random()}`,
          occurredAt: '2026-01-01T00:00:00Z',
          host: { hostname: 'h' },
          client: 'cursor',
          server: { name: 'n', command: 'npx', args: ['x'] },
          tool: 't',
          phase: 'pre',
        },
      ],
    }),
  },
  'registry entries': {
    method: 'put',
    path: '/v1/mcp/registry/entries',
    token: () => c.owner,
    valid: () => ({ entries: [{ identity: 'pkg:npm/x', decision: 'allow', versions: ['1'], note: 'n' }] }),
  },
  'control level': {
    method: 'put',
    path: '/v1/mcp/control-level',
    token: () => c.owner,
    valid: () => ({ level: 'observe' }),
  },
};
const DOC: Record<string, string> = {
  '/v1/mcp/scans': '/v1/mcp/scans',
  '/v1/mcp/usage-events': '/v1/mcp/usage-events',
  '/v1/mcp/registry/entries': '/v1/mcp/registry/entries',
  '/v1/mcp/control-level': '/v1/mcp/control-level',
};

async function send(t: Target, raw: string | Buffer, contentType = 'application/json'): Promise<Res> {
  const res = await (c.api as any)[t.method](t.path).set(bearer(t.token())).set('Content-Type', contentType).send(raw);
  expect(res.headers['x-request-id']).toBeTruthy();
  documented(t.method, DOC[t.path], res);
  expect(res.status).toBeLessThan(500);
  if (res.status >= 300) expect(res.body).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
  return res;
}

const deep = (open: string, close: string, n: number) => open.repeat(n) + close.repeat(n);
/** Replaces, at every path of a valid body, the value by `bad` (one body per path). */
function everyField(value: unknown, bad: unknown, at: Array<string | number> = []): unknown[] {
  const out: unknown[] = [];
  const put = (root: any, path: Array<string | number>): unknown => {
    if (path.length === 0) return bad;
    const copy = Array.isArray(root) ? [...root] : { ...root };
    (copy as any)[path[0]] = put(root[path[0]], path.slice(1));
    return copy;
  };
  const walk = (v: unknown, path: Array<string | number>) => {
    if (path.length) out.push(put(value, path));
    if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) walk(x, [...path, Array.isArray(v) ? Number(k) : k]);
  };
  walk(value, at);
  return out;
}

describe.each(Object.keys(TARGETS))('%s', (name) => {
  const t = TARGETS[name];
  test('the valid body is accepted (the target is right)', async () => {
    expect((await send(t, JSON.stringify(t.valid()))).status).toBeLessThan(300);
  });

  test.each<[string, string | Buffer, number | null, string]>([
    ['truncated JSON', '{"clients":', 422, 'application/json'],
    ['not JSON', 'a=b', 422, 'application/json'],
    ['empty', '', 422, 'application/json'],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), null, 'application/json'],
    ['an array', '[]', 422, 'application/json'],
    ['a string', '"x"', 422, 'application/json'],
    ['null', 'null', 422, 'application/json'],
    [
      'a NUL in a value',
      '{"level":"\\u0000","entries":["\\u0000"],"events":["\\u0000"],"clients":["\\u0000"]}',
      422,
      'application/json',
    ],
    ['a NUL in a key', '{"\\u0000":1}', 422, 'application/json'],
    ['nested 30,000 deep', deep('[', ']', 30_000), 422, 'application/json'],
    [
      'nested 30,000 deep in a field',
      `{"clients":${deep('[', ']', 30_000)},"events":1,"entries":1,"level":1}`,
      422,
      'application/json',
    ],
    ['form-encoded', 'level=block', 422, 'application/x-www-form-urlencoded'],
  ])('%s → 4xx', async (_what, raw, status, type) => {
    const res = await send(t, raw, type);
    if (status) expect(res.status).toBe(status);
    else expect(res.status).toBeGreaterThanOrEqual(400);
  });

  test('wrong types in every field: 4xx, never 5xx', async () => {
    for (const bad of [null, 1, -1.5, true, 'x', '', [], {}, [[]], { $gt: '' }, 'x'.repeat(70_000), '\u202e\u200b']) {
      for (const body of everyField(t.valid(), bad)) {
        const res = await send(t, JSON.stringify(body));
        if (res.status >= 300) expect(res.status).toBeLessThan(500);
      }
    }
  }, 120_000);

  test('over the size bound: 413 invalid_parameter', async () => {
    const limit = t.path === '/v1/mcp/control-level' ? 64 * 1024 : 1024 * 1024;
    const body = JSON.stringify({ ...(t.valid() as object), pad: 'x'.repeat(limit) });
    const res = await send(t, body);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('invalid_parameter');
  });

  test('generated bodies: documented 2xx or 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue({ maxDepth: 6 }),
          fc.record(
            {
              clients: fc.jsonValue(),
              events: fc.jsonValue(),
              entries: fc.jsonValue(),
              level: fc.jsonValue(),
              host: fc.jsonValue(),
            },
            { requiredKeys: [] },
          ),
        ),
        async (v) => {
          await send(t, JSON.stringify(v));
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});

test('a tool inputSchema nested deeper than 64 is 422; 64 is accepted', async () => {
  const nest = (n: number): unknown => (n === 0 ? 'leaf' : { a: nest(n - 1) });
  const body = (n: number) => ({
    host: { hostname: 'h' },
    clients: [
      {
        client: 'cursor',
        configPath: 'p',
        scope: 'user',
        servers: [{ name: 'n', transport: 'stdio', tools: [{ name: 't', inputSchema: nest(n) }] }],
      },
    ],
  });
  expect((await send(TARGETS.scans, JSON.stringify(body(64)))).status).toBe(201);
  const res = await send(TARGETS.scans, JSON.stringify(body(65)));
  expect(res.status).toBe(422);
  expect(res.body.error.message).toMatch(/inputSchema: nested at most 64/);
});

test('hostile path ids and query values on the reads and the delete: 404 or 422, never 5xx', async () => {
  const ids = [
    '%00',
    'a%00b',
    '..%2F..',
    '%E2%80%AE',
    'x'.repeat(5000),
    '%7B%22%24gt%22%3A%22%22%7D',
    'mcs_' + '0'.repeat(22),
  ];
  for (const id of ids) {
    for (const [path, doc] of [
      [`/v1/mcp/scans/${id}`, '/v1/mcp/scans/{mcpScanId}'],
      [`/v1/mcp/servers/${id}`, '/v1/mcp/servers/{serverId}'],
    ]) {
      const res = await c.api.get(path).set(bearer(key));
      documented('get', doc, res);
      expect([404, 422]).toContain(res.status);
    }
    const del = await c.api.delete(`/v1/mcp/registry/entries/${id}`).set(bearer(c.owner));
    documented('delete', '/v1/mcp/registry/entries/{entryId}', del);
    expect([404, 422]).toContain(del.status);
  }
  const queries = [
    '?limit=-1',
    '?limit=1e3',
    '?cursor=',
    '?cursor=%00',
    '?decision=%00',
    '?issue[]=x',
    '?hostId=%00',
    '?serverId=%00',
    '?tool=%00',
    '?since=%00',
    '?until=9999-99-99T99:99:99Z',
    `?tool=${'x'.repeat(600)}`,
  ];
  for (const q of queries) {
    for (const [path, doc] of [
      ['/v1/mcp/servers', '/v1/mcp/servers'],
      ['/v1/mcp/usage-events', '/v1/mcp/usage-events'],
      ['/v1/mcp/registry', '/v1/mcp/registry'],
    ]) {
      const res = await c.api.get(path + q).set(bearer(key));
      documented('get', doc, res);
      expect(res.status).toBeLessThan(500);
    }
  }
  const res = await c.api.get(`/v1/mcp/usage-events?serverId=${serverId}`).set(bearer(key));
  expect(res.status).toBe(200);
});
