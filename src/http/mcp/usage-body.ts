// POST /v1/mcp/usage-events: the body read and checked. Raw tool arguments are never accepted: an
// event, its host or its server holding any field besides the documented ones (`arguments`, `input`, `params`, ...)
// is 422 invalid_parameter, so nothing a tool was called with can reach the database or the logs.
import { invalidParameter } from '../../domain/errors';
import { MCP_CLIENTS, type McpClient } from '../../shared/mcp/types';
import { arr, dateTime, hostRef, obj, oneOf, reqStr, str, type HostRef, type Obj } from './fields';
import { MCP_LIMITS, TRANSPORTS } from './scan-body';

export const MAX_EVENTS = 1000;
export const MAX_EVENT_ID = 128;
export const MAX_DURATION_MS = 7 * 24 * 3600 * 1000;
export const PHASES = ['pre', 'post'] as const;
export const OUTCOMES = ['ok', 'error', 'blocked'] as const;

const EVENT_FIELDS = new Set([
  'eventId',
  'occurredAt',
  'host',
  'client',
  'server',
  'tool',
  'phase',
  'outcome',
  'durationMs',
]);
const SERVER_FIELDS = new Set(['serverId', 'name', 'transport', 'command', 'args', 'url']);
const HOST_FIELDS = new Set(['hostId', 'hostname']);
const ARGUMENT_FIELDS = new Set(['arguments', 'args', 'input', 'params', 'parameters']);

export type ServerRef =
  | { serverId: string }
  | {
      name: string;
      transport: 'stdio' | 'http' | 'sse' | null;
      command: string | null;
      args: string[] | null;
      url: string | null;
    };

export interface UsageEventInput {
  eventId: string;
  occurredAt: Date;
  host: HostRef;
  client: McpClient;
  server: ServerRef;
  tool: string;
  phase: 'pre' | 'post';
  outcome: 'ok' | 'error' | 'blocked' | null;
  durationMs: number | null;
}

function onlyKnown(o: Obj, known: ReadonlySet<string>, path: string, isEvent = false): void {
  for (const k of Object.keys(o)) {
    if (known.has(k)) continue;
    const name = `${path}.${k.slice(0, 64)}`;
    if (isEvent && ARGUMENT_FIELDS.has(k)) throw invalidParameter(name, 'raw tool arguments are never accepted');
    throw invalidParameter(
      name,
      'unknown field (usage events carry only eventId, occurredAt, host, client, server, tool, phase, outcome, durationMs; never tool arguments)',
    );
  }
}

function serverRef(v: unknown, path: string): ServerRef {
  const o = obj(v, path)!;
  onlyKnown(o, SERVER_FIELDS, path);
  if (o.serverId !== undefined && o.serverId !== null) {
    if (Object.keys(o).some((k) => k !== 'serverId' && o[k] !== undefined && o[k] !== null))
      throw invalidParameter(path, 'must be {serverId} or {name, transport?, command?, args?, url?}, not both');
    return { serverId: reqStr(o.serverId, `${path}.serverId`, 100) };
  }
  const args = arr(o.args, `${path}.args`, { max: MCP_LIMITS.args });
  return {
    name: reqStr(o.name, `${path}.name`, MCP_LIMITS.name),
    transport:
      o.transport === undefined || o.transport === null ? null : oneOf(o.transport, `${path}.transport`, TRANSPORTS),
    command: str(o.command, `${path}.command`, { max: MCP_LIMITS.command, min: 0 }),
    args: args
      ? args.map((a, i) => {
          if (typeof a !== 'string') throw invalidParameter(`${path}.args[${i}]`, 'must be a string');
          if (a.length > MCP_LIMITS.arg)
            throw invalidParameter(`${path}.args[${i}]`, `at most ${MCP_LIMITS.arg} characters`);
          return a;
        })
      : null,
    url: str(o.url, `${path}.url`, { max: MCP_LIMITS.url, min: 0 }),
  };
}

function event(v: unknown, path: string): UsageEventInput {
  const o = obj(v, path)!;
  onlyKnown(o, EVENT_FIELDS, path, true);
  if (o.host !== undefined && o.host !== null && typeof o.host === 'object' && !Array.isArray(o.host))
    onlyKnown(o.host as Obj, HOST_FIELDS, `${path}.host`);
  const durationMs = o.durationMs;
  if (
    durationMs !== undefined &&
    durationMs !== null &&
    (typeof durationMs !== 'number' || !Number.isInteger(durationMs) || durationMs < 0 || durationMs > MAX_DURATION_MS)
  ) {
    throw invalidParameter(`${path}.durationMs`, `must be an integer from 0 to ${MAX_DURATION_MS}`);
  }
  return {
    eventId: reqStr(o.eventId, `${path}.eventId`, MAX_EVENT_ID),
    occurredAt: dateTime(o.occurredAt, `${path}.occurredAt`, true)!,
    host: hostRef(o.host, `${path}.host`),
    client: oneOf(o.client, `${path}.client`, MCP_CLIENTS),
    server: serverRef(o.server, `${path}.server`),
    tool: reqStr(o.tool, `${path}.tool`, MCP_LIMITS.toolName),
    phase: oneOf(o.phase, `${path}.phase`, PHASES, 'post'),
    outcome: o.outcome === undefined || o.outcome === null ? null : oneOf(o.outcome, `${path}.outcome`, OUTCOMES),
    durationMs: typeof durationMs === 'number' ? durationMs : null,
  };
}

export function parseUsageBody(body: Obj): UsageEventInput[] {
  onlyKnown(body, new Set(['events']), 'body');
  const events = arr(body.events, 'events', { min: 1, max: MAX_EVENTS, required: true })!;
  return events.map((e, i) => event(e, `events[${i}]`));
}
