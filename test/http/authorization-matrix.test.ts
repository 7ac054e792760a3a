// Every endpoint of the authorization matrix × every kind of credential, over real HTTP against the real database:
// 401 for missing, malformed, expired and revoked credentials; 403 naming the scope or role for valid credentials
// that lack it; resources of another organization, or of a project out of a key's reach, are 404 exactly like
// nonexistent ones (422 unknown_project for an upload into such a project); everything else gets past access. The
// machine credentials of hosts and gateways are valid only on their own endpoints: 403
// insufficient_scope everywhere else, 401 when unknown, used up, expired or revoked.
import { addMember, createSession, findOrCreateUser, revokeSession } from '../../src/storage/accounts';
import { createApiKey } from '../../src/storage/api-keys';
import { secretsFromEnv } from '../../src/storage/secrets';
import { createWebhook } from '../../src/storage/webhooks';
import { insertRule } from '../../src/storage/triage-rules';
import { moveAlerts } from '../../src/domain/alerts/move';
import { advanceHead, insertState, pairIdOf } from '../../src/storage/alerts';
import { MATRIX, type Access, type Endpoint } from '../../src/http/auth/matrix';
import { SCOPES, type MachineKind } from '../../src/http/auth/principal';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';
import { v2Snapshot } from '../helpers/v2';

let t: TestContext;
let a: Org; // the organization whose resources the requests name
let b: Org; // another organization
const ids: Record<string, string> = {};

/**
 * How the credential travels: as a Bearer token (default), or as the web app's session cookie with
 * or without `X-Svc-App: 1`, from the app's origin or from another site, and possibly beside a Bearer credential.
 */
type Via = { cookie: true; appHeader: boolean; site: 'same-origin' | 'cross-site'; bearer?: () => Promise<string> };
type Cred = {
  name: string;
  token: () => Promise<string | null>;
  kind: 'none' | 'invalid' | 'session' | 'key' | 'machine';
  role?: string;
  org?: 'a' | 'b' | null;
  scopes?: string[];
  restricted?: boolean;
  via?: Via;
  getOnly?: boolean;
  machine?: MachineKind;
};

const DAY = 24 * 3600 * 1000;
const appSession = async (org: Org, role: 'owner' | 'member', age: { createdAgo?: number; idleFor?: number } = {}) => {
  const m = await addMember(t.store, org.orgId, `${role}-app-${Date.now()}-${Math.random()}@example.test`, role);
  const { token, session } = await createSession(
    t.store,
    m.userId,
    new Date(Date.now() - (age.createdAgo ?? 0)),
    'app',
  );
  if (age.idleFor)
    await t.store.c.sessions.updateOne(
      { _id: session._id },
      { $set: { lastUsedAt: new Date(Date.now() - age.idleFor) } },
    );
  return token;
};
const sameOrigin: Via = { cookie: true, appHeader: true, site: 'same-origin' };

beforeAll(async () => {
  t = await testContext();
  a = await newOrg(t.store, 'alpha');
  b = await newOrg(t.store, 'beta');
  // A scan of project "alpha" in org a, and one of project "other" (out of reach of the restricted key).
  const uploader = await a.key(['sca:upload']);
  const s1 = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(uploader)).send(v1Snapshot('alpha'));
  const s2 = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(uploader)).send(v1Snapshot('other'));
  expect([s1.status, s2.status]).toEqual([201, 201]);
  ids.scan = s1.body.id;
  ids.project = s1.body.project;
  ids.otherProject = s2.body.project;
  // An alert of project "alpha" (stored as a tracked scan's move would store it).
  const moved = moveAlerts(
    [],
    [
      {
        id: 'fnd_matrix',
        package: 'lodash',
        installedVersion: '4.17.20',
        fixedVersion: '4.17.21',
        severity: 'high',
        cve: 'CVE-2021-23337',
        aliases: ['CVE-2021-23337'],
        summary: 'matrix',
        publishedAt: null,
        suppressed: false,
        attributions: [],
        cvss: null,
      },
    ],
    {
      projectId: ids.project,
      ecosystem: 'javascript',
      scanId: ids.scan,
      startedAt: new Date().toISOString(),
      at: new Date().toISOString(),
      generation: null,
    },
    () => null,
    true,
  );
  const head = {
    pairId: pairIdOf(ids.project, 'javascript'),
    orgId: a.orgId,
    projectId: ids.project,
    ecosystem: 'javascript',
    scanId: ids.scan,
    startedAt: new Date(),
    seq: 1,
  };
  await insertState(t.store, {
    ...head,
    at: new Date(),
    generation: null,
    rematch: false,
    alerts: moved.alerts,
    move: { events: [], opened: [], fixed: [], reopened: [], announce: false },
  });
  await advanceHead(t.store, { ...head, at: new Date(), open: 1 });
  ids.alert = moved.alerts[0].id;
}, 60_000);
afterAll(() => t.close());

