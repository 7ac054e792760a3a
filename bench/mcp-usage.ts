// Issue 19: "usage events in batches of 1,000 at 10 requests per second, p99 ≤ 100 ms" (reported, not gated). An
// organization with an mcp:upload key, an inventory of 50 servers on 20 hosts (seeded as the MCP scan workflow writes
// it, some with high issues), a registry allowing half of them and the control level warn; then batches of 1,000 events
// (a third pre events, which each get a decision; servers named by id, by launch through the shared identity function,
// or by name on the host) are posted open-loop: each at its scheduled instant (every 100 ms) whether or not the earlier
// ones were answered, its latency counted from that instant.
import { newId } from '../src/domain/ids';
import { createOrgWithOwner } from '../src/storage/accounts';
import { createApiKey } from '../src/storage/api-keys';
import type { McpPlacementDoc, McpServerDoc } from '../src/storage/documents/mcp';
import { registryEntryId } from '../src/storage/mcp-registry';
import type { Harness } from './harness';
import { runOpenLoop } from './open-loop';

const SERVERS = 50;
const HOSTS = 20;

async function seed(h: Harness) {
  const { org, member } = await createOrgWithOwner(h.store, 'mcp-usage', `mcp-usage-${Date.now()}@example.test`);
  const { secret } = await createApiKey(h.store, {
    orgId: org._id,
    name: 'bench',
    scopes: ['mcp:upload', 'mcp:read'],
    projects: 'all',
    createdBy: member._id,
    expiresAt: null,
  });
  const now = new Date();
  const servers: McpServerDoc[] = Array.from({ length: SERVERS }, (_, i) => ({
    _id: newId('mcp'),
    orgId: org._id,
    identity: `pkg:npm/bench-server-${i}`,
    kind: 'npm',
    names: [`server-${i}`],
    transport: 'stdio',
    versions: ['1.0.0'],
    firstSeenAt: now,
    lastSeenAt: now,
  }));
  await h.store.c.mcpServers.insertMany(servers);
  const placements: McpPlacementDoc[] = [];
  for (let hIdx = 0; hIdx < HOSTS; hIdx++) {
    for (let k = 0; k < 10; k++) {
      const s = servers[(hIdx * 7 + k) % SERVERS];
      placements.push({
        _id: `bench-${org._id}-${hIdx}-${k}`,
        orgId: org._id,
        hostKey: `name:bench-host-${hIdx}`,
        hostId: null,
        reportedHostname: `bench-host-${hIdx}`,
        client: 'cursor',
        configPath: '~/.cursor/mcp.json',
        name: s.names[0],
        serverId: s._id,
        identity: s.identity,
        version: '1.0.0',
        scanId: 'mcs_bench',
        seenAt: now,
        issues:
          k % 4 === 0 ? [{ code: 'tool_definition_changed', severity: 'high', message: 'bench', serverId: s._id }] : [],
      });
    }
  }
  await h.store.c.mcpPlacements.insertMany(placements);
  const entries = servers.filter((_, i) => i % 2 === 0).map((s) => ({ identity: s.identity }));
  // as PUT /v1/mcp/registry/entries writes them (that endpoint takes an owner's or admin's session, not the key)
  await h.store.c.mcpRegistry.insertMany(
    entries.map((e) => ({
      _id: registryEntryId(org._id, e.identity),
      orgId: org._id,
      identity: e.identity,
      versions: null,
      decision: 'allow' as const,
      note: null,
      updatedBy: member._id,
      updatedAt: now,
    })),
  );
  await h.store.c.mcpControl.updateOne(
    { _id: org._id },
    { $set: { level: 'warn', updatedAt: now, updatedBy: member._id } },
    { upsert: true },
  );
  return { key: secret, servers, placements };
}

export async function mcpUsageBench(
  h: Harness,
  o: { perSecond?: number; seconds?: number; batch?: number } = {},
): Promise<void> {
  const perSecond = o.perSecond ?? 10;
  const seconds = o.seconds ?? 30;
  const batch = o.batch ?? 1000;
  console.log(
    `\nmcp-usage: batches of ${batch.toLocaleString('en')} usage events, ${perSecond} requests per second (open-loop) for ${seconds} s`,
  );
  const { key, servers, placements } = await seed(h);
  let n = 0;
  const events = () =>
    Array.from({ length: batch }, (_, i) => {
      const p = placements[(n + i * 13) % placements.length];
      const how = i % 3;
      const server =
        how === 0
          ? { serverId: p.serverId }
          : how === 1
            ? { name: p.name }
            : {
                name: p.name,
                command: 'npx',
                args: ['-y', `${servers[(i * 7) % SERVERS].identity.slice('pkg:npm/'.length)}@1.0.0`],
              };
      return {
        eventId: `bench-${n}-${i}`,
        occurredAt: new Date().toISOString(),
        host: { hostname: p.reportedHostname },
        client: 'cursor',
        server,
        tool: `tool_${i % 9}`,
        phase: i % 3 === 0 ? 'pre' : 'post',
        ...(i % 3 === 0 ? {} : { outcome: i % 17 === 0 ? 'error' : 'ok', durationMs: i % 250 }),
      };
    });
  await runOpenLoop({
    send: () => {
      const body = JSON.stringify({ events: events() });
      n++;
      return fetch(`${h.baseUrl}/v1/mcp/usage-events`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body,
      });
    },
    warmUp: 5,
    perSecond,
    seconds,
    what: 'batch',
    goal: 'p99 ≤ 100 ms',
    expect: 200,
  });
}
