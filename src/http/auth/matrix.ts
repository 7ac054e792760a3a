// The authorization matrix: every endpoint of the API, the credentials it takes and what they must hold. The routes
// get their guard from here (access()), and test/http/authorization-matrix.test.ts walks every entry against every
// kind of credential, so this table is the one place access is decided. Outside it, unguarded: GET /healthz, GET
// /readyz and the web app's static files under /app (public: src/http/web/routes.ts).
import type { Context, Next } from 'koa';
import { ApiError } from '../../domain/errors';
import { MANAGER_ROLES, ROLES, type Role } from '../../domain/roles';
import type { AppDeps, AppState } from '../deps';
import { authenticate } from './authenticate';
import { isMachine, MACHINE_NAMES, roleScopes, type MachineKind, type Principal, type Scope } from './principal';

export type Access =
  /** no credential (the public endpoints) */
  | { kind: 'public' }
  /**
   * API key with the scope, or a session whose role holds it (owner, admin and member hold every scope, auditor the
   * read scopes); `machines`: machine credentials also taken (issue 19: the two MCP uploads take a host credential
   * too), none so far
   */
  | { kind: 'scope'; scope: Scope; machines?: readonly MachineKind[] }
  /** one machine credential of hosts or gateways, on its own endpoints only */
  | { kind: 'credential'; credential: MachineKind }
  /** session only, a member of an organization with one of these roles */
  | { kind: 'roles'; roles: Role[] }
  /** session only, with or without an organization */
  | { kind: 'session' };

const ADMINS: Role[] = [...MANAGER_ROLES];
const ANY_ROLE: Role[] = [...ROLES];

