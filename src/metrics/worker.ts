// The worker process's metrics (served by ./server.ts on WORKER_METRICS_PORT), recorded by the activity adapters:
// workflow code stays deterministic and never touches them (a replay would count twice).
import { Counter, Histogram, Registry } from 'prom-client';

export const workerRegistry = new Registry();

export const scansTotal = new Counter({
  name: 'scans_total',
  help: 'Scans finished by this worker, by outcome (completed, failed) and failure reason',
  labelNames: ['outcome', 'reason'] as const,
  registers: [workerRegistry],
});

export const scanStageDuration = new Histogram({
  name: 'scan_stage_duration_seconds',
  help: 'Duration of each attempt of a scan stage (activity), successful or not',
  labelNames: ['stage'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
  registers: [workerRegistry],
});

/** Failure reasons are ApplicationFailure types (snake_case words); anything else is folded into one value. */
function boundedReason(reason: string): string {
  return /^[a-z][a-z0-9_]{0,63}$/.test(reason) ? reason : 'other';
}

export function recordScanCompleted(): void {
  scansTotal.inc({ outcome: 'completed', reason: '' });
}

export function recordScanFailed(reason: string): void {
  scansTotal.inc({ outcome: 'failed', reason: boundedReason(reason) });
}

/**
 * The activities of `acts` named in `stages`, each timed under its stage name (attempts that throw included: a
 * stage that keeps failing is time spent too). The others are returned as they are.
 */
export function timedStages<T extends Record<string, (...args: any[]) => Promise<unknown>>>(
  acts: T,
  stages: Partial<Record<keyof T, string>>,
): T {
  return Object.fromEntries(
    Object.entries(acts).map(([name, fn]) => {
      const stage = stages[name as keyof T];
      if (!stage) return [name, fn];
      const timed = async (...args: unknown[]) => {
        const end = scanStageDuration.startTimer({ stage });
        try {
          return await fn(...args);
        } finally {
          end();
        }
      };
      return [name, timed];
    }),
  ) as T;
}
