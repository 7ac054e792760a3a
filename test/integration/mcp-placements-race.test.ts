// Two MCP scans of the same host and configuration path written at the same time (a newer scan
// replaces a config path's placements; a late older one changes nothing), on the real database. Each round runs the
// older and the newer scan's placement writes concurrently, in varied interleavings, including the newer scan being
// stored only while the older one is already writing; whatever the order, the path ends with exactly the newer scan's
// servers, each written by it, and a second host's placements are untouched.
import { newId } from '../../src/domain/ids';
import type { McpScanDoc, McpStoredClient } from '../../src/storage/documents/mcp';
import { mcpServerId, replaceMcpPlacements, type PlacementGroup } from '../../src/storage/mcp-processing';
import { testContext, type TestContext } from '../helpers/context';

let t: TestContext;

beforeAll(async () => {
  t = await testContext();
}, 120_000);

afterAll(async () => {
  await t?.close();
});

const CONFIG = '~/.cursor/mcp.json';
const client = (names: string[]): McpStoredClient => ({
  client: 'cursor',
  configPath: CONFIG,
  scope: 'user',
  servers: names.map((name) => ({
    name,
    transport: 'stdio',
    command: 'node',
    args: [`/opt/${name}.js`],
    url: null,
    envNames: [],
    headerNames: [],
    secrets: [],
    tools: null,
  })),
});

function scanDoc(orgId: string, hostId: string, names: string[], receivedAt: Date): McpScanDoc {
  return {
    _id: newId('mcs', receivedAt.getTime()),
    orgId,
    hostId,
    reportedHostname: null,
    receivedAt,
    scannedAt: null,
    status: 'running',
    finishedAt: null,
    failureReason: null,
    clients: [client(names)],
    servers: null,
    issues: null,
  };
}

function groups(scan: McpScanDoc): PlacementGroup[] {
  return scan.clients.map((c) => ({
    client: c.client,
    configPath: c.configPath,
    placements: c.servers.map((s) => ({
      name: s.name,
      serverId: mcpServerId(scan.orgId, `file:/opt/${s.name}.js`),
      identity: `file:/opt/${s.name}.js`,
      version: null,
      issues: [],
    })),
  }));
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function placed(orgId: string, hostKey: string): Promise<string[]> {
  const docs = await t.store.c.mcpPlacements.find({ orgId, hostKey }).toArray();
  return docs.map((d) => `${d.name}:${d.scanId}`).sort();
}

const ROUNDS = 12;

test.each([
  ['both stored before either writes', false],
  ['the newer one stored while the older one writes', true],
])(
  'concurrent older and newer scans of one config path (%s): the newer one wins in every interleaving',
  async (_label, storeNewerLate) => {
    for (let round = 0; round < ROUNDS; round++) {
      const orgId = `org_race${Date.now()}${round}${storeNewerLate ? 'l' : 'e'}`;
      const t0 = Date.now() - 60_000;
      // The path as a first scan left it, and a second host that neither scan touches.
      const first = scanDoc(orgId, 'hst_race', ['one', 'two', 'three'], new Date(t0));
      const other = scanDoc(orgId, 'hst_other', ['one'], new Date(t0 + 1));
      await t.store.c.mcpScans.insertMany([first, other]);
      await replaceMcpPlacements(t.store, first, groups(first));
      await replaceMcpPlacements(t.store, other, groups(other));

      const older = scanDoc(orgId, 'hst_race', ['one', 'two', 'five'], new Date(t0 + 10_000));
      const newer = scanDoc(orgId, 'hst_race', ['one', 'four'], new Date(t0 + 20_000));
      await t.store.c.mcpScans.insertOne(older);
      if (!storeNewerLate) await t.store.c.mcpScans.insertOne(newer);
      const lag = round % 4; // 0..3 ms between the two starts, either way round
      const runOlder = async () => {
        if (round % 2) await pause(lag);
        await replaceMcpPlacements(t.store, older, groups(older));
      };
      const runNewer = async () => {
        if (round % 2 === 0) await pause(lag);
        if (storeNewerLate) await t.store.c.mcpScans.insertOne(newer);
        await replaceMcpPlacements(t.store, newer, groups(newer));
      };
      await Promise.all([runOlder(), runNewer()]);
      expect({ round, placed: await placed(orgId, 'hst_race') }).toEqual({
        round,
        placed: [`four:${newer._id}`, `one:${newer._id}`],
      });
      expect(await placed(orgId, 'hst_other')).toEqual([`one:${other._id}`]);

      // The older scan processed again afterwards (a retry, or a late delivery): nothing changes.
      await replaceMcpPlacements(t.store, older, groups(older));
      expect({ round, placed: await placed(orgId, 'hst_race') }).toEqual({
        round,
        placed: [`four:${newer._id}`, `one:${newer._id}`],
      });
    }
  },
  120_000,
);
