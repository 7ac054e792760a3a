// Members' roles as the app lists and checks them. The roles are the OpenAPI document's Role, AssignableRole and
// ManagerRole (the server's src/domain/roles.ts): a role these lists lack, or one the server does not have, fails the
// type-check. What a role may do is the server's decision; these only choose what the app offers.
import type { AssignableRole, Checked, ListsEvery, ManagerRole, Role } from './types';

/** Every role, in the server's order (owners first), e.g. for the members list's filter. */
export const ROLES = ['owner', 'admin', 'member', 'auditor'] as const satisfies readonly Role[];
export type RolesListed = Checked<ListsEvery<Role, typeof ROLES>>;

/** The roles a role change may give: owner is not assignable (an owner invites another owner). */
export const ASSIGNABLE_ROLES = ['admin', 'member', 'auditor'] as const satisfies readonly AssignableRole[];
export type AssignableRolesListed = Checked<ListsEvery<AssignableRole, typeof ASSIGNABLE_ROLES>>;

/** The roles that manage the organization: members, invitations, keys, hosts, gateways and the MCP registry. */
export const MANAGER_ROLES = ['owner', 'admin'] as const satisfies readonly ManagerRole[];
export type ManagerRolesListed = Checked<ListsEvery<ManagerRole, typeof MANAGER_ROLES>>;

/** Whether a member of this role manages the organization (null: signed in without an organization). */
export function isManager(role: Role | null | undefined): role is ManagerRole {
  return (MANAGER_ROLES as readonly unknown[]).includes(role);
}

/**
 * The roles that triage: their sessions hold the scope findings:triage (set and remove analyses of alerts). An auditor
 * reads everything and changes nothing, so the app offers it no triage control.
 */
export const TRIAGE_ROLES = ['owner', 'admin', 'member'] as const satisfies readonly Role[];

/** Whether a member of this role may triage alerts (null: signed in without an organization). */
export function canTriage(role: Role | null | undefined): boolean {
  return (TRIAGE_ROLES as readonly unknown[]).includes(role);
}

/**
 * The roles the invitation form offers, member first (the default): every role to an owner, the others to an admin
 * (inviting as admin or owner is owner-only).
 */
export function invitableRoles(inviter: Role | null | undefined): Role[] {
  const others = ROLES.filter((r) => !isManager(r));
  return inviter === 'owner' ? [...others, ...[...MANAGER_ROLES].reverse()] : others;
}

/** Each role in words (indexed by any string: the views fall back to the role as the server wrote it). */
export const ROLE_LABELS: Record<string, string> = {
  owner: 'Owner',
  admin: 'Admin',
  member: 'Member',
  auditor: 'Auditor',
} satisfies Record<Role, string>;
