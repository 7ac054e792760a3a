// Schemas of MCP auditing (src/http/mcp/), written from its presenters, and the request bodies those
// routes read by hand (these schemas state the same rules for clients).
import { CONTROL_LEVELS, REASONS } from '../../../domain/mcp/decision';
import { ISSUE_ORDER } from '../../../domain/mcp/issues';
import { MCP_CLIENTS } from '../../../shared/mcp/types';
import { MAX_ENTRY_VERSIONS, MAX_NOTE, MAX_REGISTRY_ENTRIES } from '../../mcp/routes';
import { MCP_LIMITS, SCOPES, TRANSPORTS } from '../../mcp/scan-body';
import { MAX_DURATION_MS, MAX_EVENT_ID, MAX_EVENTS, OUTCOMES, PHASES } from '../../mcp/usage-body';
import { listEnvelope, ref, str, strOrNull, timestamp, timestampOrNull } from './common';

const hostRef = {
  description:
    'The host: {hostId} (an active host of the organization; with a host credential, only its own) or {hostname} (kept as reported, never creates a host). With a host credential it may be left out.',
  oneOf: [
    { type: 'object', required: ['hostId'], properties: { hostId: { type: 'string', maxLength: 100 } } },
    {
      type: 'object',
      required: ['hostname'],
      properties: { hostname: { type: 'string', minLength: 1, maxLength: 253 } },
    },
  ],
};
const issue = {
  type: 'object',
  required: ['code', 'severity', 'message', 'serverId', 'hostId', 'reportedHostname'],
  properties: {
    code: ref('McpIssueCode'),
    severity: ref('Severity'),
    message: str,
    serverId: str,
    tool: str,
    details: { type: 'object' },
    hostId: {
      ...strOrNull,
      description: 'Additive: the host the issue was raised on (null for a host known by its reported hostname only).',
    },
    reportedHostname: strOrNull,
  },
};
const usage = {
  type: 'object',
  required: ['calls', 'errors', 'blocked', 'lastCalledAt'],
  additionalProperties: false,
  description:
    'Computed from the stored usage events when read: calls = post events; errors = post events with outcome error; blocked = post events with outcome blocked and pre events answered block; lastCalledAt = the latest occurredAt of its events.',
  properties: {
    calls: { type: 'integer', minimum: 0 },
    errors: { type: 'integer', minimum: 0 },
    blocked: { type: 'integer', minimum: 0 },
    lastCalledAt: timestampOrNull,
  },
};
const registryDecision = {
  type: 'object',
  required: ['decision', 'entryId'],
  additionalProperties: false,
  description:
    "deny when an entry denies any version seen; allow when entries allow every version seen; else unreviewed (a version outside an entry's list counts as unreviewed).",
  properties: { decision: { type: 'string', enum: ['allow', 'deny', 'unreviewed'] }, entryId: strOrNull },
};
const serverProps = {
  id: { type: 'string', pattern: '^mcp_' },
  identity: str,
  names: { type: 'array', items: str },
  transport: { type: 'string', enum: [...TRANSPORTS] },
  versions: { type: 'array', items: str },
  clients: { type: 'array', items: str },
  firstSeenAt: timestamp,
  lastSeenAt: timestamp,
  registry: registryDecision,
  issues: {
    type: 'array',
    items: ref('McpIssue'),
    description: "The current issues: those of its placements (from each one's latest scan).",
  },
  usage,
  kind: {
    type: 'string',
    enum: ['npm', 'pypi', 'oci', 'remote', 'command'],
    description: 'Additive: what the identity is.',
  },
};
const serverRequired = [
  'id',
  'identity',
  'names',
  'transport',
  'versions',
  'hosts',
  'clients',
  'firstSeenAt',
  'lastSeenAt',
  'registry',
  'issues',
  'usage',
];
const decision = {
  type: 'object',
  required: ['decision', 'reason'],
  additionalProperties: false,
  properties: {
    decision: { type: 'string', enum: ['allow', 'warn', 'block'] },
    reason: { type: 'string', enum: Object.values(REASONS) },
  },
};

