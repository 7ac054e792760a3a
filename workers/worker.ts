// Builds a Temporal worker for the scan task queue: workflows from workflows/, activities bound to MongoDB.
import type { Duration } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { createMcpActivities } from '../activities/mcp';
import type { WebhookConfig } from '../activities/webhooks';
import { lazyClient, scanEvents, type ScanEvents } from '../src/temporal/events';
import { attributionPool, type ShardRunner } from '../src/pool/attribution-pool';
import type { Logger } from '../src/logger';
import type { Store } from '../src/storage/mongo';
import { installRuntime } from './temporal-runtime';

export interface WorkerOptions {
  store: Store;
  logger: Logger;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  /** Attribution threads (default: ATTRIBUTION_THREADS or the machine's cores). */
  shards?: ShardRunner;
  /** How long shutdown() lets running activities finish before cancelling them (default SHUTDOWN_GRACE). */
  shutdownGraceTime?: Duration;
  /** Activities this worker runs at once (default MAX_CONCURRENT_ACTIVITIES). */
  maxConcurrentActivities?: number;
  /**
   * Emits scan events. Default: an emitter starting event workflows on this task queue through a
   * @temporalio/client Client connected on first use; close it (the returned `events`) after the worker stops.
   */
  events?: ScanEvents;
  /** Secret box and destination policy of webhook deliveries (default: from the environment, on first use). */
  webhooks?: WebhookConfig;
}

/** Activities a worker runs at once by default: room for the graph work of concurrent scans on a small machine. */
export const MAX_CONCURRENT_ACTIVITIES = 8;

/**
 * SIGTERM lets running activities finish for this long (then they are cancelled and retried by another worker, a
 * v2 attribution resuming from its heartbeat). Past SHUTDOWN_FORCE the worker gives up waiting and the process exits.
 */
export const SHUTDOWN_GRACE = '30 seconds';
export const SHUTDOWN_FORCE = '45 seconds';

export async function createScanWorker(
  o: WorkerOptions,
): Promise<{ worker: Worker; connection: NativeConnection; shards: ShardRunner; events: ScanEvents }> {
  installRuntime();
  const connection = await NativeConnection.connect({ address: o.temporalAddress });
  const shards = o.shards ?? attributionPool();
  const events =
    o.events ??
    scanEvents({
      store: o.store,
      logger: o.logger,
      taskQueue: o.taskQueue,
      client: lazyClient(o.temporalAddress, o.namespace),
    });
  const worker = await Worker.create({
    connection,
    namespace: o.namespace,
    taskQueue: o.taskQueue,
    workflowsPath: require.resolve('../workflows'),
    // The scan, advisory and webhook activities, and those of MCP scans.
    activities: {
      ...createActivities({ store: o.store, logger: o.logger, shards, events, webhooks: o.webhooks }),
      ...createMcpActivities({ store: o.store, logger: o.logger }),
    },
    // Heartbeat details (attribution progress) reach the server within 250 ms: a retry resumes from them.
    maxHeartbeatThrottleInterval: '250 ms',
    maxConcurrentActivityTaskExecutions: o.maxConcurrentActivities ?? MAX_CONCURRENT_ACTIVITIES,
    shutdownGraceTime: o.shutdownGraceTime ?? SHUTDOWN_GRACE,
    shutdownForceTime: SHUTDOWN_FORCE,
  });
  return { worker, connection, shards, events };
}
