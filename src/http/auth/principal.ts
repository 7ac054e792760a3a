// Who is calling: a signed-in human (session), an integration (API key), or one of the machine credentials of hosts
// and gateways, each valid only on its own endpoints. Resolved once per request.
import { READ_SCOPES, SCOPES, type Scope } from '../../domain/scopes';
import type { ApiKeyDoc, MemberDoc } from '../../storage/documents/accounts';
import type {
  EnrollmentTokenDoc,
  GatewayDoc,
  HostCredentialDoc,
  HostDoc,
  RegistrationTokenDoc,
} from '../../storage/documents/fleet';
import type { Role } from '../../domain/roles';

// The scopes' list lives in src/domain/scopes.ts (the web app reads it from the OpenAPI document's Scope schema).
export { ORG_WIDE_SCOPES, SCOPES, type Scope } from '../../domain/scopes';
export const isScope = (s: unknown): s is Scope => typeof s === 'string' && (SCOPES as readonly string[]).includes(s);

/** Owner, admin and member hold every scope; auditor the read scopes only. */
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
    }
  | MachinePrincipal;

/** The machine credentials: svc_reg_, svc_hst_, svc_gw_ and svc_gwc_. */
export type MachinePrincipal =
  | { kind: 'registration_token'; tokenHash: string; orgId: string; token: RegistrationTokenDoc }
  | { kind: 'host'; tokenHash: string; orgId: string; host: HostDoc; credential: HostCredentialDoc }
  | { kind: 'enrollment_token'; tokenHash: string; orgId: string; token: EnrollmentTokenDoc }
  | { kind: 'gateway'; tokenHash: string; orgId: string; gateway: GatewayDoc };

export type MachineKind = MachinePrincipal['kind'];
export const MACHINE_KINDS: readonly MachineKind[] = ['registration_token', 'host', 'enrollment_token', 'gateway'];

/** How a machine credential is named in messages. */
export const MACHINE_NAMES: Record<MachineKind, string> = {
  registration_token: 'a registration token (svc_reg_)',
  host: 'a host credential (svc_hst_)',
  enrollment_token: 'a gateway enrollment token (svc_gw_)',
  gateway: 'a gateway credential (svc_gwc_)',
};

export const isMachine = (p: Principal): p is MachinePrincipal => (MACHINE_KINDS as readonly string[]).includes(p.kind);

/** The project restriction of a credential: null = every project of its organization. */
export function projectRestriction(p: Principal): string[] | null {
  return p.kind === 'api_key' && p.key.projects !== 'all' ? p.key.projects : null;
}

export function canReachProject(p: Principal, projectId: string): boolean {
  const r = projectRestriction(p);
  return r === null || r.includes(projectId);
}
