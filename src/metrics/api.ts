// The API process's metrics (served by ./server.ts on METRICS_PORT). Label values come from small fixed sets (route
// templates, methods, status codes), never from request data, so the series count stays bounded whatever clients send.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { currentGeneration, getGeneration } from '../storage/advisories';
import type { Store } from '../storage/mongo';

export const apiRegistry = new Registry();

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'API request duration, from the first middleware to the response, by route template, method and status',
  labelNames: ['method', 'route', 'status'] as const,
  // Up to 60 s: a GET /v1/scans/:scanId?wait=60 long-poll is a normal request.
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [apiRegistry],
});

export const rateLimitRejections = new Counter({
  name: 'rate_limit_rejections_total',
  help: 'Requests answered 429 rate_limited (only while RATE_LIMIT_ENFORCE=1)',
  registers: [apiRegistry],
});

/** A scrape must not hang on a slow or unreachable database: past this, the gauge has no value for that scrape. */
export const STORE_READ_TIMEOUT_MS = 2000;

let store: Store | undefined;

/** The database the gauges read at each scrape (undefined: they have no value). */
export function watchStore(s: Store | undefined): void {
  store = s;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Sets the gauge from `read`, or leaves it without a sample when there is no store, nothing to report (undefined) or
 * the read fails: a stale or zero value would lie (an outage is not "no queued scans"). Never throws, so one failed
 * read never fails the whole scrape.
 */
async function readInto(g: Gauge, read: (s: Store) => Promise<number | undefined>): Promise<void> {
  try {
    const v = store ? await withTimeout(read(store), STORE_READ_TIMEOUT_MS) : undefined;
    if (v === undefined) g.remove();
    else g.set(v);
  } catch {
    g.remove();
  }
}

new Gauge({
  name: 'scans_queued',
  help: 'Scans in status queued (accepted, no worker has started them yet), read from the database at each scrape',
  registers: [apiRegistry],
  async collect() {
    // countDocuments over the { status: 1 } index; maxTimeMS also bounds it on the server.
    await readInto(this, (s) => s.c.scans.countDocuments({ status: 'queued' }, { maxTimeMS: STORE_READ_TIMEOUT_MS }));
  },
});

new Gauge({
  name: 'advisory_generation_age_seconds',
  help: 'Seconds since the current advisory generation (what new scans match against) was made; no sample before the first import',
  registers: [apiRegistry],
  async collect() {
    await readInto(this, async (s) => {
      const id = await currentGeneration(s);
      const gen = id ? await getGeneration(s, id) : null;
      return gen ? Math.max(0, (Date.now() - gen.createdAt.getTime()) / 1000) : undefined;
    });
  },
});
