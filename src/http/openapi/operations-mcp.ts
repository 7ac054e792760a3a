// MCP auditing (src/http/mcp/). Error codes as those handlers throw them.
import { CONTROL_LEVELS } from '../../domain/mcp/decision';
import { ISSUE_ORDER } from '../../domain/mcp/issues';
import type { Endpoint } from '../auth/matrix';
import {
  LIST_ERRORS,
  PAGINATION,
  pathParam,
  queryEnum,
  serverTiming,
  type Operation,
  type Param,
  type Resp,
} from './operation';
import { ref } from './schemas/common';

type McpRoute = Extract<Endpoint, `${string} /v1/mcp/${string}`>;

const json422 =
  'invalid_parameter (the body is not a JSON object; a field of the wrong type, out of bounds or not one of its values, named by its path), missing_parameter (a required field is absent or empty)';
const bodyErrors = (limit: string): Record<number, Resp> => ({
  400: {
    description: 'The request body was aborted before its end (code invalid_parameter).',
    codes: ['invalid_parameter'],
  },
  413: { description: `The body is over ${limit} (code invalid_parameter).`, codes: ['invalid_parameter'] },
});
const idParam = (name: string, description: string): Param => ({
  name,
  in: 'query',
  description,
  schema: { type: 'string', minLength: 1, maxLength: 200 },
});
const timeParam = (name: string, description: string): Param => ({
  name,
  in: 'query',
  description,
  schema: { type: 'string', format: 'date-time' },
});

