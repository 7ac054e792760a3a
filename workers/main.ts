// Process entry of the worker (`npm run worker`): polls the scan task queue until SIGINT/SIGTERM.
import os from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { configuredSources } from '../src/advisories/sync';
import { configuredIntelSources } from '../src/intel/sync';
import { alertMetricsScheduleId, ensureAlertMetricsSchedule } from '../src/temporal/alert-metrics';
import { ensureAdvisoryRefreshSchedule, ensureIntelRefreshSchedule } from '../src/temporal/schedules';
import { startAlertUpgrade } from '../src/temporal/alert-rematch';
import { ensureTriageSchedule } from '../src/temporal/triage-reconcile';
import { triageScheduleId } from '../src/temporal/triage-reconcile-workflow-contract';
import { ALERT_UPGRADE_SETTING } from '../activities/alert-steps';
import { envInt, loadConfig, requireMongoUri, requireTemporalAddress } from '../src/config';
import { createLogger } from '../src/logger';
import { connectStore } from '../src/storage/mongo';
import { prepareStore } from '../src/storage/migrations';
import { currentGeneration } from '../src/storage/advisories';
import { registerSearchAttributes } from '../src/temporal/search-attributes';
import { createScanWorker, MAX_CONCURRENT_ACTIVITIES } from './worker';
import { redactUri } from '../src/infra/private';
import { workerRegistry } from '../src/metrics/worker';
import { DEFAULT_WORKER_METRICS_PORT, metricsListenFromEnv, serveMetrics } from '../src/metrics/server';

async function main(): Promise<void> {
  // WORKER_NICE lowers the worker's CPU priority where it shares a machine with the API (npm start does this).
  if (process.env.WORKER_NICE) os.setPriority(0, Number(process.env.WORKER_NICE));
  const config = loadConfig();
  const logger = createLogger('worker', config.logLevel);
  const address = requireTemporalAddress(config);
  // First, so that a starting worker (connections, the workflow bundle: seconds) can be scraped too.
  const metrics = await serveMetrics(
    workerRegistry,
    metricsListenFromEnv('WORKER_METRICS_PORT', DEFAULT_WORKER_METRICS_PORT),
    logger,
  );
  const store = await connectStore(requireMongoUri(config), config.mongoDb);
  await prepareStore(store);
  // On a real cluster the operator may not have registered our search attributes: do it (idempotent).
  const admin = await Connection.connect({ address });
  try {
    await registerSearchAttributes(admin, config.temporalNamespace);
  } catch (err) {
    logger.warn({ err }, 'could not register search attributes; ask the cluster operator to add them');
  } finally {
    await admin.close();
  }
  // Without advisories every scan completes with nothing found: say so where the operator looks first.
  if (!configuredSources().length && (await currentGeneration(store)) === null) {
    logger.warn(
      'no advisories imported yet: scans complete but cannot find anything until `npx scanner advisories import <OSV zip|dir|file>` runs or ADVISORY_SOURCES is set',
    );
  }
  // The advisory-refresh schedule exists when there is something to refresh from.
  if (configuredSources().length) {
    const client = new Client({
      connection: await Connection.connect({ address }),
      namespace: config.temporalNamespace,
    });
    try {
      const how = await ensureAdvisoryRefreshSchedule(
        client,
        config.taskQueue,
        process.env.ADVISORY_REFRESH_INTERVAL || '6h',
      );
      logger.info({ schedule: 'advisory-refresh', how }, 'advisory refresh scheduled');
    } catch (err) {
      logger.warn({ err }, 'could not create the advisory-refresh schedule');
    } finally {
      await client.connection.close();
    }
  }
  // The intel-refresh schedule (KEV, EPSS) exists when INTEL_KEV_SOURCE or INTEL_EPSS_SOURCE names a feed.
  if (Object.keys(configuredIntelSources()).length) {
    const connection = await Connection.connect({ address });
    try {
      const how = await ensureIntelRefreshSchedule(
        new Client({ connection, namespace: config.temporalNamespace }),
        config.taskQueue,
        process.env.INTEL_REFRESH_INTERVAL || '24h',
      );
      logger.info({ schedule: 'intel-refresh', how }, 'intel refresh scheduled');
    } catch (err) {
      logger.warn({ err }, 'could not create the intel-refresh schedule');
    } finally {
      await connection.close();
    }
  }
  // Triage in the background: the hourly reconciliation of every organization with analyses or rules (analyses'
  // and enforce rules' expiries told within the hour), one schedule per database, created or updated by every worker.
  {
    const connection = await Connection.connect({ address });
    try {
      const client = new Client({ connection, namespace: config.temporalNamespace });
      const how = await ensureTriageSchedule(client, config.taskQueue, store.db.databaseName);
      logger.info({ schedule: triageScheduleId(store.db.databaseName), how }, 'triage reconciliation scheduled');
    } catch (err) {
      logger.warn({ err }, 'could not create the triage reconciliation schedule; the next worker start tries again');
    } finally {
      await connection.close();
    }
  }
  // The alert trends' daily run (00:05 UTC), one schedule per database, created or updated by every worker.
  {
    const connection = await Connection.connect({ address });
    try {
      const client = new Client({ connection, namespace: config.temporalNamespace });
      const how = await ensureAlertMetricsSchedule(client, config.taskQueue, store.db.databaseName);
      logger.info({ schedule: alertMetricsScheduleId(store.db.databaseName), how }, 'alert trends scheduled');
    } catch (err) {
      logger.warn({ err }, 'could not create the alert trends schedule; the next worker start tries again');
    } finally {
      await connection.close();
    }
  }
  // The upgrade to alerts, once per database: in a workflow of its own (readiness never waits for it).
  if (!(await store.c.settings.findOne({ _id: ALERT_UPGRADE_SETTING }))) {
    const connection = await Connection.connect({ address });
    try {
      const client = new Client({ connection, namespace: config.temporalNamespace });
      if (await startAlertUpgrade(client, config.taskQueue, store.db.databaseName))
        logger.info('alerts: upgrade started (workflow alert-upgrade-<database>)');
    } catch (err) {
      logger.warn({ err }, 'alerts: the upgrade was not started; the next worker start tries again');
    } finally {
      await connection.close();
    }
  }
  // WORKER_MAX_CONCURRENT_ACTIVITIES: activities this process runs at once (default 8); 1 makes a worker take one
  // shard of a paged scan at a time, so that the shards spread over the worker processes.
  const maxConcurrentActivities = envInt('WORKER_MAX_CONCURRENT_ACTIVITIES', MAX_CONCURRENT_ACTIVITIES, { min: 1 });
  const { worker, connection, shards, events } = await createScanWorker({
    store,
    logger,
    temporalAddress: address,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    maxConcurrentActivities,
  });
  // shutdown() stops polling and lets running activities finish (SHUTDOWN_GRACE in ./worker.ts); run() returns then.
  // A second signal does not wait.
  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info('shutting down: running activities may finish');
    worker.shutdown();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  logger.info({ taskQueue: config.taskQueue }, 'worker polling');
  try {
    await worker.run();
  } finally {
    await metrics?.close(); // scraped until the activities are done
  }
  await shards.close();
  await events.close(); // the client that started webhook event workflows, if one was opened
  await connection.close();
  await store.close();
  logger.info('worker stopped');
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(redactUri(err instanceof Error ? (err.stack ?? err.message) : String(err))); // no database password in the output
    process.exit(1);
  },
);
