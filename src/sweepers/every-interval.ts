import type { Logger } from '../logger';

/** Runs `pass` every `intervalMs`, one pass at a time (a slow one skips ticks); a failure is logged. Returns the stop. */
export function everyInterval(
  intervalMs: number,
  logger: Logger,
  what: string,
  pass: () => Promise<unknown>,
): () => void {
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      await pass();
    } catch (err) {
      logger.warn({ err }, `${what} failed`);
    } finally {
      running = false;
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
