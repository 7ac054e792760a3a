// What `scanner sidecar` and `scanner gateway` share: talking to the service with one credential,
// riding out its absences and stopping cleanly.
// - Every request is one attempt over node:http(s) (api/transport.ts). Network errors, 429 and 5xx mean the service
//   is away: the request is repeated after an exponential backoff with jitter (each wait between half and all of
//   min(cap, base·2^(n-1))), never sooner than the service's Retry-After. One line says it went away, one that it is
//   back; nothing per attempt. Any other answer goes back to the command, which decides (401: stop, exit 3).
// - SIGINT and SIGTERM stop the agent at once, between requests or during one (exit 0).
// - A secret (token, credential) given to the link is never printed: every line and error message it makes is
//   redacted, in case a proxy or a service echoes one back.
import { retryAfterMs } from '../api/http';
import { closeConnections, exchange, TransportError, type Exchange } from '../api/transport';
import { EXIT, InputError, ServiceError } from '../errors';
import type { Io } from '../io';
import { VERSION } from '../version';
import { abortableSleep } from '../../shared/sleep';

/** What tests (and only tests) replace: the clock, the waits, the randomness, the stop signal. */
export interface AgentHooks {
  /** Stops the agent as SIGINT/SIGTERM would; when given, no process signal handler is installed. */
  signal?: AbortSignal;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
  /** Where the machine id is read from (sidecar), in order. */
  machineIdFiles?: string[];
  hostname?: () => string;
  readStdin?: () => string;
}

export interface BackoffOptions {
  baseMs: number;
  capMs: number;
  /** Attempts of one request before giving up (exit 3); unlimited when undefined (a long-running agent). */
  maxAttempts?: number;
}

/** The longest Retry-After obeyed: a service asking for more is asked again after this. */
export const RETRY_AFTER_MAX_MS = 3_600_000;
/** One attempt may take this long before it counts as a network error. */
export const ATTEMPT_TIMEOUT_MS = 30_000;

export const STOPPED = Symbol('stopped');

export interface Answer {
  status: number;
  body: unknown;
  headers: Exchange['headers'];
}

/** The n-th wait (n ≥ 1) of the backoff: between half and all of min(cap, base·2^(n-1)), at least Retry-After. */
export function backoffDelay(
  attempt: number,
  o: Pick<BackoffOptions, 'baseMs' | 'capMs'>,
  random: number,
  retryAfter?: number,
): number {
  const step = Math.min(o.capMs, o.baseMs * 2 ** Math.min(attempt - 1, 30));
  const jittered = Math.round(step / 2 + (random * step) / 2);
  return Math.max(jittered, Math.min(retryAfter ?? 0, RETRY_AFTER_MAX_MS));
}

/** `401 invalid_token: ...` from the API's error envelope, else `HTTP 503`. */
export function describeAnswer(a: { status: number; body: unknown }): string {
  const e = (a.body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return e && typeof e.code === 'string'
    ? `${a.status} ${e.code}${typeof e.message === 'string' ? `: ${e.message}` : ''}`
    : `HTTP ${a.status}`;
}

/** SCANNER_RETRY_BASE_MS and SCANNER_RETRY_MAX_MS (README): the backoff of a long-running agent. */
export function backoffFromEnv(env: NodeJS.ProcessEnv, defaults: BackoffOptions): BackoffOptions {
  const int = (name: string, min: number): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    if (!/^\d+$/.test(v) || Number(v) < min)
      throw new InputError(`${name}=${JSON.stringify(v)}: a whole number of at least ${min}`);
    return Number(v);
  };
  const baseMs = int('SCANNER_RETRY_BASE_MS', 1) ?? defaults.baseMs;
  const capMs = Math.max(baseMs, int('SCANNER_RETRY_MAX_MS', 1) ?? defaults.capMs);
  return { ...defaults, baseMs, capMs };
}

/** The agent's connection to the service: one server, one bearer secret at a time, the away/back bookkeeping. */
export class Link {
  private readonly secrets = new Set<string>();
  private readonly sleepFn: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;
  private awaySince: number | null = null;
  private awayAttempts = 0;

  constructor(
    private readonly io: Io,
    readonly server: string,
    readonly signal: AbortSignal,
    private readonly backoff: BackoffOptions,
    hooks: AgentHooks = {},
  ) {
    this.sleepFn = hooks.sleep ?? abortableSleep;
    this.random = hooks.random ?? Math.random;
    this.now = hooks.now ?? Date.now;
  }

  get stopped(): boolean {
    return this.signal.aborted;
  }

