// One MongoDB connection per process and the collections the service uses. The same code runs on a real MongoDB
// replica set and on the local FerretDB: every hot path is an _id lookup or top-level equality (docs/configuration.md,
// "Local MongoDB-wire database").
import type { AlertAnalysisDoc, TriageRuleDoc } from './documents/triage';
import type { AlertTriageMarkDoc, TriageAnnouncementDoc, TriageReconcileDoc } from './documents/triage-marks';
import type { AlertMetricDayDoc, AlertMetricsDoc, AlertTeamMetricsDoc } from './documents/metrics';
import { MongoBulkWriteError, MongoClient, Db, Collection, MongoServerError } from 'mongodb';
import type {
  ApiKeyDoc,
  InvitationDoc,
  LoginAttemptDoc,
  LoginCodeDoc,
  LoginLimitDoc,
  MemberDoc,
  OrgDoc,
  SessionDoc,
  UserDoc,
} from './documents/accounts';
import type { AdvisoryChunkDoc, AdvisoryGenerationDoc } from './documents/advisories';
import type {
  EnrollmentTokenDoc,
  GatewayCredentialDoc,
  GatewayDoc,
  HostCredentialDoc,
  HostDoc,
  RegistrationTokenDoc,
  RegistrationUseDoc,
} from './documents/fleet';
import type { AlertEventDoc, AlertSetDoc, AlertStateDoc } from './documents/alerts';
import type { IntelChunkDoc, IntelGenerationDoc } from './documents/intel';
import type { InventoryChunkDoc, InventoryHeadDoc } from './documents/inventory';
import type {
  McpControlDoc,
  McpPlacementDoc,
  McpPlacementResultDoc,
  McpRegistryEntryDoc,
  McpScanDoc,
  McpServerDoc,
  McpToolPinDoc,
  McpUsageEventDoc,
} from './documents/mcp';
import type {
  ClaimDoc,
  IdempotencyDoc,
  ProjectDoc,
  ScanAttributionDoc,
  ScanListTokenDoc,
  ScanListPackDoc,
  ScanRegionDoc,
  ScanResultChunkDoc,
  ScanWorkDoc,
  SnapshotDoc,
  StoredScanDoc,
} from './documents/scans';
import type { ScanCompareInputsDoc, TrackedMonthsDoc, TrackedScanDoc } from './documents/compare';
import type { AuditEventDoc, CounterDoc, RateCounterDoc, SettingDoc } from './documents/service';
import type { UploadDoc, UploadLedgerDoc, UploadPartDoc } from './documents/uploads';
import type { WebhookDeliveryDoc, WebhookDoc } from './documents/webhooks';

/**
 * Every collection of the service and the document type it holds: the one declaration. The collection's name in the
 * database is its key here.
 */
