// `scanner sidecar`: the reference host agent. It attests with a registration token read from a file,
// keeps the host's id and credential in its state file (agent/state.ts), and heartbeats at the interval the service
// gives, riding out the service's absences (agent/loop.ts). A 401 stops it for good (exit 3): it never attests again
// by itself. Given a registration token while its state file holds a host of the same service, it attests again by
// hand, with the host's current credential in X-Svc-Host-Credential, so the host keeps its id.
// Every --mcp-interval S seconds (default 3600; 0: never) it also reports the machine's MCP configuration (POST /v1/mcp/scans
// with the host credential): discovery only, never --introspect (it never starts a configured
// server). A failed MCP scan is logged and tried again later; it never stops or delays the heartbeats for long.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from '../args';
import { nodeCrypto } from '../builtins';
import { EXIT, InputError } from '../errors';
import type { Io } from '../io';
import { VERSION } from '../version';
import { backoffFromEnv, Link, runAgent, STOPPED, type AgentHooks } from '../agent/loop';
import { credentialAnswer, noPositionals, parseLabelsFlag, refusal, resolveServer } from '../agent/options';
import { defaultStatePath, readState, readTokenFile, sameServer, writeState, type SidecarState } from '../agent/state';
import type { McpDiscoveryEnv } from '../mcp/discover';
import { collectMcp, countServers, discoveryEnvOf } from '../mcp/scan';

export const SIDECAR_HELP = `usage: scanner sidecar [--server URL] [--registration-token FILE] [--state FILE] [--labels k=v,...] [--gateway ID]
                       [--mcp-interval S] [--once]

Registers this machine as a host of the service and heartbeats until stopped.

  --server URL               the service (default: SCANNER_URL, else the server of the state file)
  --registration-token FILE  a file holding the registration token (svc_reg_...), or - for stdin; never the token
                             itself (argv shows in ps and shell history). Needed to register; with a state file of
                             the same service it attests again, with the host's current credential: the host keeps
                             its id and gets a new credential
  --state FILE               where the host's id and credential are kept (default:
                             $XDG_CONFIG_HOME/scanner/sidecar.json, else ~/.config/scanner/sidecar.json). Created
                             with mode 0600; a file group or others can read or write is refused
  --labels k=v,...           the host's own labels, sent when attesting and with every heartbeat (replacing the ones
                             it sent before; the registration token's labels stay and win). "" sends none
  --gateway ID               this host reaches the service through gateway ID (gw_...): heartbeats report
                             connectivity "gateway" with that id (the service refuses an id that is not one of its
                             active gateways). Without it, connectivity "direct"
  --mcp-interval S           every S seconds (default 3600, hourly; 0: never), report this machine's MCP server
                             configuration as \`scanner mcp scan\` does, with the host's credential: the configuration
                             files only; it never starts a configured server (no --introspect). The first report
                             follows the first heartbeat; a failed one is logged and tried again after
                             min(S, 300) seconds, and never stops the heartbeats
  --once                     attest if needed, send one heartbeat (and one MCP report, unless --mcp-interval 0) and
                             exit (gives up after SCANNER_MAX_ATTEMPTS, default 6, when the service is away)

  While the service is away (network errors, 429, 5xx) it tries again with exponential backoff and jitter
  (SCANNER_RETRY_BASE_MS, default 1000, up to SCANNER_RETRY_MAX_MS, default 60000), at least the service's
  Retry-After, and logs one line when the service goes away and one when it is back.
  The machine id sent is an HMAC-SHA256 of /etc/machine-id (or /var/lib/dbus/machine-id), never the id itself;
  without either, a random id kept in the state file.
  exit codes: 0 stopped by SIGINT/SIGTERM, or --once done; 2 usage or input error (bad flag, token file, state
  file, a --gateway the service does not take); 3 service error (a token or credential refused with 401, the host revoked, 409 on attestation,
  --once and the service still away)`;

