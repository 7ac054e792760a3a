// Route guards: a scoped endpoint (API keys by scope, sessions by role) or a session-only endpoint (by role).
import type { Context, Next } from 'koa';
import { ApiError } from '../../domain/errors';
import type { Role } from '../../storage/documents';
import type { AppDeps, AppState } from '../deps';
import { authenticate } from './authenticate';
import { roleScopes, type Principal, type Scope } from './principal';

const forbidden = (msg: string) => new ApiError(403, 'insufficient_scope', msg);

export function checkScope(p: Principal, scope: Scope): void {
  if (p.kind === 'api_key') {
    if (!p.key.scopes.includes(scope)) throw forbidden(`requires scope ${scope}`);
    return;
  }
  if (!p.member) throw forbidden('requires organization membership');
  if (!roleScopes(p.member.role).has(scope)) throw forbidden(`requires scope ${scope}`);
}

export function checkRole(p: Principal, roles: Role[]): void {
  if (p.kind !== 'session') throw forbidden(`requires a session with role ${roles.join(' or ')}; API keys cannot manage the organization`);
  if (!p.member) throw forbidden('requires organization membership');
  if (!roles.includes(p.member.role)) throw forbidden(`requires role ${roles.join(' or ')}`);
}

type Guard = { scope: Scope } | { roles: Role[] } | { session: true };

/** Koa middleware: authenticate, then authorize per the route's guard. */
export function guard(deps: AppDeps, g: Guard) {
  return async (ctx: Context & { state: AppState }, next: Next) => {
    const p = await authenticate(ctx, deps);
    if ('scope' in g) checkScope(p, g.scope);
    else if ('roles' in g) checkRole(p, g.roles);
    else if (p.kind !== 'session') throw forbidden('requires a session');
    await next();
  };
}

export function principalOf(ctx: { state: AppState }): Principal & { orgId: string } {
  const p = ctx.state.principal;
  if (!p || !p.orgId) throw forbidden('requires organization membership');
  return p as Principal & { orgId: string };
}
