// Schemas of the platform resources (me, members, invitations, API keys, audit events, IP ranges, health), written
// from the presenters in src/http/*/routes.ts, and the request bodies those routes read by hand (src/http/json-body.ts
// checks, not ajv: these schemas state the same rules for clients).
import { ASSIGNABLE_ROLES, MANAGER_ROLES, ROLES } from '../../../domain/roles';
import { ORG_WIDE_SCOPES, SCOPES } from '../../../domain/scopes';
import { listEnvelope, ref, str, strArray, strOrNull, timestamp, timestampOrNull } from './common';

export const INVITATION_STATUS = ['pending', 'accepted', 'revoked', 'expired'] as const;
export const KEY_STATUS = ['active', 'expired', 'revoked'] as const;

const role = ref('Role');

export const platformSchemas = {
  // The role and scope lists (src/domain/roles.ts, src/domain/scopes.ts), named: the web app's types come from them.
  Role: { type: 'string', enum: [...ROLES], description: "A member's role in the organization." },
  AssignableRole: {
    type: 'string',
    enum: [...ASSIGNABLE_ROLES],
    description: 'The roles a role change may give: owner is not assignable (an owner invites another owner).',
  },
  ManagerRole: {
    type: 'string',
    enum: [...MANAGER_ROLES],
    description:
      'The roles that manage the organization: members, invitations, API keys, audit events, webhooks, hosts, gateways and the MCP registry.',
  },
  Scope: { type: 'string', enum: [...SCOPES], description: 'A scope an API key may hold.' },
  OrgWideScope: {
    type: 'string',
    enum: [...ORG_WIDE_SCOPES],
    description:
      'The scopes over the whole organization: a key restricted to projects cannot hold them (422 invalid_scope).',
  },
  Me: {
    type: 'object',
    required: ['user', 'org', 'member'],
    properties: {
      user: { type: 'object', required: ['id', 'email'], properties: { id: str, email: str } },
      org: { oneOf: [ref('Org'), { type: 'null' }], description: 'null until an invitation is accepted.' },
      member: {
        oneOf: [
          { type: 'object', required: ['id', 'role', 'joinedAt'], properties: { id: str, role, joinedAt: timestamp } },
          { type: 'null' },
        ],
      },
    },
  },
  Org: { type: 'object', required: ['id', 'name'], properties: { id: str, name: str } },
  Member: {
    type: 'object',
    required: ['id', 'userId', 'email', 'role', 'joinedAt'],
    properties: { id: { type: 'string', pattern: '^mem_' }, userId: str, email: str, role, joinedAt: timestamp },
  },
  MemberList: listEnvelope('members', 'Member'),
  MemberUpdate: {
    type: 'object',
    required: ['role'],
    properties: { role: { ...ref('AssignableRole'), description: 'owner is not assignable.' } },
  },
  Invitation: {
    type: 'object',
    required: ['id', 'email', 'role', 'status', 'createdBy', 'createdAt', 'expiresAt', 'acceptedAt', 'revokedAt'],
    properties: {
      id: str,
      email: str,
      role,
      status: { type: 'string', enum: [...INVITATION_STATUS] },
      createdBy: str,
      createdAt: timestamp,
      expiresAt: timestamp,
      acceptedAt: timestampOrNull,
      revokedAt: timestampOrNull,
    },
  },
  InvitationList: listEnvelope('invitations', 'Invitation'),
  InvitationCreate: {
    type: 'object',
    required: ['email', 'role'],
    properties: {
      email: { type: 'string', maxLength: 320 },
      role: { ...role, description: 'Inviting as admin or owner is Owner-only.' },
    },
  },
  InvitationCreated: {
    type: 'object',
    required: ['invitation', 'token', 'inviteUrl'],
    properties: { invitation: ref('Invitation'), token: { type: 'string', pattern: '^svc_inv_' }, inviteUrl: str },
  },
  InvitationToken: {
    type: 'object',
    required: ['token'],
    properties: { token: { type: 'string', minLength: 1, maxLength: 200 } },
  },
  InvitationLookup: {
    type: 'object',
    required: ['org', 'email', 'role', 'status', 'expiresAt'],
    properties: {
      org: { type: 'object', required: ['name'], properties: { name: str } },
      email: str,
      role,
      status: { type: 'string', enum: [...INVITATION_STATUS] },
      expiresAt: timestamp,
    },
  },
  InvitationAccepted: {
    type: 'object',
    required: ['org', 'member'],
    properties: { org: ref('Org'), member: ref('Member') },
  },
  ApiKey: {
    type: 'object',
    required: [
      'id',
      'name',
      'prefix',
      'scopes',
      'projects',
      'status',
      'createdBy',
      'createdAt',
      'expiresAt',
      'lastUsedAt',
      'revokedAt',
    ],
    properties: {
      id: { type: 'string', pattern: '^key_' },
      name: str,
      prefix: { ...str, description: 'The first characters of the secret, never the secret.' },
      scopes: { type: 'array', items: ref('Scope') },
      projects: { oneOf: [{ const: 'all' }, strArray] },
      status: { type: 'string', enum: [...KEY_STATUS] },
      createdBy: strOrNull,
      createdAt: timestamp,
      expiresAt: timestampOrNull,
      lastUsedAt: timestampOrNull,
      revokedAt: timestampOrNull,
    },
  },
  ApiKeyList: listEnvelope('apiKeys', 'ApiKey'),
  ApiKeyCreate: {
    type: 'object',
    required: ['name', 'scopes', 'projects'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      scopes: {
        type: 'array',
        minItems: 1,
        items: ref('Scope'),
        description: 'With projects other than all, no OrgWideScope.',
      },
      projects: {
        oneOf: [{ const: 'all' }, { type: 'array', minItems: 1, items: { type: 'string', pattern: '^prj_' } }],
      },
      expiresAt: { ...timestampOrNull, description: 'In the future; absent or null: never expires.' },
    },
  },
  ApiKeyCreated: {
    type: 'object',
    required: ['apiKey', 'secret'],
    properties: {
      apiKey: ref('ApiKey'),
      secret: { type: 'string', pattern: '^svc_key_', description: 'Returned once only.' },
    },
  },
  AuditEvent: {
    type: 'object',
    required: ['id', 'type', 'actor', 'target', 'at', 'requestId'],
    properties: {
      id: str,
      type: { ...str, examples: ['api_key.created', 'invitation.accepted', 'member.role_changed'] },
      actor: {
        type: 'object',
        required: ['memberId', 'userId', 'email'],
        properties: {
          memberId: strOrNull,
          userId: strOrNull,
          email: strOrNull,
          apiKeyId: {
            ...str,
            description: 'An API key (key_...) acted: memberId is the member who created it, userId and email null.',
          },
          // additive: a machine credential acted; memberId, userId and email are then null
          registrationTokenId: { ...str, description: 'The registration token (hrt_...) that attested a host.' },
          hostId: { ...str, description: 'The host (hst_...) whose credential acted.' },
          enrollmentTokenId: { ...str, description: 'The enrollment token (gwt_...) that enrolled a gateway.' },
          gatewayId: { ...str, description: 'The gateway (gw_...) whose credential acted.' },
        },
      },
      target: {
        type: 'object',
        required: ['kind', 'id'],
        properties: { kind: str, id: str },
        additionalProperties: true,
        description:
          "What the event acted on, with details by event type (an email, a role change's from and to, scopes, ...).",
      },
      at: timestamp,
      requestId: strOrNull,
    },
  },
  AuditEventList: listEnvelope('auditEvents', 'AuditEvent'),
  IpRanges: {
    type: 'object',
    required: ['challenge_sources', 'updated_at'],
    properties: { challenge_sources: { ...strArray, description: 'IPv4 and IPv6 CIDRs.' }, updated_at: timestamp },
  },
  Health: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
  Readiness: {
    type: 'object',
    required: ['status', 'checks'],
    properties: {
      status: { type: 'string', enum: ['ready', 'not_ready'] },
      checks: {
        type: 'array',
        items: { type: 'object', required: ['name', 'ok'], properties: { name: str, ok: { type: 'boolean' } } },
      },
    },
  },
};
