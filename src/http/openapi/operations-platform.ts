// The platform routes: me, members, invitations, API keys, audit events, IP ranges, the CI client, health and this
// document itself. Error codes as the handlers in src/http/*/routes.ts throw them.
import { INVITATION_STATUS, KEY_STATUS } from './schemas/platform';
import { LIST_ERRORS, OBJECT_BODY_ERRORS, PAGINATION, pathParam, queryEnum, type Operation } from './operation';
import { ROLES } from '../../domain/roles';
import { AUDIT_TYPES } from '../../storage/audit';
import { ref } from './schemas/common';

const json422 =
  'invalid_parameter (the body is not a JSON object, a field has the wrong type or value), missing_parameter (a required field is absent or empty)';

export const platformOperations = {
  'GET /healthz': {
    operationId: 'getHealth',
    tag: 'health',
    summary: 'Liveness: the process answers (never touches dependencies)',
    responses: { 200: { description: 'Alive.', schema: ref('Health') } },
    usesDatabase: false,
  },
  'GET /readyz': {
    operationId: 'getReadiness',
    tag: 'health',
    summary: 'Readiness: MongoDB and Temporal reachable, a worker polling',
    responses: {
      200: { description: 'Ready.', schema: ref('Readiness') },
      503: {
        description: 'Not ready: the same body with status not_ready and the failing check (not the error envelope).',
        schema: ref('Readiness'),
      },
    },
    usesDatabase: false,
  },
  'GET /v1/openapi.json': {
    operationId: 'getOpenApiDocument',
    tag: 'meta',
    summary: 'This OpenAPI 3.1 document',
    responses: { 200: { description: 'The document.', schema: { type: 'object' } } },
    usesDatabase: false,
  },
  'GET /cli/scanner.mjs': {
    operationId: 'getCliClient',
    tag: 'meta',
    summary: 'The CI client as one dependency-free file for Node 20',
    parameters: [
      { name: 'If-None-Match', in: 'header', description: 'The ETag of a cached copy.', schema: { type: 'string' } },
    ],
    responses: {
      200: {
        description: 'The client.',
        content: { 'text/javascript': { schema: { type: 'string' } } },
        headers: {
          'X-Scanner-Version': { description: "The client's version.", schema: { type: 'string' } },
          ETag: { description: 'Strong validator of the file.', schema: { type: 'string' } },
        },
      },
      304: {
        description: 'Not modified (If-None-Match matched the ETag).',
        headers: { 'X-Scanner-Version': { description: "The client's version.", schema: { type: 'string' } } },
      },
      404: { description: 'not_found: the bundle has not been built on this server.', codes: ['not_found'] },
    },
    usesDatabase: false,
  },
  'GET /v1/meta/ip-ranges': {
    operationId: 'getIpRanges',
    tag: 'meta',
    summary: "The control plane's challenge source ranges",
    responses: { 200: { description: 'The ranges.', schema: ref('IpRanges') } },
    usesDatabase: false,
  },
  'GET /v1/me': {
    operationId: 'getMe',
    tag: 'me',
    summary: 'The signed-in user, their organization and membership',
    responses: { 200: { description: 'The caller.', schema: ref('Me') } },
    usesDatabase: true,
  },
  'GET /v1/members': {
    operationId: 'listMembers',
    tag: 'members',
    summary: 'List members, owners first, then by email',
    parameters: [queryEnum('role', ROLES, 'Only members with this role.'), ...PAGINATION],
    responses: {
      200: { description: 'A page of members.', schema: ref('MemberList') },
      422: { description: 'invalid_parameter, invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
  'PATCH /v1/members/:memberId': {
    operationId: 'updateMember',
    tag: 'members',
    summary: "Change a member's role",
    description: 'Promoting to admin and changing an owner are Owner-only (403 insufficient_scope naming the role).',
    parameters: [pathParam('memberId', 'The member id (mem_...).')],
    requestBody: { description: 'The new role.', required: true, schema: ref('MemberUpdate') },
    responses: {
      200: { description: 'The updated member.', schema: ref('Member') },
      404: { description: 'not_found: no such member in the organization.', codes: ['not_found'] },
      409: {
        description: 'last_owner: the sole owner cannot be demoted (or the member changed meanwhile).',
        codes: ['last_owner'],
      },
      ...OBJECT_BODY_ERRORS,
      422: { description: `${json422}; owner is not assignable.`, codes: ['invalid_parameter', 'missing_parameter'] },
    },
    usesDatabase: true,
  },
  'DELETE /v1/members/:memberId': {
    operationId: 'removeMember',
    tag: 'members',
    summary: 'Remove a member, or leave with your own id',
    description: 'Any role may leave; removing someone else needs Admin or Owner, removing an owner Owner.',
    parameters: [pathParam('memberId', 'The member id (mem_...).')],
    responses: {
      204: { description: 'Removed.' },
      404: { description: 'not_found: no such member in the organization.', codes: ['not_found'] },
      409: { description: 'last_owner: the sole owner cannot be removed.', codes: ['last_owner'] },
    },
    usesDatabase: true,
  },
  'POST /v1/invitations': {
    operationId: 'createInvitation',
    tag: 'invitations',
    summary: 'Invite an email address (re-inviting a pending email replaces the earlier invitation)',
    description: 'Inviting as admin is Owner-only (403 insufficient_scope).',
    requestBody: { description: 'Whom to invite, and as what.', required: true, schema: ref('InvitationCreate') },
    responses: {
      201: { description: 'The invitation, its token and link (returned once).', schema: ref('InvitationCreated') },
      ...OBJECT_BODY_ERRORS,
      409: {
        description:
          'already_member: the email address is already a member of this organization (whether it belongs to another organization is never said).',
        codes: ['already_member'],
      },
      422: { description: `${json422}.`, codes: ['invalid_parameter', 'missing_parameter'] },
    },
    usesDatabase: true,
  },
  'GET /v1/invitations': {
    operationId: 'listInvitations',
    tag: 'invitations',
    summary: 'List invitations, newest first (never with tokens)',
    parameters: [queryEnum('status', INVITATION_STATUS, 'Only invitations in this status.'), ...PAGINATION],
    responses: {
      200: { description: 'A page of invitations.', schema: ref('InvitationList') },
      422: { description: 'invalid_parameter, invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
  'DELETE /v1/invitations/:invitationId': {
    operationId: 'revokeInvitation',
    tag: 'invitations',
    summary: 'Revoke an invitation (no change when it is no longer pending)',
    parameters: [pathParam('invitationId', 'The invitation id.')],
    responses: {
      204: { description: 'Revoked.' },
      404: { description: 'not_found: no such invitation in the organization.', codes: ['not_found'] },
    },
    usesDatabase: true,
  },
  'POST /v1/invitations/lookups': {
    operationId: 'lookUpInvitation',
    tag: 'invitations',
    summary: 'What an invitation token is for (tokens travel only in the body)',
    requestBody: { description: 'The invitation token.', required: true, schema: ref('InvitationToken') },
    responses: {
      200: { description: 'The invitation as its invitee may see it.', schema: ref('InvitationLookup') },
      404: { description: 'not_found: unknown token.', codes: ['not_found'] },
      ...OBJECT_BODY_ERRORS,
      422: { description: `${json422}.`, codes: ['invalid_parameter', 'missing_parameter'] },
    },
    usesDatabase: true,
  },
  'POST /v1/invitations/acceptances': {
    operationId: 'acceptInvitation',
    tag: 'invitations',
    summary: 'Accept an invitation: the caller joins the inviting organization',
    requestBody: { description: 'The invitation token.', required: true, schema: ref('InvitationToken') },
    responses: {
      200: { description: 'The organization joined and the new membership.', schema: ref('InvitationAccepted') },
      404: { description: 'not_found: unknown token.', codes: ['not_found'] },
      409: {
        description:
          'Checked in this order: invite_revoked, invite_expired, invite_already_accepted, invite_email_mismatch, already_in_org.',
        codes: [
          'invite_revoked',
          'invite_expired',
          'invite_already_accepted',
          'invite_email_mismatch',
          'already_in_org',
        ],
      },
      ...OBJECT_BODY_ERRORS,
      422: { description: `${json422}.`, codes: ['invalid_parameter', 'missing_parameter'] },
    },
    usesDatabase: true,
  },
  'POST /v1/api-keys': {
    operationId: 'createApiKey',
    tag: 'api-keys',
    summary: 'Create an API key (the secret is returned once)',
    requestBody: {
      description: 'Name, scopes, project restriction, optional expiry.',
      required: true,
      schema: ref('ApiKeyCreate'),
    },
    responses: {
      201: { description: 'The key and its secret.', schema: ref('ApiKeyCreated') },
      ...OBJECT_BODY_ERRORS,
      422: {
        description: `${json422}, invalid_scope (an unknown scope, or an organization-wide scope — hosts:read, gateways:read, mcp:upload, mcp:read — on a key restricted to projects), unknown_project (a project id not in the organization).`,
        codes: ['invalid_parameter', 'missing_parameter', 'invalid_scope', 'unknown_project'],
      },
    },
    usesDatabase: true,
  },
  'GET /v1/api-keys': {
    operationId: 'listApiKeys',
    tag: 'api-keys',
    summary: 'List API keys, newest first (revoked keys stay listed)',
    parameters: [queryEnum('status', KEY_STATUS, 'Only keys in this status.'), ...PAGINATION],
    responses: {
      200: { description: 'A page of keys.', schema: ref('ApiKeyList') },
      422: { description: 'invalid_parameter, invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
  'DELETE /v1/api-keys/:keyId': {
    operationId: 'revokeApiKey',
    tag: 'api-keys',
    summary: 'Revoke an API key: requests with it fail with 401 from that moment',
    parameters: [pathParam('keyId', 'The key id (key_...).')],
    responses: {
      204: { description: 'Revoked.' },
      404: { description: 'not_found: no such key in the organization.', codes: ['not_found'] },
    },
    usesDatabase: true,
  },
  'GET /v1/audit-events': {
    operationId: 'listAuditEvents',
    tag: 'audit',
    summary: "List the organization's audit events, newest first",
    parameters: [
      queryEnum('type', AUDIT_TYPES, 'Only events of this type.'),
      {
        name: 'actor',
        in: 'query',
        description: 'Only events whose actor has this email address (compared case-insensitively).',
        schema: { type: 'string', minLength: 3, maxLength: 320 },
      },
      ...PAGINATION,
    ],
    responses: {
      200: { description: 'A page of audit events.', schema: ref('AuditEventList') },
      422: { description: 'invalid_parameter, invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
} satisfies Record<string, Operation>;
