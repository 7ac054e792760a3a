// What the HTTP layer needs from the rest of the process. Tests pass real implementations (MongoDB, Temporal).
import type { Logger } from '../logger';
import type { Store } from '../storage/mongo';
import type { CursorCodec } from '../storage/cursors';
import type { McpScanDoc, ScanDoc } from '../storage/documents';
import type { Principal } from './auth/principal';
import type { UploadPreparer } from '../pool/upload-pool';
import type { UploadSlots } from './scans/upload-body';
import type { RateLimiter } from './rate-limit';
import type { SecretBox } from '../storage/secrets';
import type { DestinationPolicy } from '../infra/webhooks/destination';
import type { MailSender } from '../infra/mail/types';
import type { FleetWindows } from '../domain/hosts/status';

export interface ScanStarter {
  /** Starts the scan's workflow (workflow id = scan id). Resolves false when Temporal could not be reached. */
  start(scan: ScanDoc): Promise<boolean>;
  /** Resolves once every start in flight has finished (graceful shutdown). */
  drain(): Promise<void>;
}

/** Starts the MCP scan workflow of an uploaded MCP scan (platform.md §6; workflow id = the mcs_ id). */
export interface McpScanStarter {
  /** Resolves false when Temporal could not be reached (the scan stays queued for the sweeper). */
  start(scan: McpScanDoc): Promise<boolean>;
  drain(): Promise<void>;
}

/** Holds `GET /v1/scans/{id}?wait=S` until the scan's workflow closes, without polling the database. */
export interface ScanWaiter {
  /** Resolves when the scan's workflow has closed, `ms` have passed, or close() was called, whichever comes first. */
  until(scanId: string, ms: number): Promise<void>;
  /** Ends every wait at once (shutdown: pending waits are answered with the scan as it is). */
  close(): void;
}

export interface Readiness {
  /** Temporal reachable and a worker polling the scan task queue. */
  temporal(): Promise<{ ok: boolean; detail: string }>;
}

export interface AppDeps {
  store: Store;
  cursors: CursorCodec;
  starter: ScanStarter;
  readiness: Readiness;
  logger: Logger;
  maxBodyBytes: number;
  /** Parses, validates, hashes and compresses upload bodies (large ones on a thread pool). */
  uploads: UploadPreparer;
  /** Large uploads in flight (default: UPLOADS_MAX_IN_FLIGHT, else 4); past it 503 service_unavailable. */
  uploadSlots?: UploadSlots;
  /** `?wait=` on a scan (absent: the parameter is checked, and the scan answered at once). */
  waiter?: ScanWaiter;
  /** Per-credential counters and headers (absent: no rate-limit headers). */
  rateLimiter?: RateLimiter;
  /** Invitation links and the public IP ranges (defaults: platformFromEnv()). */
  platform?: PlatformConfig;
  /** Webhooks (platform.md §8): the box sealing their secrets and the destination policy (defaults: from the environment). */
  webhooks?: { box: SecretBox; policy: DestinationPolicy };
  /** The built web app served under /app (default: dist/web of the package; tests pass a fixture folder). */
  webRoot?: string;
  /** Sign-in by emailed code (platform.md §3; defaults: MAIL_TRANSPORT, and a key derived from SECRETS_KEY). */
  signIn?: SignInConfig;
  /**
   * Hosts and gateways (platform.md §4, §5): HOST_EXPIRY, GATEWAY_EXPIRY and the pending-gateway window (defaults:
   * fleetWindowsFromEnv(); only tests pass a pending window other than the contract's 7 days).
   */
  fleet?: FleetWindows;
  /** MCP scans (platform.md §6): starts their workflow (absent: uploads are stored and stay queued). */
  mcp?: McpScanStarter;
}

export interface SignInConfig {
  mail: MailSender;
  /** The key of the codes' HMAC (domain/sign-in/codes.ts deriveCodeKey): never stored in the database. */
  codeKey: Buffer;
  /** Code requests per 15 minutes (defaults 5 per email, 20 per client address). */
  limits?: { perEmail: number; perAddress: number };
}

export interface PlatformConfig {
  publicAppUrl: string;
  /** IPv4 and IPv6 CIDRs of the challenge sources, as GET /v1/meta/ip-ranges publishes them. */
  challengeSources: string[];
  challengeSourcesUpdatedAt: Date;
}

export interface AppState {
  requestId: string;
  /** performance.now() when the request arrived. */
  startedAt: number;
  principal?: Principal;
}
