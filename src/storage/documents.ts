// Stored document shapes. They never leave storage/ and the presenters: the HTTP layer shapes responses itself.
import type { Binary } from 'mongodb';
import type { ScanModule } from '../domain/attribution/module-order';
import type { PartCounts } from '../domain/snapshot/parts';
import type { Ecosystem, FailureReason, ScanStatus, SeverityCounts, SnapshotMetadata } from '../domain/types';

import type { Role } from '../domain/roles';

export interface OrgDoc { _id: string; name: string; createdAt: Date }
export interface UserDoc { _id: string; email: string; createdAt: Date }
export interface MemberDoc { _id: string; orgId: string; userId: string; email: string; role: Role; joinedAt: Date }
/** _id is the SHA-256 of the session token; the token itself is never stored. */
/**
 * A session: `via` 'cli' (the operator CLI's Bearer sessions; absent on older documents) or 'app' (signed in through
 * POST /v1/sessions, platform.md §3: the cookie session, which also ends after SESSION_IDLE_MS without use).
 * lastUsedAt is refreshed at most once a minute.
 */
export interface SessionDoc { _id: string; userId: string; createdAt: Date; expiresAt: Date; revokedAt: Date | null; via?: 'cli' | 'app'; lastUsedAt?: Date }

/** _id is the SHA-256 of the secret, so authentication is one _id read; `id` is the public key_ id. */
export interface ApiKeyDoc {
  _id: string;
  id: string;
  orgId: string;
  name: string;
  prefix: string;
  scopes: string[];
  projects: 'all' | string[];
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface ProjectDoc { _id: string; orgId: string; slug: string; createdAt: Date }

export interface ScanDoc {
  _id: string;
  orgId: string;
  projectId: string;
  target: string;
  ecosystem: Ecosystem;
  schemaVersion: 1 | 2;
  status: ScanStatus;
  startedAt: Date;
  finishedAt: Date | null;
  failureReason: FailureReason | null;
  failureMessage?: string | null;
  findings: SeverityCounts | null;
  suppressed: number | null;
  nodeCount: number;
  /** v2: vertices + edges of all resolutions (0 for v1); decides the fast path. */
  graphSize?: number;
  bodyBytes: number;
  /** The snapshot's metadata (platform.md §7); absent on scans stored before it existed. */
  metadata?: SnapshotMetadata | null;
  /** List buckets: the scan's group in its organization's and its project's time partition (storage/scan-regions.ts). */
  orgBucket: number;
  projectBucket: number;
  /** Set on completion: the advisory generation the scan was matched against. */
  advisoryGeneration?: string | null;
  unmatchedVersions?: number | null;
  /** Set on completion: how many result chunks and findings were written. */
  resultChunks?: number;
  findingCount?: number;
  /** Set on completion of a v2 scan: how many modules its metadata document holds (storage/results.ts). */
  moduleCount?: number;
  /** Multipart scans (platform.md §2): 'paged', and the upload whose parts hold the snapshot. Absent on inline scans. */
  attributionMode?: 'paged';
  uploadId?: string;
  /** Not stored on the scan: loaded beside it for the Scan resource when moduleCount > 0. */
  modules?: ScanModule[];
}

/**
 * A scan as stored: the fields that queries filter on at the top level, the rest packed into two Binary JSON
 * values, `v` (fixed at upload) and `r` (what processing sets, replaced whole by each status move, which is one
 * conditional update on `status`). FerretDB decodes every field of every document a list touches, slowly, while a
 * Binary value moves at memory speed (local-database.md): a page of 50 scans costs half as much this way.
 */
export interface StoredScanDoc {
  _id: string;
  orgId: string;
  projectId: string;
  status: ScanStatus;
  orgBucket: number;
  projectBucket: number;
  startedAt: Date;
  v: Binary;
  r: Binary;
}

export interface SnapshotDoc { _id: string; orgId: string; encoding: 'gzip'; bytes: number; data: Binary }

/** Findings of a completed scan, in list order, gzip-compressed JSON, split in chunks. _id = `${scanId}:${n}`. */
export interface ScanResultChunkDoc { _id: string; scanId: string; n: number; count: number; data: Binary }

/** Intermediate results between a scan's activities (claim check). _id = `${scanId}:${kind}`; replaced on retry. */
export interface ScanWorkDoc { _id: string; scanId: string; kind: string; data: Binary; meta?: Record<string, number | boolean> }

/** _id = `${orgId}:${idempotencyKey}`. No TTL index (FerretDB has none): expiry is checked on read. */
export interface IdempotencyDoc { _id: string; bodyHash: string; scanId: string; createdAt: Date; expiresAt: Date }

export interface SettingDoc { _id: string; value: unknown }
export interface CounterDoc { _id: string; seq: number }
/**
 * One region of a scope's scan-list time partition (domain/scan-list/regions.ts), immutable once inserted:
 * _id = `${scope}|${n}`, scope `o:${orgId}` or `p:${projectId}`; start/end/since in ms since the epoch.
 */
export interface ScanRegionDoc { _id: string; scope: string; n: number; start: number; end: number; g: number; since: number }
/**
 * Changes of one list group (storage/scan-list-cache.ts): `t` is set to a fresh random value after every write to a
 * scan of the group. _id = `${scope}|${g}`; b = floor(g / 8), so that a page reads the tokens of its groups at once.
 */
export interface ScanListTokenDoc { _id: string; scope: string; b: number; t: number }
/** _id is the SHA-256 of the svc_inv_ token; `id` is the public inv_ id. Status expired is derived from expiresAt. */
export interface InvitationDoc {
  _id: string;
  id: string;
  orgId: string;
  email: string;
  role: Exclude<Role, never>;
  status: 'pending' | 'accepted' | 'revoked';
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
}
/** One audit event; _id is a time-sortable aud_ id, so newest first is _id descending. */
export interface AuditEventDoc {
  _id: string;
  orgId: string;
  type: string;
  /** A person (memberId, userId, email), or a machine credential: then those are null and one of the ids below says which. */
  actor: { memberId: string | null; userId: string | null; email: string | null; registrationTokenId?: string; hostId?: string; enrollmentTokenId?: string; gatewayId?: string };
  target: { kind: string; id: string; [k: string]: unknown };
  at: Date;
  requestId: string | null;
}
/** Requests of one credential in one minute: _id = `${credentialHash}:${minute}`. */
export interface RateCounterDoc { _id: string; n: number; expiresAt: Date }
/** First-writer-wins decisions, made by the uniqueness of _id (see storage/scans.ts claim()). */
export interface ClaimDoc { _id: string; value: string; at: Date }
/** The current one-time sign-in code of an email (storage/login-codes.ts): _id = the normalised email; hashes only. */
export interface LoginCodeDoc { _id: string; codeId: string; codeHash: string; bindingHash: string; createdAt: Date; expiresAt: Date }
/** One decision about a code: its n-th attempt (_id `${codeId}:${n}`) or how it ended (_id `${codeId}:end`). */
export interface LoginAttemptDoc { _id: string; codeId: string; kind: 'attempt' | 'used' | 'replaced'; at: Date; expiresAt: Date }
/** The n-th code request of one limit key in one window: _id = `${key}:${n}`, key = `${scope}:${sha256}:${window}`. */
export interface LoginLimitDoc { _id: string; key: string; at: Date; expiresAt: Date }

export interface AdvisoryGenerationDoc {
  _id: string;
  createdAt: Date;
  previous: string | null;
  advisoryCount: number;
  chunks: number;
  digest: string;
  counts: Record<string, number>;
  sources: string[];
}
/** Immutable advisory data of one generation: gzip JSON array of OSV advisories. _id = `${generation}:${n}`. */
export interface AdvisoryChunkDoc { _id: string; generation: string; n: number; data: Binary }

/**
 * A completed scan's dependency inventory (platform.md §1), items in list order, gzip-compressed JSON, split in
 * chunks. _id = `${scanId}:${n}`; `chunks` (how many there are) is on every one of them.
 */
export interface InventoryChunkDoc { _id: string; scanId: string; n: number; chunks: number; count: number; data: Binary }
/**
 * A scan whose inventory is written, found by its project (top-level equality): the candidates for "the latest
 * completed scan of each ecosystem". _id = the scan id; written before the scan is marked completed, so a reader
 * checks the scan's status. Entries that can no longer be the latest are deleted (storage/inventory.ts).
 */
export interface InventoryHeadDoc { _id: string; projectId: string; ecosystem: string; startedAt: Date }

/**
 * A paged scan's attributions, scope index and module counts (storage/attributions.ts), written before the scan is
 * completed. _id = `${scanId}:list|path|scope|modcounts:...`. The first list chunk of a package also holds `chunks`,
 * `count` and `pathStarts`; a scope list holds `count` findings.
 */
export interface ScanAttributionDoc { _id: string; scanId: string; data: Binary; chunks?: number; count?: number; pathStarts?: number[] }

/**
 * A multipart upload (platform.md §2; storage/uploads.ts). `expired` is written by the cleanup; an open upload read
 * past expiresAt is expired already. Who completes, rejects or expires it is decided by a claim (first writer wins);
 * this document follows the claim.
 */
export interface UploadDoc {
  _id: string;
  orgId: string;
  projectId: string;
  /** The project's slug (the scan's target). */
  target: string;
  ecosystem: Ecosystem;
  parts: number;
  status: 'open' | 'completed' | 'rejected' | 'expired';
  createdAt: Date;
  expiresAt: Date;
  /** The create body (stored as part 0): its SHA-256 hex and size. */
  headerSha256: string;
  headerBytes: number;
  scanId: string | null;
  /** The answer a completion got when it rejected the upload (413 or 422): repeated to later completions. */
  rejection: { status: number; code: string; message: string } | null;
  /** The parts received, recorded when the upload closed (while it is open they are read from its parts). */
  received: number[] | null;
  /** A rejected or expired upload's parts are deleted; true once they are. */
  partsDeleted: boolean;
}
/** A part (n ≥ 1) of an upload, or its create body (n = 0): the bytes as sent, gzip-compressed. _id = `${uploadId}:${n}`. */
export interface UploadPartDoc { _id: string; uploadId: string; n: number; sha256: string; bytes: number; counts: PartCounts; data: Binary; at: Date }
/** An entry of an upload's budget ledger (domain/snapshot/parts-ledger.ts). _id = `${uploadId}:${seq}`. */
export interface UploadLedgerDoc { _id: string; uploadId: string; seq: number; n: number; sha256: string; counts: PartCounts; at: Date }

/**
 * A webhook (platform.md §8): its signing secret encrypted at rest (storage/secrets.ts), since signing needs it back.
 * Deleting one sets deletedAt (the delivery log stays readable by id until then; lists skip it).
 */
export interface WebhookDoc {
  _id: string; // whk_...
  orgId: string;
  url: string;
  events: string[];
  secret: EncryptedSecret;
  createdBy: string | null;
  createdAt: Date;
  deletedAt: Date | null;
}

/** AES-256-GCM ciphertext of a secret, with the id of the key that sealed it (storage/secrets.ts). */
export interface EncryptedSecret { v: 1; kid: string; iv: string; tag: string; data: string }

/**
 * One delivery of one event to one webhook (_id dlv_..., the X-Svc-Delivery header, the same on every retry) and its
 * attempts so far, newest last.
 */
export interface WebhookDeliveryDoc {
  _id: string;
  orgId: string;
  webhookId: string;
  eventId: string;
  type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Array<{ n: number; at: Date; durationMs: number; statusCode: number | null; error: string | null }>;
  /** The raw JSON body, built once when the event's deliveries are recorded: every attempt sends these bytes. */
  body: string;
  /** Why a failed delivery stopped (its webhook was deleted, or the retry window ended); null otherwise. */
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A host registration token (platform.md §4; storage/hosts.ts): _id = SHA-256 of the svc_reg_ token, `id` the public
 * hrt_ id. Its uses are RegistrationUseDocs (exact); `used` is only a hint where to look for the next free one.
 * Labels are stored as sorted "key=value" strings (domain/hosts/labels.ts).
 */
export interface RegistrationTokenDoc {
  _id: string;
  id: string;
  orgId: string;
  name: string;
  uses: number;
  used: number;
  labels: string[];
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}
/** Use n (1..uses) of a registration token: _id = `${tokenId}:${n}`; the insert that creates it takes that use. */
export interface RegistrationUseDoc { _id: string; tokenId: string; orgId: string; n: number; hostId: string; at: Date }

/**
 * A host (platform.md §4; storage/hosts.ts). `expired` is derived when read (no heartbeat for HOST_EXPIRY); revoked
 * is revokedAt. Its machine's hosts are numbered (machineSeq): a revoked host is never revived, the machine's next
 * attestation makes host machineSeq + 1. Only the credential of generation `credentialGen` is valid.
 */
export interface HostDoc {
  _id: string; // hst_...
  orgId: string;
  hostname: string;
  machineId: string;
  machineSeq: number;
  os: string | null;
  arch: string | null;
  agentVersion: string | null;
  /** "key=value" strings: the registration token's, the host's own (attestation, heartbeats), and both merged (token wins). */
  tokenLabels: string[];
  hostLabels: string[];
  labels: string[];
  connectivity: 'direct' | 'gateway';
  gatewayId: string | null;
  registrationTokenId: string;
  registeredAt: Date;
  attestedAt: Date;
  lastHeartbeatAt: Date;
  credentialGen: number;
  revokedAt: Date | null;
}
/** A host credential: _id = SHA-256 of the svc_hst_ secret; valid while its host's credentialGen is `gen`. */
export interface HostCredentialDoc { _id: string; hostId: string; orgId: string; gen: number; createdAt: Date }

/** A gateway enrollment token (platform.md §5; storage/gateways.ts): _id = SHA-256 of the svc_gw_ token. Single use. */
export interface EnrollmentTokenDoc {
  _id: string;
  id: string; // gwt_...
  orgId: string;
  name: string;
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  usedAt: Date | null;
  gatewayId: string | null;
}

/**
 * A gateway (platform.md §5; storage/gateways.ts). `state` is what was decided (pending until approved); the status
 * adds what time decides when read: a pending gateway not approved within 7 days is expired for good, an active one
 * not heard from (aliveAt: its last heartbeat or its approval, whichever is later) for GATEWAY_EXPIRY is expired
 * until its next heartbeat.
 */
export interface GatewayDoc {
  _id: string; // gw_...
  orgId: string;
  name: string;
  state: 'pending' | 'active';
  requestedScope: string[];
  networkScope: string[];
  version: string;
  enrollmentTokenId: string;
  enrolledAt: Date;
  lastSeenAt: Date;
  aliveAt: Date;
  approvedAt: Date | null;
  approvedBy: string | null;
  revokedAt: Date | null;
}
/** A gateway credential: _id = SHA-256 of the svc_gwc_ secret. */
export interface GatewayCredentialDoc { _id: string; gatewayId: string; orgId: string; createdAt: Date }

// ---- MCP auditing (platform.md §6; issue 19). Secret values are never stored: of env and headers only the names.

export type McpIssueCode =
  | 'vulnerable_package'
  | 'registry_denied'
  | 'secret_in_config'
  | 'tool_definition_changed'
  | 'prompt_injection_suspected'
  | 'tool_shadowing'
  | 'insecure_transport'
  | 'unpinned_package'
  | 'not_in_registry';
export type McpSeverity = 'critical' | 'high' | 'medium' | 'low';

/**
 * A tool as reported (by `--introspect`), its description and inputSchema redacted before storing. The inputSchema is
 * kept as JSON text (null when none): JSON Schemas are full of `$schema`/`$ref` keys that FerretDB refuses as field
 * names. storedInputSchema() (storage/mcp-scans.ts) reads it back.
 */
export interface McpStoredTool {
  name: string;
  description: string | null;
  inputSchema: string | null;
}

/**
 * One configured server of an MCP scan as stored: args, url and command redacted (src/domain/mcp/redact.ts), env and
 * header *names* only, and what the upload found secret (`secrets`: `env:NAME`, `header:NAME`, `args`, `url`,
 * `command`) for secret_in_config, so no value is needed later.
 */
export interface McpStoredServer {
  name: string;
  transport: 'stdio' | 'http' | 'sse';
  command: string | null;
  args: string[];
  url: string | null;
  envNames: string[];
  headerNames: string[];
  secrets: string[];
  tools: McpStoredTool[] | null;
}

export interface McpStoredClient {
  client: string;
  configPath: string;
  scope: 'user' | 'project' | 'managed';
  servers: McpStoredServer[];
}

/** POST /v1/mcp/scans: stored at upload (status queued), processed by the MCP scan workflow (workflow id = _id). */
export interface McpScanDoc {
  _id: string; // mcs_...
  orgId: string;
  /** The host: implied by a host credential, or named by {hostId} (an active host of the organization). */
  hostId: string | null;
  /** {hostname} as given: never creates a host. */
  reportedHostname: string | null;
  receivedAt: Date;
  scannedAt: Date | null;
  status: 'queued' | 'running' | 'completed' | 'failed';
  finishedAt: Date | null;
  failureReason: string | null;
  clients: McpStoredClient[];
  /** After processing: the number of servers and issues by code. */
  servers: number | null;
  issues: Partial<Record<McpIssueCode, number>> | null;
}

/** A server of the organization's inventory: one per identity (src/domain/mcp/identity.ts). */
export interface McpServerDoc {
  _id: string; // mcp_...
  orgId: string;
  identity: string;
  /** What the identity is: a package (npm, pypi, oci), a remote URL or another command. */
  kind: 'npm' | 'pypi' | 'oci' | 'remote' | 'command';
  names: string[];
  transport: 'stdio' | 'http' | 'sse';
  versions: string[];
  firstSeenAt: Date;
  lastSeenAt: Date;
}

/**
 * Where a server is configured now: one per (organization, host, client, config path, server name); replaced by
 * each scan of that host, client and config path, so a server belongs to a host while its latest scan shows it. The
 * host key is `hst_...`, else `name:<reportedHostname>`.
 */
export interface McpPlacementDoc {
  _id: string;
  orgId: string;
  hostKey: string;
  hostId: string | null;
  reportedHostname: string | null;
  client: string;
  configPath: string;
  name: string;
  serverId: string;
  identity: string;
  version: string | null;
  scanId: string;
  seenAt: Date;
  /** The issues of this placement, from its latest scan. */
  issues: McpIssueDoc[];
}

/**
 * The placements one MCP scan computed for its host, written once before any placement (src/storage/mcp-processing.ts):
 * each (client, config path) of the host belongs to the newest scan whose result is here. A result is deleted once a
 * newer result of the same host covers all its groups.
 */
export interface McpPlacementResultDoc {
  _id: string; // the mcs_ id of the scan
  orgId: string;
  hostKey: string;
  hostId: string | null;
  reportedHostname: string | null;
  receivedAt: Date;
  /** The group keys, JSON [client, configPath]. */
  groups: string[];
  /** PlacementGroup[] as JSON. */
  placements: string;
}

export interface McpIssueDoc {
  code: McpIssueCode;
  severity: McpSeverity;
  message: string;
  serverId: string;
  tool?: string;
  details?: Record<string, unknown>;
}

/** The first definition seen of a tool, per organization, identity and version (tool pinning). */
export interface McpToolPinDoc {
  _id: string; // sha256 of orgId, identity, version, tool name
  orgId: string;
  identity: string;
  version: string | null;
  tool: string;
  hash: string;
  firstSeenAt: Date;
  scanId: string;
}

export interface McpRegistryEntryDoc {
  _id: string; // mre_...
  orgId: string;
  identity: string;
  versions: string[] | null;
  decision: 'allow' | 'deny';
  note: string | null;
  updatedBy: string;
  updatedAt: Date;
}

export interface McpControlDoc {
  _id: string; // orgId
  level: 'observe' | 'warn' | 'block';
  updatedAt: Date;
  updatedBy: string;
}

/** A usage event, idempotent per (organization, eventId): _id = SHA-256 of both. Never raw tool arguments. */
export interface McpUsageEventDoc {
  _id: string;
  id: string; // mue_..., sortable by reception
  orgId: string;
  eventId: string;
  occurredAt: Date;
  receivedAt: Date;
  hostId: string | null;
  reportedHostname: string | null;
  client: string;
  serverId: string | null;
  identity: string | null;
  serverName: string | null;
  tool: string;
  phase: 'pre' | 'post';
  outcome: 'ok' | 'error' | 'blocked' | null;
  durationMs: number | null;
  /** pre events: the decision given, returned again for a repeated eventId. */
  decision: { decision: 'allow' | 'warn' | 'block'; reason: string } | null;
}