const keyOf =
  (org: Org, scopes: string[], projects: 'all' | (() => string[]) = 'all') =>
  () =>
    org.key(scopes, projects === 'all' ? 'all' : projects());

const CREDS: Cred[] = [
  { name: 'no credential', kind: 'none', token: async () => null },
  { name: 'malformed', kind: 'invalid', token: async () => 'x' },
  { name: 'unknown key', kind: 'invalid', token: async () => 'svc_key_' + '0'.repeat(40) },
  {
    name: 'expired session',
    kind: 'invalid',
    token: async () => {
      const u = await findOrCreateUser(t.store, `expired-${Date.now()}@example.test`);
      return (await createSession(t.store, u._id, new Date(Date.now() - 31 * 24 * 3600 * 1000))).token;
    },
  },
  {
    name: 'revoked session',
    kind: 'invalid',
    token: async () => {
      const tok = await a.session('member');
      await revokeSession(t.store, tok);
      return tok;
    },
  },
  {
    name: 'expired key',
    kind: 'invalid',
    token: async () => {
      const k = await createApiKey(t.store, {
        orgId: a.orgId,
        name: 'old',
        scopes: [...SCOPES],
        projects: 'all',
        createdBy: null,
        expiresAt: new Date(Date.now() + 50),
      });
      await new Promise((r) => setTimeout(r, 60));
      return k.secret;
    },
  },
  {
    name: 'revoked key',
    kind: 'invalid',
    token: async () => {
      const k = await createApiKey(t.store, {
        orgId: a.orgId,
        name: 'gone',
        scopes: [...SCOPES],
        projects: 'all',
        createdBy: null,
        expiresAt: null,
      });
      await t.store.c.apiKeys.updateOne({ _id: k.doc._id }, { $set: { revokedAt: new Date() } });
      return k.secret;
    },
  },
  ...(['owner', 'admin', 'member', 'auditor'] as const).map((role): Cred => ({
    name: `session ${role}`,
    kind: 'session',
    role,
    org: 'a',
    token: () => a.session(role),
  })),
  {
    name: 'session without organization',
    kind: 'session',
    org: null,
    token: async () =>
      (await createSession(t.store, (await findOrCreateUser(t.store, `loner-${Date.now()}@example.test`))._id)).token,
  },
  { name: 'key with every scope', kind: 'key', org: 'a', scopes: [...SCOPES], token: () => keyOf(a, [...SCOPES])() },
  {
    name: 'key without scopes of the endpoint',
    kind: 'key',
    org: 'a',
    scopes: ['deps:read'],
    token: () => keyOf(a, ['deps:read'])(),
  },
  {
    name: 'key restricted to another project',
    kind: 'key',
    org: 'a',
    scopes: [...SCOPES],
    restricted: true,
    token: () => keyOf(a, [...SCOPES], () => [ids.otherProject])(),
  },
  { name: 'session owner of another org', kind: 'session', role: 'owner', org: 'b', token: () => b.session('owner') },
  { name: 'key of another org', kind: 'key', org: 'b', scopes: [...SCOPES], token: () => keyOf(b, [...SCOPES])() },
  // the web app's session cookie
  {
    name: 'cookie session owner',
    kind: 'session',
    role: 'owner',
    org: 'a',
    via: sameOrigin,
    token: () => appSession(a, 'owner'),
  },
  {
    name: 'cookie session member',
    kind: 'session',
    role: 'member',
    org: 'a',
    via: sameOrigin,
    token: () => appSession(a, 'member'),
  },
  {
    name: 'cookie session owner of another org',
    kind: 'session',
    role: 'owner',
    org: 'b',
    via: sameOrigin,
    token: () => appSession(b, 'owner'),
  },
  {
    name: 'cookie without X-Svc-App',
    kind: 'invalid',
    via: { cookie: true, appHeader: false, site: 'same-origin' },
    token: () => appSession(a, 'owner'),
  },
  // a cross-site request: the cookie counts for GET (a page elsewhere cannot add X-Svc-App without a preflight) only
  {
    name: 'cookie from another site',
    kind: 'session',
    role: 'owner',
    org: 'a',
    getOnly: true,
    via: { cookie: true, appHeader: true, site: 'cross-site' },
    token: () => appSession(a, 'owner'),
  },
  {
    name: 'cookie session expired',
    kind: 'invalid',
    via: sameOrigin,
    token: () => appSession(a, 'owner', { createdAgo: 30 * DAY }),
  },
  {
    name: 'cookie session idle 7 days',
    kind: 'invalid',
    via: sameOrigin,
    token: () => appSession(a, 'owner', { idleFor: 7 * DAY }),
  },
  {
    name: 'cookie session revoked',
    kind: 'invalid',
    via: sameOrigin,
    token: async () => {
      const tok = await appSession(a, 'owner');
      await revokeSession(t.store, tok);
      return tok;
    },
  },
  // Bearer wins: an owner's cookie beside a key without scopes, or beside an unknown Bearer token
  {
    name: 'cookie owner + Bearer key deps:read',
    kind: 'key',
    org: 'a',
    scopes: ['deps:read'],
    token: () => appSession(a, 'owner'),
    via: { ...sameOrigin, bearer: () => keyOf(a, ['deps:read'])() },
  },
  {
    name: 'cookie owner + unknown Bearer',
    kind: 'invalid',
    token: () => appSession(a, 'owner'),
    via: { ...sameOrigin, bearer: async () => 'svc_ses_' + '0'.repeat(40) },
  },
];