const OPTIONS = {
  server: { type: 'string' },
  'registration-token': { type: 'string' },
  state: { type: 'string' },
  labels: { type: 'string' },
  gateway: { type: 'string' },
  'mcp-interval': { type: 'string' },
  once: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const MACHINE_ID_FILES = ['/etc/machine-id', '/var/lib/dbus/machine-id'];
/** The heartbeat interval when the service gives none it should (nextHeartbeatSeconds), and its bounds. */
const DEFAULT_INTERVAL_S = 60;
const MIN_INTERVAL_S = 1;
const MAX_INTERVAL_S = 3600;
/**
 * Hourly: configurations change when someone edits them, and a report is cheap (files only, never a server started).
 * An administrator who does not want the agents' configuration files of the sidecar's user read says 0.
 */
export const DEFAULT_MCP_INTERVAL_S = 3600;
/** A failed MCP report is tried again after this (or the interval, when shorter). */
const MCP_RETRY_S = 300;

/**
 * A stable id for this machine that does not give the machine id away (systemd's advice for machine-id: an
 * application-specific id derived from it with a keyed hash). Null when the machine has none.
 */
export function systemMachineId(files: string[]): string | null {
  for (const f of files) {
    let raw: string;
    try {
      raw = fs.readFileSync(f, 'utf8').trim();
    } catch {
      continue;
    }
    if (!raw || raw === 'uninitialized') continue;
    return nodeCrypto().createHmac('sha256', raw).update('scanner sidecar host id').digest('hex');
  }
  return null;
}

/** The interval the service asked for, within bounds. */
function intervalOf(body: unknown): number {
  const n = (body as { nextHeartbeatSeconds?: unknown } | undefined)?.nextHeartbeatSeconds;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return DEFAULT_INTERVAL_S;
  return Math.min(MAX_INTERVAL_S, Math.max(MIN_INTERVAL_S, n));
}

/** What the sidecar's tests replace besides the agent's hooks: where MCP configuration is looked for. */
export interface SidecarHooks extends AgentHooks {
  mcpDiscoveryEnv?: Partial<McpDiscoveryEnv>;
}

export async function sidecarCommand(args: string[], io: Io, hooks: SidecarHooks = {}): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS);
  if (values.help) {
    io.out(`${SIDECAR_HELP}\n`);
    return EXIT.ok;
  }
  noPositionals('sidecar', positionals);
  const stateFile = path.resolve(io.cwd, values.state ?? defaultStatePath('sidecar', io.env));
  const labels = values.labels === undefined ? undefined : parseLabelsFlag(values.labels);
  const gatewayId = values.gateway;
  const mcpText = values['mcp-interval'];
  const mcpInterval = mcpText === undefined ? DEFAULT_MCP_INTERVAL_S : Number(mcpText);
  if (mcpText !== undefined && !(/^\d+$/.test(mcpText) && mcpInterval >= 0))
    throw new InputError(`--mcp-interval ${JSON.stringify(mcpText)}: a whole number of seconds (0: never)`);
  if (gatewayId !== undefined && !/^gw_[A-Za-z0-9_-]{1,200}$/.test(gatewayId))
    throw new InputError(`--gateway ${JSON.stringify(gatewayId)}: a gateway id (gw_...)`);
  const state = readState(stateFile, 'sidecar');
  const server = resolveServer(values.server, io.env, state?.serverUrl);
  const current = state && sameServer(state.serverUrl, server) ? state : null;
  const tokenFile = values['registration-token'];
  if (!tokenFile) {
    if (state && !current)
      throw new InputError(
        `the state file ${stateFile} is of a host of ${state.serverUrl}, not of ${server}: pass --registration-token FILE to register with ${server} (the state file is then replaced), or --state FILE for another one`,
      );
    if (!current)
      throw new InputError(
        `no state file at ${stateFile}: register first with --registration-token FILE (a file holding a registration token the service issued)`,
      );
  }
  const token = tokenFile
    ? readTokenFile('registration-token', tokenFile, hooks.readStdin ?? (() => fs.readFileSync(0, 'utf8')))
    : undefined;
  const maxAttempts = values.once ? Number(io.env.SCANNER_MAX_ATTEMPTS || 6) : undefined;
  if (maxAttempts !== undefined && !(Number.isInteger(maxAttempts) && maxAttempts >= 1))
    throw new InputError(
      `SCANNER_MAX_ATTEMPTS=${JSON.stringify(io.env.SCANNER_MAX_ATTEMPTS)}: a whole number of at least 1`,
    );
  const backoff = backoffFromEnv(io.env, { baseMs: 1000, capMs: 60_000, maxAttempts });

  return runAgent(io, hooks, async (signal) => {
    const link = new Link(io, server, signal, backoff, hooks);
    let host: SidecarState | null = current;
    if (current) link.secret(current.credential);
    if (token) {
      const attested = await attest(link, hooks, token, stateFile, state, current, labels);
      if (attested === STOPPED) return EXIT.ok;
      host = attested;
    }
    const mcp = mcpInterval > 0 ? new McpReporter(io, server, signal, backoff, hooks, mcpInterval) : undefined;
    return heartbeat(link, host!, stateFile, { labels, gatewayId }, Boolean(values.once), mcp);
  });
}

