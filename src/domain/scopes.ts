// The scopes an API key may hold (platform.md). Dependency-free: the server (src/http/auth/principal.ts re-exports
// these) and the web app (web/src/views/admin/api-keys.tsx) import this one list.
export const SCOPES = ['sca:upload', 'scans:read', 'findings:read', 'deps:read', 'hosts:read', 'gateways:read', 'mcp:upload', 'mcp:read'] as const;
export type Scope = (typeof SCOPES)[number];

/** Scopes over the whole organization (hosts, gateways, MCP): a project-restricted key cannot hold them (platform.md). */
export const ORG_WIDE_SCOPES: readonly Scope[] = ['hosts:read', 'gateways:read', 'mcp:upload', 'mcp:read'];
