// MCP auditing: scans uploaded by the CLI or a host's sidecar (processed by the MCP scan workflow,
// src/temporal/mcp.ts), the server inventory with its registry decision, issues and usage, the registry, the control
// level, and usage events with the decision of each pre event. Registry and control-level changes are audit events;
// usage events never are.
import Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError, invalidParameter, notFound } from '../../domain/errors';
import { hostStatus } from '../../domain/hosts/status';
import { newId } from '../../domain/ids';
import {
  CONTROL_LEVELS,
  isSevere,
  preDecision,
  type ControlLevel,
  type PreDecision,
  type RegistryVerdict,
} from '../../domain/mcp/decision';
import { identity as identityOf, remoteIdentity } from '../../domain/mcp/identity';
import { ISSUE_ORDER } from '../../domain/mcp/issues';
import { redactText } from '../../shared/mcp/redact';
import { registryDecision } from '../../domain/mcp/registry';
import { recordAudit } from '../../storage/audit';
import type { HostDoc } from '../../storage/documents/fleet';
import type {
  McpIssueCode,
  McpPlacementDoc,
  McpRegistryEntryDoc,
  McpScanDoc,
  McpServerDoc,
  McpUsageEventDoc,
} from '../../storage/documents/mcp';
import { getControlLevel, setControlLevel } from '../../storage/mcp-control';
import {
  findServer,
  hostKeyOf,
  listServers,
  placementsOf,
  placementsOnHosts,
  serverIdsWhere,
  serversById,
  serversByIdentity,
  type ServerPosition,
} from '../../storage/mcp-inventory-reads';
import {
  deleteRegistryEntry,
  listRegistry,
  registryRules,
  upsertRegistry,
  type RegistryPosition,
  type RegistryUpsert,
} from '../../storage/mcp-registry';
import { findMcpScan, insertMcpScan } from '../../storage/mcp-scans';
import {
  insertUsageEvents,
  listUsageEvents,
  NO_USAGE,
  storedUsageEvents,
  usageEventDocId,
  usageOfServers,
} from '../../storage/mcp-usage';
import { actorOf } from '../audit/actor';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { Principal } from '../auth/principal';
import type { AppDeps } from '../deps';
import { missing } from '../json-body';
import { cursorQuery, enumQuery, parseLimit, singleQuery } from '../pagination';
import { pathId } from '../params';
import { Timing } from '../timing';
import { arr, dateTime, MB, mcpBody, obj, oneOf, str, type HostRef } from './fields';
import {
  presentControl,
  presentEntry,
  presentScan,
  presentServer,
  presentServerDetail,
  presentUsageEvent,
  serverDecision,
} from '../../presenters/mcp';
import { parseScanBody } from './scan-body';
import { parseUsageBody, type UsageEventInput } from './usage-body';

type Caller = Principal & { orgId: string };

export const MAX_REGISTRY_ENTRIES = 500;
export const MAX_ENTRY_VERSIONS = 100;
export const MAX_NOTE = 2000;
/** Identities an entry may name: what src/domain/mcp/identity.ts produces. */
const NPM = /^pkg:npm\/(%40[a-z0-9._~-]+\/)?[a-z0-9._~-]+$/;
const PYPI = /^pkg:pypi\/[a-z0-9]+(-[a-z0-9]+)*$/;
const OCI = /^pkg:oci\/[a-z0-9]([a-z0-9._-]*[a-z0-9])?(:[0-9]+)?(\/[a-z0-9._-]+)+$/;
const CMD = /^cmd:[0-9a-f]{64}$/;
const IDENTITY_RULE =
  'must be an identity: pkg:npm/<name> (scope as %40scope), pkg:pypi/<PEP 503 name>, pkg:oci/<registry>/<repository> (lowercase), an http(s) URL without user info, query or fragment, or cmd:<64 hex digits>';

