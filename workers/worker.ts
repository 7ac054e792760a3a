// Builds a Temporal worker for the scan task queue: workflows from workflows/, activities bound to MongoDB.
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { Logger } from '../src/logger';
import type { Store } from '../src/storage/mongo';
import { installRuntime } from './runtime';

export interface WorkerOptions {
  store: Store;
  logger: Logger;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
}

export async function createScanWorker(o: WorkerOptions): Promise<{ worker: Worker; connection: NativeConnection }> {
  installRuntime();
  const connection = await NativeConnection.connect({ address: o.temporalAddress });
  const worker = await Worker.create({
    connection,
    namespace: o.namespace,
    taskQueue: o.taskQueue,
    workflowsPath: require.resolve('../workflows'),
    activities: createActivities({ store: o.store, logger: o.logger }),
    // Leave room for the graph work of concurrent scans on a small machine.
    maxConcurrentActivityTaskExecutions: 8,
  });
  return { worker, connection };
}
