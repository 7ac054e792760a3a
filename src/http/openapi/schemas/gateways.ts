// Schemas of gateways and enrollment tokens (src/http/gateways/), written from their presenters, and
// the request bodies those routes read by hand.
import { MAX_CIDR_LENGTH, MAX_SCOPE_CIDRS } from '../../../domain/hosts/cidr';
import { ENROLLMENT_TOKEN_STATUSES, GATEWAY_STATUSES } from '../../../domain/hosts/status';
import { MAX_NAME, MAX_SHORT_TEXT } from '../../hosts/fields';
import { listEnvelope, ref, strOrNull, timestamp, timestampOrNull } from './common';

const cidr = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_CIDR_LENGTH,
  description:
    'IPv4 or IPv6 network address with its prefix length ("10.0.0.0/8", "2001:db8::/32"); an address with bits set past the prefix ("10.0.0.1/8") is refused.',
} as const;
const scope = (description: string) => ({
  type: 'array',
  minItems: 1,
  maxItems: MAX_SCOPE_CIDRS,
  items: cidr,
  description,
});

export const gatewaySchemas = {
  EnrollmentToken: {
    type: 'object',
    required: ['id', 'name', 'status', 'createdBy', 'createdAt', 'expiresAt', 'usedAt', 'gatewayId', 'revokedAt'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^gwt_' },
      name: { type: 'string', description: 'The name of the gateway it enrolls, unless the enrollment names it.' },
      status: {
        type: 'string',
        enum: [...ENROLLMENT_TOKEN_STATUSES],
        description: 'revoked, else used, else expired (now ≥ expiresAt), else active.',
      },
      createdBy: { ...strOrNull, description: 'The member id (mem_...) of who issued it.' },
      createdAt: timestamp,
      expiresAt: timestamp,
      usedAt: { ...timestampOrNull, description: 'Additive: when it enrolled its gateway.' },
      gatewayId: { type: ['string', 'null'], description: 'Additive: the gateway it enrolled.' },
      revokedAt: { ...timestampOrNull, description: 'Additive.' },
    },
  },
  EnrollmentTokenList: listEnvelope('enrollmentTokens', 'EnrollmentToken'),
  EnrollmentTokenCreate: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: MAX_NAME },
      expiresAt: {
        ...timestampOrNull,
        description:
          'RFC 3339, in the future and at most 7 days ahead (the bound included); absent or null: in 24 hours.',
      },
    },
  },
  EnrollmentTokenCreated: {
    type: 'object',
    required: ['enrollmentToken', 'token'],
    additionalProperties: false,
    properties: {
      enrollmentToken: ref('EnrollmentToken'),
      token: {
        type: 'string',
        pattern: '^svc_gw_[0-9A-Za-z]{40}$',
        description:
          "The gateway's Bearer credential for POST /v1/gateways/enrollments, once. Returned once only; stored as its SHA-256.",
      },
    },
  },
  Gateway: {
    type: 'object',
    required: [
      'id',
      'name',
      'status',
      'networkScope',
      'version',
      'lastSeenAt',
      'requestedScope',
      'enrolledAt',
      'approvedAt',
    ],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^gw_' },
      name: { type: 'string' },
      status: {
        type: 'string',
        enum: [...GATEWAY_STATUSES],
        description:
          'revoked; pending until approved (expired for good when not approved within 7 days of its enrollment); active, or expired while not heard from for GATEWAY_EXPIRY since its last heartbeat or its approval (a later heartbeat makes it active again).',
      },
      networkScope: {
        type: 'array',
        items: cidr,
        description: 'As approved once active; while pending (or expired unapproved), the scope the gateway requested.',
      },
      version: { type: 'string' },
      lastSeenAt: { ...timestamp, description: 'Its last heartbeat, or its enrollment when none came since.' },
      requestedScope: { type: 'array', items: cidr, description: 'Additive: the scope of its enrollment.' },
      enrolledAt: { ...timestamp, description: 'Additive.' },
      approvedAt: { ...timestampOrNull, description: 'Additive.' },
    },
  },
  GatewayList: listEnvelope('gateways', 'Gateway'),
  Enrollment: {
    type: 'object',
    required: ['version', 'networkScope'],
    properties: {
      name: {
        type: ['string', 'null'],
        minLength: 1,
        maxLength: MAX_NAME,
        description: "Absent or null: the enrollment token's name.",
      },
      version: { type: 'string', minLength: 1, maxLength: MAX_SHORT_TEXT },
      networkScope: scope('The networks the gateway asks to reach (duplicates folded, IPv6 written in RFC 5952 form).'),
    },
  },
  GatewayEnrolled: {
    type: 'object',
    required: ['gateway', 'credential'],
    additionalProperties: false,
    properties: {
      gateway: ref('Gateway'),
      credential: {
        type: 'string',
        pattern: '^svc_gwc_[0-9A-Za-z]{40}$',
        description: 'The gateway credential: Bearer for its heartbeats. Returned once only; stored as its SHA-256.',
      },
    },
  },
  Approval: {
    type: 'object',
    required: ['networkScope'],
    properties: { networkScope: scope('What the gateway may reach: each CIDR within one the gateway requested.') },
  },
  GatewayHeartbeat: {
    type: 'object',
    properties: {
      version: {
        type: ['string', 'null'],
        minLength: 1,
        maxLength: MAX_SHORT_TEXT,
        description: 'Absent or null: unchanged.',
      },
    },
  },
  GatewayHeartbeatAccepted: {
    type: 'object',
    required: ['gateway'],
    additionalProperties: false,
    properties: { gateway: ref('Gateway') },
  },
};