export const mcpOperations: Record<McpRoute, Operation> = {
  'POST /v1/mcp/scans': {
    operationId: 'uploadMcpScan',
    tag: 'mcp',
    summary: "Upload an MCP configuration scan (the CLI, or a host's sidecar with its host credential)",
    description:
      'Stored redacted (secret values never: of env and headers only the names; name, command, args and url through the shared redaction; tool descriptions and inputSchema strings too), ' +
      'then processed by the MCP scan workflow (inventory, tool pins, issues). With a host credential the host is implied: `host` may be left out, `{hostname}` is kept as reported, and naming another host id is 403 insufficient_scope. ' +
      'Otherwise `host` is required: `{hostId}` must be an active host of the organization (else 422 invalid_parameter), `{hostname}` is kept as `reportedHostname` and never creates a host. ' +
      'At most 100 clients, 200 servers per client, 500 tools per server (422 invalid_parameter).',
    requestBody: {
      description: 'The scan: host, scannedAt, clients with their servers and tools.',
      required: true,
      schema: ref('McpScanUpload'),
    },
    responses: {
      201: { description: 'Stored, queued for processing.', schema: ref('McpScanAccepted') },
      403: {
        description: 'insufficient_scope: also a host credential naming another host.',
        codes: ['insufficient_scope'],
      },
      ...bodyErrors('1 MB'),
      422: {
        description: `${json422}; host.hostId not an active host of the organization; over a limit.`,
        codes: ['invalid_parameter', 'missing_parameter'],
      },
    },
    usesDatabase: true,
  },
  'GET /v1/mcp/scans/:mcpScanId': {
    operationId: 'getMcpScan',
    tag: 'mcp',
    summary: 'An MCP scan: its status and, once completed, its server count and issues by code',
    parameters: [pathParam('mcpScanId', 'The scan id (mcs_...).')],
    responses: {
      200: { description: 'The scan (servers and issues null until it is completed).', schema: ref('McpScan') },
      404: { description: 'not_found: no such scan in the organization.', codes: ['not_found'] },
    },
    usesDatabase: true,
  },
  'GET /v1/mcp/servers': {
    operationId: 'listMcpServers',
    tag: 'mcp',
    summary: 'The MCP server inventory, ordered by identity, then id',
    parameters: [
      queryEnum('decision', ['allow', 'deny', 'unreviewed'], 'Only servers with this registry decision.'),
      queryEnum('issue', ISSUE_ORDER, 'Only servers with a current issue of this code.'),
      idParam('hostId', 'Only servers configured now on this host (hst_...).'),
      ...PAGINATION,
    ],
    responses: {
      200: {
        description: 'A page of servers, with registry decision, current issues and usage computed from stored events.',
        schema: ref('McpServerList'),
      },
      422: { description: 'invalid_parameter, invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
  'GET /v1/mcp/servers/:serverId': {
    operationId: 'getMcpServer',
    tag: 'mcp',
    summary: 'An MCP server of the inventory, with where it is configured now',
    parameters: [pathParam('serverId', 'The server id (mcp_...).')],
    responses: {
      200: { description: 'The server and its placements (hosts).', schema: ref('McpServerDetail') },
      404: { description: 'not_found: no such server in the organization.', codes: ['not_found'] },
    },
    usesDatabase: true,
  },
  'GET /v1/mcp/registry': {
    operationId: 'listMcpRegistry',
    tag: 'mcp',
    summary: 'The MCP registry, ordered by identity (one entry each)',
    parameters: [...PAGINATION],
    responses: {
      200: { description: 'A page of entries.', schema: ref('McpRegistryList') },
      422: { description: 'invalid_parameter, invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
  'PUT /v1/mcp/registry/entries': {
    operationId: 'putMcpRegistryEntries',
    tag: 'mcp',
    summary: 'Add or replace registry entries (upsert by identity)',
    description:
      'One entry per identity: a second PUT of an identity replaces its entry (same id), concurrent ones included (the last one wins). An audit event (mcp_registry.entries_upserted) per request.',
    requestBody: { description: '1 to 500 entries.', required: true, schema: ref('McpRegistryUpsert') },
    responses: {
      200: { description: 'The entries as stored, in the order given.', schema: ref('McpRegistryEntries') },
      ...bodyErrors('1 MB'),
      422: {
        description: `${json422}; an identity not of the documented forms, or named twice.`,
        codes: ['invalid_parameter', 'missing_parameter'],
      },
    },
    usesDatabase: true,
  },
  'DELETE /v1/mcp/registry/entries/:entryId': {
    operationId: 'deleteMcpRegistryEntry',
    tag: 'mcp',
    summary: 'Remove a registry entry (its identity becomes unreviewed)',
    parameters: [pathParam('entryId', 'The entry id (mre_...).')],
    responses: {
      204: { description: 'Removed (audit event mcp_registry.entry_deleted).' },
      404: { description: 'not_found: no such entry in the organization (or removed already).', codes: ['not_found'] },
    },
    usesDatabase: true,
  },
  'GET /v1/mcp/control-level': {
    operationId: 'getMcpControlLevel',
    tag: 'mcp',
    summary: "The organization's MCP control level (observe by default)",
    responses: { 200: { description: 'The level.', schema: ref('McpControlLevel') } },
    usesDatabase: true,
  },
  'PUT /v1/mcp/control-level': {
    operationId: 'putMcpControlLevel',
    tag: 'mcp',
    summary: 'Set the MCP control level (owners)',
    description: `One of ${CONTROL_LEVELS.join(', ')}. An audit event (mcp_control_level.changed) with the previous level.`,
    requestBody: { description: '{level}.', required: true, schema: ref('McpControlLevelUpdate') },
    responses: {
      200: { description: 'The level as set.', schema: ref('McpControlLevel') },
      ...bodyErrors('64 KB'),
      422: { description: json422, codes: ['invalid_parameter', 'missing_parameter'] },
    },
    usesDatabase: true,
  },
  'POST /v1/mcp/usage-events': {
    operationId: 'uploadMcpUsageEvents',
    tag: 'mcp',
    summary: 'Report MCP tool calls; every pre event gets a decision',
    description:
      'Idempotent per (organization, eventId): a repeated event is counted in `duplicates` and not stored again; a repeated pre event gets its first decision. ' +
      'Raw tool arguments are never accepted: any field besides the documented ones is 422 invalid_parameter. ' +
      'Decisions: observe → allow; warn → warn for denied or unreviewed servers and for servers with high or critical issues on that host, else allow; ' +
      'block → block for denied and unreviewed servers, warn for allowed ones with such issues, else allow. ' +
      "The server: {serverId} of the inventory (else 422), or {name, transport?, command?, args?, url?} resolved through the shared identity function (by name among the host's placements when neither command nor url is given). " +
      'Hosts as for POST /v1/mcp/scans (a host credential: its own host).',
    requestBody: { description: '1 to 1,000 events, at most 1 MB.', required: true, schema: ref('McpUsageUpload') },
    responses: {
      200: {
        description: 'Accepted and duplicate counts, and the decisions of the pre events in order.',
        schema: ref('McpUsageAccepted'),
        headers: serverTiming('body, read, write'),
      },
      403: {
        description: 'insufficient_scope: also a host credential naming another host.',
        codes: ['insufficient_scope'],
      },
      ...bodyErrors('1 MB'),
      422: {
        description: `${json422}; an unknown field (tool arguments); a host id not active in the organization; a serverId not in the inventory.`,
        codes: ['invalid_parameter', 'missing_parameter'],
      },
    },
    usesDatabase: true,
  },
  'GET /v1/mcp/usage-events': {
    operationId: 'listMcpUsageEvents',
    tag: 'mcp',
    summary: 'MCP usage events, newest first (by reception)',
    parameters: [
      idParam('serverId', 'Only events of this server (mcp_...).'),
      idParam('hostId', 'Only events of this host (hst_...).'),
      {
        name: 'tool',
        in: 'query',
        description: 'Only events of this tool.',
        schema: { type: 'string', minLength: 1, maxLength: 500 },
      },
      timeParam('since', 'Only events that occurred at or after this instant (RFC 3339).'),
      timeParam('until', 'Only events that occurred before this instant (RFC 3339).'),
      ...PAGINATION,
    ],
    responses: {
      200: { description: 'A page of events.', schema: ref('McpUsageList') },
      422: { description: 'invalid_parameter, invalid_cursor.', codes: LIST_ERRORS },
    },
    usesDatabase: true,
  },
};
