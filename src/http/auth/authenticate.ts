// Credentials → Principal, or 401 invalid_token: a Bearer credential, else the web app's session cookie under the
// rules of cookies.ts. Secrets are only ever hashed, never logged or stored.
import type { Context } from 'koa';
import { ApiError } from '../../domain/errors';
import { sha256Hex } from '../../domain/ids';
import { findSession, findUser, memberOfUser, sessionStatus, touchSession } from '../../storage/accounts';
import { findApiKeyByHash, keyStatus, touchApiKey } from '../../storage/api-keys';
import type { Store } from '../../storage/mongo';
import {
  DEFAULT_WINDOWS,
  enrollmentTokenStatus,
  gatewayExpiredForGood,
  type FleetWindows,
} from '../../domain/hosts/status';
import type { GatewayDoc, HostDoc } from '../../storage/documents/fleet';
import { findEnrollmentTokenByHash } from '../../storage/enrollment-tokens';
import { findGatewayCredential } from '../../storage/gateways';
import { credentialValid, findHostCredential } from '../../storage/hosts';
import { findRegistrationTokenByHash } from '../../storage/registration-tokens';
import type { AppDeps } from '../deps';
import { cookieCredential, originOf } from './cookies';
import type { MachinePrincipal, Principal } from './principal';

const invalid = (why: string) => new ApiError(401, 'invalid_token', `Authorization: ${why}`);

/** The request's credential: the Bearer one when an Authorization header is sent (it wins), else the cookie's. */
function credential(ctx: Context, appOrigin: string): string {
  const h = ctx.get('Authorization');
  if (h) {
    const m = /^Bearer ([A-Za-z0-9_\-.~+/=]{8,512})$/.exec(h);
    if (!m) throw invalid('malformed bearer credential');
    return m[1];
  }
  const cookie = cookieCredential(ctx, appOrigin);
  if (cookie && 'token' in cookie) return cookie.token;
  throw invalid(cookie ? `missing bearer credential (${cookie.ignored})` : 'missing bearer credential');
}

/** Why a host's credential is refused, or null when it is valid. */
function hostRefusal(host: HostDoc | null, cred: Parameters<typeof credentialValid>[1]): string | null {
  if (credentialValid(host, cred)) return null;
  return host?.revokedAt ? 'host was revoked' : 'host credential was replaced by a later attestation';
}

/** Why a gateway's credential is refused (revoked, or pending past its approval window for good), or null. */
function gatewayRefusal(g: GatewayDoc | null, w: FleetWindows, now: Date): string | null {
  if (!g || g.revokedAt) return 'gateway was revoked';
  if (gatewayExpiredForGood(g, w, now)) return 'gateway expired without approval';
  return null;
}

/**
 * The machine credentials of hosts and gateways (svc_gwc_ is tested before svc_gw_, which is not its prefix but
 * reads like one). Unknown, used up, expired or revoked: 401. A host whose heartbeats stopped is not refused: its
 * next heartbeat makes it active again.
 */
async function resolveMachine(
  store: Store,
  token: string,
  tokenHash: string,
  now: Date,
  w: FleetWindows,
): Promise<MachinePrincipal | null> {
  if (token.startsWith('svc_reg_')) {
    const t = await findRegistrationTokenByHash(store, tokenHash);
    if (!t) throw invalid('unknown registration token');
    if (t.revokedAt) throw invalid('registration token was revoked');
    if (t.used >= t.uses) throw invalid('registration token has no uses left');
    if (t.expiresAt <= now) throw invalid('registration token has expired');
    return { kind: 'registration_token', tokenHash, orgId: t.orgId, token: t };
  }
  if (token.startsWith('svc_hst_')) {
    const cred = await findHostCredential(store, tokenHash);
    if (!cred) throw invalid('unknown host credential');
    const host = await store.c.hosts.findOne({ _id: cred.hostId });
    const refused = hostRefusal(host, cred);
    if (refused) throw invalid(refused);
    return { kind: 'host', tokenHash, orgId: cred.orgId, host: host!, credential: cred };
  }
  if (token.startsWith('svc_gwc_')) {
    const cred = await findGatewayCredential(store, tokenHash);
    if (!cred) throw invalid('unknown gateway credential');
    const g = await store.c.gateways.findOne({ _id: cred.gatewayId });
    const refused = gatewayRefusal(g, w, now);
    if (refused) throw invalid(refused);
    return { kind: 'gateway', tokenHash, orgId: cred.orgId, gateway: g! };
  }
  if (token.startsWith('svc_gw_')) {
    const t = await findEnrollmentTokenByHash(store, tokenHash);
    if (!t) throw invalid('unknown enrollment token');
    const status = enrollmentTokenStatus(t, now);
    if (status !== 'active') throw invalid(`enrollment token ${status === 'used' ? 'was used' : `is ${status}`}`);
    return { kind: 'enrollment_token', tokenHash, orgId: t.orgId, token: t };
  }
  return null;
}