async function attest(
  link: Link,
  hooks: AgentHooks,
  token: string,
  stateFile: string,
  state: SidecarState | null,
  current: SidecarState | null,
  labels: Record<string, string> | undefined,
): Promise<SidecarState | typeof STOPPED> {
  link.secret(token);
  const fromSystem = systemMachineId(hooks.machineIdFiles ?? MACHINE_ID_FILES);
  // The random id of a machine without one is kept whatever service the state file was for: it is the machine's.
  const randomId = fromSystem ? undefined : (state?.machineId ?? nodeCrypto().randomUUID());
  const hostname = (hooks.hostname ?? os.hostname)().slice(0, 253) || 'localhost';
  const body = {
    hostname,
    machineId: fromSystem ?? randomId,
    os: process.platform,
    arch: process.arch,
    agentVersion: VERSION,
    ...(labels ? { labels } : {}),
  };
  const what = current ? `attesting again as host ${current.hostId}` : 'attesting';
  const a = await link.send('POST', '/v1/hosts/attestations', {
    bearer: token,
    body,
    // The same machine again while its host is active must show the host's current credential.
    headers: current ? { 'x-svc-host-credential': current.credential } : {},
  });
  if (a === STOPPED) return STOPPED;
  if (a.status === 401)
    throw refusal(link, what, a, 'The registration token is unknown, used up, expired or revoked: ask for a new one');
  if (a.status === 409) {
    throw refusal(
      link,
      what,
      a,
      current
        ? 'The service did not take the credential of the state file for this machine'
        : `This machine is already an active host of the organization and ${stateFile} does not hold its credential: use the state file it was registered with (--state), or have the host revoked (or let it expire) and register again`,
    );
  }
  if (a.status !== 201) throw refusal(link, what, a);
  const { id, credential, record } = credentialAnswer(link, what, a, 'host');
  const next: SidecarState = {
    kind: 'sidecar',
    serverUrl: link.server,
    hostId: id,
    credential,
    ...(randomId ? { machineId: randomId } : {}),
  };
  writeState(stateFile, next);
  const kept = current && current.hostId === id;
  link.log(
    `${kept ? `attested again: host ${id} keeps its id, with a new credential` : `registered as host ${id}`} (${hostname}${typeof record.status === 'string' ? `, ${record.status}` : ''}); state in ${stateFile}`,
  );
  return next;
}

interface Reported {
  labels: Record<string, string> | undefined;
  gatewayId: string | undefined;
}

/**
 * The sidecar's MCP report: discovery to POST /v1/mcp/scans with the host credential, at most once per interval. Its
 * own link, with few attempts: a service that is away costs the heartbeats a few seconds, not the wait for its return.
 */
class McpReporter {
  private nextAt = 0;
  private readonly now: () => number;

