// The scopes an API key may hold: the one list. The server imports it (src/http/auth/principal.ts
// re-exports it); the web app gets it through the OpenAPI document's Scope and OrgWideScope schemas
// (src/http/openapi/schemas/platform.ts), never by importing this file.
export const SCOPES = [
  'sca:upload',
  'scans:read',
  'findings:read',
  'findings:triage',
  'deps:read',
  'hosts:read',
  'gateways:read',
  'mcp:upload',
  'mcp:read',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Scopes over the whole organization (hosts, gateways, MCP): a project-restricted key cannot hold them. */
export const ORG_WIDE_SCOPES: readonly Scope[] = ['hosts:read', 'gateways:read', 'mcp:upload', 'mcp:read'];

/** The scopes of the auditor role (owner, admin and member hold every scope, auditor these only). */
export const READ_SCOPES: readonly Scope[] = [
  'scans:read',
  'findings:read',
  'deps:read',
  'hosts:read',
  'gateways:read',
  'mcp:read',
];