export const MATRIX = {
  'GET /v1/meta/ip-ranges': { kind: 'public' },
  'POST /v1/invitations/lookups': { kind: 'public' },
  // The CI client, fetched by CI jobs before they hold anything but the service's URL
  'GET /cli/scanner.mjs': { kind: 'public' },
  'GET /v1/openapi.json': { kind: 'public' },
  // Sign-in by emailed code (src/http/sessions/routes.ts); sign-out takes any session
  'POST /v1/sessions/codes': { kind: 'public' },
  'POST /v1/sessions': { kind: 'public' },
  'DELETE /v1/sessions/current': { kind: 'session' },
  'GET /v1/me': { kind: 'session' },
  'POST /v1/invitations/acceptances': { kind: 'session' },
  'GET /v1/members': { kind: 'roles', roles: ANY_ROLE },
  'PATCH /v1/members/:memberId': { kind: 'roles', roles: ADMINS },
  // any role may remove itself (leave); removing someone else is checked in the handler (Admin or Owner)
  'DELETE /v1/members/:memberId': { kind: 'roles', roles: ANY_ROLE },
  'POST /v1/invitations': { kind: 'roles', roles: ADMINS },
  'GET /v1/invitations': { kind: 'roles', roles: ADMINS },
  'DELETE /v1/invitations/:invitationId': { kind: 'roles', roles: ADMINS },
  'POST /v1/api-keys': { kind: 'roles', roles: ADMINS },
  'GET /v1/api-keys': { kind: 'roles', roles: ADMINS },
  'DELETE /v1/api-keys/:keyId': { kind: 'roles', roles: ADMINS },
  'GET /v1/audit-events': { kind: 'roles', roles: ADMINS },
  'POST /v1/scans/dependency-snapshots': { kind: 'scope', scope: 'sca:upload' },
  'GET /v1/scans': { kind: 'scope', scope: 'scans:read' },
  'GET /v1/scans/:scanId': { kind: 'scope', scope: 'scans:read' },
  'GET /v1/scans/:scanId/findings': { kind: 'scope', scope: 'findings:read' },
  // A scan against its baseline (src/http/compare/routes.ts)
  'GET /v1/scans/:scanId/compare': { kind: 'scope', scope: 'findings:read' },
  // Projects and the dependency inventory (src/http/projects/routes.ts)
  'GET /v1/projects': { kind: 'scope', scope: 'scans:read' },
  'PATCH /v1/projects/:projectId': { kind: 'roles', roles: ADMINS },
  'GET /v1/dependencies': { kind: 'scope', scope: 'deps:read' },
  // Where a package is used, and one advisory with its open alerts by project (src/http/usages, src/http/advisories)
  'GET /v1/dependencies/usages': { kind: 'scope', scope: 'deps:read' },
  'GET /v1/advisories/:advisoryId': { kind: 'scope', scope: 'findings:read' },
  // Multipart upload (src/http/multipart-uploads/routes.ts)
  'POST /v1/scans/dependency-snapshots/uploads': { kind: 'scope', scope: 'sca:upload' },
  'GET /v1/scans/dependency-snapshots/uploads/:uploadId': { kind: 'scope', scope: 'sca:upload' },
  'PUT /v1/scans/dependency-snapshots/uploads/:uploadId/parts/:n': { kind: 'scope', scope: 'sca:upload' },
  'POST /v1/scans/dependency-snapshots/uploads/:uploadId/completion': { kind: 'scope', scope: 'sca:upload' },
  // Module and attribution reads, for every scan (src/http/scans/reads.ts)
  'GET /v1/scans/:scanId/modules': { kind: 'scope', scope: 'scans:read' },
  'GET /v1/scans/:scanId/findings/:findingId/attributions': { kind: 'scope', scope: 'findings:read' },
  'GET /v1/scans/:scanId/findings/:findingId/attributions/:attributionId/path': {
    kind: 'scope',
    scope: 'findings:read',
  },
  // CycloneDX exports of a scan (src/http/scans/exports.ts)
  'GET /v1/scans/:scanId/sbom': { kind: 'scope', scope: 'deps:read' },
  'GET /v1/scans/:scanId/vex': { kind: 'scope', scope: 'findings:read' },
  // Project alerts across scans (src/http/alerts/routes.ts)
  'GET /v1/alerts': { kind: 'scope', scope: 'findings:read' },
  'GET /v1/alerts/export.csv': { kind: 'scope', scope: 'findings:read' },
  'GET /v1/alerts/:alertId': { kind: 'scope', scope: 'findings:read' },
  'GET /v1/alerts/:alertId/history': { kind: 'scope', scope: 'findings:read' },
  // Alert trends and the portfolio (src/http/metrics/routes.ts)
  'GET /v1/metrics/alerts': { kind: 'scope', scope: 'findings:read' },
  'GET /v1/metrics/portfolio': { kind: 'scope', scope: 'findings:read' },
  // Analyses of alerts (src/http/triage/routes.ts)
  'PUT /v1/alerts/:alertId/analysis': { kind: 'scope', scope: 'findings:triage' },
  'DELETE /v1/alerts/:alertId/analysis': { kind: 'scope', scope: 'findings:triage' },
  'POST /v1/alerts/analysis': { kind: 'scope', scope: 'findings:triage' },
  // VEX import (src/http/vex/routes.ts)
  'POST /v1/projects/:projectId/vex': { kind: 'scope', scope: 'findings:triage' },
  // Triage rules (src/http/triage/rules-routes.ts): read by any member, written by owners and admins; no keys
  'POST /v1/triage-rules': { kind: 'roles', roles: ADMINS },
  'GET /v1/triage-rules': { kind: 'roles', roles: ANY_ROLE },
  'GET /v1/triage-rules/:ruleId': { kind: 'roles', roles: ANY_ROLE },
  'PATCH /v1/triage-rules/:ruleId': { kind: 'roles', roles: ADMINS },
  'DELETE /v1/triage-rules/:ruleId': { kind: 'roles', roles: ADMINS },
  'GET /v1/triage-rules/:ruleId/matches': { kind: 'roles', roles: ANY_ROLE },
  // Webhooks (src/http/webhooks/routes.ts) and their delivery log (src/http/webhooks/deliveries.ts)
  'POST /v1/webhooks': { kind: 'roles', roles: ADMINS },
  'GET /v1/webhooks': { kind: 'roles', roles: ADMINS },
  'DELETE /v1/webhooks/:webhookId': { kind: 'roles', roles: ADMINS },
  'GET /v1/webhooks/:webhookId/deliveries': { kind: 'roles', roles: ADMINS },
  // Hosts (src/http/hosts/). Tokens and revocation are human-only (owner and admin sessions); the
  // sidecar's endpoints take its registration token or host credential and nothing else. Issue 19 adds the host
  // credential to the two MCP uploads: { kind: 'scope', scope: 'mcp:upload', machines: ['host'] }.
  'POST /v1/hosts/registration-tokens': { kind: 'roles', roles: ADMINS },
  'GET /v1/hosts/registration-tokens': { kind: 'roles', roles: ADMINS },
  'DELETE /v1/hosts/registration-tokens/:tokenId': { kind: 'roles', roles: ADMINS },
  'POST /v1/hosts/attestations': { kind: 'credential', credential: 'registration_token' },
  'POST /v1/hosts/:hostId/heartbeats': { kind: 'credential', credential: 'host' },
  'GET /v1/hosts': { kind: 'scope', scope: 'hosts:read' },
  'DELETE /v1/hosts/:hostId': { kind: 'roles', roles: ADMINS },
  // Gateways (src/http/gateways/); approval and revocation are human-only
  'POST /v1/gateways/enrollment-tokens': { kind: 'roles', roles: ADMINS },
  'GET /v1/gateways/enrollment-tokens': { kind: 'roles', roles: ADMINS },
  'DELETE /v1/gateways/enrollment-tokens/:tokenId': { kind: 'roles', roles: ADMINS },
  'POST /v1/gateways/enrollments': { kind: 'credential', credential: 'enrollment_token' },
  'POST /v1/gateways/:gatewayId/approval': { kind: 'roles', roles: ADMINS },
  'POST /v1/gateways/:gatewayId/heartbeats': { kind: 'credential', credential: 'gateway' },
  'GET /v1/gateways': { kind: 'scope', scope: 'gateways:read' },
  'DELETE /v1/gateways/:gatewayId': { kind: 'roles', roles: ADMINS },
  // MCP auditing (src/http/mcp/). The two uploads take a host credential too (its own host implied);
  // the registry is changed by owners and admins, the control level by owners only (sessions).
  'POST /v1/mcp/scans': { kind: 'scope', scope: 'mcp:upload', machines: ['host'] },
  'GET /v1/mcp/scans/:mcpScanId': { kind: 'scope', scope: 'mcp:read' },
  'GET /v1/mcp/servers': { kind: 'scope', scope: 'mcp:read' },
  'GET /v1/mcp/servers/:serverId': { kind: 'scope', scope: 'mcp:read' },
  'GET /v1/mcp/registry': { kind: 'scope', scope: 'mcp:read' },
  'PUT /v1/mcp/registry/entries': { kind: 'roles', roles: ADMINS },
  'DELETE /v1/mcp/registry/entries/:entryId': { kind: 'roles', roles: ADMINS },
  'GET /v1/mcp/control-level': { kind: 'scope', scope: 'mcp:read' },
  'PUT /v1/mcp/control-level': { kind: 'roles', roles: ['owner'] },
  'POST /v1/mcp/usage-events': { kind: 'scope', scope: 'mcp:upload', machines: ['host'] },
  'GET /v1/mcp/usage-events': { kind: 'scope', scope: 'mcp:read' },
} as const satisfies Record<string, Access>;

