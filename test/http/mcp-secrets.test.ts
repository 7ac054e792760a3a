// Issue 19 point 6: secret values are never stored. Scans built from the agents' configuration fixtures
// (test/fixtures/mcp/**, values as written: the service must not rely on the client's redaction) and our own planted
// values (tokens by prefix, JWTs, URL user info and query values, --token=..., env and header literals, secrets in
// tool descriptions and input schemas), and usage events naming servers by such launches, are uploaded; then every
// document of every collection of the database and every log line the API wrote are searched: no planted value
// anywhere. The check is expectNoSecretsStored (mcp-helpers.ts), for the processing tests to extend.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { mcpContext, mcpEndpoints, expectNoSecretsStored, registerHost, type McpContext } from './mcp-helpers';

const FIXTURES = path.join(__dirname, '../fixtures/mcp');
const SECRETS: string[] = Object.values(JSON.parse(fs.readFileSync(path.join(FIXTURES, 'SECRETS.json'), 'utf8')));

let c: McpContext;
let e: ReturnType<typeof mcpEndpoints>;
beforeAll(async () => {
  c = await mcpContext();
  e = mcpEndpoints(c);
}, 60_000);
afterAll(() => c?.close());

function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) =>
      d.isDirectory()
        ? files(path.join(dir, d.name))
        : d.name.endsWith('.json') && d.name !== 'SECRETS.json'
          ? [path.join(dir, d.name)]
          : [],
    );
}

type Raw = Record<string, any>;
/** Every server map of a configuration (mcpServers, servers, "mcp.servers", mcp.servers, per-project ones), as written. */
function serverMaps(node: unknown, out: Array<[string, Raw]> = []): Array<[string, Raw]> {
  if (!node || typeof node !== 'object') return out;
  for (const [k, v] of Object.entries(node as Raw)) {
    if (['mcpServers', 'servers', 'mcp.servers'].includes(k) && v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [name, s] of Object.entries(v as Raw)) if (s && typeof s === 'object') out.push([name, s as Raw]);
    } else serverMaps(v, out);
  }
  return out;
}

const asServer = ([name, s]: [string, Raw]) => {
  const url = s.url ?? s.serverUrl ?? s.httpUrl;
  return {
    name,
    transport: url && !s.command ? (s.type === 'sse' ? 'sse' : 'http') : 'stdio',
    ...(typeof s.command === 'string' ? { command: s.command } : {}),
    ...(Array.isArray(s.args) ? { args: s.args.map(String) } : {}),
    ...(typeof url === 'string' ? { url } : {}),
    ...(s.env && typeof s.env === 'object' ? { env: s.env } : {}),
    ...(s.headers && typeof s.headers === 'object' ? { headers: s.headers } : {}),
  };
};

// ours: every kind the shared redaction names, in every field the upload carries
const OURS = {
  ghp: 'ghp_Zq9Xw2Lk7Jm4Np9Rt3Ws6Yb1Hc5Df0GaQ1',
  sk: 'sk-live-Qz8Xv2Lk7Jm4Np9Rt3Ws6Yb1Hc5Df0Gz',
  akia: 'AKIAZ7Q2LKXW8VN4RP6T',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0ZXIiLCJyb2xlIjoiYWRtaW4ifQ.c2lnbmF0dXJlLWZvci10aGUtdGVzdC0xMjM0NTY',
  userinfo: 'pw-in-userinfo-7Qx',
  query: 'QueryValue-Kx82mPq',
  flag: 'flag-token-value-9Lz3',
  envLiteral: 'env-literal-Vb3Nm8',
  headerLiteral: 'header-literal-Yt6Ws1',
  glpat: 'glpat-Xq2Lz9Wv4Rn8Mt3Yc6Hb',
};
const ourServers = [
  {
    name: 'gh',
    transport: 'stdio',
    command: 'npx',
    args: ['-y', '@modelcontextprotocol/server-github', `--token=${OURS.flag}`, OURS.ghp],
    env: { GITHUB_TOKEN: OURS.envLiteral, AWS_ACCESS_KEY_ID: OURS.akia },
  },
  {
    name: 'remote',
    transport: 'sse',
    url: `https://admin:${OURS.userinfo}@mcp.example.com/sse?token=${OURS.query}&jwt=${OURS.jwt}`,
    headers: { Authorization: `Bearer ${OURS.headerLiteral}`, 'X-Api-Key': OURS.sk },
  },
  {
    name: 'local',
    transport: 'stdio',
    command: `/opt/bin/run --api-key ${OURS.glpat}`,
    tools: [
      {
        name: 'deploy',
        description: `Deploy with ${OURS.ghp}; fallback key ${OURS.sk}`,
        inputSchema: {
          type: 'object',
          $defs: { t: { default: OURS.jwt } },
          properties: { token: { description: `e.g. ${OURS.akia}` } },
        },
      },
    ],
  },
];
const ALL_SECRETS = [...SECRETS, ...Object.values(OURS)];

