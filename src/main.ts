// Process entry of the API (`npm run api`): connects MongoDB and Temporal, listens on PORT.
import http from 'node:http';
import os from 'node:os';
import { envInt, loadConfig, requireMongoUri, requireTemporalAddress } from './config';
import { createApp, signInFromEnv } from './http/app';
import { warmVexSchemas } from './domain/vex-import/validate';
import { installClientErrorHandler } from './http/client-error';
import { insecureAppUrlWarning, platformFromEnv, rateLimitFromEnv } from './http/platform';
import { RateLimiter } from './http/rate-limit';
import { createLogger } from './logger';
import { uploadPreparer } from './pool/upload-pool';
import { cursorCodec, loadCursorSecret } from './storage/cursors';
import { connectStore } from './storage/mongo';
import { prepareStore } from './storage/migrations';
import { apiScanWaiter } from './scan-waiter';
import { warmCaches } from './http/warm';
import { connectTemporal, scanRuns, scanStarter, temporalReadiness } from './temporal/client';
import { scanEvents } from './temporal/events';
import { mcpScanRuns, mcpScanStarter } from './temporal/mcp';
import { triageReconciler } from './temporal/triage-reconcile';
import { startSweeper } from './sweepers/scans';
import { startMcpSweeper } from './sweepers/mcp-scans';
import { redactUri } from './infra/private';
import { policyFromEnv } from './infra/webhooks/destination';
import { secretsFromEnv } from './storage/secrets';
import { sweepLoginCodes } from './storage/login-codes';
import { apiRegistry, watchStore } from './metrics/api';
import { DEFAULT_METRICS_PORT, metricsListenFromEnv, serveMetrics, type MetricsServer } from './metrics/server';
import type { ScanWaiter } from './ports';

/** How long SIGTERM lets in-flight requests finish before their connections are cut (SHUTDOWN_GRACE_MS). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 20_000;

/**
 * Stops accepting connections and waits for the requests in flight to be answered, at most `graceMs`; then cuts
 * what is left. Keep-alive connections are closed as soon as they are idle, so a client that just got its answer does
 * not hold the drain until keepAliveTimeout.
 */
export async function drainHttpServer(server: http.Server, graceMs: number): Promise<{ forced: boolean }> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idle = setInterval(() => server.closeIdleConnections(), 100);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<true>((resolve) => (timer = setTimeout(() => resolve(true), graceMs)));
  const forced = await Promise.race([closed.then(() => false as const), late]);
  clearInterval(idle);
  clearTimeout(timer);
  if (forced) {
    server.closeAllConnections();
    await closed;
  }
  return { forced };
}

/**
 * The waiter, made to answer at once from close() on: a ?wait= request that arrives on a kept-alive connection while
 * the API drains must not hold the drain for its 60 s.
 */
export function closableWaiter(inner: ScanWaiter): ScanWaiter {
  let closed = false;
  return {
    until: (scanId, ms, signal) => (closed ? Promise.resolve(undefined) : inner.until(scanId, ms, signal)),
    close() {
      closed = true;
      inner.close();
    },
  };
}

