// Invitations: their states, the link format and the order of the acceptance checks (docs/api.md, "Organization
// and access"). Fields chosen where the contract leaves them open, documented there too:
//   invitation: {id, email, role, status, createdBy, createdAt, expiresAt, acceptedAt, revokedAt}
//   lookup:     {org: {name}, email, role, status, expiresAt}
import Router from '@koa/router';
import { ApiError, invalidParameter, notFound } from '../../domain/errors';
import { findOrg, memberOfUser, normalizeEmail } from '../../storage/accounts';
import { recordAudit } from '../../storage/audit';
import { memberByEmail } from '../../storage/members';
import type { InvitationDoc } from '../../storage/documents/accounts';
import { isManager, ROLES, type Role } from '../../domain/roles';
import {
  acceptInvitation,
  createInvitation,
  findInvitation,
  findInvitationByToken,
  invitationStatus,
  listInvitations,
  revokeInvitation,
  type Acceptance,
  type InvitationStatus,
} from '../../storage/invitations';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { pathId } from '../params';
import { missing, objectBody, requiredString } from '../json-body';
import { cursorQuery, enumQuery, parseLimit } from '../pagination';
import { platformFromEnv } from '../platform';
import { actorOf } from '../audit/actor';
import { presentMember } from '../members/routes';

const STATUSES = ['pending', 'accepted', 'revoked', 'expired'] as const;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const conflict = (
  code: 'invite_expired' | 'invite_revoked' | 'invite_already_accepted' | 'invite_email_mismatch' | 'already_in_org',
  message: string,
) => new ApiError(409, code, message);
/** The acceptance failures, whether seen in the invitation as loaded or when claiming it. */
const LOST: Record<Exclude<Acceptance['outcome'], 'accepted'>, () => ApiError> = {
  revoked: () => conflict('invite_revoked', 'the invitation was revoked'),
  expired: () => conflict('invite_expired', 'the invitation has expired'),
  already_accepted: () => conflict('invite_already_accepted', 'the invitation was already accepted'),
  already_in_org: () => conflict('already_in_org', 'you already belong to an organization'),
};

export function presentInvitation(i: InvitationDoc, now = new Date()) {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    id: i.id,
    email: i.email,
    role: i.role,
    status: invitationStatus(i, now),
    createdBy: i.createdBy,
    createdAt: i.createdAt.toISOString(),
    expiresAt: i.expiresAt.toISOString(),
    acceptedAt: iso(i.acceptedAt),
    revokedAt: iso(i.revokedAt),
  };
}

/** The token of lookups and acceptances: only ever in the POST body. */
async function tokenOf(ctx: Parameters<typeof objectBody>[0]): Promise<string> {
  const token = requiredString(await objectBody(ctx), 'token', 200);
  return token;
}