test('scans and usage events full of secrets: no secret value in any collection or log line', async () => {
  const fixtureServers = files(FIXTURES).flatMap((f) =>
    serverMaps(parseJsonc(fs.readFileSync(f, 'utf8'))).map(asServer),
  );
  const clients = [
    { client: 'other', configPath: '~/fixtures.json', scope: 'user', servers: fixtureServers },
    { client: 'cursor', configPath: '~/.cursor/mcp.json', scope: 'user', servers: ourServers },
  ];
  // the uploads do carry the values: the check below is not vacuous
  const sent = JSON.stringify(clients);
  const planted = ALL_SECRETS.filter((s) => sent.includes(s));
  expect(planted.length).toBeGreaterThanOrEqual(30);

  const key = await c.org.key(['mcp:upload', 'mcp:read']);
  const host = await registerHost(c);
  const scans = [
    await e.uploadScan(key, { host: { hostname: 'laptop' }, clients }),
    await e.uploadScan(host.credential, { clients }),
  ];
  expect(scans.map((s) => s.status)).toEqual([201, 201]);
  for (const s of scans) expect((await e.getScan(key, s.body.id)).status).toBe(200);

  const launches = [...fixtureServers, ...ourServers].map((s: Raw) => ({
    name: s.name,
    ...(s.command ? { command: s.command } : {}),
    ...(s.args ? { args: s.args } : {}),
    ...(s.url ? { url: s.url } : {}),
    ...(s.transport ? { transport: s.transport } : {}),
  }));
  const events = launches.map((server, i) => ({
    eventId: `secret-${i}`,
    occurredAt: new Date().toISOString(),
    host: { hostname: 'laptop' },
    client: 'other',
    server,
    tool: 'call',
    phase: i % 2 ? 'pre' : 'post',
  }));
  const ev = await e.postEvents(key, { events });
  expect(ev.status).toBe(200);
  expect(ev.body.accepted).toBe(events.length);
  expect((await e.listEvents(key, '?limit=200')).status).toBe(200);
  // refused requests holding secrets leave nothing either (their messages name fields, never values)
  const refused = await e.postEvents(key, {
    events: [{ ...events[0], eventId: 'refused', arguments: { token: OURS.ghp, password: OURS.envLiteral } }],
  });
  expect(refused.status).toBe(422);
  const refusedScan = await e.uploadScan(key, {
    host: { hostname: 'laptop' },
    clients: [{ ...clients[1], scope: OURS.flag }],
  });
  expect(refusedScan.status).toBe(422);

  await expectNoSecretsStored(c, planted);
  // the uploads were stored (the scan documents hold the redacted servers)
  const stored = await c.store.c.mcpScans.find({ orgId: c.org.orgId }).toArray();
  expect(stored.map((s) => s.clients[0].servers.length)).toEqual([fixtureServers.length, fixtureServers.length]);
  expect(c.logs.length).toBeGreaterThan(0);
});