export async function runApi(): Promise<{
  server: http.Server;
  metrics: MetricsServer | undefined;
  close(): Promise<void>;
}> {
  const config = loadConfig();
  const logger = createLogger('api', config.logLevel);
  // A request that meets a database outage fails within apiDbWaitMs (503 service_unavailable, Retry-After), instead
  // of hanging for the driver's default; a replica set's election usually fits within it anyway.
  const store = await connectStore(requireMongoUri(config), config.mongoDb, {
    serverSelectionTimeoutMS: config.apiDbWaitMs,
  });
  await prepareStore(store);
  const temporal = await connectTemporal(requireTemporalAddress(config), config.temporalNamespace, config.taskQueue);
  const uploads = uploadPreparer(Math.max(1, Math.min(2, os.availableParallelism() - 1)));
  const starter = scanStarter(temporal, logger);
  const mcp = mcpScanStarter(temporal, logger);
  // After each triage rule change: the alerts' histories reconciled in the background (workflows/triage-reconcile.ts).
  const triage = triageReconciler(temporal, logger);
  const waiter = closableWaiter(apiScanWaiter(temporal, store));
  const platform = platformFromEnv();
  const insecure = insecureAppUrlWarning(platform.publicAppUrl);
  if (insecure) logger.warn({ publicAppUrl: platform.publicAppUrl }, insecure);
  // read at start: a malformed MAIL_TRANSPORT, MAIL_FROM or SECRETS_KEY stops the API, naming it
  const signIn = signInFromEnv(logger);
  logger.info(
    { mail: signIn.mail.description, publicAppUrl: platform.publicAppUrl },
    'sign-in codes go out by ' + signIn.mail.description,
  );
  const rateLimiter = new RateLimiter(store, rateLimitFromEnv(), logger);
  // FerretDB has no TTL index: rate-limit counters and expired sign-in codes are deleted here
  const sweepCounters = setInterval(() => {
    void rateLimiter.sweep().catch(() => undefined);
    void sweepLoginCodes(store).catch(() => undefined);
  }, 5 * 60_000);
  sweepCounters.unref();
  // the dashboard's caches of the most recently active organizations, before /readyz says ready (src/http/warm.ts)
  const warming = warmCaches(store, logger);
  const app = createApp({
    store,
    warming,
    cursors: cursorCodec(await loadCursorSecret(store)),
    starter,
    waiter,
    readiness: temporalReadiness(temporal),
    logger,
    maxBodyBytes: config.maxBodyBytes,
    uploads,
    platform,
    rateLimiter,
    signIn,
    // read at start: a malformed SECRETS_KEY, WEBHOOKS_ALLOWED_CIDRS or WEBHOOKS_CA_FILE stops the API, naming it
    webhooks: { box: secretsFromEnv(), policy: policyFromEnv() },
    mcp,
    triage,
  });
  const events = scanEvents({ store, logger, taskQueue: temporal.taskQueue, client: temporal.client });
  const stopSweeper = startSweeper({ store, runs: scanRuns(temporal), events, logger }, config.sweepIntervalMs);
  // MCP scans whose workflow start was lost, or whose workflow ended without an outcome.
  const stopMcpSweeper = startMcpSweeper({ store, runs: mcpScanRuns(temporal), logger }, config.sweepIntervalMs);
  const graceMs = envInt('SHUTDOWN_GRACE_MS', DEFAULT_SHUTDOWN_GRACE_MS);
  watchStore(store);
  const metrics = await serveMetrics(apiRegistry, metricsListenFromEnv('METRICS_PORT', DEFAULT_METRICS_PORT), logger);
  // The VEX import's official schemas compiled before the first request (about a second of CPU once, not in a request).
  warmVexSchemas();
  const server = http.createServer(app.callback());
  // Requests Node's parser refuses get the error envelope too, not a bare 400 (src/http/client-error.ts).
  installClientErrorHandler(server, logger);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  // What the socket is bound to, not what we asked for: the log must not promise loopback while listening on all.
  const bound = server.address() as import('node:net').AddressInfo;
  const shown = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  logger.info({ host: bound.address, port: bound.port }, `API listening on http://${shown}:${bound.port}`);
  return {
    server,
    metrics,
    async close() {
      stopSweeper();
      stopMcpSweeper();
      waiter.close(); // SIGTERM answers pending ?wait= requests at once (with the scan as it is)
      clearInterval(sweepCounters);
      // No new connections; the requests in flight (uploads included) finish with their normal answers.
      const { forced } = await drainHttpServer(server, graceMs);
      if (forced) logger.warn({ graceMs }, 'requests still in flight after the shutdown grace: connections cut');
      await rateLimiter.close().catch(() => undefined); // after the drain: the last requests' counts are kept
      await starter.drain();
      await mcp.drain();
      await triage.drain();
      await uploads.close();
      await metrics?.close();
      watchStore(undefined);
      await temporal.connection.close();
      await store.close();
    },
  };
}

if (require.main === module) {
  const mode = process.argv[2] ?? 'api';
  if (mode !== 'api') {
    console.error(`unknown mode ${mode}; use: node dist/src/main.js api`);
    process.exit(2);
  }
  runApi().then(
    (api) => {
      let stopping = false;
      const stop = () => {
        // A second signal does not wait for the drain.
        if (stopping) process.exit(1);
        stopping = true;
        api.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (err) => {
      console.error(redactUri(err instanceof Error ? (err.stack ?? err.message) : String(err))); // no database password in the output
      process.exit(1);
    },
  );
}
