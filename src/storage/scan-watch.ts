// The database side of `GET /v1/scans/{id}?wait=`: a short, bounded watch of the scan document itself. The scan's
// workflow closing (src/temporal/client.ts scanWaiter) is the wait's reliable end, but it lands some 25-40 ms after the
// terminal write on a local stack (the activity's return, the workflow task, Temporal's persistence and its long
// poll); a wait that also reads the scan by _id every few milliseconds answers within a few milliseconds of the
// write, with the scan it read. The watch is bounded so that it costs the database little whatever the load: only
// the first `windowMs` of a wait (a small scan completes within it; for a longer one, 30 ms is little beside its
// duration) and at most `maxWatched` waits per API process at once (the others end with the workflow only).
import type { ScanWaiter } from '../ports';
import type { ScanDoc } from './documents/scans';
import type { Store } from './mongo';
import { getScan } from './scans';
import { abortableSleep } from '../shared/sleep';

export interface ScanWatchOptions {
  /** Between two reads of one scan. */
  intervalMs?: number;
  /** How long from its start a wait is watched. */
  windowMs?: number;
  /** Waits watched at once by this process. */
  maxWatched?: number;
}

export const SCAN_WATCH_DEFAULTS: Required<ScanWatchOptions> = { intervalMs: 3, windowMs: 3_000, maxWatched: 32 };

/** Resolves after `ms`, or at once when `signal` aborts; leaves no listener behind. */
/**
 * A ScanWaiter that ends with the scan when its document turns terminal within the watch window; past the window,
 * out of watch slots, or on a read error it waits until `ms` pass or `signal` aborts (the workflow's close ends the
 * combined wait: src/scan-waiter.ts). Never throws. A scan gone (deleted with its project) ends the wait too.
 */
export function scanWatch(store: Store, options: ScanWatchOptions = {}): ScanWaiter & { watching(): number } {
  const o = { ...SCAN_WATCH_DEFAULTS, ...options };
  const pending = new Set<AbortController>();
  let watching = 0;
  return {
    watching: () => watching,
    async until(scanId, ms, signal) {
      const ac = new AbortController();
      const abort = () => ac.abort();
      signal?.addEventListener('abort', abort, { once: true });
      if (signal?.aborted) ac.abort();
      pending.add(ac);
      const started = Date.now();
      try {
        if (watching < o.maxWatched) {
          watching++;
          try {
            const end = started + Math.min(ms, o.windowMs);
            while (!ac.signal.aborted && Date.now() < end) {
              await abortableSleep(o.intervalMs, ac.signal);
              if (ac.signal.aborted) return undefined;
              const scan: ScanDoc | null = await getScan(store, scanId);
              if (!scan) return undefined;
              if (scan.status === 'completed' || scan.status === 'failed') return scan;
            }
          } catch {
            // A failing read (the database away) leaves the wait to the workflow's close.
          } finally {
            watching--;
          }
        }
        await abortableSleep(Math.max(0, started + ms - Date.now()), ac.signal);
        return undefined;
      } finally {
        signal?.removeEventListener('abort', abort);
        pending.delete(ac);
      }
    },
    close() {
      for (const ac of pending) ac.abort();
    },
  };
}
