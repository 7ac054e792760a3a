import { setTimeout as delay } from 'node:timers/promises';

/** Waits `ms`, or less when `signal` aborts first; never rejects. */
export async function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  try {
    await delay(ms, undefined, { signal });
  } catch {
    // Aborted: the caller checks its signal.
  }
}