// ---- machine credentials: made through the API by org a's (or b's) owner ----------------------------------------
/** The host or gateway a machine credential belongs to (its heartbeats name it). */
const ownerOf = new Map<string, string>();
const post = async (token: string, path: string, body: object) => {
  const res = await t.api.post(path).set(bearer(token)).send(body);
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
};
let machineSeq = 0;
const registrationToken = async (org: Org, body: object = {}) =>
  post(org.ownerToken, '/v1/hosts/registration-tokens', { name: 'matrix', ...body });
const newHost = async (org: Org) => {
  const { host, credential } = await post((await registrationToken(org)).token, '/v1/hosts/attestations', {
    hostname: 'matrix',
    machineId: `matrix-${Date.now()}-${machineSeq++}`,
  });
  ownerOf.set(credential, host.id);
  return { id: host.id as string, credential: credential as string };
};
const enrollmentToken = async (org: Org) => post(org.ownerToken, '/v1/gateways/enrollment-tokens', { name: 'matrix' });
const newGateway = async (org: Org, approve = false) => {
  const { gateway, credential } = await post((await enrollmentToken(org)).token, '/v1/gateways/enrollments', {
    version: '1',
    networkScope: ['10.0.0.0/8'],
  });
  if (approve) await post(org.ownerToken, `/v1/gateways/${gateway.id}/approval`, { networkScope: ['10.0.0.0/8'] });
  ownerOf.set(credential, gateway.id);
  return { id: gateway.id as string, credential: credential as string };
};
const shared: { host?: string; gateway?: string } = {};
const forget = (credential: string) => (ownerOf.delete(credential), credential);
const machineCred = (name: string, machine: MachineKind, token: () => Promise<string>, org: 'a' | 'b' = 'a'): Cred => ({
  name,
  kind: 'machine',
  machine,
  org,
  token,
});
const refused = (name: string, token: () => Promise<string>): Cred => ({ name, kind: 'invalid', token });

