// The API's ?wait= waiter: the scan workflow's close (reliable, 25-40 ms after the terminal write on a local stack)
// raced by a short, bounded watch of the scan's document (within a few milliseconds of the write).
import type { ScanWaiter } from './ports';
import type { Store } from './storage/mongo';
import { scanWatch, type ScanWatchOptions } from './storage/scan-watch';
import { scanWaiter, type TemporalHandle } from './temporal/client';

/** Waits on every waiter at once; the first to end ends the others (their reads and long polls are cancelled). */
export function firstWaiter(...waiters: ScanWaiter[]): ScanWaiter {
  return {
    async until(scanId, ms, signal) {
      const ac = new AbortController();
      const abort = () => ac.abort();
      signal?.addEventListener('abort', abort, { once: true });
      try {
        return await Promise.race(waiters.map((w) => w.until(scanId, ms, ac.signal)));
      } finally {
        ac.abort();
        signal?.removeEventListener('abort', abort);
      }
    },
    close() {
      for (const w of waiters) w.close();
    },
  };
}

export function apiScanWaiter(temporal: TemporalHandle, store: Store, watch?: ScanWatchOptions): ScanWaiter {
  return firstWaiter(scanWaiter(temporal), scanWatch(store, watch));
}
