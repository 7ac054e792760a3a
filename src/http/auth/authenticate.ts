// Bearer credentials → Principal, or 401 invalid_token. Secrets are only ever hashed, never logged or stored.
import type { Context } from 'koa';
import { ApiError } from '../../domain/errors';
import { sha256Hex } from '../../domain/ids';
import { findSession, findUser, memberOfUser } from '../../storage/accounts';
import { findApiKeyByHash, keyStatus, touchApiKey } from '../../storage/api-keys';
import type { Store } from '../../storage/mongo';
import type { AppDeps } from '../deps';
import type { Principal } from './principal';

const invalid = (why: string) => new ApiError(401, 'invalid_token', `Authorization: ${why}`);

function bearer(ctx: Context): string {
  const h = ctx.get('Authorization');
  if (!h) throw invalid('missing bearer credential');
  const m = /^Bearer ([A-Za-z0-9_\-.~+/=]{8,512})$/.exec(h);
  if (!m) throw invalid('malformed bearer credential');
  return m[1];
}

export async function resolvePrincipal(store: Store, token: string, now = new Date()): Promise<Principal> {
  const tokenHash = sha256Hex(token);
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
    if (session.revokedAt) throw invalid('session is revoked');
    if (session.expiresAt <= now) throw invalid('session is expired');
    const [user, member] = await Promise.all([findUser(store, session.userId), memberOfUser(store, session.userId)]);
    if (!user) throw invalid('unknown session');
    return { kind: 'session', tokenHash, user: { id: user._id, email: user.email }, member, orgId: member?.orgId ?? null };
  }
  throw invalid('unknown credential type');
}

export async function authenticate(ctx: Context, deps: AppDeps): Promise<Principal> {
  const principal = await resolvePrincipal(deps.store, bearer(ctx));
  ctx.state.principal = principal;
  return principal;
}

/**
 * Re-checks the credential just before a request commits writes or sends a read (decisions.md): a key or session
 * revoked while the request was in flight fails with 401 from that moment.
 */
export async function recheck(deps: AppDeps, p: Principal, now = new Date()): Promise<void> {
  if (p.kind === 'api_key') {
    const key = await findApiKeyByHash(deps.store, p.tokenHash);
    if (!key || keyStatus(key, now) !== 'active') throw invalid('API key was revoked');
  } else {
    const s = await findSession(deps.store, p.tokenHash);
    if (!s || s.revokedAt || s.expiresAt <= now) throw invalid('session was revoked');
  }
}