  /** A secret never to be printed. */
  secret(value: string): void {
    if (value) this.secrets.add(value);
  }

  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) out = out.split(s).join('[redacted]');
    return out;
  }

  log(line: string): void {
    this.io.err(`scanner: ${this.redact(line)}\n`);
  }

  /** Waits ms, or less when stopped; false when stopped. */
  async wait(ms: number): Promise<boolean> {
    if (this.stopped) return false;
    await this.sleepFn(ms, this.signal);
    return !this.stopped;
  }

  /** One attempt; a network error or timeout is a TransportError. Ends early (TransportError) when stopped. */
  private attempt(
    method: string,
    path: string,
    bearer: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<Exchange> {
    const url = this.server.replace(/\/+$/, '') + path;
    const sent = exchange(
      method,
      url,
      {
        accept: 'application/json',
        authorization: `Bearer ${bearer}`,
        'user-agent': `scanner/${VERSION} node/${process.versions.node}`,
        // A fresh connection per request: an agent talks every few seconds at most, and a kept-alive socket the
        // server closes meanwhile would fail the next request for nothing (and count as an absence).
        connection: 'close',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body === undefined ? undefined : JSON.stringify(body),
      ATTEMPT_TIMEOUT_MS,
    );
    if (this.stopped) return Promise.reject(new TransportError('stopped'));
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(new TransportError('stopped'));
      this.signal.addEventListener('abort', onAbort, { once: true });
      sent.then(
        (x) => {
          this.signal.removeEventListener('abort', onAbort);
          resolve(x);
        },
        (err) => {
          this.signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
  }

  /**
   * The request, repeated while the service is away (network errors, 429, 5xx), until it gives another answer: that
   * answer, or STOPPED when the agent was stopped meanwhile. With maxAttempts, a ServiceError once they are spent.
   */
  async send(
    method: string,
    path: string,
    opts: { bearer: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Answer | typeof STOPPED> {
    this.secret(opts.bearer);
    for (const v of Object.values(opts.headers ?? {})) this.secret(v);
    for (let attempt = 1; ; attempt++) {
      if (this.stopped) return STOPPED;
      let reason: string;
      let retryAfter: number | undefined;
      try {
        const x = await this.attempt(method, path, opts.bearer, opts.body, opts.headers ?? {});
        let body: unknown;
        try {
          body = x.text === '' ? undefined : JSON.parse(x.text);
        } catch {
          body = undefined;
        }
        const answer: Answer = { status: x.status, body, headers: x.headers };
        if (x.status !== 429 && x.status < 500) {
          this.back();
          return answer;
        }
        reason = describeAnswer(answer);
        retryAfter = retryAfterMs(x.headers.get('retry-after'), this.now());
      } catch (err) {
        if (!(err instanceof TransportError)) throw err;
        if (this.stopped) return STOPPED;
        reason = err.message;
      }
      this.away(reason);
      if (this.backoff.maxAttempts !== undefined && attempt >= this.backoff.maxAttempts) {
        throw new ServiceError(this.redact(`${method} ${path}: gave up after ${attempt} attempts (last: ${reason})`));
      }
      if (!(await this.wait(backoffDelay(attempt, this.backoff, this.random(), retryAfter)))) return STOPPED;
    }
  }

  private away(reason: string): void {
    this.awayAttempts++;
    if (this.awaySince !== null) return;
    this.awaySince = this.now();
    this.log(`the service at ${this.server} is unavailable (${reason}): trying again with backoff until it answers`);
  }

  private back(): void {
    if (this.awaySince === null) return;
    const seconds = Math.round((this.now() - this.awaySince) / 1000);
    this.log(
      `the service is back (unavailable for ${seconds} s, ${this.awayAttempts} failed attempt${this.awayAttempts === 1 ? '' : 's'})`,
    );
    this.awaySince = null;
    this.awayAttempts = 0;
  }
}

/**
 * Runs an agent until it returns or is stopped: SIGINT/SIGTERM (or the tests' signal) abort its link's signal, and the
 * agent returns EXIT.ok from where it was. Connections are closed at the end either way.
 */
export async function runAgent(
  io: Io,
  hooks: AgentHooks,
  body: (signal: AbortSignal) => Promise<number>,
): Promise<number> {
  const controller = new AbortController();
  const handlers: Array<[NodeJS.Signals, () => void]> = [];
  if (hooks.signal) {
    if (hooks.signal.aborted) controller.abort();
    else hooks.signal.addEventListener('abort', () => controller.abort(), { once: true });
  } else {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      const h = () => {
        io.err(`scanner: ${sig}: stopping\n`);
        controller.abort();
        closeConnections();
      };
      process.once(sig, h);
      handlers.push([sig, h]);
    }
  }
  try {
    const code = await body(controller.signal);
    return controller.signal.aborted ? EXIT.ok : code;
  } finally {
    for (const [sig, h] of handlers) process.removeListener(sig, h);
    closeConnections();
  }
}
