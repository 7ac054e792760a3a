// Stored documents of organizations, people and their credentials: users, members, sessions, API keys,
// invitations and sign-in codes.
import type { Role } from '../../domain/roles';

export interface OrgDoc {
  _id: string;
  name: string;
  createdAt: Date;
}

export interface UserDoc {
  _id: string;
  email: string;
  createdAt: Date;
}

export interface MemberDoc {
  _id: string;
  orgId: string;
  userId: string;
  email: string;
  role: Role;
  joinedAt: Date;
}

/** _id is the SHA-256 of the session token; the token itself is never stored. */
/**
 * A session: `via` 'cli' (the operator CLI's Bearer sessions; absent on older documents) or 'app' (signed in through
 * POST /v1/sessions: the cookie session, which also ends after SESSION_IDLE_MS without use).
 * lastUsedAt is refreshed at most once a minute.
 */
export interface SessionDoc {
  _id: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  via?: 'cli' | 'app';
  lastUsedAt?: Date;
}

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

/** The current one-time sign-in code of an email (storage/login-codes.ts): _id = the normalised email; hashes only. */
export interface LoginCodeDoc {
  _id: string;
  codeId: string;
  codeHash: string;
  bindingHash: string;
  createdAt: Date;
  expiresAt: Date;
}

/** One decision about a code: its n-th attempt (_id `${codeId}:${n}`) or how it ended (_id `${codeId}:end`). */
export interface LoginAttemptDoc {
  _id: string;
  codeId: string;
  kind: 'attempt' | 'used' | 'replaced';
  at: Date;
  expiresAt: Date;
}

/** The n-th code request of one limit key in one window: _id = `${key}:${n}`, key = `${scope}:${sha256}:${window}`. */
export interface LoginLimitDoc {
  _id: string;
  key: string;
  at: Date;
  expiresAt: Date;
}
