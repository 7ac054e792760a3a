// A member's role in an organization: the one declaration the server's types, request schemas, OpenAPI document and
// authorization matrix take their role lists from (the web app gets them from the OpenAPI document's Role,
// AssignableRole and ManagerRole schemas).
export const ROLES = ['owner', 'admin', 'member', 'auditor'] as const;
export type Role = (typeof ROLES)[number];

/**
 * The roles a role change may give (PATCH /v1/members/{id}): owner is not assignable, an owner invites another owner
 * (an invitation may carry any role).
 */
export const ASSIGNABLE_ROLES = ['admin', 'member', 'auditor'] as const satisfies readonly Role[];
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];

/** Roles that manage the organization: members, invitations, keys, hosts, gateways and the MCP registry. */
export const MANAGER_ROLES = ['owner', 'admin'] as const satisfies readonly Role[];
export type ManagerRole = (typeof MANAGER_ROLES)[number];

export function isManager(role: Role | null | undefined): role is ManagerRole {
  return (MANAGER_ROLES as readonly unknown[]).includes(role);
}