export const mcpSchemas = {
  McpIssueCode: {
    type: 'string',
    enum: [...ISSUE_ORDER],
    description: 'The issue codes of an MCP server, in their order (src/domain/mcp/issues.ts).',
  },
  McpIssue: issue,
  McpScanUpload: {
    type: 'object',
    required: ['clients'],
    description: `At most 1 MB. Secret values are never stored: of env and headers only the names; name, command, args and url redacted; tool descriptions and inputSchema strings redacted. Unknown fields are ignored.`,
    properties: {
      host: hostRef,
      scannedAt: timestampOrNull,
      clients: {
        type: 'array',
        maxItems: MCP_LIMITS.clients,
        items: {
          type: 'object',
          required: ['client', 'configPath', 'scope', 'servers'],
          properties: {
            client: { type: 'string', enum: [...MCP_CLIENTS] },
            configPath: { type: 'string', minLength: 1, maxLength: MCP_LIMITS.configPath },
            scope: { type: 'string', enum: [...SCOPES] },
            servers: {
              type: 'array',
              maxItems: MCP_LIMITS.serversPerClient,
              items: {
                type: 'object',
                required: ['name', 'transport'],
                properties: {
                  name: { type: 'string', minLength: 1, maxLength: MCP_LIMITS.name },
                  transport: { type: 'string', enum: [...TRANSPORTS] },
                  command: { type: ['string', 'null'], maxLength: MCP_LIMITS.command },
                  args: {
                    type: ['array', 'null'],
                    maxItems: MCP_LIMITS.args,
                    items: { type: 'string', maxLength: MCP_LIMITS.arg },
                  },
                  url: { type: ['string', 'null'], maxLength: MCP_LIMITS.url },
                  env: {
                    type: ['object', 'null'],
                    maxProperties: MCP_LIMITS.namedValues,
                    additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
                    description:
                      'Names kept; a literal value (not a ${...} reference) raises secret_in_config and is never stored.',
                  },
                  headers: {
                    type: ['object', 'null'],
                    maxProperties: MCP_LIMITS.namedValues,
                    additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
                  },
                  tools: {
                    type: ['array', 'null'],
                    maxItems: MCP_LIMITS.toolsPerServer,
                    items: {
                      type: 'object',
                      required: ['name'],
                      properties: {
                        name: { type: 'string', minLength: 1, maxLength: MCP_LIMITS.toolName },
                        description: { type: ['string', 'null'], maxLength: MCP_LIMITS.description },
                        inputSchema: {
                          type: ['object', 'null'],
                          description: `Nested at most ${MCP_LIMITS.schemaDepth} deep.`,
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
  McpScanAccepted: {
    type: 'object',
    required: ['id', 'status', 'hostId', 'receivedAt'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^mcs_' },
      status: { const: 'queued' },
      hostId: strOrNull,
      receivedAt: timestamp,
    },
  },
  McpScan: {
    type: 'object',
    required: ['id', 'status', 'hostId', 'reportedHostname', 'receivedAt', 'finishedAt', 'servers', 'issues'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^mcs_' },
      status: { type: 'string', enum: ['queued', 'running', 'completed', 'failed'] },
      hostId: strOrNull,
      reportedHostname: strOrNull,
      receivedAt: timestamp,
      finishedAt: timestampOrNull,
      servers: { type: ['integer', 'null'], minimum: 0, description: 'null until the scan is completed.' },
      issues: {
        type: ['object', 'null'],
        additionalProperties: { type: 'integer', minimum: 0 },
        propertyNames: ref('McpIssueCode'),
        description: 'Issues by code; null until the scan is completed.',
      },
      scannedAt: { ...timestampOrNull, description: 'Additive: as uploaded.' },
    },
  },
  McpServer: {
    type: 'object',
    required: serverRequired,
    additionalProperties: false,
    properties: {
      ...serverProps,
      hosts: { type: 'integer', minimum: 0, description: 'How many hosts configure it now.' },
    },
  },
  McpServerList: listEnvelope('servers', 'McpServer'),
  McpServerDetail: {
    type: 'object',
    required: [...serverRequired, 'hostCount'],
    additionalProperties: false,
    properties: {
      ...serverProps,
      hostCount: { type: 'integer', minimum: 0, description: 'Additive: the hosts count of the list.' },
      hosts: {
        type: 'array',
        description: 'Where it is configured now: one per host, client, config path and server name.',
        items: {
          type: 'object',
          required: [
            'hostId',
            'reportedHostname',
            'client',
            'configPath',
            'name',
            'version',
            'seenAt',
            'scanId',
            'issues',
          ],
          additionalProperties: false,
          properties: {
            hostId: strOrNull,
            reportedHostname: strOrNull,
            client: str,
            configPath: str,
            name: str,
            version: strOrNull,
            seenAt: timestamp,
            scanId: str,
            issues: { type: 'array', items: ref('McpIssue') },
          },
        },
      },
    },
  },
  McpRegistryEntry: {
    type: 'object',
    required: ['id', 'identity', 'versions', 'decision', 'note', 'updatedBy', 'updatedAt'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^mre_' },
      identity: str,
      versions: { type: ['array', 'null'], items: str, description: 'null: every version.' },
      decision: { type: 'string', enum: ['allow', 'deny'] },
      note: strOrNull,
      updatedBy: { ...str, description: 'The member id (mem_...) of who last changed it.' },
      updatedAt: timestamp,
    },
  },
  McpRegistryList: listEnvelope('entries', 'McpRegistryEntry'),
  McpRegistryEntries: {
    type: 'object',
    required: ['entries'],
    additionalProperties: false,
    properties: { entries: { type: 'array', items: ref('McpRegistryEntry') } },
  },
  McpRegistryUpsert: {
    type: 'object',
    required: ['entries'],
    properties: {
      entries: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_REGISTRY_ENTRIES,
        items: {
          type: 'object',
          required: ['identity', 'decision'],
          properties: {
            identity: {
              type: 'string',
              maxLength: 2048,
              description:
                'pkg:npm/<name> (scope as %40scope), pkg:pypi/<PEP 503 name>, pkg:oci/<registry>/<repository>, an http(s) URL without user info, query or fragment, or cmd:<64 hex>; each identity once per request.',
            },
            versions: {
              type: ['array', 'null'],
              minItems: 1,
              maxItems: MAX_ENTRY_VERSIONS,
              items: { type: 'string', minLength: 1, maxLength: 200 },
            },
            decision: { type: 'string', enum: ['allow', 'deny'] },
            note: { type: ['string', 'null'], maxLength: MAX_NOTE },
          },
        },
      },
    },
  },
  McpControlLevel: {
    type: 'object',
    required: ['level', 'updatedAt', 'updatedBy'],
    additionalProperties: false,
    properties: {
      level: { type: 'string', enum: [...CONTROL_LEVELS] },
      updatedAt: { ...timestampOrNull, description: 'null while never set (observe by default).' },
      updatedBy: strOrNull,
    },
  },
  McpControlLevelUpdate: {
    type: 'object',
    required: ['level'],
    properties: { level: { type: 'string', enum: [...CONTROL_LEVELS] } },
  },
  McpUsageUpload: {
    type: 'object',
    required: ['events'],
    additionalProperties: false,
    properties: {
      events: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_EVENTS,
        items: {
          type: 'object',
          required: ['eventId', 'occurredAt', 'host', 'client', 'server', 'tool'],
          additionalProperties: false,
          description: 'No other field: raw tool arguments (arguments, input, ...) are never accepted.',
          properties: {
            eventId: { type: 'string', minLength: 1, maxLength: MAX_EVENT_ID },
            occurredAt: timestamp,
            host: hostRef,
            client: { type: 'string', enum: [...MCP_CLIENTS] },
            server: {
              oneOf: [
                { type: 'object', required: ['serverId'], additionalProperties: false, properties: { serverId: str } },
                {
                  type: 'object',
                  required: ['name'],
                  additionalProperties: false,
                  properties: {
                    name: { type: 'string', minLength: 1, maxLength: MCP_LIMITS.name },
                    transport: { type: 'string', enum: [...TRANSPORTS] },
                    command: str,
                    args: { type: 'array', items: str },
                    url: str,
                  },
                },
              ],
            },
            tool: { type: 'string', minLength: 1, maxLength: MCP_LIMITS.toolName },
            phase: { type: 'string', enum: [...PHASES], default: 'post' },
            outcome: { type: 'string', enum: [...OUTCOMES] },
            durationMs: { type: 'integer', minimum: 0, maximum: MAX_DURATION_MS },
          },
        },
      },
    },
  },
  McpUsageAccepted: {
    type: 'object',
    required: ['accepted', 'duplicates', 'decisions'],
    additionalProperties: false,
    properties: {
      accepted: { type: 'integer', minimum: 0 },
      duplicates: {
        type: 'integer',
        minimum: 0,
        description: 'Events whose eventId was already stored (or repeated in the batch).',
      },
      decisions: {
        type: 'array',
        items: {
          type: 'object',
          required: ['eventId', 'decision', 'reason'],
          additionalProperties: false,
          properties: { eventId: str, ...decision.properties },
        },
      },
    },
  },
  McpUsageEvent: {
    type: 'object',
    required: [
      'id',
      'eventId',
      'occurredAt',
      'receivedAt',
      'hostId',
      'reportedHostname',
      'client',
      'serverId',
      'identity',
      'serverName',
      'tool',
      'phase',
      'outcome',
      'durationMs',
      'decision',
    ],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^mue_' },
      eventId: str,
      occurredAt: timestamp,
      receivedAt: timestamp,
      hostId: strOrNull,
      reportedHostname: strOrNull,
      client: str,
      serverId: strOrNull,
      identity: strOrNull,
      serverName: strOrNull,
      tool: str,
      phase: { type: 'string', enum: [...PHASES] },
      outcome: { type: ['string', 'null'], enum: [...OUTCOMES, null] },
      durationMs: { type: ['integer', 'null'] },
      decision: { oneOf: [{ type: 'null' }, decision] },
    },
  },
  McpUsageList: listEnvelope('events', 'McpUsageEvent'),
};
