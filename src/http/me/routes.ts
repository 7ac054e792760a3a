import Router from '@koa/router';
import { findOrg } from '../../storage/accounts';
import { recheck } from '../auth/authenticate';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';

export function meRoutes(deps: AppDeps): Router {
  const r = new Router();
  r.get('/v1/me', access(deps, 'GET /v1/me'), async (ctx) => {
    const p = ctx.state.principal!;
    if (p.kind !== 'session') return; // guard ensures a session
    const org = p.member ? await findOrg(deps.store, p.member.orgId) : null;
    await recheck(deps, p); // a session revoked while the request ran gets 401
    ctx.body = {
      user: { id: p.user.id, email: p.user.email },
      org: org && p.member ? { id: org._id, name: org.name } : null,
      member:
        org && p.member ? { id: p.member._id, role: p.member.role, joinedAt: p.member.joinedAt.toISOString() } : null,
    };
  });
  return r;
}
