// Members (docs/api.md, "Organization and access"). Promoting to admin and changing an owner are Owner-only;
// owner is not assignable (422 invalid_parameter); demoting or removing the sole owner is 409 last_owner. Your own
// id in DELETE means leaving, allowed for any role.
import Router from '@koa/router';
import { ApiError, invalidParameter, notFound } from '../../domain/errors';
import { recordAudit } from '../../storage/audit';
import type { MemberDoc } from '../../storage/documents/accounts';
import { ASSIGNABLE_ROLES, isManager, ROLES, type Role } from '../../domain/roles';
import { findMember, orgMembers, ownerCount, removeMember, setRole } from '../../storage/members';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { pathId } from '../params';
import { missing, objectBody } from '../json-body';
import { cursorQuery, enumQuery, parseLimit } from '../pagination';
import { actorOf } from '../audit/actor';

const ownerOnly = (what: string) => new ApiError(403, 'insufficient_scope', `requires role owner (${what})`);
const lastOwner = () => new ApiError(409, 'last_owner', 'the organization must keep at least one owner');

export function presentMember(m: MemberDoc) {
  return { id: m._id, userId: m.userId, email: m.email, role: m.role, joinedAt: m.joinedAt.toISOString() };
}

export function memberRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.get('/v1/members', access(deps, 'GET /v1/members'), async (ctx) => {
    const p = principalOf(ctx);
    const role = enumQuery<Role>(ctx, 'role', ROLES);
    const limit = parseLimit(ctx);
    const listing = `members:${p.orgId}:${role ?? '*'}`;
    const cursor = cursorQuery(ctx);
    const offset = cursor ? deps.cursors.decode<number>(listing, cursor) : 0;
    const all = await orgMembers(deps.store, p.orgId);
    await recheck(deps, p); // after the load, not beside it: a session revoked while it ran gets 401
    const selected = role ? all.filter((m) => m.role === role) : all;
    ctx.body = {
      members: selected.slice(offset, offset + limit).map(presentMember),
      nextCursor: offset + limit < selected.length ? deps.cursors.encode(listing, offset + limit) : null,
    };
  });

  r.patch('/v1/members/:memberId', access(deps, 'PATCH /v1/members/:memberId'), async (ctx) => {
    const p = principalOf(ctx);
    const me = p.kind === 'session' ? p.member! : null;
    const body = await objectBody(ctx);
    if (body.role === undefined || body.role === null || body.role === '') throw missing('role');
    if (body.role === 'owner')
      throw invalidParameter('role', 'owner is not assignable; an owner invites another owner');
    if (!(ASSIGNABLE_ROLES as readonly unknown[]).includes(body.role))
      throw invalidParameter('role', `must be one of ${ASSIGNABLE_ROLES.join(', ')}`);
    const role = body.role as Role;
    const target = await findMember(deps.store, p.orgId, pathId(ctx, 'memberId', 'member'));
    if (!target) throw notFound(`member ${ctx.params.memberId}`);
    if (me?.role !== 'owner') {
      if (role === 'admin') throw ownerOnly('promoting to admin');
      if (target.role === 'owner') throw ownerOnly('changing an owner');
    }
    if (target.role === 'owner' && role !== 'owner' && (await ownerCount(deps.store, p.orgId)) <= 1) throw lastOwner();
    await recheck(deps, p);
    const updated = await setRole(deps.store, target, role);
    if (!updated) throw new ApiError(409, 'last_owner', 'the member changed meanwhile; retry');
    if (target.role !== role) {
      await recordAudit(deps.store, {
        orgId: p.orgId,
        type: 'member.role_changed',
        actor: actorOf(p),
        target: { kind: 'member', id: target._id, email: target.email, from: target.role, to: role },
        requestId: ctx.state.requestId,
      });
    }
    ctx.body = presentMember(updated);
  });

  r.delete('/v1/members/:memberId', access(deps, 'DELETE /v1/members/:memberId'), async (ctx) => {
    const p = principalOf(ctx);
    const me = p.kind === 'session' ? p.member! : null;
    const target = await findMember(deps.store, p.orgId, pathId(ctx, 'memberId', 'member'));
    if (!target) throw notFound(`member ${ctx.params.memberId}`);
    const leaving = me?._id === target._id;
    if (!leaving) {
      if (!me || !isManager(me.role))
        throw new ApiError(403, 'insufficient_scope', 'requires role owner or admin (or your own member id, to leave)');
      if (target.role === 'owner' && me.role !== 'owner') throw ownerOnly('removing an owner');
    }
    if (target.role === 'owner' && (await ownerCount(deps.store, p.orgId)) <= 1) throw lastOwner();
    await recheck(deps, p);
    if (await removeMember(deps.store, target)) {
      await recordAudit(deps.store, {
        orgId: p.orgId,
        type: 'member.removed',
        actor: actorOf(p),
        target: { kind: 'member', id: target._id, email: target.email, role: target.role, left: leaving },
        requestId: ctx.state.requestId,
      });
    }
    ctx.status = 204;
  });

  return r;
}