export async function resolvePrincipal(
  store: Store,
  token: string,
  now = new Date(),
  windows: FleetWindows = DEFAULT_WINDOWS,
): Promise<Principal> {
  const tokenHash = sha256Hex(token);
  const machine = await resolveMachine(store, token, tokenHash, now, windows);
  if (machine) return machine;
  if (token.startsWith('svc_key_')) {
    const key = await findApiKeyByHash(store, tokenHash);
    if (!key) throw invalid('unknown API key');
    const status = keyStatus(key, now);
    if (status !== 'active') throw invalid(`API key is ${status}`);
    touchApiKey(store, key, now).catch(() => undefined); // best effort, throttled to once a minute
    return { kind: 'api_key', tokenHash, key, orgId: key.orgId };
  }
  if (token.startsWith('svc_ses_')) {
    const session = await findSession(store, tokenHash);
    if (!session) throw invalid('unknown session');
    const status = sessionStatus(session, now);
    if (status !== 'active')
      throw invalid(status === 'idle' ? 'session expired after 7 days without use' : `session is ${status}`);
    touchSession(store, session, now).catch(() => undefined); // best effort, at most once a minute
    const [user, member] = await Promise.all([findUser(store, session.userId), memberOfUser(store, session.userId)]);
    if (!user) throw invalid('unknown session');
    return {
      kind: 'session',
      tokenHash,
      user: { id: user._id, email: user.email },
      member,
      orgId: member?.orgId ?? null,
    };
  }
  throw invalid('unknown credential type');
}

export async function authenticate(ctx: Context, deps: AppDeps): Promise<Principal> {
  const appOrigin = originOf(deps.platform!.publicAppUrl);
  const principal = await resolvePrincipal(deps.store, credential(ctx, appOrigin), new Date(), deps.fleet);
  ctx.state.principal = principal;
  return principal;
}

/**
 * Re-checks the credential just before a request commits writes or sends a read: a key, session, token,
 * host or gateway revoked while the request was in flight fails with 401 from that moment.
 */
export async function recheck(deps: AppDeps, p: Principal, now = new Date()): Promise<void> {
  switch (p.kind) {
    case 'api_key': {
      const key = await findApiKeyByHash(deps.store, p.tokenHash);
      if (!key || keyStatus(key, now) !== 'active') throw invalid('API key was revoked');
      return;
    }
    case 'session': {
      const s = await findSession(deps.store, p.tokenHash);
      if (!s || sessionStatus(s, now) !== 'active') throw invalid('session was revoked');
      return;
    }
    case 'registration_token': {
      const t = await findRegistrationTokenByHash(deps.store, p.tokenHash);
      if (!t || t.revokedAt || t.expiresAt <= now)
        throw invalid(`registration token ${t?.revokedAt ? 'was revoked' : 'has expired'}`);
      return; // its uses are decided when one is taken
    }
    case 'enrollment_token': {
      const t = await findEnrollmentTokenByHash(deps.store, p.tokenHash);
      if (!t || t.revokedAt || t.expiresAt <= now)
        throw invalid(`enrollment token ${t?.revokedAt ? 'was revoked' : 'has expired'}`);
      return; // its one use is decided when it is taken
    }
    case 'host': {
      const refused = hostRefusal(await deps.store.c.hosts.findOne({ _id: p.credential.hostId }), p.credential);
      if (refused) throw invalid(refused);
      return;
    }
    case 'gateway': {
      const refused = gatewayRefusal(
        await deps.store.c.gateways.findOne({ _id: p.gateway._id }),
        deps.fleet ?? DEFAULT_WINDOWS,
        now,
      );
      if (refused) throw invalid(refused);
      return;
    }
  }
}
