// Credentials → Principal, or 401 invalid_token: a Bearer credential, else the web app's session cookie under the
// rules of platform.md §3 (cookies.ts). Secrets are only ever hashed, never logged or stored.
import type { Context } from 'koa';
import { ApiError } from '../../domain/errors';
import { sha256Hex } from '../../domain/ids';
import { findSession, findUser, memberOfUser, sessionStatus, touchSession } from '../../storage/accounts';
import { findApiKeyByHash, keyStatus, touchApiKey } from '../../storage/api-keys';
import type { Store } from '../../storage/mongo';
import type { AppDeps } from '../deps';
import { cookieCredential, originOf } from './cookies';
import type { Principal } from './principal';

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
    const status = sessionStatus(session, now);
    if (status !== 'active') throw invalid(status === 'idle' ? 'session expired after 7 days without use' : `session is ${status}`);
    touchSession(store, session, now).catch(() => undefined); // best effort, at most once a minute
    const [user, member] = await Promise.all([findUser(store, session.userId), memberOfUser(store, session.userId)]);
    if (!user) throw invalid('unknown session');
    return { kind: 'session', tokenHash, user: { id: user._id, email: user.email }, member, orgId: member?.orgId ?? null };
  }
  throw invalid('unknown credential type');
}

export async function authenticate(ctx: Context, deps: AppDeps): Promise<Principal> {
  const appOrigin = originOf(deps.platform!.publicAppUrl);
  const principal = await resolvePrincipal(deps.store, credential(ctx, appOrigin));
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
    if (!s || sessionStatus(s, now) !== 'active') throw invalid('session was revoked');
  }
}