export interface CollectionDocs {
  orgs: OrgDoc;
  users: UserDoc;
  members: MemberDoc;
  sessions: SessionDoc;
  apiKeys: ApiKeyDoc;
  projects: ProjectDoc;
  scans: StoredScanDoc;
  snapshots: SnapshotDoc;
  scanResults: ScanResultChunkDoc;
  scanWork: ScanWorkDoc;
  scanAttributions: ScanAttributionDoc;
  idempotency: IdempotencyDoc;
  settings: SettingDoc;
  counters: CounterDoc;
  scanRegions: ScanRegionDoc;
  scanListTokens: ScanListTokenDoc;
  scanListPacks: ScanListPackDoc;
  claims: ClaimDoc;
  invitations: InvitationDoc;
  auditEvents: AuditEventDoc;
  rateCounters: RateCounterDoc;
  advisoryGenerations: AdvisoryGenerationDoc;
  advisoryChunks: AdvisoryChunkDoc;
  intelGenerations: IntelGenerationDoc;
  intelChunks: IntelChunkDoc;
  uploads: UploadDoc;
  uploadParts: UploadPartDoc;
  webhooks: WebhookDoc;
  webhookDeliveries: WebhookDeliveryDoc;
  uploadLedger: UploadLedgerDoc;
  inventoryChunks: InventoryChunkDoc;
  inventoryHeads: InventoryHeadDoc;
  loginCodes: LoginCodeDoc;
  loginAttempts: LoginAttemptDoc;
  loginLimits: LoginLimitDoc;
  registrationTokens: RegistrationTokenDoc;
  registrationUses: RegistrationUseDoc;
  hosts: HostDoc;
  hostCredentials: HostCredentialDoc;
  enrollmentTokens: EnrollmentTokenDoc;
  gateways: GatewayDoc;
  mcpScans: McpScanDoc;
  mcpServers: McpServerDoc;
  mcpPlacements: McpPlacementDoc;
  mcpPlacementResults: McpPlacementResultDoc;
  mcpToolPins: McpToolPinDoc;
  mcpRegistry: McpRegistryEntryDoc;
  mcpControl: McpControlDoc;
  mcpUsageEvents: McpUsageEventDoc;
  gatewayCredentials: GatewayCredentialDoc;
  alertSets: AlertSetDoc;
  alertStates: AlertStateDoc;
  alertEvents: AlertEventDoc;
  trackedScans: TrackedScanDoc;
  trackedMonths: TrackedMonthsDoc;
  scanCompareInputs: ScanCompareInputsDoc;
  alertAnalyses: AlertAnalysisDoc;
  triageRules: TriageRuleDoc;
  alertTriageMarks: AlertTriageMarkDoc;
  triageReconciles: TriageReconcileDoc;
  triageAnnouncements: TriageAnnouncementDoc;
  alertMetrics: AlertMetricsDoc;
  alertTeamMetrics: AlertTeamMetricsDoc;
  alertMetricDays: AlertMetricDayDoc;
}

export type Collections = { [K in keyof CollectionDocs]: Collection<CollectionDocs[K]> };

