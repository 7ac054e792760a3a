// Shared by the MCP tests: a real API over the test run's database (no Temporal: the MCP scan
// starter is a recorder), the endpoints with every answer checked against the OpenAPI document, hosts registered
// through the real API, inventory seeded through the store (the scan workflow's output: servers and placements), and
// the secrets check: every document of every collection and every log line, searched for planted values.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { Writable } from 'node:stream';
import { newId } from '../../src/domain/ids';
import type { McpScanStarter } from '../../src/ports';
import { createLogger } from '../../src/logger';
import type { McpIssueDoc, McpPlacementDoc, McpScanDoc, McpServerDoc } from '../../src/storage/documents/mcp';
import { connectStore, ensureIndexes, type Store } from '../../src/storage/mongo';
import { appWithoutTemporal, bearer, newOrg, requireEnv, type Org } from '../helpers/context';
import { documented, noUploads, type Api, type Res } from './hosts-helpers';

export { err } from './hosts-helpers';
export type { Res } from './hosts-helpers';

export interface McpContext {
  store: Store;
  api: Api;
  org: Org;
  owner: string;
  /** The scans handed to the MCP scan starter, in order. */
  started: McpScanDoc[];
  /** Every log line the API wrote (level debug and up). */
  logs: string[];
  close(): Promise<void>;
}

export async function mcpContext(): Promise<McpContext> {
  const store = await connectStore(requireEnv('MONGODB_URI'), `t_${randomBytes(6).toString('hex')}`);
  await ensureIndexes(store);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const started: McpScanDoc[] = [];
  const mcp: McpScanStarter = { start: async (scan) => (started.push(scan), true), drain: async () => undefined };
  const { server, api } = await appWithoutTemporal(store, {
    uploads: noUploads,
    mcp,
    logger: createLogger('test', 'debug', sink),
  });
  const org = await newOrg(store);
  return {
    store,
    api,
    org,
    owner: org.ownerToken,
    started,
    logs,
    async close() {
      await new Promise((r) => (server as http.Server).close(r));
      await store.db.dropDatabase().catch(() => undefined);
      await store.close();
    },
  };
}

const json = (req: any, body: unknown) =>
  req.set('Content-Type', 'application/json').send(typeof body === 'string' ? body : JSON.stringify(body));

/** The endpoints, each answer checked against the document. */
export function mcpEndpoints(c: Pick<McpContext, 'api'>) {
  const api = () => c.api;
  return {
    uploadScan: async (token: string, body: unknown): Promise<Res> =>
      documented('post', '/v1/mcp/scans', await json(api().post('/v1/mcp/scans').set(bearer(token)), body)),
    getScan: async (token: string, id: string): Promise<Res> =>
      documented(
        'get',
        '/v1/mcp/scans/{mcpScanId}',
        await api()
          .get(`/v1/mcp/scans/${encodeURIComponent(id)}`)
          .set(bearer(token)),
      ),
    listServers: async (token: string, query = ''): Promise<Res> =>
      documented('get', '/v1/mcp/servers', await api().get(`/v1/mcp/servers${query}`).set(bearer(token))),
    getServer: async (token: string, id: string): Promise<Res> =>
      documented(
        'get',
        '/v1/mcp/servers/{serverId}',
        await api()
          .get(`/v1/mcp/servers/${encodeURIComponent(id)}`)
          .set(bearer(token)),
      ),
    listRegistry: async (token: string, query = ''): Promise<Res> =>
      documented('get', '/v1/mcp/registry', await api().get(`/v1/mcp/registry${query}`).set(bearer(token))),
    putEntries: async (token: string, body: unknown): Promise<Res> =>
      documented(
        'put',
        '/v1/mcp/registry/entries',
        await json(api().put('/v1/mcp/registry/entries').set(bearer(token)), body),
      ),
    deleteEntry: async (token: string, id: string): Promise<Res> =>
      documented(
        'delete',
        '/v1/mcp/registry/entries/{entryId}',
        await api()
          .delete(`/v1/mcp/registry/entries/${encodeURIComponent(id)}`)
          .set(bearer(token)),
      ),
    getControl: async (token: string): Promise<Res> =>
      documented('get', '/v1/mcp/control-level', await api().get('/v1/mcp/control-level').set(bearer(token))),
    putControl: async (token: string, body: unknown): Promise<Res> =>
      documented(
        'put',
        '/v1/mcp/control-level',
        await json(api().put('/v1/mcp/control-level').set(bearer(token)), body),
      ),
    postEvents: async (token: string, body: unknown): Promise<Res> =>
      documented(
        'post',
        '/v1/mcp/usage-events',
        await json(api().post('/v1/mcp/usage-events').set(bearer(token)), body),
      ),
    listEvents: async (token: string, query = ''): Promise<Res> =>
      documented('get', '/v1/mcp/usage-events', await api().get(`/v1/mcp/usage-events${query}`).set(bearer(token))),
  };
}