const MACHINE_CREDS: Cred[] = [
  machineCred('registration token', 'registration_token', async () => (await registrationToken(a)).token),
  machineCred('host credential', 'host', async () => (await newHost(a)).credential),
  machineCred('enrollment token', 'enrollment_token', async () => (await enrollmentToken(a)).token),
  machineCred('gateway credential (pending)', 'gateway', async () => (await newGateway(a)).credential),
  machineCred('gateway credential (active)', 'gateway', async () => (await newGateway(a, true)).credential),
  machineCred(
    'registration token of another org',
    'registration_token',
    async () => (await registrationToken(b)).token,
    'b',
  ),
  // these name org a's host or gateway in the path (not their own): 404, as for an unknown one
  machineCred('host credential of another org', 'host', async () => forget((await newHost(b)).credential), 'b'),
  machineCred(
    'gateway credential of another org',
    'gateway',
    async () => forget((await newGateway(b, true)).credential),
    'b',
  ),
  refused('unknown registration token', async () => 'svc_reg_' + '0'.repeat(40)),
  refused('exhausted registration token', async () => {
    const { token } = await registrationToken(a);
    await post(token, '/v1/hosts/attestations', {
      hostname: 'x',
      machineId: `matrix-used-${Date.now()}-${machineSeq++}`,
    });
    return token;
  }),
  refused('expired registration token', async () => {
    const r = await registrationToken(a);
    await t.store.c.registrationTokens.updateOne(
      { id: r.registrationToken.id },
      { $set: { expiresAt: new Date(Date.now() - 1) } },
    );
    return r.token;
  }),
  refused('revoked registration token', async () => {
    const r = await registrationToken(a);
    await t.api.delete(`/v1/hosts/registration-tokens/${r.registrationToken.id}`).set(bearer(a.ownerToken));
    return r.token;
  }),
  refused('unknown host credential', async () => 'svc_hst_' + '0'.repeat(40)),
  refused('revoked host', async () => {
    const h = await newHost(a);
    await t.api.delete(`/v1/hosts/${h.id}`).set(bearer(a.ownerToken));
    return h.credential;
  }),
  refused('host credential replaced by a re-attestation', async () => {
    const r = await registrationToken(a, { uses: 2 });
    const machineId = `matrix-re-${Date.now()}-${machineSeq++}`;
    const first = await post(r.token, '/v1/hosts/attestations', { hostname: 'x', machineId });
    await t.api
      .post('/v1/hosts/attestations')
      .set(bearer(r.token))
      .set('X-Svc-Host-Credential', first.credential)
      .send({ hostname: 'x', machineId });
    ownerOf.set(first.credential, first.host.id);
    return first.credential;
  }),
  refused('unknown enrollment token', async () => 'svc_gw_' + '0'.repeat(40)),
  refused('used enrollment token', async () => {
    const { token } = await enrollmentToken(a);
    await post(token, '/v1/gateways/enrollments', { version: '1', networkScope: ['10.0.0.0/8'] });
    return token;
  }),
  refused('expired enrollment token', async () => {
    const r = await enrollmentToken(a);
    await t.store.c.enrollmentTokens.updateOne(
      { id: r.enrollmentToken.id },
      { $set: { expiresAt: new Date(Date.now() - 1) } },
    );
    return r.token;
  }),
  refused('revoked enrollment token', async () => {
    const r = await enrollmentToken(a);
    await t.api.delete(`/v1/gateways/enrollment-tokens/${r.enrollmentToken.id}`).set(bearer(a.ownerToken));
    return r.token;
  }),
  refused('unknown gateway credential', async () => 'svc_gwc_' + '0'.repeat(40)),
  refused('revoked gateway', async () => {
    const g = await newGateway(a, true);
    await t.api.delete(`/v1/gateways/${g.id}`).set(bearer(a.ownerToken));
    return g.credential;
  }),
  refused('gateway pending for more than 7 days', async () => {
    const g = await newGateway(a);
    await t.store.c.gateways.updateOne({ _id: g.id }, { $set: { enrolledAt: new Date(Date.now() - 7 * DAY - 1000) } });
    return g.credential;
  }),
];
CREDS.push(...MACHINE_CREDS);

