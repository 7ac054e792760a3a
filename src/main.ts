// Process entry of the API (`npm run api`): connects MongoDB and Temporal, listens on PORT.
import http from 'node:http';
import os from 'node:os';
import { loadConfig, requireMongoUri, requireTemporalAddress } from './config';
import { createApp } from './http/app';
import { platformFromEnv, rateLimitFromEnv } from './http/platform';
import { RateLimiter } from './http/rate-limit';
import { createLogger } from './logger';
import { uploadPreparer } from './pool/upload-pool';
import { cursorCodec, loadCursorSecret } from './storage/cursors';
import { connectStore, ensureIndexes } from './storage/mongo';
import { connectTemporal, scanStarter, scanWaiter, startSweeper, temporalReadiness } from './temporal/client';
import { redactUri } from './infra/private';

export async function runApi(): Promise<{ server: http.Server; close(): Promise<void> }> {
  const config = loadConfig();
  const logger = createLogger('api', config.logLevel);
  // A request that meets a database outage fails within apiDbWaitMs (503 service_unavailable, Retry-After), instead
  // of hanging for the driver's default; a replica set's election usually fits within it anyway.
  const store = await connectStore(requireMongoUri(config), config.mongoDb, { serverSelectionTimeoutMS: config.apiDbWaitMs });
  await ensureIndexes(store);
  const temporal = await connectTemporal(requireTemporalAddress(config), config.temporalNamespace, config.taskQueue);
  const uploads = uploadPreparer(Math.max(1, Math.min(2, os.availableParallelism() - 1)));
  const starter = scanStarter(temporal, logger);
  const waiter = scanWaiter(temporal);
  const platform = platformFromEnv();
  const rateLimiter = new RateLimiter(store, rateLimitFromEnv(), logger);
  const sweepCounters = setInterval(() => void rateLimiter.sweep().catch(() => undefined), 5 * 60_000);
  sweepCounters.unref();
  const app = createApp({
    store,
    cursors: cursorCodec(await loadCursorSecret(store)),
    starter,
    waiter,
    readiness: temporalReadiness(temporal),
    logger,
    maxBodyBytes: config.maxBodyBytes,
    uploads,
    platform,
    rateLimiter,
  });
  const stopSweeper = startSweeper(store, temporal, logger, config.sweepIntervalMs);
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  // What the socket is bound to, not what we asked for: the log must not promise loopback while listening on all.
  const bound = server.address() as import('node:net').AddressInfo;
  const shown = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  logger.info({ host: bound.address, port: bound.port }, `API listening on http://${shown}:${bound.port}`);
  return {
    server,
    async close() {
      stopSweeper();
      waiter.close(); // SIGTERM answers pending ?wait= requests at once (with the scan as it is)
      clearInterval(sweepCounters);
      await rateLimiter.close().catch(() => undefined);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await starter.drain();
      await uploads.close();
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
      const stop = () => api.close().then(() => process.exit(0), () => process.exit(1));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (err) => {
      console.error(redactUri(err instanceof Error ? (err.stack ?? err.message) : String(err))); // no database password in the output
      process.exit(1);
    },
  );
}
