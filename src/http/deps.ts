// What the HTTP layer needs from the rest of the process. Tests pass real implementations (MongoDB, Temporal).
import type { Logger } from '../logger';
import type { Store } from '../storage/mongo';
import type { CursorCodec } from '../storage/cursors';
import type { McpScanStarter, Readiness, ScanStarter, ScanWaiter, TriageReconciler } from '../ports';
import type { Principal } from './auth/principal';
import type { UploadPreparer } from '../pool/upload-pool';
import type { UploadSlots } from './upload-slots';
import type { RateLimiter } from './rate-limit';
import type { SecretBox } from '../storage/secrets';
import type { DestinationPolicy } from '../infra/webhooks/destination';
import type { MailSender } from '../infra/mail/types';
import type { FleetWindows } from '../domain/hosts/status';

export interface AppDeps {
  store: Store;
  cursors: CursorCodec;
  starter: ScanStarter;
  readiness: Readiness;
  /** The dashboard's caches built at start (src/http/warm.ts): not ready until done (absent: nothing to wait for). */
  warming?: { done(): boolean };
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
  /** Webhooks: the box sealing their secrets and the destination policy (defaults: from the environment). */
  webhooks?: { box: SecretBox; policy: DestinationPolicy };
  /** The built web app served under /app (default: dist/web of the package; tests pass a fixture folder). */
  webRoot?: string;
  /** Sign-in by emailed code (defaults: MAIL_TRANSPORT, and a key derived from SECRETS_KEY). */
  signIn?: SignInConfig;
  /**
   * Hosts and gateways: HOST_EXPIRY, GATEWAY_EXPIRY and the pending-gateway window (defaults:
   * fleetWindowsFromEnv(); only tests pass a pending window other than the contract's 7 days).
   */
  fleet?: FleetWindows;
  /** MCP scans: starts their workflow (absent: uploads are stored and stay queued). */
  mcp?: McpScanStarter;
  /**
   * Triage rules: reconciles the alerts' histories after each change (absent: the worker's hourly reconciliation
   * does it).
   */
  triage?: TriageReconciler;
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