const UPLOADS = '/v1/scans/dependency-snapshots/uploads';
const mcpScan = {
  host: { hostname: 'matrix' },
  clients: [
    {
      client: 'cursor',
      configPath: '~/.cursor/mcp.json',
      scope: 'user',
      servers: [{ name: 'm', transport: 'stdio', command: 'npx', args: ['-y', 'matrix-mcp'] }],
    },
  ],
};
/** An inventory server of org a, as the MCP scan workflow writes one. */
const mcpServer = async () => {
  const id = `mcp_matrix${Date.now()}`;
  await t.store.c.mcpServers.insertOne({
    _id: id,
    orgId: a.orgId,
    identity: 'pkg:npm/matrix-mcp',
    kind: 'npm',
    names: ['m'],
    transport: 'stdio',
    versions: [],
    firstSeenAt: new Date(),
    lastSeenAt: new Date(),
  });
  return id;
};
const graph = v2Snapshot(
  [
    {
      module: ':app',
      context: 'runtimeClasspath',
      vertices: [
        ['0', ':app', '1'],
        ['1', 'org.example:lib@1.0'],
      ],
    },
  ],
  undefined,
  { project: 'alpha' },
);
const uploadCreate = () => ({ schemaVersion: 2, project: 'alpha', ecosystem: 'gradle', parts: 1 });
const uploadPart = () => ({ modules: graph.modules, nodes: graph.nodes, roots: graph.roots });

