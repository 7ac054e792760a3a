// The scopes an API key may hold, as the API-key form lists them. They are the OpenAPI document's Scope and
// OrgWideScope (the server's src/domain/scopes.ts): a scope these lists lack, or one the server does not have, fails
// the type-check. The server decides what a key may hold; the form only offers.
import type { Checked, ListsEvery, OrgWideScope, Scope } from './types';

/** Every scope, in the server's order. */
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
] as const satisfies readonly Scope[];
export type ScopesListed = Checked<ListsEvery<Scope, typeof SCOPES>>;

/** Scopes over the whole organization: a key restricted to projects cannot hold them (422 invalid_scope). */
export const ORG_WIDE_SCOPES = [
  'hosts:read',
  'gateways:read',
  'mcp:upload',
  'mcp:read',
] as const satisfies readonly OrgWideScope[];
export type OrgWideScopesListed = Checked<ListsEvery<OrgWideScope, typeof ORG_WIDE_SCOPES>>;

export const isOrgWide = (scope: string): scope is OrgWideScope =>
  (ORG_WIDE_SCOPES as readonly string[]).includes(scope);
