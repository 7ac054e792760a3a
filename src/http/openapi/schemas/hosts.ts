// Schemas of hosts and registration tokens (src/http/hosts/), written from their presenters, and
// the request bodies those routes read by hand (these schemas state the same rules for clients).
import { LABEL_KEY, MAX_LABEL_VALUE, MAX_LABELS } from '../../../domain/hosts/labels';
import { HOST_STATUSES, MAX_REGISTRATION_USES, REGISTRATION_TOKEN_STATUSES } from '../../../domain/hosts/status';
import { MAX_NAME, MAX_SHORT_TEXT } from '../../hosts/fields';
import { listEnvelope, ref, strOrNull, timestamp, timestampOrNull } from './common';

/** Labels: a map of string to string within the project's bounds (README "Hosts and gateways"). */
export const labelsSchema = {
  type: 'object',
  maxProperties: MAX_LABELS,
  propertyNames: { pattern: LABEL_KEY.source },
  additionalProperties: { type: 'string', maxLength: MAX_LABEL_VALUE },
  description: `At most ${MAX_LABELS} labels; keys of 1 to 63 characters of A-Z a-z 0-9 . _ / -; values of at most ${MAX_LABEL_VALUE} characters without control characters.`,
} as const;

const shortText = (description: string) => ({
  type: ['string', 'null'],
  minLength: 1,
  maxLength: MAX_SHORT_TEXT,
  description,
});

export const hostSchemas = {
  Labels: labelsSchema,
  RegistrationToken: {
    type: 'object',
    required: [
      'id',
      'name',
      'usesLeft',
      'labels',
      'status',
      'createdBy',
      'createdAt',
      'expiresAt',
      'uses',
      'revokedAt',
    ],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^hrt_' },
      name: { type: 'string' },
      usesLeft: { type: 'integer', minimum: 0, maximum: MAX_REGISTRATION_USES },
      labels: {
        ...ref('Labels'),
        description: 'Given to every host the token registers; they win over the labels a host sends.',
      },
      status: {
        type: 'string',
        enum: [...REGISTRATION_TOKEN_STATUSES],
        description: 'revoked, else exhausted (no uses left), else expired (now ≥ expiresAt), else active.',
      },
      createdBy: { ...strOrNull, description: 'The member id (mem_...) of who issued it.' },
      createdAt: timestamp,
      expiresAt: timestamp,
      uses: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_REGISTRATION_USES,
        description: 'Additive: the uses it was issued with.',
      },
      revokedAt: { ...timestampOrNull, description: 'Additive.' },
    },
  },
  RegistrationTokenList: listEnvelope('registrationTokens', 'RegistrationToken'),
  RegistrationTokenCreate: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: MAX_NAME },
      uses: {
        type: ['integer', 'null'],
        minimum: 1,
        maximum: MAX_REGISTRATION_USES,
        default: 1,
        description: 'How many attestations it allows (a re-attestation takes one too).',
      },
      expiresAt: {
        ...timestampOrNull,
        description:
          'RFC 3339, in the future and at most 30 days ahead (the bound included); absent or null: in 24 hours.',
      },
      labels: { ...labelsSchema, type: ['object', 'null'] },
    },
  },
  RegistrationTokenCreated: {
    type: 'object',
    required: ['registrationToken', 'token'],
    additionalProperties: false,
    properties: {
      registrationToken: ref('RegistrationToken'),
      token: {
        type: 'string',
        pattern: '^svc_reg_[0-9A-Za-z]{40}$',
        description:
          "The sidecar's Bearer credential for POST /v1/hosts/attestations. Returned once only; stored as its SHA-256.",
      },
    },
  },
  Host: {
    type: 'object',
    required: [
      'id',
      'hostname',
      'status',
      'lastHeartbeatAt',
      'labels',
      'connectivity',
      'os',
      'arch',
      'agentVersion',
      'registeredAt',
    ],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^hst_' },
      hostname: { type: 'string', minLength: 1, maxLength: 253 },
      status: {
        type: 'string',
        enum: [...HOST_STATUSES],
        description:
          'revoked, else expired (no heartbeat for HOST_EXPIRY; a later heartbeat makes it active again), else active.',
      },
      lastHeartbeatAt: {
        ...timestamp,
        description: 'The last heartbeat, or the (re-)attestation when none came since.',
      },
      labels: {
        ...ref('Labels'),
        description: "The host's own labels (attestation, then heartbeats) with the registration token's over them.",
      },
      connectivity: { type: 'string', enum: ['direct', 'gateway'] },
      gatewayId: { type: 'string', pattern: '^gw_', description: 'Only when connectivity is gateway.' },
      os: { ...strOrNull, description: 'Additive.' },
      arch: { ...strOrNull, description: 'Additive.' },
      agentVersion: { ...strOrNull, description: 'Additive.' },
      registeredAt: { ...timestamp, description: "Additive: the host's first attestation." },
    },
  },
  HostList: listEnvelope('hosts', 'Host'),
  Attestation: {
    type: 'object',
    required: ['hostname', 'machineId'],
    properties: {
      hostname: { type: 'string', minLength: 1, maxLength: 253, description: 'No control characters.' },
      machineId: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        description:
          'Stable per machine: the same machineId again in the organization is the same host (see the operation).',
      },
      labels: { ...labelsSchema, type: ['object', 'null'] },
      os: shortText('Optional.'),
      arch: shortText('Optional.'),
      agentVersion: shortText('Optional.'),
    },
  },
  HostRegistered: {
    type: 'object',
    required: ['host', 'credential'],
    additionalProperties: false,
    properties: {
      host: ref('Host'),
      credential: {
        type: 'string',
        pattern: '^svc_hst_[0-9A-Za-z]{40}$',
        description: 'The host credential: Bearer for its heartbeats. Returned once only; stored as its SHA-256.',
      },
    },
  },
  HostHeartbeat: {
    type: 'object',
    properties: {
      agentVersion: shortText('Replaces the one stored; null clears it.'),
      labels: {
        ...labelsSchema,
        type: ['object', 'null'],
        description: `${labelsSchema.description} Replace the host's own labels; the registration token's stay. Absent or null: unchanged.`,
      },
      connectivity: {
        type: ['string', 'null'],
        enum: ['direct', 'gateway', null],
        description: 'Absent or null: unchanged.',
      },
      gatewayId: {
        type: ['string', 'null'],
        description: 'With connectivity "gateway" only, and then required: an active gateway of the organization.',
      },
    },
  },
  HostHeartbeatAccepted: {
    type: 'object',
    required: ['host', 'nextHeartbeatSeconds'],
    additionalProperties: false,
    properties: {
      host: ref('Host'),
      nextHeartbeatSeconds: {
        type: 'integer',
        minimum: 1,
        maximum: 60,
        description:
          'When to send the next heartbeat: a third of HOST_EXPIRY, between 1 and 60 seconds (60 with the default 15 minutes).',
      },
    },
  },
};