/** A request for the endpoint that would succeed for a fully entitled credential of org a. */
async function request(endpoint: Endpoint, token: string | null, via?: Via) {
  const [method, route] = endpoint.split(' ') as [string, string];
  const owner = a.ownerToken;
  let path = route;
  let body: object | undefined;
  if (route.includes(':scanId')) path = route.replace(':scanId', ids.scan);
  if (route.includes(':alertId')) path = route.replace(':alertId', ids.alert);
  if (route.includes(':memberId')) {
    const throwaway = await addMember(t.store, a.orgId, `tmp-${Date.now()}-${Math.random()}@example.test`, 'member');
    path = route.replace(':memberId', throwaway._id);
    if (method === 'PATCH') body = { role: 'auditor' };
  }
  if (route.includes(':invitationId')) {
    const inv = await t.api
      .post('/v1/invitations')
      .set(bearer(owner))
      .send({ email: `inv-${Date.now()}-${Math.random()}@example.test`, role: 'member' });
    path = route.replace(':invitationId', inv.body.invitation.id);
  }
  if (route.includes(':keyId')) {
    const k = await t.api
      .post('/v1/api-keys')
      .set(bearer(owner))
      .send({ name: 'throwaway', scopes: ['scans:read'], projects: 'all' });
    path = route.replace(':keyId', k.body.apiKey.id);
  }
  if (route.includes(':uploadId')) {
    // a fresh one-part upload of project alpha; for completion, with its part already sent
    const created = await t.api.post(UPLOADS).set(bearer(owner)).send(uploadCreate());
    path = path.replace(':uploadId', created.body.upload.id).replace(':n', '1');
    if (endpoint.startsWith('PUT ')) body = uploadPart();
    if (endpoint.endsWith('/completion'))
      await t.api.put(`${UPLOADS}/${created.body.upload.id}/parts/1`).set(bearer(owner)).send(uploadPart());
  }
  if (route.includes(':webhookId')) {
    const w = await createWebhook(t.store, secretsFromEnv(), {
      orgId: a.orgId,
      url: 'https://hooks.example.test/scans',
      events: ['scan.completed'],
      createdBy: null,
    });
    path = route.replace(':webhookId', w.doc._id);
  }
  // hosts and gateways: a machine credential names its own host or gateway; anyone else a fresh one of org a
  if (route.includes(':tokenId')) {
    const made = route.startsWith('/v1/hosts')
      ? (await registrationToken(a)).registrationToken
      : (await enrollmentToken(a)).enrollmentToken;
    path = route.replace(':tokenId', made.id);
  }
  // a heartbeat names the credential's own host or gateway, else one of org a; revocation and approval a fresh one
  const fresh = !endpoint.endsWith('/heartbeats');
  if (route.includes(':hostId'))
    path = route.replace(
      ':hostId',
      (!fresh && token && ownerOf.get(token)) ||
        (fresh ? (await newHost(a)).id : (shared.host ??= (await newHost(a)).id)),
    );
  if (route.includes(':gatewayId'))
    path = route.replace(
      ':gatewayId',
      (!fresh && token && ownerOf.get(token)) ||
        (fresh ? (await newGateway(a)).id : (shared.gateway ??= (await newGateway(a)).id)),
    );
  if (endpoint === 'POST /v1/hosts/registration-tokens' || endpoint === 'POST /v1/gateways/enrollment-tokens')
    body = { name: 'matrix' };
  if (endpoint === 'POST /v1/hosts/attestations')
    body = { hostname: 'matrix', machineId: `matrix-${Date.now()}-${machineSeq++}` };
  if (endpoint === 'POST /v1/gateways/enrollments') body = { version: '1', networkScope: ['10.0.0.0/8'] };
  if (endpoint === 'POST /v1/gateways/:gatewayId/approval') body = { networkScope: ['10.0.0.0/8'] };
  if (endpoint.endsWith('/heartbeats')) body = {};
  // triage rules: a fresh rule of org a to name; bodies any owner or admin may send
  if (route.includes(':ruleId')) {
    const now = new Date().toISOString();
    const id = `trl_matrix${machineSeq++}`;
    await insertRule(t.store, a.orgId, {
      id,
      name: 'matrix',
      conditions: {},
      analysis: {
        state: 'in_triage',
        justification: null,
        response: [],
        detail: null,
        expiresAt: null,
        versions: null,
        ticketUrl: null,
        updatedAt: now,
        updatedBy: { kind: 'user', id: 'usr_matrix' },
      },
      expiresAt: null,
      mode: 'dry_run',
      createdAt: now,
      createdBy: { kind: 'user', id: 'usr_matrix' },
      updatedAt: now,
    });
    path = route.replace(':ruleId', id);
  }
  if (endpoint === 'POST /v1/triage-rules')
    body = { name: 'matrix', analysis: { state: 'in_triage' }, mode: 'dry_run' };
  if (endpoint === 'PATCH /v1/triage-rules/:ruleId') body = { name: 'matrix, renamed' };
  // triage: an analysis any entitled caller may set (in_triage needs nothing else)
  if (endpoint === 'PUT /v1/alerts/:alertId/analysis') body = { state: 'in_triage' };
  if (endpoint === 'POST /v1/alerts/analysis') body = { alertIds: [ids.alert], analysis: { state: 'in_triage' } };
  // MCP auditing: a scan, a server and a fresh registry entry of org a; bodies any entitled caller may send
  if (route.includes(':mcpScanId'))
    path = route.replace(':mcpScanId', (ids.mcpScan ??= (await post(owner, '/v1/mcp/scans', mcpScan)).id));
  if (route.includes(':serverId')) path = route.replace(':serverId', (ids.mcpServer ??= await mcpServer()));
  if (route.includes(':entryId'))
    path = route.replace(
      ':entryId',
      (
        await t.api
          .put('/v1/mcp/registry/entries')
          .set(bearer(owner))
          .send({ entries: [{ identity: `pkg:npm/matrix-${machineSeq++}`, decision: 'allow' }] })
      ).body.entries[0].id,
    );
  if (endpoint === 'POST /v1/mcp/scans') body = mcpScan;
  if (endpoint === 'POST /v1/mcp/usage-events')
    body = {
      events: [
        {
          eventId: `matrix-${Date.now()}-${machineSeq++}`,
          occurredAt: new Date().toISOString(),
          host: { hostname: 'matrix' },
          client: 'cursor',
          server: { name: 'matrix' },
          tool: 't',
          phase: 'pre',
        },
      ],
    };
  if (endpoint === 'PUT /v1/mcp/registry/entries')
    body = { entries: [{ identity: 'pkg:npm/matrix', decision: 'allow' }] };
  if (endpoint === 'PUT /v1/mcp/control-level') body = { level: 'observe' };
  // a loopback destination: refused by the default policy (422), past access
  if (endpoint === 'POST /v1/webhooks') body = { url: 'https://127.0.0.1:9/hook', events: ['scan.completed'] };
  // ids that do not exist: the endpoint answers 404 not_found past access, as it does for a scan out of reach
  path = path.replace(':findingId', 'fnd_0000000000000000').replace(':attributionId', 'att_0000000000000000');
  if (endpoint === 'GET /v1/dependencies') path = `${route}?project=${ids.project}`; // by id: org b has an "alpha" of its own
  if (endpoint === 'PATCH /v1/projects/:projectId') {
    path = route.replace(':projectId', ids.project);
    body = { defaultBranch: 'main' };
  }
  if (endpoint === 'POST /v1/scans/dependency-snapshots/uploads') body = uploadCreate();
  if (endpoint === 'POST /v1/scans/dependency-snapshots') body = v1Snapshot('alpha');
  if (endpoint === 'POST /v1/api-keys') body = { name: 'matrix', scopes: ['scans:read'], projects: 'all' };
  if (endpoint === 'POST /v1/invitations')
    body = { email: `new-${Date.now()}-${Math.random()}@example.test`, role: 'member' };
  if (endpoint === 'POST /v1/invitations/lookups' || endpoint === 'POST /v1/invitations/acceptances')
    body = { token: 'svc_inv_' + '0'.repeat(40) };
  let req = (t.api as any)[method.toLowerCase()](path);
  if (via) {
    req = req.set('Cookie', `__Host-svc_session=${token}`);
    if (via.appHeader) req = req.set('X-Svc-App', '1');
    req = req.set('Sec-Fetch-Site', via.site);
    if (via.site === 'cross-site') req = req.set('Origin', 'https://evil.example');
    if (via.bearer) req = req.set(bearer(await via.bearer()));
  } else if (token !== null) req = req.set(bearer(token));
  if (body) req = req.send(body);
  return req;
}

