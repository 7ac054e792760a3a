// Builds a Temporal worker for the scan task queue: workflows from workflows/, activities bound to MongoDB.
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { attributionPool, type ShardRunner } from '../src/pool/attribution-pool';
import type { Logger } from '../src/logger';
import type { Store } from '../src/storage/mongo';
import { installRuntime } from './runtime';

export interface WorkerOptions {
  store: Store;
  logger: Logger;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  /** Attribution threads (default: ATTRIBUTION_THREADS or the machine's cores). */
  shards?: ShardRunner;
}

export async function createScanWorker(o: WorkerOptions): Promise<{ worker: Worker; connection: NativeConnection; shards: ShardRunner }> {
  installRuntime();
  const connection = await NativeConnection.connect({ address: o.temporalAddress });
  const shards = o.shards ?? attributionPool();
  const worker = await Worker.create({
    connection,
    namespace: o.namespace,
    taskQueue: o.taskQueue,
    workflowsPath: require.resolve('../workflows'),
    activities: createActivities({ store: o.store, logger: o.logger, shards }),
    // Heartbeat details (attribution progress) reach the server within 250 ms: a retry resumes from them.
    maxHeartbeatThrottleInterval: '250 ms',
    // Leave room for the graph work of concurrent scans on a small machine.
    maxConcurrentActivityTaskExecutions: 8,
  });
  return { worker, connection, shards };
}
