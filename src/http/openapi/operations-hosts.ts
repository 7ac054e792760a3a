// Hosts and their registration tokens (src/http/hosts/). Error codes as those handlers throw them.
import { MAX_LABELS } from '../../domain/hosts/labels';
import { HOST_STATUSES, REGISTRATION_TOKEN_STATUSES } from '../../domain/hosts/status';
import type { Endpoint } from '../auth/matrix';
import {
  LIST_ERRORS,
  OBJECT_BODY_ERRORS,
  PAGINATION,
  pathParam,
  queryEnum,
  serverTiming,
  type Operation,
  type Param,
} from './operation';
import { ref } from './schemas/common';

type HostRoute = Extract<Endpoint, `${string} /v1/hosts${string}`>;

const json422 =
  'invalid_parameter (the body is not a JSON object; a field of the wrong type, out of bounds or with control characters, named), missing_parameter (a required field is absent or empty)';

const labelFilter: Param = {
  name: 'label',
  in: 'query',
  description: `key=value, repeatable (up to ${MAX_LABELS}): only hosts holding every one of these labels. Not of that form (a label key, "=", a value of at most 255 characters): 422 invalid_parameter.`,
  schema: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z0-9._/-]{1,63}=' }, maxItems: MAX_LABELS },
};

export const hostOperations: Record<HostRoute, Operation> = {
  'POST /v1/hosts/registration-tokens': {
    operationId: 'createRegistrationToken',
    tag: 'hosts',
    summary: 'Issue a host registration token (returned once)',
    description:
      'The token registers up to `uses` hosts (POST /v1/hosts/attestations) until it expires or is revoked; its labels are given to every host it registers.',
    requestBody: {
      description: 'Name, uses (1 to 10,000, default 1), expiry (default +24 h, at most +30 days), labels.',
      required: true,
      schema: ref('RegistrationTokenCreate'),
    },
    responses: {
      201: { description: 'The token and its secret.', schema: ref('RegistrationTokenCreated') },
      ...OBJECT_BODY_ERRORS,
      422: {
        description: `${json422}; expiresAt not in the future, or more than 30 days ahead; uses outside 1 to 10,000; malformed labels.`,
        codes: ['invalid_parameter', 'missing_parameter'],
      },
    },
    usesDatabase: true,
  },
  'GET /v1/hosts/registration-tokens': {
    operationId: 'listRegistrationTokens',
    tag: 'hosts',
    summary: 'List registration tokens, newest first (never their secrets; revoked ones stay listed)',
    parameters: [queryEnum('status', REGISTRATION_TOKEN_STATUSES, 'Only tokens in this status.'), ...PAGINATION],
    responses: {
      200: { description: 'A page of tokens.', schema: ref('RegistrationTokenList') },
      422: { description: 'invalid_parameter, invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
  'DELETE /v1/hosts/registration-tokens/:tokenId': {
    operationId: 'revokeRegistrationToken',
    tag: 'hosts',
    summary: 'Revoke a registration token: it registers nothing from that moment (its hosts stay)',
    parameters: [pathParam('tokenId', 'The token id (hrt_...).')],
    responses: {
      204: { description: 'Revoked.' },
      404: {
        description:
          'not_found: no such token in the organization, or it is revoked already (of two revocations at once, one gets 204).',
        codes: ['not_found'],
      },
    },
    usesDatabase: true,
  },
  'POST /v1/hosts/attestations': {
    operationId: 'attestHost',
    tag: 'hosts',
    summary: 'Register a host (the sidecar, with a registration token); the host credential is returned once',
    description:
      "Each attestation takes one of the token's uses (a re-attestation too). The token's labels win over the body's. " +
      'The same machineId again in the organization: if that host is active, the request must also carry its current host credential in ' +
      '`X-Svc-Host-Credential` (else 409 invalid_state); if it is expired, or the credential is given, the host keeps its id, becomes active and ' +
      'gets a new credential, and the previous one is refused from then on. A revoked host is never revived: its machine registers as a new host.',
    parameters: [
      {
        name: 'X-Svc-Host-Credential',
        in: 'header',
        description: "The current credential (svc_hst_...) of the machine's active host, to re-attest it.",
        schema: { type: 'string' },
      },
    ],
    requestBody: { description: 'The host as the sidecar sees it.', required: true, schema: ref('Attestation') },
    responses: {
      201: { description: 'The host (new, or re-attested) and its new credential.', schema: ref('HostRegistered') },
      401: {
        description: "invalid_token: also when the token's last use was taken by another attestation meanwhile.",
        codes: ['invalid_token'],
      },
      409: {
        description:
          "invalid_state: the machine's host is active and its current credential was not presented, or another attestation of the machine was decided at the same time.",
        codes: ['invalid_state'],
      },
      ...OBJECT_BODY_ERRORS,
      422: {
        description: `${json422}; hostname 1 to 253 characters, machineId 1 to 200, os, arch and agentVersion at most 100; malformed labels.`,
        codes: ['invalid_parameter', 'missing_parameter'],
      },
    },
    usesDatabase: true,
  },
  'POST /v1/hosts/:hostId/heartbeats': {
    operationId: 'hostHeartbeat',
    tag: 'hosts',
    summary: "A host's heartbeat (its own credential): keeps it active, or makes an expired host active again",
    parameters: [pathParam('hostId', 'The host id (hst_...) of the credential; any other is 404 not_found.')],
    requestBody: {
      description: 'What the host reports; every field optional (`{}` is a heartbeat).',
      required: true,
      schema: ref('HostHeartbeat'),
    },
    responses: {
      200: {
        description: 'The host as recorded, and when to send the next heartbeat.',
        schema: ref('HostHeartbeatAccepted'),
        headers: serverTiming('auth (the credential and its host read), body, write'),
      },
      404: { description: "not_found: not the credential's own host.", codes: ['not_found'] },
      ...OBJECT_BODY_ERRORS,
      422: {
        description: `${json422}; connectivity "gateway" without the id of an active gateway of the organization, or gatewayId without it; malformed labels.`,
        codes: ['invalid_parameter', 'missing_parameter'],
      },
    },
    usesDatabase: true,
  },
  'GET /v1/hosts': {
    operationId: 'listHosts',
    tag: 'hosts',
    summary: 'List hosts, ordered by hostname, then id',
    parameters: [
      queryEnum('status', HOST_STATUSES, 'Only hosts in this status (expired: no heartbeat for HOST_EXPIRY).'),
      labelFilter,
      ...PAGINATION,
    ],
    responses: {
      200: { description: 'A page of hosts.', schema: ref('HostList') },
      422: {
        description: 'invalid_parameter (an unknown status, a malformed label filter, a bad limit), invalid_cursor.',
        codes: LIST_ERRORS,
      },
    },
    usesDatabase: true,
  },
  'DELETE /v1/hosts/:hostId': {
    operationId: 'revokeHost',
    tag: 'hosts',
    summary: 'Revoke a host: its credential fails with 401 from that moment, and it is never revived',
    parameters: [pathParam('hostId', 'The host id (hst_...).')],
    responses: {
      204: { description: 'Revoked (it stays listed, status revoked).' },
      404: {
        description: 'not_found: no such host in the organization, or it is revoked already.',
        codes: ['not_found'],
      },
    },
    usesDatabase: true,
  },
};