export function invitationRoutes(deps: AppDeps): Router {
  const r = new Router();
  const platform = deps.platform ?? platformFromEnv();

  r.post('/v1/invitations', access(deps, 'POST /v1/invitations'), async (ctx) => {
    const p = principalOf(ctx);
    const me = p.kind === 'session' ? p.member! : null;
    const body = await objectBody(ctx);
    const email = normalizeEmail(requiredString(body, 'email', 320));
    if (!EMAIL.test(email)) throw invalidParameter('email', 'must be an email address');
    if (body.role === undefined || body.role === null || body.role === '') throw missing('role');
    if (!(ROLES as readonly unknown[]).includes(body.role))
      throw invalidParameter('role', `must be one of ${ROLES.join(', ')}`);
    const role = body.role as Role;
    if (isManager(role) && me?.role !== 'owner')
      throw new ApiError(403, 'insufficient_scope', `requires role owner (inviting as ${role})`);
    // Only this organization's members are looked at: whether the address belongs to another one is never said.
    if (await memberByEmail(deps.store, p.orgId, email))
      throw new ApiError(409, 'already_member', `email: ${email} is already a member of this organization`);
    await recheck(deps, p);
    const { doc, token, replaced } = await createInvitation(deps.store, {
      orgId: p.orgId,
      email,
      role,
      createdBy: me!._id,
    });
    const actor = actorOf(p);
    for (const old of replaced)
      await recordAudit(deps.store, {
        orgId: p.orgId,
        type: 'invitation.revoked',
        actor,
        target: { kind: 'invitation', id: old.id, email: old.email, replacedBy: doc.id },
        requestId: ctx.state.requestId,
      });
    await recordAudit(deps.store, {
      orgId: p.orgId,
      type: 'invitation.created',
      actor,
      target: { kind: 'invitation', id: doc.id, email, role },
      requestId: ctx.state.requestId,
    });
    ctx.status = 201;
    ctx.body = {
      invitation: presentInvitation(doc),
      token,
      inviteUrl: `${platform.publicAppUrl}/invitations/accept#token=${token}`,
    };
  });

  r.get('/v1/invitations', access(deps, 'GET /v1/invitations'), async (ctx) => {
    const p = principalOf(ctx);
    const status = enumQuery<InvitationStatus>(ctx, 'status', STATUSES);
    const limit = parseLimit(ctx);
    const listing = `invitations:${p.orgId}:${status ?? '*'}`;
    const cursor = cursorQuery(ctx);
    const beforeId = cursor ? deps.cursors.decode<string>(listing, cursor) : undefined;
    const docs = await listInvitations(deps.store, p.orgId, { status, beforeId, limit: limit + 1 });
    await recheck(deps, p); // after the load, not beside it: a session revoked while it ran gets 401
    const page = docs.slice(0, limit);
    ctx.body = {
      invitations: page.map((i) => presentInvitation(i)),
      nextCursor: docs.length > limit ? deps.cursors.encode(listing, page[page.length - 1].id) : null,
    };
  });

  r.delete('/v1/invitations/:invitationId', access(deps, 'DELETE /v1/invitations/:invitationId'), async (ctx) => {
    const p = principalOf(ctx);
    const inv = await findInvitation(deps.store, p.orgId, pathId(ctx, 'invitationId', 'invitation'));
    if (!inv) throw notFound(`invitation ${ctx.params.invitationId}`);
    await recheck(deps, p);
    if (await revokeInvitation(deps.store, inv)) {
      await recordAudit(deps.store, {
        orgId: p.orgId,
        type: 'invitation.revoked',
        actor: actorOf(p),
        target: { kind: 'invitation', id: inv.id, email: inv.email },
        requestId: ctx.state.requestId,
      });
    }
    ctx.status = 204; // revoking an invitation that is no longer pending changes nothing
  });

  r.post('/v1/invitations/lookups', access(deps, 'POST /v1/invitations/lookups'), async (ctx) => {
    const inv = await findInvitationByToken(deps.store, await tokenOf(ctx));
    const org = inv ? await findOrg(deps.store, inv.orgId) : null;
    if (!inv || !org) throw notFound('invitation');
    ctx.body = {
      org: { name: org.name },
      email: inv.email,
      role: inv.role,
      status: invitationStatus(inv),
      expiresAt: inv.expiresAt.toISOString(),
    };
  });

  r.post('/v1/invitations/acceptances', access(deps, 'POST /v1/invitations/acceptances'), async (ctx) => {
    const p = ctx.state.principal!;
    if (p.kind !== 'session') return; // the matrix admits sessions only
    const inv = await findInvitationByToken(deps.store, await tokenOf(ctx));
    const org = inv ? await findOrg(deps.store, inv.orgId) : null;
    if (!inv || !org) throw notFound('invitation');
    // Checked in this order: revoked, expired, already accepted, email mismatch, already in an organization
    const status = invitationStatus(inv);
    if (status === 'revoked') throw LOST.revoked();
    if (status === 'expired') throw LOST.expired();
    if (status === 'accepted') throw LOST.already_accepted();
    if (normalizeEmail(p.user.email) !== inv.email)
      throw conflict('invite_email_mismatch', 'the invitation was sent to another email address');
    if (p.member || (await memberOfUser(deps.store, p.user.id))) throw LOST.already_in_org();
    await recheck(deps, p);
    // The checks above read the invitation as it was; a revocation or acceptance decided since then wins here.
    const accepted = await acceptInvitation(deps.store, inv, p.user);
    if (accepted.outcome !== 'accepted') throw LOST[accepted.outcome]();
    const { member } = accepted;
    await recordAudit(deps.store, {
      orgId: inv.orgId,
      type: 'invitation.accepted',
      actor: { memberId: member._id, userId: p.user.id, email: p.user.email },
      target: { kind: 'invitation', id: inv.id, email: inv.email, role: inv.role },
      requestId: ctx.state.requestId,
    });
    ctx.body = { org: { id: org._id, name: org.name }, member: presentMember(member) };
  });

  return r;
}