/** Whether `v` is an identity as the shared function writes it (so that it can ever match a server). */
export function validIdentity(v: string): boolean {
  if (v.length > 2048) return false;
  if (NPM.test(v) || PYPI.test(v) || OCI.test(v) || CMD.test(v)) return true;
  if (/^https?:\/\//i.test(v)) return remoteIdentity(v) === v;
  return false;
}

/** Who changes the registry or the control level: the member (a session; the matrix admits no other credential). */
const updaterOf = (p: Caller): string =>
  p.kind === 'session' ? (p.member?._id ?? p.user.id) : p.kind === 'api_key' ? p.key._id : p.orgId;

interface HostResolution {
  hostId: string | null;
  reportedHostname: string | null;
}

/**
 * The host of an upload or an event: a host credential's own host (naming another is 403); otherwise {hostId} must be
 * an active host of the organization (else 422) and {hostname} is kept as reported, never creating a host.
 */
async function resolveHosts(
  deps: AppDeps,
  p: Caller,
  refs: Array<{ ref: HostRef | null; path: string }>,
): Promise<HostResolution[]> {
  if (p.kind === 'host') {
    return refs.map(({ ref, path }) => {
      if (ref && 'hostId' in ref && ref.hostId !== p.host._id)
        throw new ApiError(
          403,
          'insufficient_scope',
          `${path}.hostId: a host credential reports for its own host only`,
        );
      return { hostId: p.host._id, reportedHostname: ref && 'hostname' in ref ? ref.hostname : null };
    });
  }
  const ids = [...new Set(refs.flatMap(({ ref }) => (ref && 'hostId' in ref ? [ref.hostId] : [])))];
  const hosts = new Map<string, HostDoc>();
  if (ids.length)
    for (const h of await deps.store.c.hosts.find({ _id: { $in: ids } }).toArray())
      if (h.orgId === p.orgId) hosts.set(h._id, h);
  const now = new Date();
  return refs.map(({ ref, path }) => {
    if (!ref) throw missing(path, 'must be {hostId} or {hostname}');
    if ('hostname' in ref) return { hostId: null, reportedHostname: ref.hostname };
    const h = hosts.get(ref.hostId);
    if (!h || hostStatus(h, deps.fleet!, now) !== 'active')
      throw invalidParameter(`${path}.hostId`, 'must name an active host of the organization');
    return { hostId: h._id, reportedHostname: null };
  });
}

function sinceUntil(ctx: Context, name: string): Date | undefined {
  const v = singleQuery(ctx, name);
  if (v === undefined) return undefined;
  return dateTime(v, name, true)!;
}

function idQuery(ctx: Context, name: string): string | undefined {
  const v = singleQuery(ctx, name);
  if (v === undefined) return undefined;
  if (v === '' || v.length > 200) throw invalidParameter(name, 'must be an id of 1 to 200 characters');
  return v;
}

function parseEntries(body: Record<string, unknown>): RegistryUpsert[] {
  const list = arr(body.entries, 'entries', { min: 1, max: MAX_REGISTRY_ENTRIES, required: true })!;
  const seen = new Set<string>();
  return list.map((raw, i) => {
    const path = `entries[${i}]`;
    const o = obj(raw, path)!;
    const identity = str(o.identity, `${path}.identity`, { max: 2048, required: true })!;
    if (!validIdentity(identity)) throw invalidParameter(`${path}.identity`, IDENTITY_RULE);
    if (seen.has(identity)) throw invalidParameter(`${path}.identity`, 'named twice in one request');
    seen.add(identity);
    const versionList = arr(o.versions, `${path}.versions`, { min: 1, max: MAX_ENTRY_VERSIONS });
    const versions = versionList
      ? [...new Set(versionList.map((v, j) => str(v, `${path}.versions[${j}]`, { max: 200, required: true })!))]
      : null;
    return {
      identity,
      versions,
      decision: oneOf(o.decision, `${path}.decision`, ['allow', 'deny'] as const),
      note: str(o.note, `${path}.note`, { max: MAX_NOTE, min: 0 }) || null,
    };
  });
}

interface ResolvedServer {
  serverId: string | null;
  identity: string | null;
  /** The version the event's server runs, when known (its placement on the host, or its launch). */
  version: string | null;
  versionKnown: boolean;
  serverName: string | null;
}

export function mcpRoutes(deps: AppDeps): Router {
  const r = new Router();

  r.post('/v1/mcp/scans', access(deps, 'POST /v1/mcp/scans'), async (ctx) => {
    const p = principalOf(ctx);
    const body = await mcpBody(ctx, MB);
    const scan = parseScanBody(body);
    const [host] = await resolveHosts(deps, p, [{ ref: scan.host, path: 'host' }]);
    await recheck(deps, p); // a credential revoked meanwhile uploads nothing
    const now = new Date();
    const doc: McpScanDoc = {
      _id: newId('mcs', now.getTime()),
      orgId: p.orgId,
      hostId: host.hostId,
      reportedHostname: host.reportedHostname,
      receivedAt: now,
      scannedAt: scan.scannedAt,
      status: 'queued',
      finishedAt: null,
      failureReason: null,
      clients: scan.clients,
      servers: null,
      issues: null,
    };
    await insertMcpScan(deps.store, doc);
    // processed by the MCP scan workflow, started off the response path (a start that fails is left to its sweeper)
    const requestId = ctx.state.requestId;
    if (deps.mcp) {
      void deps.mcp.start(doc).then(
        (started) =>
          started
            ? undefined
            : deps.logger.warn({ mcpScanId: doc._id, requestId }, 'MCP scan workflow start deferred to the sweeper'),
        (err: unknown) =>
          deps.logger.warn({ mcpScanId: doc._id, requestId, err: String(err) }, 'MCP scan workflow start failed'),
      );
    }
    ctx.status = 201;
    ctx.body = { id: doc._id, status: doc.status, hostId: doc.hostId, receivedAt: now.toISOString() };
  });

  r.get('/v1/mcp/scans/:mcpScanId', access(deps, 'GET /v1/mcp/scans/:mcpScanId'), async (ctx) => {
    const p = principalOf(ctx);
    const id = pathId(ctx, 'mcpScanId', 'MCP scan');
    const scan = await findMcpScan(deps.store, p.orgId, id);
    if (!scan) throw notFound(`MCP scan ${JSON.stringify(id)}`);
    await recheck(deps, p);
    ctx.body = presentScan(scan);
  });

  r.get('/v1/mcp/servers', access(deps, 'GET /v1/mcp/servers'), async (ctx) => {
    const p = principalOf(ctx);
    const limit = parseLimit(ctx);
    const decision = enumQuery<RegistryVerdict>(ctx, 'decision', ['allow', 'deny', 'unreviewed']);
    const issue = enumQuery<McpIssueCode>(ctx, 'issue', ISSUE_ORDER);
    const hostId = idQuery(ctx, 'hostId');
    const listing = `mcp-servers:${p.orgId}:${JSON.stringify([decision ?? null, issue ?? null, hostId ?? null])}`;
    const cursor = cursorQuery(ctx);
    let after = cursor ? deps.cursors.decode<ServerPosition>(listing, cursor) : undefined;
    const ids =
      issue !== undefined || hostId !== undefined
        ? await serverIdsWhere(deps.store, p.orgId, { hostId, issue })
        : undefined;
    // the decision is the registry's, computed: servers are read in batches and kept while they match
    const picked: Array<{ s: McpServerDoc; d: ReturnType<typeof serverDecision> }> = [];
    let more = false;
    for (;;) {
      const batchSize = decision ? 200 : limit + 1;
      const batch = await listServers(deps.store, p.orgId, { ids, after, limit: batchSize });
      const rules = await registryRules(
        deps.store,
        p.orgId,
        batch.map((s) => s.identity),
      );
      for (const s of batch) {
        const d = serverDecision(rules, s.identity, s.versions);
        if (decision && d.decision !== decision) continue;
        if (picked.length === limit) {
          more = true;
          break;
        }
        picked.push({ s, d });
      }
      if (more || batch.length < batchSize) break;
      const last = batch[batch.length - 1];
      after = [last.identity, last._id];
    }
    const serverIds = picked.map(({ s }) => s._id);
    const [placements, usage] = await Promise.all([
      placementsOf(deps.store, p.orgId, serverIds),
      usageOfServers(deps.store, p.orgId, serverIds),
    ]);
    await recheck(deps, p);
    const last = picked[picked.length - 1];
    ctx.body = {
      servers: picked.map(({ s, d }) =>
        presentServer(
          s,
          placements.filter((pl) => pl.serverId === s._id),
          d,
          usage.get(s._id) ?? NO_USAGE,
        ),
      ),
      nextCursor:
        more && last ? deps.cursors.encode(listing, [last.s.identity, last.s._id] satisfies ServerPosition) : null,
    };
  });

  r.get('/v1/mcp/servers/:serverId', access(deps, 'GET /v1/mcp/servers/:serverId'), async (ctx) => {
    const p = principalOf(ctx);
    const id = pathId(ctx, 'serverId', 'MCP server');
    const s = await findServer(deps.store, p.orgId, id);
    if (!s) throw notFound(`MCP server ${JSON.stringify(id)}`);
    const [placements, usage, rules] = await Promise.all([
      placementsOf(deps.store, p.orgId, [s._id]),
      usageOfServers(deps.store, p.orgId, [s._id]),
      registryRules(deps.store, p.orgId, [s.identity]),
    ]);
    await recheck(deps, p);
    ctx.body = presentServerDetail(
      s,
      placements,
      serverDecision(rules, s.identity, s.versions),
      usage.get(s._id) ?? NO_USAGE,
    );
  });

  r.get('/v1/mcp/registry', access(deps, 'GET /v1/mcp/registry'), async (ctx) => {
    const p = principalOf(ctx);
    const limit = parseLimit(ctx);
    const listing = `mcp-registry:${p.orgId}`;
    const cursor = cursorQuery(ctx);
    const after = cursor ? deps.cursors.decode<RegistryPosition>(listing, cursor) : undefined;
    const docs = await listRegistry(deps.store, p.orgId, { after, limit: limit + 1 });
    await recheck(deps, p);
    const page = docs.slice(0, limit);
    const last = page[page.length - 1];
    ctx.body = {
      entries: page.map(presentEntry),
      nextCursor:
        docs.length > limit ? deps.cursors.encode(listing, [last.identity, last._id] satisfies RegistryPosition) : null,
    };
  });

  r.put('/v1/mcp/registry/entries', access(deps, 'PUT /v1/mcp/registry/entries'), async (ctx) => {
    const p = principalOf(ctx);
    const entries = parseEntries(await mcpBody(ctx, MB));
    await recheck(deps, p);
    const docs = await upsertRegistry(deps.store, p.orgId, entries, updaterOf(p));
    await recordAudit(deps.store, {
      orgId: p.orgId,
      type: 'mcp_registry.entries_upserted',
      actor: actorOf(p),
      target: {
        kind: 'mcp_registry',
        id: p.orgId,
        entries: docs.map((d) => ({ id: d._id, identity: d.identity, decision: d.decision, versions: d.versions })),
      },
      requestId: ctx.state.requestId,
    });
    ctx.body = { entries: docs.map(presentEntry) };
  });

  r.delete(
    '/v1/mcp/registry/entries/:entryId',
    access(deps, 'DELETE /v1/mcp/registry/entries/:entryId'),
    async (ctx) => {
      const p = principalOf(ctx);
      const id = pathId(ctx, 'entryId', 'registry entry');
      await recheck(deps, p);
      const gone: McpRegistryEntryDoc | null = await deleteRegistryEntry(deps.store, p.orgId, id);
      if (!gone) throw notFound(`registry entry ${JSON.stringify(id)}`);
      await recordAudit(deps.store, {
        orgId: p.orgId,
        type: 'mcp_registry.entry_deleted',
        actor: actorOf(p),
        target: { kind: 'mcp_registry_entry', id, identity: gone.identity, decision: gone.decision },
        requestId: ctx.state.requestId,
      });
      ctx.status = 204;
    },
  );

  r.get('/v1/mcp/control-level', access(deps, 'GET /v1/mcp/control-level'), async (ctx) => {
    const p = principalOf(ctx);
    const state = await getControlLevel(deps.store, p.orgId);
    await recheck(deps, p);
    ctx.body = presentControl(state);
  });

  r.put('/v1/mcp/control-level', access(deps, 'PUT /v1/mcp/control-level'), async (ctx) => {
    const p = principalOf(ctx);
    const body = await mcpBody(ctx, 64 * 1024);
    const level = oneOf<ControlLevel>(body.level, 'level', CONTROL_LEVELS);
    await recheck(deps, p);
    const before = await getControlLevel(deps.store, p.orgId);
    const state = await setControlLevel(deps.store, p.orgId, level, updaterOf(p));
    await recordAudit(deps.store, {
      orgId: p.orgId,
      type: 'mcp_control_level.changed',
      actor: actorOf(p),
      target: { kind: 'mcp_control_level', id: p.orgId, level, previous: before.level },
      requestId: ctx.state.requestId,
    });
    ctx.body = presentControl(state);
  });

  r.post('/v1/mcp/usage-events', access(deps, 'POST /v1/mcp/usage-events'), async (ctx) => {
    const p = principalOf(ctx);
    const timing = new Timing(ctx.state.startedAt);
    const events = parseUsageBody(await mcpBody(ctx, MB));
    timing.mark('body');
    const hosts = await resolveHosts(
      deps,
      p,
      events.map((e, i) => ({ ref: e.host, path: `events[${i}].host` })),
    );
    const hostKeys = hosts.map((h) => hostKeyOf(h.hostId, h.reportedHostname));
    const resolved = await resolveServers(deps, p.orgId, events, hostKeys);
    const identities = [...new Set(resolved.servers.flatMap((s) => (s.identity ? [s.identity] : [])))];
    const [rules, control] = await Promise.all([
      registryRules(deps.store, p.orgId, identities),
      events.some((e) => e.phase === 'pre') ? getControlLevel(deps.store, p.orgId) : null,
    ]);
    timing.mark('read');
    const now = new Date();
    // Listed newest first by id: one batch shares its time and random part, then a sequence in occurredAt order, so the
    // events of one request list in the order they occurred (ties in the order sent).
    const batchId = newId('mue', now.getTime());
    const order = events
      .map((_, i) => i)
      .sort((a, b) => events[a].occurredAt.getTime() - events[b].occurredAt.getTime() || a - b);
    const seq = new Array<number>(events.length);
    order.forEach((i, rank) => (seq[i] = rank));
    const docs: McpUsageEventDoc[] = events.map((e, i) => {
      const s = resolved.servers[i];
      let decision: PreDecision | null = null;
      if (e.phase === 'pre') {
        let verdict: RegistryVerdict = 'unreviewed';
        if (s.identity) {
          const inventory = s.serverId ? resolved.byId.get(s.serverId) : undefined;
          verdict = (
            s.versionKnown || !inventory
              ? registryDecision(rules, s.identity, s.version)
              : serverDecision(rules, s.identity, inventory.versions)
          ).decision;
        }
        const severe =
          !!s.serverId &&
          resolved.placements.some(
            (pl) =>
              pl.hostKey === hostKeys[i] && pl.serverId === s.serverId && pl.issues.some((x) => isSevere(x.severity)),
          );
        decision = preDecision(control!.level, verdict, severe);
      }
      return {
        _id: usageEventDocId(p.orgId, e.eventId),
        id: `${batchId}${String(seq[i]).padStart(4, '0')}`,
        orgId: p.orgId,
        eventId: e.eventId,
        occurredAt: e.occurredAt,
        receivedAt: now,
        hostId: hosts[i].hostId,
        reportedHostname: hosts[i].reportedHostname,
        client: e.client,
        serverId: s.serverId,
        identity: s.identity,
        serverName: s.serverName,
        tool: redactText(e.tool),
        phase: e.phase,
        outcome: e.outcome,
        durationMs: e.durationMs,
        decision,
      };
    });
    await recheck(deps, p);
    const duplicates = await insertUsageEvents(deps.store, docs);
    timing.mark('write');
    // a repeated pre event gets the decision stored with its first occurrence
    const stored = await storedUsageEvents(
      deps.store,
      [...duplicates].filter((i) => docs[i].phase === 'pre').map((i) => docs[i]._id),
    );
    ctx.body = {
      accepted: docs.length - duplicates.size,
      duplicates: duplicates.size,
      decisions: docs.flatMap((d, i) =>
        d.phase === 'pre'
          ? [{ eventId: d.eventId, ...((duplicates.has(i) ? stored.get(d._id)?.decision : null) ?? d.decision!) }]
          : [],
      ),
    };
    timing.write(ctx);
  });

  r.get('/v1/mcp/usage-events', access(deps, 'GET /v1/mcp/usage-events'), async (ctx) => {
    const p = principalOf(ctx);
    const limit = parseLimit(ctx);
    const filter = {
      serverId: idQuery(ctx, 'serverId'),
      hostId: idQuery(ctx, 'hostId'),
      tool: singleQuery(ctx, 'tool'),
      since: sinceUntil(ctx, 'since'),
      until: sinceUntil(ctx, 'until'),
    };
    if (filter.tool !== undefined && (filter.tool === '' || filter.tool.length > 500))
      throw invalidParameter('tool', 'must be a tool name of 1 to 500 characters');
    const listing = `mcp-usage:${p.orgId}:${JSON.stringify([filter.serverId ?? null, filter.hostId ?? null, filter.tool ?? null, filter.since?.getTime() ?? null, filter.until?.getTime() ?? null])}`;
    const cursor = cursorQuery(ctx);
    const beforeId = cursor ? deps.cursors.decode<string>(listing, cursor) : undefined;
    if (beforeId !== undefined && typeof beforeId !== 'string')
      throw new ApiError(422, 'invalid_cursor', 'cursor: invalid or expired');
    const docs = await listUsageEvents(deps.store, p.orgId, filter, { beforeId, limit: limit + 1 });
    await recheck(deps, p);
    const page = docs.slice(0, limit);
    ctx.body = {
      events: page.map(presentUsageEvent),
      nextCursor: docs.length > limit ? deps.cursors.encode(listing, page[page.length - 1].id) : null,
    };
  });

  return r;
}

/**
 * The server of each event: {serverId} names one of the inventory (else 422); {name, command?, args?, url?} is
 * resolved through the shared identity function when it says how the server is launched or reached, else by its name
 * among the placements on the event's host (the same client first). An identity outside the inventory stays an
 * identity (registry entries may name it); a name found nowhere resolves to nothing (unreviewed).
 */
async function resolveServers(deps: AppDeps, orgId: string, events: UsageEventInput[], hostKeys: string[]) {
  const refIds = [...new Set(events.flatMap((e) => ('serverId' in e.server ? [e.server.serverId] : [])))];
  const [byId, placements] = await Promise.all([
    serversById(deps.store, orgId, refIds),
    placementsOnHosts(deps.store, orgId, hostKeys),
  ]);
  const launched = events.map((e) => {
    const s = e.server;
    if ('serverId' in s || (s.command === null && s.url === null)) return null;
    return identityOf({
      transport: s.transport ?? undefined,
      command: s.command ?? undefined,
      args: s.args ?? undefined,
      url: s.url ?? undefined,
    });
  });
  const byIdentity = await serversByIdentity(
    deps.store,
    orgId,
    launched.flatMap((l) => (l ? [l.identity] : [])),
  );
  for (const s of byIdentity.values()) byId.set(s._id, s);
  const servers: ResolvedServer[] = events.map((e, i) => {
    const s = e.server;
    const onHost = placements.filter((pl) => pl.hostKey === hostKeys[i]);
    if ('serverId' in s) {
      const inv = byId.get(s.serverId);
      if (!inv)
        throw invalidParameter(
          `events[${i}].server.serverId`,
          'must name a server of the inventory (GET /v1/mcp/servers)',
        );
      const pl = onHost.find((x) => x.serverId === inv._id);
      return {
        serverId: inv._id,
        identity: inv.identity,
        version: pl?.version ?? null,
        versionKnown: !!pl,
        serverName: pl?.name ?? inv.names[0] ?? null,
      };
    }
    const serverName = redactText(s.name);
    const l = launched[i];
    if (l) {
      const inv = byIdentity.get(l.identity);
      return { serverId: inv?._id ?? null, identity: l.identity, version: l.version, versionKnown: true, serverName };
    }
    const named: McpPlacementDoc | undefined =
      onHost.find((x) => x.name === serverName && x.client === e.client) ?? onHost.find((x) => x.name === serverName);
    if (!named) return { serverId: null, identity: null, version: null, versionKnown: false, serverName };
    return {
      serverId: named.serverId,
      identity: named.identity,
      version: named.version,
      versionKnown: true,
      serverName,
    };
  });
  return { servers, byId, placements };
}
