// A member's role in an organization: the one declaration the server's types, request schemas, OpenAPI document and
// authorization matrix take their role lists from.
export const ROLES = ['owner', 'admin', 'member', 'auditor'] as const;
export type Role = (typeof ROLES)[number];

/** The roles an invitation or a role change may give: there is one way to become owner, creating the organization. */
export const ASSIGNABLE_ROLES = ['admin', 'member', 'auditor'] as const satisfies readonly Role[];
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];

/** Roles that manage the organization: members, invitations, keys, hosts, gateways and the MCP registry. */
export const MANAGER_ROLES = ['owner', 'admin'] as const satisfies readonly Role[];

export function isManager(role: Role | null | undefined): boolean {
  return role === 'owner' || role === 'admin';
}
