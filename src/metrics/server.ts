// The metrics endpoint: a small node:http server of its own, apart from the API's Koa app, so that metrics stay on
// loopback (or a private interface) while the API may face the network, and no auth, rate limit or request log
// applies to the scraper.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, type Registry } from 'prom-client';
import { DEFAULT_HOST, envInt } from '../config';
import type { Logger } from '../logger';

export interface MetricsListen {
  port: number;
  host: string;
}

export interface MetricsServer {
  url: string;
  server: http.Server;
  close(): Promise<void>;
}

/** API: METRICS_PORT (9464); worker: WORKER_METRICS_PORT (9465). */
export const DEFAULT_METRICS_PORT = 9464;
export const DEFAULT_WORKER_METRICS_PORT = 9465;

/**
 * Where to serve metrics: `<portVar>` (a port; 0 = any free port; `off` = no metrics server) on METRICS_HOST, which
 * is loopback by default like HOST: the metrics tell how busy the service is and are for the operator's scraper.
 */
export function metricsListenFromEnv(
  portVar: string,
  fallback: number,
  env: NodeJS.ProcessEnv = process.env,
): MetricsListen | undefined {
  if (env[portVar]?.trim().toLowerCase() === 'off') return undefined;
  const port = envInt(portVar, fallback, { env });
  if (port > 65535) throw new Error(`${portVar} must be a port number, got "${env[portVar]}"`);
  return { port, host: env.METRICS_HOST?.trim() || DEFAULT_HOST };
}

/** Where to reach a server bound to `address`: a wildcard address is reached on loopback. */
export function urlOf(address: string, port: number, path = '/metrics'): string {
  const reach = address === '0.0.0.0' || address === '::' ? '127.0.0.1' : address;
  return `http://${reach.includes(':') ? `[${reach}]` : reach}:${port}${path}`;
}

const withDefaults = new WeakSet<Registry>();

/** Process metrics (CPU, memory, event-loop lag, GC) once per registry. */
export function addProcessMetrics(registry: Registry): void {
  if (withDefaults.has(registry)) return;
  withDefaults.add(registry);
  collectDefaultMetrics({ register: registry });
}

export async function startMetricsServer(registry: Registry, listen: MetricsListen): Promise<MetricsServer> {
  addProcessMetrics(registry);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res
        .writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' })
        .end('not found: the metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' })
        .end('method not allowed\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        res
          .writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' })
          .end(`metrics collection failed: ${err instanceof Error ? err.message : String(err)}\n`);
      },
    );
  });
  // A scraper keeps its connection; a short keep-alive still lets close() finish promptly.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  return {
    url: urlOf(bound.address, bound.port),
    server,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/**
 * The process's metrics server when configured, or undefined. A port already taken (a second worker on the same
 * machine with the default port) is logged and the process runs on without metrics: metrics are not worth a dead
 * worker or API.
 */
export async function serveMetrics(
  registry: Registry,
  listen: MetricsListen | undefined,
  logger: Logger,
): Promise<MetricsServer | undefined> {
  if (!listen) {
    logger.info('metrics server off');
    return undefined;
  }
  try {
    const m = await startMetricsServer(registry, listen);
    logger.info({ metricsUrl: m.url }, `metrics on ${m.url}`);
    return m;
  } catch (err) {
    logger.error(
      { err, port: listen.port, host: listen.host },
      'metrics server could not listen; running without metrics',
    );
    return undefined;
  }
}
