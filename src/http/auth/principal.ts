// Who is calling: a signed-in human (session) or an integration (API key). Resolved once per request.
import { SCOPES, type Scope } from '../../domain/scopes';
import type { ApiKeyDoc, MemberDoc, Role } from '../../storage/documents';

// The scopes' list lives in a dependency-free module the web app imports too.
export { ORG_WIDE_SCOPES, SCOPES, type Scope } from '../../domain/scopes';
export const isScope = (s: unknown): s is Scope => typeof s === 'string' && (SCOPES as readonly string[]).includes(s);

const READ_SCOPES: Scope[] = ['scans:read', 'findings:read', 'deps:read', 'hosts:read', 'gateways:read', 'mcp:read'];

/** decisions.md: owner, admin and member hold every scope; auditor the read scopes only. */
export function roleScopes(role: Role): ReadonlySet<Scope> {
  return new Set(role === 'auditor' ? READ_SCOPES : SCOPES);
}

export type Principal =
  | {
      kind: 'session';
      tokenHash: string;
      user: { id: string; email: string };
      member: MemberDoc | null;
      orgId: string | null;
    }
  | {
      kind: 'api_key';
      tokenHash: string;
      key: ApiKeyDoc;
      orgId: string;
    };

/** The project restriction of a credential: null = every project of its organization. */
export function projectRestriction(p: Principal): string[] | null {
  return p.kind === 'api_key' && p.key.projects !== 'all' ? p.key.projects : null;
}

export function canReachProject(p: Principal, projectId: string): boolean {
  const r = projectRestriction(p);
  return r === null || r.includes(projectId);
}
