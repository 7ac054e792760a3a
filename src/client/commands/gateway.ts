// `scanner gateway`: the reference gateway agent. It enrolls once with a single-use enrollment token
// read from a file, asking for a network scope; keeps its id and credential in its state file (agent/state.ts); and
// heartbeats at a fixed interval (the service gives none for gateways), saying when its status changes (pending until
// an admin approves it, then active). It rides out the service's absences and stops on 401 (agent/loop.ts).
import fs from 'node:fs';
import path from 'node:path';
import { parse } from '../args';
import { nodeCrypto } from '../builtins';
import { EXIT, InputError } from '../errors';
import type { Io } from '../io';
import { VERSION } from '../version';
import { backoffFromEnv, Link, runAgent, STOPPED, type AgentHooks } from '../agent/loop';
import { credentialAnswer, noPositionals, refusal, resolveServer } from '../agent/options';
import { defaultStatePath, readState, readTokenFile, sameServer, writeState, type GatewayState } from '../agent/state';

export const GATEWAY_HELP = `usage: scanner gateway [--server URL] [--enrollment-token FILE --network-scope CIDR[,CIDR...]] [--name N]
                       [--state FILE] [--interval SECONDS] [--once]

Enrolls this machine as a gateway of the service and heartbeats until stopped. A new gateway is
pending until an admin approves it (within the scope it asked for); its status is logged when it changes.

  --server URL              the service (default: SCANNER_URL, else the server of the state file)
  --enrollment-token FILE   a file holding the enrollment token (svc_gw_..., single use), or - for stdin; never the
                            token itself. Needed to enroll; the token this gateway enrolled with is recognised on a
                            restart (the state file keeps its SHA-256), a new one enrolls a new gateway
  --network-scope CIDR,...  the networks the gateway asks to reach (1 to 100, IPv4 or IPv6, network addresses with
                            their prefix: 10.0.0.0/8,fd00::/8); needed to enroll
  --name N                  the gateway's name (default: the enrollment token's)
  --state FILE              where the gateway's id and credential are kept (default:
                            $XDG_CONFIG_HOME/scanner/gateway.json, else ~/.config/scanner/gateway.json). Created with
                            mode 0600; a file group or others can read or write is refused
  --interval SECONDS        between heartbeats (default 60, 1 to 3600; the service counts an active gateway unheard
                            of for GATEWAY_EXPIRY, default 15 minutes, as expired)
  --once                    enroll if needed, send one heartbeat and exit (gives up after SCANNER_MAX_ATTEMPTS,
                            default 6, when the service is away)

  While the service is away (network errors, 429, 5xx) it tries again with exponential backoff and jitter
  (SCANNER_RETRY_BASE_MS, default 1000, up to SCANNER_RETRY_MAX_MS, default 60000), at least the service's
  Retry-After, and logs one line when the service goes away and one when it is back.
  exit codes: 0 stopped by SIGINT/SIGTERM, or --once done; 2 usage or input error (bad flag, token file, state
  file, a scope the service refused with 422); 3 service error (a token or credential refused with 401: the
  gateway revoked, or not approved within 7 days; --once and the service still away)`;

const OPTIONS = {
  server: { type: 'string' },
  'enrollment-token': { type: 'string' },
  'network-scope': { type: 'string' },
  name: { type: 'string' },
  state: { type: 'string' },
  interval: { type: 'string' },
  once: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const DEFAULT_GATEWAY_INTERVAL_S = 60;

function intervalFlag(value: string | undefined): number {
  if (value === undefined) return DEFAULT_GATEWAY_INTERVAL_S;
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || n < 1 || n > 3600)
    throw new InputError(`--interval ${JSON.stringify(value)}: a number of seconds from 1 to 3600`);
  return n;
}

function scopeFlag(value: string): string[] {
  const scope = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (scope.length === 0) throw new InputError('--network-scope: at least one CIDR (10.0.0.0/8,fd00::/8)');
  if (scope.length > 100) throw new InputError(`--network-scope: at most 100 CIDRs (got ${scope.length})`);
  const bad = scope.find((s) => !/^[0-9A-Fa-f:.]+\/\d{1,3}$/.test(s));
  if (bad)
    throw new InputError(
      `--network-scope ${JSON.stringify(bad)}: a CIDR, a network address and its prefix (10.0.0.0/8, fd00::/8)`,
    );
  return scope;
}

const sha256 = (s: string): string => nodeCrypto().createHash('sha256').update(s).digest('hex');