export type Endpoint = keyof typeof MATRIX;

const forbidden = (msg: string) => new ApiError(403, 'insufficient_scope', msg);

/** What a machine credential is told anywhere but on its own endpoints. */
const onlyItsOwn = (p: Principal, required: string) =>
  forbidden(
    `requires ${required}; ${isMachine(p) ? MACHINE_NAMES[p.kind] : 'this credential'} is valid only on its own endpoints`,
  );

/** Throws 403 insufficient_scope (naming the scope, role or credential required) unless the principal may call the endpoint. */
export function authorize(p: Principal, a: Access): void {
  switch (a.kind) {
    case 'public':
      return;
    case 'credential':
      if (p.kind !== a.credential)
        throw forbidden(`requires ${MACHINE_NAMES[a.credential]}; no other credential can call this endpoint`);
      return;
    case 'session':
      if (isMachine(p)) throw onlyItsOwn(p, 'a session');
      if (p.kind !== 'session') throw forbidden('requires a session; API keys cannot call this endpoint');
      return;
    case 'roles': {
      if (isMachine(p)) throw onlyItsOwn(p, `a session with role ${a.roles.join(' or ')}`);
      if (p.kind !== 'session')
        throw forbidden(
          `requires a session with role ${a.roles.join(' or ')}; API keys cannot manage the organization`,
        );
      if (!p.member) throw forbidden('requires organization membership');
      if (!a.roles.includes(p.member.role)) throw forbidden(`requires role ${a.roles.join(' or ')}`);
      return;
    }
    case 'scope':
      if (isMachine(p)) {
        if (a.machines?.includes(p.kind)) return;
        throw onlyItsOwn(p, `scope ${a.scope}`);
      }
      if (p.kind === 'api_key') {
        if (!p.key.scopes.includes(a.scope)) throw forbidden(`requires scope ${a.scope}`);
        return;
      }
      if (!p.member) throw forbidden('requires organization membership');
      if (!roleScopes(p.member.role).has(a.scope)) throw forbidden(`requires scope ${a.scope}`);
  }
}

/** The route guard of an endpoint: authenticate (unless public), count against the rate limit, authorize. */
export function access(deps: AppDeps, endpoint: Endpoint) {
  const a: Access = MATRIX[endpoint];
  return async (ctx: Context & { state: AppState }, next: Next) => {
    if (a.kind !== 'public') {
      const p = await authenticate(ctx, deps);
      // hosts and gateways heartbeat at the pace the server gives: counted per process (src/http/rate-limit.ts)
      await deps.rateLimiter?.admit(ctx, p.tokenHash, Date.now(), { local: p.kind === 'host' || p.kind === 'gateway' });
      authorize(p, a);
    }
    await next();
  };
}
