// A scan worker in the test's own process, polling the test context's task queue, with the real activities.
import type { Worker } from '@temporalio/worker';
import { createLogger, type Logger } from '../../src/logger';
import { createScanWorker, type WorkerOptions } from '../../workers/worker';
import { requireEnv, type TestContext } from './context';

export interface TestWorker {
  worker: Worker;
  /** Shuts the worker down, waits for it to stop and closes its attribution threads. */
  stop(): Promise<void>;
}

export async function startTestWorker(
  t: TestContext,
  opts: Partial<Omit<WorkerOptions, 'store' | 'logger'>> & { logger?: Logger } = {},
): Promise<TestWorker> {
  const { worker, shards } = await createScanWorker({
    store: t.store,
    temporalAddress: requireEnv('TEMPORAL_ADDRESS'),
    namespace: 'default',
    taskQueue: t.taskQueue,
    ...opts,
    logger: opts.logger ?? createLogger('worker', 'silent'),
  });
  const running = worker.run();
  return {
    worker,
    async stop() {
      worker.shutdown();
      await running;
      await shards.close();
    },
  };
}