export async function gatewayCommand(args: string[], io: Io, hooks: AgentHooks = {}): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS);
  if (values.help) {
    io.out(`${GATEWAY_HELP}\n`);
    return EXIT.ok;
  }
  noPositionals('gateway', positionals);
  const interval = intervalFlag(values.interval);
  const stateFile = path.resolve(io.cwd, values.state ?? defaultStatePath('gateway', io.env));
  const scope = values['network-scope'] === undefined ? undefined : scopeFlag(values['network-scope']);
  if (values.name !== undefined && (values.name.trim() === '' || values.name.length > 200))
    throw new InputError('--name: 1 to 200 characters');
  const state = readState(stateFile, 'gateway');
  const server = resolveServer(values.server, io.env, state?.serverUrl);
  const current = state && sameServer(state.serverUrl, server) ? state : null;
  const tokenFile = values['enrollment-token'];
  if (!tokenFile) {
    if (state && !current)
      throw new InputError(
        `the state file ${stateFile} is of a gateway of ${state.serverUrl}, not of ${server}: pass --enrollment-token FILE to enroll with ${server} (the state file is then replaced), or --state FILE for another one`,
      );
    if (!current)
      throw new InputError(
        `no state file at ${stateFile}: enroll first with --enrollment-token FILE --network-scope CIDR[,CIDR...]`,
      );
  }
  const token = tokenFile
    ? readTokenFile('enrollment-token', tokenFile, hooks.readStdin ?? (() => fs.readFileSync(0, 'utf8')))
    : undefined;
  // The token this gateway enrolled with, again (a restart with the same command line): nothing to enroll.
  const enrolled = token !== undefined && current?.enrollmentTokenSha256 === sha256(token);
  if (token && !enrolled && !scope)
    throw new InputError('--network-scope CIDR[,CIDR...] is needed to enroll: the networks this gateway asks to reach');
  const maxAttempts = values.once ? Number(io.env.SCANNER_MAX_ATTEMPTS || 6) : undefined;
  if (maxAttempts !== undefined && !(Number.isInteger(maxAttempts) && maxAttempts >= 1))
    throw new InputError(
      `SCANNER_MAX_ATTEMPTS=${JSON.stringify(io.env.SCANNER_MAX_ATTEMPTS)}: a whole number of at least 1`,
    );
  const backoff = backoffFromEnv(io.env, { baseMs: 1000, capMs: 60_000, maxAttempts });

  return runAgent(io, hooks, async (signal) => {
    const link = new Link(io, server, signal, backoff, hooks);
    let gateway: GatewayState | null = current;
    if (current) link.secret(current.credential);
    if (token) link.secret(token);
    if (token && !enrolled) {
      const made = await enroll(link, token, scope!, values.name, stateFile, current);
      if (made === STOPPED) return EXIT.ok;
      gateway = made;
    } else if (token) {
      link.log(`already enrolled as gateway ${current!.gatewayId} with this enrollment token (state: ${stateFile})`);
    }
    return heartbeat(link, gateway!, stateFile, interval, Boolean(values.once));
  });
}

async function enroll(
  link: Link,
  token: string,
  scope: string[],
  name: string | undefined,
  stateFile: string,
  previous: GatewayState | null,
): Promise<GatewayState | typeof STOPPED> {
  const a = await link.send('POST', '/v1/gateways/enrollments', {
    bearer: token,
    body: { ...(name !== undefined ? { name } : {}), version: VERSION, networkScope: scope },
  });
  if (a === STOPPED) return STOPPED;
  if (a.status === 401)
    throw refusal(
      link,
      'enrolling',
      a,
      'The enrollment token is unknown, already used, expired or revoked: ask for a new one',
    );
  if (a.status !== 201) throw refusal(link, 'enrolling', a);
  const { id, credential, record } = credentialAnswer(link, 'enrolling', a, 'gateway');
  const next: GatewayState = {
    kind: 'gateway',
    serverUrl: link.server,
    gatewayId: id,
    credential,
    enrollmentTokenSha256: sha256(token),
  };
  writeState(stateFile, next);
  const status = typeof record.status === 'string' ? record.status : 'pending';
  link.log(
    `enrolled as gateway ${id}${typeof record.name === 'string' ? ` (${record.name})` : ''}, ${status}${status === 'pending' ? `: waiting for an admin to approve its network scope ${scope.join(', ')}` : ''}; state in ${stateFile}` +
      (previous && previous.gatewayId !== id
        ? `. The previous gateway of this state file, ${previous.gatewayId}, stays in the service until it is revoked or expires`
        : ''),
  );
  return next;
}

async function heartbeat(
  link: Link,
  gateway: GatewayState,
  stateFile: string,
  interval: number,
  once: boolean,
): Promise<number> {
  const route = `/v1/gateways/${encodeURIComponent(gateway.gatewayId)}/heartbeats`;
  let status: string | undefined;
  let announced = false;
  for (;;) {
    const a = await link.send('POST', route, { bearer: gateway.credential, body: { version: VERSION } });
    if (a === STOPPED) return EXIT.ok;
    const what = `heartbeat of gateway ${gateway.gatewayId}`;
    if (a.status === 401) {
      throw refusal(
        link,
        what,
        a,
        `The gateway was revoked, or stayed pending past its approval window: stopping. To enroll again: a new enrollment token, scanner gateway --enrollment-token FILE --network-scope ... (state: ${stateFile})`,
      );
    }
    if (a.status === 404)
      throw refusal(
        link,
        what,
        a,
        `The credential in ${stateFile} is not this gateway's: the state file is damaged; enroll again with a new enrollment token`,
      );
    if (a.status !== 200) throw refusal(link, what, a);
    const g = (a.body as { gateway?: { status?: unknown; networkScope?: unknown } } | undefined)?.gateway;
    const now = typeof g?.status === 'string' ? g.status : 'unknown';
    if (now !== status) {
      const scope = Array.isArray(g?.networkScope) ? ` (network scope ${g.networkScope.join(', ')})` : '';
      const change = status === undefined ? now : `${status} → ${now}`;
      link.log(
        `gateway ${gateway.gatewayId}: ${change}${now === 'active' || now === 'pending' ? scope : ''}${!announced && !once ? `; heartbeating every ${interval} s` : ''}`,
      );
      status = now;
      announced = true;
    }
    if (once) return EXIT.ok;
    if (!(await link.wait(interval * 1000))) return EXIT.ok;
  }
}
