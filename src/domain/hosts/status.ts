// Statuses of hosts, gateways and their tokens, derived when read from what was decided and
// the clock: nothing writes "expired", so shortening a window (tests, HOST_EXPIRY) changes the answer at once.

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** Default lifetime of registration and enrollment tokens. */
export const TOKEN_DEFAULT_TTL_MS = DAY_MS;
export const REGISTRATION_TOKEN_MAX_TTL_MS = 30 * DAY_MS;
export const ENROLLMENT_TOKEN_MAX_TTL_MS = 7 * DAY_MS;
export const MAX_REGISTRATION_USES = 10_000;
/** HOST_EXPIRY and GATEWAY_EXPIRY default to 15 minutes; a pending gateway has 7 days to be approved. */
export const DEFAULT_EXPIRY_MS = 15 * 60_000;
export const PENDING_GATEWAY_MS = 7 * DAY_MS;

export interface FleetWindows {
  /** No heartbeat for this long: the host is expired (HOST_EXPIRY). */
  hostExpiryMs: number;
  /** An active gateway not heard from for this long is expired (GATEWAY_EXPIRY). */
  gatewayExpiryMs: number;
  /** A pending gateway not approved within this is expired for good: 7 days (fixed by the contract; tests pass less). */
  pendingGatewayMs: number;
}

export const DEFAULT_WINDOWS: FleetWindows = {
  hostExpiryMs: DEFAULT_EXPIRY_MS,
  gatewayExpiryMs: DEFAULT_EXPIRY_MS,
  pendingGatewayMs: PENDING_GATEWAY_MS,
};

/**
 * The interval a host is told to heartbeat at: a third of HOST_EXPIRY, at most 60 s and at least 1 s, so that two
 * heartbeats can be lost before the host counts as expired.
 */
export function nextHeartbeatSeconds(hostExpiryMs: number): number {
  return Math.max(1, Math.min(60, Math.floor(hostExpiryMs / 3000)));
}

export type RegistrationTokenStatus = 'active' | 'exhausted' | 'expired' | 'revoked';
export type EnrollmentTokenStatus = 'active' | 'used' | 'expired' | 'revoked';
export type HostStatus = 'active' | 'expired' | 'revoked';
export type GatewayStatus = 'pending' | 'active' | 'expired' | 'revoked';

export const REGISTRATION_TOKEN_STATUSES: readonly RegistrationTokenStatus[] = [
  'active',
  'exhausted',
  'expired',
  'revoked',
];
export const ENROLLMENT_TOKEN_STATUSES: readonly EnrollmentTokenStatus[] = ['active', 'used', 'expired', 'revoked'];
export const HOST_STATUSES: readonly HostStatus[] = ['active', 'expired', 'revoked'];
export const GATEWAY_STATUSES: readonly GatewayStatus[] = ['pending', 'active', 'expired', 'revoked'];

/** Revoked first, then used up, then past expiresAt (valid while now < expiresAt). */
export function registrationTokenStatus(
  t: { revokedAt: Date | null; expiresAt: Date; uses: number },
  used: number,
  now: Date,
): RegistrationTokenStatus {
  if (t.revokedAt) return 'revoked';
  if (used >= t.uses) return 'exhausted';
  if (t.expiresAt <= now) return 'expired';
  return 'active';
}

export function enrollmentTokenStatus(
  t: { revokedAt: Date | null; expiresAt: Date; usedAt: Date | null },
  now: Date,
): EnrollmentTokenStatus {
  if (t.revokedAt) return 'revoked';
  if (t.usedAt) return 'used';
  if (t.expiresAt <= now) return 'expired';
  return 'active';
}

export function hostStatus(
  h: { revokedAt: Date | null; lastHeartbeatAt: Date },
  w: Pick<FleetWindows, 'hostExpiryMs'>,
  now: Date,
): HostStatus {
  if (h.revokedAt) return 'revoked';
  return now.getTime() - h.lastHeartbeatAt.getTime() >= w.hostExpiryMs ? 'expired' : 'active';
}

export function gatewayStatus(
  g: { revokedAt: Date | null; state: 'pending' | 'active'; enrolledAt: Date; aliveAt: Date },
  w: FleetWindows,
  now: Date,
): GatewayStatus {
  if (g.revokedAt) return 'revoked';
  if (g.state === 'pending')
    return now.getTime() - g.enrolledAt.getTime() >= w.pendingGatewayMs ? 'expired' : 'pending';
  return now.getTime() - g.aliveAt.getTime() >= w.gatewayExpiryMs ? 'expired' : 'active';
}

/** A pending gateway past its 7 days can never be approved: its credential is refused (401) from then on. */
export const gatewayExpiredForGood = (
  g: { revokedAt: Date | null; state: 'pending' | 'active'; enrolledAt: Date },
  w: FleetWindows,
  now: Date,
): boolean => !g.revokedAt && g.state === 'pending' && now.getTime() - g.enrolledAt.getTime() >= w.pendingGatewayMs;
