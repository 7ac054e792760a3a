// The client's one way to talk to the service: JSON requests with the bearer token, retried on 429, 5xx and
// network errors with exponential backoff (full jitter) that honours Retry-After, all within the run's deadline.
// Everything that is not a success ends as an InputError (exit 2) or a ServiceError (exit 3).
import { InputError, ServiceError } from '../errors';
import { exchange, TransportError, type Exchange } from './transport';
import type { ApiErrorBody } from './types';

export interface HttpOptions {
  server: string;
  token: string;
  userAgent: string;
  /** Epoch ms after which no new attempt starts and no wait goes on. */
  deadline: number;
  /** Attempts per request before giving up (429/5xx/network). Default 6. */
  maxAttempts?: number;
  /** First backoff step in ms (doubled per attempt, capped at maxDelayMs). Default 1000. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Told about each retry (the command prints it on stderr). */
  onRetry?: (message: string) => void;
  /** For tests: the clock, sleep and randomness. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface HttpResponse<T> {
  status: number;
  body: T;
  headers: Exchange['headers'];
}

export interface RequestOptions {
  body?: string;
  headers?: Record<string, string>;
  /** How long one attempt may take before it is abandoned (and retried). Default 60 s. */
  attemptTimeoutMs?: number;
  /** Which refusals are the caller's input errors (exit 2) rather than service errors: e.g. 413 and 422 on upload. */
  inputErrorStatuses?: number[];
}

const RETRYABLE = (status: number) => status === 429 || status >= 500;

/** Retry-After as seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function describe(status: number, body: unknown): string {
  const e = (body as ApiErrorBody | undefined)?.error;
  return e && typeof e.code === 'string' ? `${status} ${e.code}: ${e.message}` : `HTTP ${status}`;
}

export class Http {
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(private readonly opts: HttpOptions) {
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.random = opts.random ?? Math.random;
  }

  get deadline(): number {
    return this.opts.deadline;
  }

  /** Milliseconds left before the deadline (never negative). */
  remaining(): number {
    return Math.max(0, this.opts.deadline - this.now());
  }

  async request<T>(method: string, path: string, req: RequestOptions = {}): Promise<HttpResponse<T>> {
    const url = this.opts.server.replace(/\/+$/, '') + path;
    const attempts = this.opts.maxAttempts ?? 6;
    const base = this.opts.baseDelayMs ?? 1000;
    const cap = this.opts.maxDelayMs ?? 30_000;
    let last = '';
    for (let attempt = 1; ; attempt++) {
      const left = this.remaining();
      if (left <= 0) throw new ServiceError(`${method} ${url}: timed out${last ? ` (last answer: ${last})` : ''}`);
      let res: Exchange | undefined;
      try {
        res = await exchange(
          method,
          url,
          {
            accept: 'application/json',
            authorization: `Bearer ${this.opts.token}`,
            'user-agent': this.opts.userAgent,
            ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...req.headers,
          },
          req.body,
          Math.min(left, req.attemptTimeoutMs ?? 60_000),
        );
      } catch (err) {
        if (!(err instanceof TransportError)) throw err;
        res = undefined;
        last = err.message;
      }
      let body: unknown;
      if (res) {
        try {
          body = res.text === '' ? undefined : JSON.parse(res.text);
        } catch {
          body = undefined;
        }
        if (res.status >= 200 && res.status < 300) {
          // A 2xx that is not the API's JSON (a captive proxy, a wrong --server) must not pass for an answer.
          if (body === undefined || typeof body !== 'object')
            throw new ServiceError(
              `${method} ${url}: answered ${res.status} without a JSON body: is ${this.opts.server} the scanning service?`,
            );
          return { status: res.status, body: body as T, headers: res.headers };
        }
        last = describe(res.status, body);
        if (!RETRYABLE(res.status)) {
          if (req.inputErrorStatuses?.includes(res.status))
            throw new InputError(`${method} ${path}: the service refused it: ${last}`);
          throw new ServiceError(
            `${method} ${path}: ${last}${res.status === 401 || res.status === 403 ? ' (check SCANNER_TOKEN and its scopes)' : ''}`,
          );
        }
      }
      if (attempt >= attempts)
        throw new ServiceError(`${method} ${url}: gave up after ${attempt} attempts (last: ${last})`);
      const backoff = Math.round(this.random() * Math.min(cap, base * 2 ** (attempt - 1)));
      const asked = res ? retryAfterMs(res.headers.get('retry-after'), this.now()) : undefined;
      // The server's Retry-After is a floor (retrying sooner would be refused again); a wait past the deadline
      // cannot help, so the run ends now instead of sleeping into its timeout.
      const delay = Math.max(backoff, asked ?? 0);
      if (delay >= this.remaining())
        throw new ServiceError(`${method} ${url}: timed out waiting to retry (last: ${last})`);
      this.opts.onRetry?.(
        `${method} ${path}: ${last}; retrying in ${(delay / 1000).toFixed(1)} s (attempt ${attempt + 1} of ${attempts})`,
      );
      await this.sleep(delay);
    }
  }
}
