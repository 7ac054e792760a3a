// Rate limits per credential (120 requests per minute, planned; headers on every authenticated
// response, 429 rate_limited with Retry-After only when enforcement is on). Counters live in MongoDB so that
// several API processes share them, without a database write per request: each process counts locally and adds
// its counts to the shared per-minute document every FLUSH_MS, reading the shared total back. The totals a process
// sees are therefore at most FLUSH_MS behind the other processes' requests (on FerretDB, whose $inc is not atomic
// under concurrency, they may also undercount slightly); its own requests are always counted at once.
import type { Context } from 'koa';
import { ApiError } from '../domain/errors';
import type { Logger } from '../logger';
import type { Store } from '../storage/mongo';
import { rateLimitRejections } from '../metrics/api';

export interface RateLimitConfig {
  perMinute: number;
  enforce: boolean;
}

export const FLUSH_MS = 1000;
const WINDOW_MS = 60_000;

interface Window {
  minute: number;
  /** Counted by this process only, never flushed (see admit's `local`). */
  local?: boolean;
  shared: number; // total of every process as last read (this process's flushed counts included)
  pending: number; // this process's counts not flushed yet
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    readonly config: RateLimitConfig,
    private readonly logger?: Logger,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /**
   * Counts one request of the credential; sets the headers; throws 429 when over the limit and enforcing. `local`:
   * counted by this process only, never written to the shared documents: the credentials of hosts and gateways, which
   * call at the pace the server gives them, and whose thousands of heartbeats would otherwise cost one
   * counter write each.
   */
  async admit(
    ctx: Context,
    credentialHash: string,
    now = Date.now(),
    { local = false }: { local?: boolean } = {},
  ): Promise<void> {
    const minute = Math.floor(now / WINDOW_MS);
    let w = this.windows.get(credentialHash);
    if (!w || w.minute !== minute) {
      w = { minute, shared: 0, pending: 0, ...(local ? { local } : {}) };
      this.windows.set(credentialHash, w);
    }
    w.pending++;
    const used = w.shared + w.pending;
    const reset = (minute + 1) * (WINDOW_MS / 1000);
    const limit = this.config.perMinute;
    ctx.set('X-RateLimit-Limit', String(limit));
    ctx.set('X-RateLimit-Remaining', String(Math.max(0, limit - used)));
    ctx.set('X-RateLimit-Reset', String(reset));
    if (this.config.enforce && used > limit) {
      rateLimitRejections.inc();
      // seconds until the window resets (the error envelope writes Retry-After from it)
      throw new ApiError(
        429,
        'rate_limited',
        `rate limit of ${limit} requests per minute exceeded; retry after the window resets`,
        Math.max(1, reset - Math.floor(now / 1000)),
      );
    }
  }

  /** Adds the pending counts to the shared documents and reads the totals back. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const current = Math.floor(Date.now() / WINDOW_MS);
      const work: Promise<void>[] = [];
      for (const [key, w] of this.windows) {
        if (w.minute < current) {
          if (w.pending === 0) this.windows.delete(key);
          else if (w.minute < current - 1) this.windows.delete(key);
        }
        if (w.pending === 0) continue;
        if (w.local) {
          w.shared += w.pending;
          w.pending = 0;
          continue;
        }
        const n = w.pending;
        w.pending = 0;
        const _id = `${key}:${w.minute}`;
        work.push(
          this.store.c.rateCounters
            .findOneAndUpdate(
              { _id },
              { $inc: { n }, $setOnInsert: { expiresAt: new Date((w.minute + 2) * WINDOW_MS) } },
              { upsert: true, returnDocument: 'after' },
            )
            .then((doc) => {
              if (doc) w.shared = Math.max(w.shared + n, doc.n);
            })
            .catch((err) => {
              w.pending += n; // try again at the next flush
              this.logger?.warn({ err }, 'rate-limit counters not flushed');
            }),
        );
      }
      await Promise.all(work);
    });
    return this.flushing;
  }

  /** Deletes the counter documents of windows that ended (FerretDB has no TTL index). */
  async sweep(now = Date.now()): Promise<void> {
    await this.store.c.rateCounters.deleteMany({ expiresAt: { $lt: new Date(now) } });
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