/** A host registered through the real API: its id and credential. */
export async function registerHost(
  c: Pick<McpContext, 'api' | 'owner'>,
  hostname = `host-${randomBytes(3).toString('hex')}`,
): Promise<{ id: string; credential: string }> {
  const t = await c.api.post('/v1/hosts/registration-tokens').set(bearer(c.owner)).send({ name: 'mcp' });
  const a = await c.api
    .post('/v1/hosts/attestations')
    .set(bearer(t.body.token))
    .send({ hostname, machineId: `m-${randomBytes(6).toString('hex')}` });
  if (a.status !== 201) throw new Error(`attestation: ${a.status} ${JSON.stringify(a.body)}`);
  return { id: a.body.host.id, credential: a.body.credential };
}

export interface SeedPlacement {
  hostId?: string;
  hostname?: string;
  client?: string;
  configPath?: string;
  name?: string;
  version?: string | null;
  issues?: Array<Omit<McpIssueDoc, 'serverId'>>;
}

/** An inventory server and its placements, written as the MCP scan workflow writes them. */
export async function seedServer(
  store: Store,
  orgId: string,
  s: {
    identity: string;
    names?: string[];
    versions?: string[];
    transport?: McpServerDoc['transport'];
    kind?: McpServerDoc['kind'];
    placements?: SeedPlacement[];
  },
): Promise<McpServerDoc> {
  const now = new Date();
  const doc: McpServerDoc = {
    _id: newId('mcp'),
    orgId,
    identity: s.identity,
    kind:
      s.kind ??
      (s.identity.startsWith('pkg:npm/')
        ? 'npm'
        : s.identity.startsWith('cmd:')
          ? 'command'
          : s.identity.startsWith('http')
            ? 'remote'
            : 'pypi'),
    names: s.names ?? ['server'],
    transport: s.transport ?? 'stdio',
    versions: s.versions ?? [],
    firstSeenAt: now,
    lastSeenAt: now,
  };
  await store.c.mcpServers.insertOne(doc);
  const placements: McpPlacementDoc[] = (s.placements ?? []).map((p, i) => ({
    _id: `pl-${doc._id}-${i}`,
    orgId,
    hostKey: p.hostId ?? `name:${p.hostname ?? 'laptop'}`,
    hostId: p.hostId ?? null,
    reportedHostname: p.hostId ? null : (p.hostname ?? 'laptop'),
    client: p.client ?? 'cursor',
    configPath: p.configPath ?? '~/.cursor/mcp.json',
    name: p.name ?? doc.names[0],
    serverId: doc._id,
    identity: doc.identity,
    version: p.version ?? null,
    scanId: 'mcs_seeded',
    seenAt: now,
    issues: (p.issues ?? []).map((x) => ({ ...x, serverId: doc._id })),
  }));
  if (placements.length) await store.c.mcpPlacements.insertMany(placements);
  return doc;
}

/** Every document of every collection of the database, as JSON text (one string per document). */
export async function dumpDatabase(store: Store): Promise<string[]> {
  const out: string[] = [];
  for (const { name } of await store.db.listCollections().toArray()) {
    for (const doc of await store.db.collection(name).find({}).toArray()) out.push(`${name}: ${JSON.stringify(doc)}`);
  }
  return out;
}

/** The planted secrets found in any of the texts (each with where): empty when none leaked. */
export function leaks(texts: readonly string[], secrets: readonly string[]): Array<{ secret: string; where: string }> {
  const found: Array<{ secret: string; where: string }> = [];
  for (const secret of secrets) {
    const hit = texts.find((t) => t.includes(secret));
    if (hit) found.push({ secret, where: hit.slice(0, 300) });
  }
  return found;
}

/**
 * The check of issue 19 point 6, for any test that sent secrets: no planted value in any document of any collection,
 * nor in any log line the API wrote.
 */
export async function expectNoSecretsStored(
  c: Pick<McpContext, 'store' | 'logs'>,
  secrets: readonly string[],
): Promise<void> {
  const texts = [...(await dumpDatabase(c.store)), ...c.logs];
  expect(texts.length).toBeGreaterThan(0);
  expect(leaks(texts, secrets)).toEqual([]);
}
