// One MongoDB connection per process and the collections the service uses. The same code runs on a real MongoDB
// replica set and on the local FerretDB: every hot path is an _id lookup or top-level equality (local-database.md).
import { MongoClient, Db, Collection, MongoServerError } from 'mongodb';
import type * as D from './documents';
import { refileLegacyScans } from './scan-regions-upgrade';

export interface Collections {
  orgs: Collection<D.OrgDoc>;
  users: Collection<D.UserDoc>;
  members: Collection<D.MemberDoc>;
  sessions: Collection<D.SessionDoc>;
  apiKeys: Collection<D.ApiKeyDoc>;
  projects: Collection<D.ProjectDoc>;
  scans: Collection<D.StoredScanDoc>;
  snapshots: Collection<D.SnapshotDoc>;
  scanResults: Collection<D.ScanResultChunkDoc>;
  scanWork: Collection<D.ScanWorkDoc>;
  scanAttributions: Collection<D.ScanAttributionDoc>;
  idempotency: Collection<D.IdempotencyDoc>;
  settings: Collection<D.SettingDoc>;
  counters: Collection<D.CounterDoc>;
  scanRegions: Collection<D.ScanRegionDoc>;
  scanListTokens: Collection<D.ScanListTokenDoc>;
  claims: Collection<D.ClaimDoc>;
  invitations: Collection<D.InvitationDoc>;
  auditEvents: Collection<D.AuditEventDoc>;
  rateCounters: Collection<D.RateCounterDoc>;
  advisoryGenerations: Collection<D.AdvisoryGenerationDoc>;
  advisoryChunks: Collection<D.AdvisoryChunkDoc>;
  uploads: Collection<D.UploadDoc>;
  uploadParts: Collection<D.UploadPartDoc>;
  webhooks: Collection<D.WebhookDoc>;
  webhookDeliveries: Collection<D.WebhookDeliveryDoc>;
  uploadLedger: Collection<D.UploadLedgerDoc>;
  inventoryChunks: Collection<D.InventoryChunkDoc>;
  inventoryHeads: Collection<D.InventoryHeadDoc>;
  loginCodes: Collection<D.LoginCodeDoc>;
  loginAttempts: Collection<D.LoginAttemptDoc>;
  loginLimits: Collection<D.LoginLimitDoc>;
  registrationTokens: Collection<D.RegistrationTokenDoc>;
  registrationUses: Collection<D.RegistrationUseDoc>;
  hosts: Collection<D.HostDoc>;
  hostCredentials: Collection<D.HostCredentialDoc>;
  enrollmentTokens: Collection<D.EnrollmentTokenDoc>;
  gateways: Collection<D.GatewayDoc>;
  mcpScans: Collection<D.McpScanDoc>;
  mcpServers: Collection<D.McpServerDoc>;
  mcpPlacements: Collection<D.McpPlacementDoc>;
  mcpPlacementResults: Collection<D.McpPlacementResultDoc>;
  mcpToolPins: Collection<D.McpToolPinDoc>;
  mcpRegistry: Collection<D.McpRegistryEntryDoc>;
  mcpControl: Collection<D.McpControlDoc>;
  mcpUsageEvents: Collection<D.McpUsageEventDoc>;
  gatewayCredentials: Collection<D.GatewayCredentialDoc>;
}

export interface Store {
  client: MongoClient;
  db: Db;
  c: Collections;
  close(): Promise<void>;
}

export interface StoreOptions {
  maxPoolSize?: number;
  /**
   * How long an operation waits for a reachable server before failing (default 10 s). The API uses less, so that a
   * request meeting an outage fails fast (503 service_unavailable, Retry-After) instead of hanging; activities keep
   * the default and are retried by Temporal. A serverSelectionTimeoutMS in the URI wins over both.
   */
  serverSelectionTimeoutMS?: number;
}

/** An option the URI itself sets: the driver would let our constructor options override it, so we yield to it. */
function uriSets(uri: string, option: string): boolean {
  const query = uri.split('?')[1] ?? '';
  return query.split('&').some((kv) => kv.split('=')[0].toLowerCase() === option.toLowerCase());
}