/** The names, checked against CollectionDocs both ways (a missing or extra name does not compile). */
const COLLECTION_NAMES = Object.keys({
  orgs: true,
  users: true,
  members: true,
  sessions: true,
  apiKeys: true,
  projects: true,
  scans: true,
  snapshots: true,
  scanResults: true,
  scanWork: true,
  scanAttributions: true,
  idempotency: true,
  settings: true,
  counters: true,
  scanRegions: true,
  scanListTokens: true,
  scanListPacks: true,
  claims: true,
  invitations: true,
  auditEvents: true,
  rateCounters: true,
  advisoryGenerations: true,
  advisoryChunks: true,
  intelGenerations: true,
  intelChunks: true,
  uploads: true,
  uploadParts: true,
  webhooks: true,
  webhookDeliveries: true,
  uploadLedger: true,
  inventoryChunks: true,
  inventoryHeads: true,
  loginCodes: true,
  loginAttempts: true,
  loginLimits: true,
  registrationTokens: true,
  registrationUses: true,
  hosts: true,
  hostCredentials: true,
  enrollmentTokens: true,
  gateways: true,
  mcpScans: true,
  mcpServers: true,
  mcpPlacements: true,
  mcpPlacementResults: true,
  mcpToolPins: true,
  mcpRegistry: true,
  mcpControl: true,
  mcpUsageEvents: true,
  gatewayCredentials: true,
  alertSets: true,
  alertStates: true,
  alertEvents: true,
  trackedScans: true,
  trackedMonths: true,
  scanCompareInputs: true,
  alertAnalyses: true,
  triageRules: true,
  alertTriageMarks: true,
  triageReconciles: true,
  triageAnnouncements: true,
  alertMetrics: true,
  alertTeamMetrics: true,
  alertMetricDays: true,
} satisfies Record<keyof CollectionDocs, true>) as (keyof CollectionDocs)[];

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
    ...(uriSets(uri, 'serverSelectionTimeoutMS')
      ? {}
      : { serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS ?? 10_000 }),
    // FerretDB does not implement retryable writes; real MongoDB keeps its default behaviour through the URI.
    retryWrites: uri.includes('retryWrites=true'),
  });
  await client.connect();
  const db = client.db(dbName);
  const c = Object.fromEntries(COLLECTION_NAMES.map((name) => [name, db.collection(name)])) as unknown as Collections;
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
    c.scanListTokens.createIndex({ scope: 1, batch: 1 }),
    c.scanListPacks.createIndex({ scope: 1, batch: 1 }),
    c.scanResults.createIndex({ scanId: 1 }),
    c.scanAttributions.createIndex({ scanId: 1 }),
    c.invitations.createIndex({ id: 1 }, { unique: true }),
    c.invitations.createIndex({ orgId: 1 }),
    c.auditEvents.createIndex({ orgId: 1, _id: -1 }),
    c.auditEvents.createIndex({ orgId: 1, type: 1, _id: -1 }),
    c.auditEvents.createIndex({ orgId: 1, 'actor.email': 1, _id: -1 }),
    c.uploads.createIndex({ status: 1, expiresAt: 1 }),
    c.uploadParts.createIndex({ uploadId: 1 }),
    c.uploadLedger.createIndex({ uploadId: 1, seq: 1 }),
    c.inventoryChunks.createIndex({ scanId: 1 }),
    c.inventoryHeads.createIndex({ projectId: 1 }),
    // Intelligence feeds: a kind's generations (a handful), a generation's chunks, old chunks of a kind to delete.
    c.intelGenerations.createIndex({ kind: 1 }),
    c.intelChunks.createIndex({ generation: 1 }),
    c.intelChunks.createIndex({ kind: 1, createdAt: 1 }),
    c.webhooks.createIndex({ orgId: 1, _id: -1 }),
    c.webhookDeliveries.createIndex({ webhookId: 1, _id: -1 }),
    c.loginAttempts.createIndex({ codeId: 1 }),
    c.loginLimits.createIndex({ key: 1 }),
    // Hosts and gateways: credentials are found by _id (the hash); these serve the public ids,
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
    // MCP auditing: one inventory server per identity, one registry entry per identity; the lists in
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
    c.alertSets.createIndex({ orgId: 1 }),
    c.alertMetrics.createIndex({ orgId: 1 }),
    c.alertTeamMetrics.createIndex({ orgId: 1 }),
    c.alertMetricDays.createIndex({ orgId: 1 }),
    c.alertStates.createIndex({ pairId: 1, scanId: 1 }),
    c.alertEvents.createIndex({ alertId: 1 }),
    c.trackedScans.createIndex({ pairId: 1, commit: 1 }),
    c.trackedScans.createIndex({ pairId: 1, month: 1 }),
    c.alertAnalyses.createIndex({ orgId: 1 }),
    c.alertAnalyses.createIndex({ pairId: 1 }),
    c.alertAnalyses.createIndex({ alertId: 1 }),
    c.triageRules.createIndex({ orgId: 1 }),
    c.alertTriageMarks.createIndex({ orgId: 1 }),
    c.alertTriageMarks.createIndex({ alertId: 1 }),
    c.triageAnnouncements.createIndex({ orgId: 1 }),
  ]);
  // Earlier indexes: the scan-list ones of the bucket alone (superseded by the two above), the list tokens' by `b`.
  await Promise.all(
    ['orgId_1_orgBucket_-1', 'orgId_1_projectId_1_projectBucket_-1'].map((name) =>
      c.scans.dropIndex(name).catch(() => undefined),
    ),
  );
  await c.scanListTokens.dropIndex('scope_1_b_1').catch(() => undefined);
}

export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === 11000;
}

/** A bulk write that failed only on duplicate _ids (someone else, or an earlier attempt, wrote those documents). */
export function onlyDuplicates(err: unknown): boolean {
  if (isDuplicateKey(err)) return true;
  if (!(err instanceof MongoBulkWriteError)) return false;
  const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
  return errors.length > 0 && errors.every((e) => e.code === 11000);
}

export async function ping(store: Store): Promise<void> {
  await store.db.command({ ping: 1 });
}
