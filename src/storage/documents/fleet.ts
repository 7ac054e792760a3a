// Stored documents of hosts and gateways: registration and enrollment tokens, credentials, the machines.

/**
 * A host registration token (storage/hosts.ts): _id = SHA-256 of the svc_reg_ token, `id` the public
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
export interface RegistrationUseDoc {
  _id: string;
  tokenId: string;
  orgId: string;
  n: number;
  hostId: string;
  at: Date;
}

/**
 * A host (storage/hosts.ts). `expired` is derived when read (no heartbeat for HOST_EXPIRY); revoked
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
export interface HostCredentialDoc {
  _id: string;
  hostId: string;
  orgId: string;
  gen: number;
  createdAt: Date;
}

/** A gateway enrollment token (storage/gateways.ts): _id = SHA-256 of the svc_gw_ token. Single use. */
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
 * A gateway (storage/gateways.ts). `state` is what was decided (pending until approved); the status
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
export interface GatewayCredentialDoc {
  _id: string;
  gatewayId: string;
  orgId: string;
  createdAt: Date;
}