export async function connectStore(uri: string, dbName = 'scanner', opts: StoreOptions = {}): Promise<Store> {
  // The client reconnects by itself after an outage: a failed operation marks the server unknown, and the next one
  // waits (up to serverSelectionTimeoutMS) while the monitor checks the server again every 500 ms.
  const client = new MongoClient(uri, {
    maxPoolSize: opts.maxPoolSize ?? 20,
    ...(uriSets(uri, 'serverSelectionTimeoutMS') ? {} : { serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS ?? 10_000 }),
    // FerretDB does not implement retryable writes; real MongoDB keeps its default behaviour through the URI.
    retryWrites: uri.includes('retryWrites=true'),
  });
  await client.connect();
  const db = client.db(dbName);
  const c: Collections = {
    orgs: db.collection('orgs'),
    users: db.collection('users'),
    members: db.collection('members'),
    sessions: db.collection('sessions'),
    apiKeys: db.collection('apiKeys'),
    projects: db.collection('projects'),
    scans: db.collection('scans'),
    snapshots: db.collection('snapshots'),
    scanResults: db.collection('scanResults'),
    scanWork: db.collection('scanWork'),
    scanAttributions: db.collection('scanAttributions'),
    idempotency: db.collection('idempotency'),
    settings: db.collection('settings'),
    counters: db.collection('counters'),
    scanRegions: db.collection('scanRegions'),
    scanListTokens: db.collection('scanListTokens'),
    claims: db.collection('claims'),
    invitations: db.collection('invitations'),
    auditEvents: db.collection('auditEvents'),
    rateCounters: db.collection('rateCounters'),
    advisoryGenerations: db.collection('advisoryGenerations'),
    advisoryChunks: db.collection('advisoryChunks'),
    uploads: db.collection('uploads'),
    uploadParts: db.collection('uploadParts'),
    uploadLedger: db.collection('uploadLedger'),
    inventoryChunks: db.collection('inventoryChunks'),
    inventoryHeads: db.collection('inventoryHeads'),
    webhooks: db.collection('webhooks'),
    webhookDeliveries: db.collection('webhookDeliveries'),
    loginCodes: db.collection('loginCodes'),
    loginAttempts: db.collection('loginAttempts'),
    loginLimits: db.collection('loginLimits'),
    registrationTokens: db.collection('registrationTokens'),
    registrationUses: db.collection('registrationUses'),
    hosts: db.collection('hosts'),
    hostCredentials: db.collection('hostCredentials'),
    enrollmentTokens: db.collection('enrollmentTokens'),
    gateways: db.collection('gateways'),
    gatewayCredentials: db.collection('gatewayCredentials'),
    mcpScans: db.collection('mcpScans'),
    mcpServers: db.collection('mcpServers'),
    mcpPlacements: db.collection('mcpPlacements'),
    mcpPlacementResults: db.collection('mcpPlacementResults'),
    mcpToolPins: db.collection('mcpToolPins'),
    mcpRegistry: db.collection('mcpRegistry'),
    mcpControl: db.collection('mcpControl'),
    mcpUsageEvents: db.collection('mcpUsageEvents'),
  };
  return { client, db, c, close: () => client.close() };
}

