// Gateways and their enrollment tokens (src/http/gateways/). Error codes as those handlers throw them.
import { ENROLLMENT_TOKEN_STATUSES, GATEWAY_STATUSES } from '../../domain/hosts/status';
import type { Endpoint } from '../auth/matrix';
import { LIST_ERRORS, OBJECT_BODY_ERRORS, PAGINATION, pathParam, queryEnum, type Operation } from './operation';
import { ref } from './schemas/common';

type GatewayRoute = Extract<Endpoint, `${string} /v1/gateways${string}`>;

const json422 =
  'invalid_parameter (the body is not a JSON object; a field of the wrong type, out of bounds or with control characters, named), missing_parameter (a required field is absent or empty)';
const cidr422 =
  'a networkScope item that is not an IPv4 or IPv6 network address with its prefix (named by its index), more than 100 of them';

export const gatewayOperations: Record<GatewayRoute, Operation> = {
  'POST /v1/gateways/enrollment-tokens': {
    operationId: 'createEnrollmentToken',
    tag: 'gateways',
    summary: 'Issue a gateway enrollment token (returned once; it enrolls one gateway)',
    requestBody: {
      description: 'Name, expiry (default +24 h, at most +7 days).',
      required: true,
      schema: ref('EnrollmentTokenCreate'),
    },
    responses: {
      201: { description: 'The token and its secret.', schema: ref('EnrollmentTokenCreated') },
      ...OBJECT_BODY_ERRORS,
      422: {
        description: `${json422}; expiresAt not in the future, or more than 7 days ahead.`,
        codes: ['invalid_parameter', 'missing_parameter'],
      },
    },
    usesDatabase: true,
  },
  'GET /v1/gateways/enrollment-tokens': {
    operationId: 'listEnrollmentTokens',
    tag: 'gateways',
    summary: 'List enrollment tokens, newest first (never their secrets; used and revoked ones stay listed)',
    parameters: [queryEnum('status', ENROLLMENT_TOKEN_STATUSES, 'Only tokens in this status.'), ...PAGINATION],
    responses: {
      200: { description: 'A page of tokens.', schema: ref('EnrollmentTokenList') },
      422: { description: 'invalid_parameter, invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
  'DELETE /v1/gateways/enrollment-tokens/:tokenId': {
    operationId: 'revokeEnrollmentToken',
    tag: 'gateways',
    summary: 'Revoke an enrollment token: it enrolls nothing from that moment',
    parameters: [pathParam('tokenId', 'The token id (gwt_...).')],
    responses: {
      204: { description: 'Revoked.' },
      404: {
        description: 'not_found: no such token in the organization, or it is revoked already.',
        codes: ['not_found'],
      },
    },
    usesDatabase: true,
  },
  'POST /v1/gateways/enrollments': {
    operationId: 'enrollGateway',
    tag: 'gateways',
    summary: 'Enroll a gateway (with its enrollment token, once); the gateway credential is returned once',
    description:
      'The gateway is pending until an owner or admin approves it (POST /v1/gateways/{gatewayId}/approval) within 7 days; its credential heartbeats meanwhile.',
    requestBody: {
      description: "Name (default: the token's), version, the networks it asks to reach.",
      required: true,
      schema: ref('Enrollment'),
    },
    responses: {
      201: { description: 'The pending gateway and its credential.', schema: ref('GatewayEnrolled') },
      401: {
        description: 'invalid_token: also when another enrollment used the token meanwhile.',
        codes: ['invalid_token'],
      },
      ...OBJECT_BODY_ERRORS,
      422: { description: `${json422}; ${cidr422}.`, codes: ['invalid_parameter', 'missing_parameter'] },
    },
    usesDatabase: true,
  },
  'POST /v1/gateways/:gatewayId/approval': {
    operationId: 'approveGateway',
    tag: 'gateways',
    summary: 'Approve a pending gateway with a network scope within the one it requested',
    parameters: [pathParam('gatewayId', 'The gateway id (gw_...).')],
    requestBody: {
      description: 'The approved scope: each CIDR within one the gateway requested.',
      required: true,
      schema: ref('Approval'),
    },
    responses: {
      200: { description: 'The gateway, active, networkScope as approved.', schema: ref('Gateway') },
      404: { description: 'not_found: no such gateway in the organization.', codes: ['not_found'] },
      409: {
        description:
          'invalid_state: the gateway is not pending (active, revoked, or expired: not approved within 7 days, which is final), or another approval came first.',
        codes: ['invalid_state'],
      },
      ...OBJECT_BODY_ERRORS,
      422: {
        description: `${json422}; ${cidr422}; a CIDR not within any the gateway requested.`,
        codes: ['invalid_parameter', 'missing_parameter'],
      },
    },
    usesDatabase: true,
  },
  'POST /v1/gateways/:gatewayId/heartbeats': {
    operationId: 'gatewayHeartbeat',
    tag: 'gateways',
    summary:
      "A gateway's heartbeat (its own credential): a pending gateway stays pending, an expired active one is active again",
    description:
      'The credential of a revoked gateway, or of a pending one not approved within 7 days, is refused with 401 invalid_token.',
    parameters: [pathParam('gatewayId', 'The gateway id (gw_...) of the credential; any other is 404 not_found.')],
    requestBody: {
      description: 'The version it runs (optional: `{}` is a heartbeat).',
      required: true,
      schema: ref('GatewayHeartbeat'),
    },
    responses: {
      200: { description: 'The gateway as recorded.', schema: ref('GatewayHeartbeatAccepted') },
      404: { description: "not_found: not the credential's own gateway.", codes: ['not_found'] },
      ...OBJECT_BODY_ERRORS,
      422: { description: `${json422}.`, codes: ['invalid_parameter', 'missing_parameter'] },
    },
    usesDatabase: true,
  },
  'GET /v1/gateways': {
    operationId: 'listGateways',
    tag: 'gateways',
    summary: 'List gateways, ordered by name, then id',
    parameters: [queryEnum('status', GATEWAY_STATUSES, 'Only gateways in this status.'), ...PAGINATION],
    responses: {
      200: { description: 'A page of gateways.', schema: ref('GatewayList') },
      422: { description: 'invalid_parameter, invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
  'DELETE /v1/gateways/:gatewayId': {
    operationId: 'revokeGateway',
    tag: 'gateways',
    summary: 'Revoke a gateway: its credential fails with 401 from that moment',
    parameters: [pathParam('gatewayId', 'The gateway id (gw_...).')],
    responses: {
      204: { description: 'Revoked (it stays listed, status revoked).' },
      404: {
        description: 'not_found: no such gateway in the organization, or it is revoked already.',
        codes: ['not_found'],
      },
    },
    usesDatabase: true,
  },
};
