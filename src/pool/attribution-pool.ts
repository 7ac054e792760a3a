// The worker's pool of attribution threads (piscina). One per worker process, created on first use; the thread
// count comes from ATTRIBUTION_THREADS and defaults to the machine's cores. Shards queue in the pool, so several
// scans share the threads fairly.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { Piscina } from 'piscina';
import type { ShardBatch, ShardOutput } from '../domain/attribution/v2-walk';

export interface ShardRunner {
  readonly threads: number;
  /** Walks the batch's shards one after the other on one thread; one output per shard, in order. */
  run(batch: ShardBatch, signal?: AbortSignal): Promise<ShardOutput[]>;
  close(): Promise<void>;
}

/** The compiled thread file: next to this one in dist/, or in dist/ when this runs from TypeScript under jest. */
function threadFile(): string {
  const here = path.join(__dirname, 'attribution.thread.js');
  if (fs.existsSync(here)) return here;
  const built = path.resolve(__dirname, '..', '..', 'dist', 'src', 'pool', 'attribution.thread.js');
  if (fs.existsSync(built)) return built;
  throw new Error(`attribution thread not built (${built}); run npm run build`);
}

export function defaultThreads(): number {
  const configured = Number(process.env.ATTRIBUTION_THREADS);
  return Number.isInteger(configured) && configured > 0 ? configured : os.availableParallelism();
}

export function attributionPool(threads = defaultThreads()): ShardRunner {
  let pool: Piscina | undefined;
  return {
    threads,
    run(batch, signal) {
      // Several batches queued per thread: a thread that finishes one starts the next at once instead of waiting for
      // the event loop to hand it over (on a 2-core machine that loop competes with the threads for a core).
      pool ??= new Piscina({
        filename: threadFile(),
        minThreads: threads,
        maxThreads: threads,
        idleTimeout: 60_000,
        concurrentTasksPerWorker: 4,
      });
      return pool.run(batch, { signal });
    },
    async close() {
      await pool?.destroy();
    },
  };
}