/** What the matrix and the contract say this credential gets from this endpoint. */
function expected(
  endpoint: Endpoint,
  access: Access,
  c: Cred,
): { status?: number; code?: string; message?: RegExp; pass?: boolean } {
  if (access.kind === 'public') return { pass: true };
  if (c.kind === 'none' || c.kind === 'invalid') return { status: 401, code: 'invalid_token' };
  if (c.getOnly && !endpoint.startsWith('GET ')) return { status: 401, code: 'invalid_token', message: /origin/ };
  if (access.kind === 'credential') {
    if (c.kind !== 'machine' || c.machine !== access.credential)
      return { status: 403, code: 'insufficient_scope', message: /^requires a .*\(svc_/ };
    // another organization's host or gateway naming one of org a in the path: out of reach
    if (c.org === 'b' && /:(hostId|gatewayId)/.test(endpoint)) return { status: 404, code: 'not_found' };
    return { pass: true };
  }
  // the two MCP uploads take a host credential too (its own host implied, in its own organization)
  if (c.kind === 'machine' && access.kind === 'scope' && access.machines?.includes(c.machine!)) return { pass: true };
  if (c.kind === 'machine')
    return { status: 403, code: 'insufficient_scope', message: /valid only on its own endpoints/ };
  if (access.kind === 'session')
    return c.kind === 'session' ? { pass: true } : { status: 403, code: 'insufficient_scope', message: /session/ };
  if (access.kind === 'roles') {
    if (c.kind === 'key') return { status: 403, code: 'insufficient_scope', message: /role/ };
    if (c.org === null) return { status: 403, code: 'insufficient_scope', message: /organization membership/ };
    if (!(access.roles as readonly string[]).includes(c.role!))
      return {
        status: 403,
        code: 'insufficient_scope',
        message: new RegExp(`requires role ${access.roles.join(' or ')}`),
      };
    if (c.org === 'b' && /:\w+Id/.test(endpoint)) return { status: 404, code: 'not_found' };
    // removing someone else (not leaving) is for owners and admins, decided by the handler
    if (endpoint === 'DELETE /v1/members/:memberId' && !['owner', 'admin'].includes(c.role!))
      return { status: 403, code: 'insufficient_scope', message: /requires role owner or admin/ };
    return { pass: true };
  }
  // scope
  if (c.kind === 'session') {
    if (c.org === null) return { status: 403, code: 'insufficient_scope', message: /organization membership/ };
    if (c.role === 'auditor' && !access.scope.endsWith(':read'))
      return { status: 403, code: 'insufficient_scope', message: new RegExp(`requires scope ${access.scope}`) };
  } else if (!c.scopes!.includes(access.scope))
    return { status: 403, code: 'insufficient_scope', message: new RegExp(`requires scope ${access.scope}`) };
  if (
    (c.org === 'b' || c.restricted) &&
    (endpoint.includes(':scanId') ||
      endpoint.includes(':uploadId') ||
      endpoint.includes(':alertId') ||
      // a bulk decision names alert alpha's id in its body
      endpoint === 'POST /v1/alerts/analysis')
  )
    return { status: 404, code: 'not_found' };
  // MCP scans and servers are the organization's (org-wide scopes): another organization's are not found
  if (c.org === 'b' && /:(mcpScanId|serverId)/.test(endpoint)) return { status: 404, code: 'not_found' };
  if (
    c.restricted &&
    (endpoint === 'POST /v1/scans/dependency-snapshots' || endpoint === 'POST /v1/scans/dependency-snapshots/uploads')
  )
    return { status: 422, code: 'unknown_project' };
  // ?project=<alpha's id> names a project of org a: out of reach of another organization and of the restricted key
  if ((c.org === 'b' || c.restricted) && endpoint === 'GET /v1/dependencies')
    return { status: 422, code: 'unknown_project' };
  return { pass: true };
}

const cases = (Object.entries(MATRIX) as [Endpoint, Access][]).flatMap(([endpoint, access]) =>
  CREDS.map((c) => [endpoint, c.name, access, c] as const),
);

/**
 * A machine credential is made once per kind and reused, except where the endpoint would use it up (an attestation
 * takes a registration token's one use, an enrollment the enrollment token): there it is made afresh.
 */
const made = new Map<string, string>();
async function tokenFor(endpoint: Endpoint, cred: Cred): Promise<string | null> {
  if (
    !MACHINE_CREDS.includes(cred) ||
    endpoint === 'POST /v1/hosts/attestations' ||
    endpoint === 'POST /v1/gateways/enrollments'
  )
    return cred.token();
  if (!made.has(cred.name)) made.set(cred.name, (await cred.token())!);
  return made.get(cred.name)!;
}

test.each(cases)(
  '%s with %s',
  async (endpoint, _name, access, cred) => {
    const token = await tokenFor(endpoint, cred);
    const res = await request(endpoint, token, cred.via);
    const want = expected(endpoint, access, cred);
    if (want.pass) {
      expect([401, 403]).not.toContain(res.status);
      expect(res.status).toBeLessThan(500);
      // every MCP request above is valid for an entitled caller: it succeeds
      if (endpoint.includes(' /v1/mcp/')) expect(res.status).toBeLessThan(300);
      // and so are the alert reads: the alert of project alpha is there
      if (endpoint.includes(' /v1/alerts')) expect(res.status).toBe(endpoint.startsWith('DELETE') ? 204 : 200);
      if (access.kind !== 'public' && res.status >= 400) {
        // past access, a request can still be refused by the endpoint's own rules: never as an auth failure
        // (the VEX or the comparison of a scan not completed yet, as the matrix's scans stay queued here, is 409
        // invalid_state)
        expect([
          'not_found',
          'invalid_parameter',
          'missing_parameter',
          ...(endpoint === 'GET /v1/scans/:scanId/vex' || endpoint === 'GET /v1/scans/:scanId/compare'
            ? ['invalid_state']
            : []),
        ]).toContain(res.body.error.code);
      }
    } else {
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: want.status, code: want.code });
      if (want.message) expect(res.body.error.message).toMatch(want.message);
    }
    // lists never show another organization's or an unreachable project's scans
    if (endpoint === 'GET /v1/scans' && res.status === 200 && (cred.org === 'b' || cred.restricted)) {
      expect(res.body.scans.map((s: { id: string }) => s.id)).not.toContain(ids.scan);
    }
    if (endpoint === 'GET /v1/projects' && res.status === 200) {
      const listed = res.body.projects.map((p: { id: string }) => p.id);
      if (cred.org === 'b' || cred.restricted) expect(listed).not.toContain(ids.project);
      else expect(listed).toContain(ids.project);
    }
  },
  30_000,
);

test('the matrix covers every route the app serves', async () => {
  const { createApp } = await import('../../src/http/app');
  const app = createApp({} as never);
  const served = new Set<string>();
  for (const mw of app.middleware as any[]) {
    for (const layer of mw.router?.stack ?? [])
      for (const m of layer.methods) if (m !== 'HEAD') served.add(`${m} ${layer.path}`);
  }
  // unguarded: health checks, and the web app's static files under /app (src/http/web/routes.ts)
  for (const route of served)
    if (!['GET /healthz', 'GET /readyz'].includes(route) && !/^GET \/app(\/|$)/.test(route))
      expect(Object.keys(MATRIX)).toContain(route);
  expect([...served].filter((r) => r.startsWith('GET /app')).length).toBeGreaterThan(0);
});