  constructor(
    private readonly io: Io,
    private readonly server: string,
    private readonly signal: AbortSignal,
    private readonly backoff: ReturnType<typeof backoffFromEnv>,
    private readonly hooks: SidecarHooks,
    private readonly intervalS: number,
  ) {
    this.now = hooks.now ?? Date.now;
  }

  /** Reports when due; logs and never throws (a revoked host is the heartbeat's to notice). */
  async maybeReport(host: SidecarState): Promise<void> {
    if (this.now() < this.nextAt) return;
    const link = new Link(this.io, this.server, this.signal, { ...this.backoff, maxAttempts: 2 }, this.hooks);
    link.secret(host.credential);
    try {
      const collected = await collectMcp(discoveryEnvOf(this.io, this.hooks.mcpDiscoveryEnv), {
        host: { hostId: host.hostId },
        now: new Date(this.now()),
      });
      const a = await link.send('POST', '/v1/mcp/scans', { bearer: host.credential, body: collected.body });
      if (a === STOPPED) return;
      if (a.status !== 201) throw refusal(link, 'MCP scan', a);
      const id = (a.body as { id?: unknown } | undefined)?.id;
      const warnings = collected.warnings.length + collected.truncated.length;
      link.log(
        `MCP scan ${typeof id === 'string' ? id : '(no id)'}: ${collected.body.clients.length} configuration file(s), ${countServers(collected.body)} server(s)${warnings ? `, ${warnings} warning(s)` : ''}; next in ${this.intervalS} s`,
      );
      this.nextAt = this.now() + this.intervalS * 1000;
    } catch (err) {
      const retry = Math.min(this.intervalS, MCP_RETRY_S);
      link.log(
        `MCP scan failed (${err instanceof Error ? err.message : String(err)}): heartbeats go on; trying again in ${retry} s`,
      );
      this.nextAt = this.now() + retry * 1000;
    }
  }
}

async function heartbeat(
  link: Link,
  host: SidecarState,
  stateFile: string,
  { labels, gatewayId }: Reported,
  once: boolean,
  mcp?: McpReporter,
): Promise<number> {
  const route = `/v1/hosts/${encodeURIComponent(host.hostId)}/heartbeats`;
  const body = {
    agentVersion: VERSION,
    ...(labels ? { labels } : {}),
    ...(gatewayId ? { connectivity: 'gateway', gatewayId } : { connectivity: 'direct' }),
  };
  let interval: number | undefined;
  for (;;) {
    const a = await link.send('POST', route, { bearer: host.credential, body });
    if (a === STOPPED) return EXIT.ok;
    if (a.status === 401) {
      // The reference sidecar stops on 401 and never attests again by itself.
      throw refusal(
        link,
        `heartbeat of host ${host.hostId}`,
        a,
        `The host was revoked or its credential replaced: stopping. It does not register again by itself; to register this machine again: scanner sidecar --registration-token FILE (state: ${stateFile})`,
      );
    }
    if (a.status === 404)
      throw refusal(
        link,
        `heartbeat of host ${host.hostId}`,
        a,
        `The credential in ${stateFile} is not this host's: the state file is damaged; register again with --registration-token FILE`,
      );
    if (a.status === 422 && gatewayId)
      throw refusal(
        link,
        `heartbeat of host ${host.hostId}`,
        a,
        `The service does not know ${gatewayId} as one of its active gateways: check the id (scanner gateway prints it) and that the gateway was approved`,
      );
    if (a.status !== 200) throw refusal(link, `heartbeat of host ${host.hostId}`, a);
    const next = intervalOf(a.body);
    if (next !== interval) {
      const status = (a.body as { host?: { status?: unknown } } | undefined)?.host?.status;
      link.log(
        `host ${host.hostId}${typeof status === 'string' ? ` (${status})` : ''}: ${once ? 'heartbeat sent' : `heartbeating every ${next} s`}`,
      );
      interval = next;
    }
    if (mcp) await mcp.maybeReport(host);
    if (once) return EXIT.ok;
    if (!(await link.wait(next * 1000))) return EXIT.ok;
  }
}