/** Indexes for real MongoDB (FerretDB creates them but barely uses them). Idempotent. */
export async function ensureIndexes(store: Store): Promise<void> {
  const { c } = store;
  await Promise.all([
    c.users.createIndex({ email: 1 }, { unique: true }),
    c.members.createIndex({ userId: 1 }, { unique: true }),
    c.members.createIndex({ orgId: 1 }),
    c.apiKeys.createIndex({ id: 1 }, { unique: true }),
    c.apiKeys.createIndex({ orgId: 1, id: -1 }),
    c.projects.createIndex({ orgId: 1, slug: 1 }, { unique: true }),
    // Scan lists: a group read by equality, in list order (storage/scans.ts listScans).
    c.scans.createIndex({ orgId: 1, orgBucket: -1, startedAt: -1, _id: -1 }),
    c.scans.createIndex({ orgId: 1, projectId: 1, projectBucket: -1, startedAt: -1, _id: -1 }),
    c.scans.createIndex({ status: 1 }),
    c.scanListTokens.createIndex({ scope: 1, b: 1 }),
    c.scanResults.createIndex({ scanId: 1 }),
    c.scanAttributions.createIndex({ scanId: 1 }),
    c.invitations.createIndex({ id: 1 }, { unique: true }),
    c.invitations.createIndex({ orgId: 1 }),
    c.auditEvents.createIndex({ orgId: 1, _id: -1 }),
    c.uploads.createIndex({ status: 1, expiresAt: 1 }),
    c.uploadParts.createIndex({ uploadId: 1 }),
    c.uploadLedger.createIndex({ uploadId: 1, seq: 1 }),
    c.inventoryChunks.createIndex({ scanId: 1 }),
    c.inventoryHeads.createIndex({ projectId: 1 }),
    c.webhooks.createIndex({ orgId: 1, _id: -1 }),
    c.webhookDeliveries.createIndex({ webhookId: 1, _id: -1 }),
    c.loginAttempts.createIndex({ codeId: 1 }),
    c.loginLimits.createIndex({ key: 1 }),
    // Hosts and gateways (platform.md §4, §5): credentials are found by _id (the hash); these serve the public ids,
    // the lists in their orders, a machine's hosts and the uses of a token.
    c.registrationTokens.createIndex({ id: 1 }, { unique: true }),
    c.registrationTokens.createIndex({ orgId: 1, id: -1 }),
    c.registrationUses.createIndex({ orgId: 1, tokenId: 1 }),
    c.hosts.createIndex({ orgId: 1, machineId: 1, machineSeq: -1 }),
    c.hosts.createIndex({ orgId: 1, hostname: 1, _id: 1 }),
    c.hosts.createIndex({ orgId: 1, labels: 1 }),
    c.hostCredentials.createIndex({ hostId: 1 }),
    c.enrollmentTokens.createIndex({ id: 1 }, { unique: true }),
    c.enrollmentTokens.createIndex({ orgId: 1, id: -1 }),
    c.gateways.createIndex({ orgId: 1, name: 1, _id: 1 }),
    c.gatewayCredentials.createIndex({ gatewayId: 1 }),
    // MCP auditing (platform.md §6): one inventory server per identity, one registry entry per identity; the lists in
    // their orders; the placements of a host, client and config path (replaced per scan) and of a server.
    c.mcpScans.createIndex({ orgId: 1, _id: -1 }),
    c.mcpServers.createIndex({ orgId: 1, identity: 1 }),
    c.mcpPlacements.createIndex({ orgId: 1, hostKey: 1, client: 1, configPath: 1 }),
    c.mcpPlacements.createIndex({ orgId: 1, serverId: 1 }),
    c.mcpPlacementResults.createIndex({ orgId: 1, hostKey: 1 }),
    c.mcpRegistry.createIndex({ orgId: 1, identity: 1 }),
    c.mcpUsageEvents.createIndex({ orgId: 1, id: -1 }),
    c.mcpUsageEvents.createIndex({ orgId: 1, serverId: 1, id: -1 }),
    c.mcpUsageEvents.createIndex({ orgId: 1, serverId: 1, occurredAt: -1 }),
    c.mcpUsageEvents.createIndex({ orgId: 1, hostId: 1, id: -1 }),
  ]);
  // The earlier scan-list indexes (bucket alone), superseded by the two above.
  await Promise.all(['orgId_1_orgBucket_-1', 'orgId_1_projectId_1_projectBucket_-1'].map((name) => c.scans.dropIndex(name).catch(() => undefined)));
  await refileLegacyScans(store); // once: scans stored before the scan list's time partition
}

export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === 11000;
}

export async function ping(store: Store): Promise<void> {
  await store.db.command({ ping: 1 });
}
