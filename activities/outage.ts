// How an activity's failure is retried. A database outage is waited out: retried every few seconds for as long as the
// workflow's patience lasts (scheduleToClose), so that a scan accepted before or during the outage completes soon
// after the database returns instead of failing. Any other error is a fault of the scan or of the code: it gets a
// few attempts, then fails the scan (internal_error) instead of retrying for half an hour.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { isDatabaseUnavailable } from '../src/storage/unavailable';
import { DATABASE_UNAVAILABLE, FAULT_ATTEMPTS } from '../src/temporal/scan-workflow-contract';

export function outageAware<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (err) {
      if (err instanceof ApplicationFailure) throw err; // the activity decided already (non-retryable reasons)
      const message = err instanceof Error ? err.message : String(err);
      if (isDatabaseUnavailable(err))
        throw ApplicationFailure.retryable(`the database is unreachable: ${message}`, DATABASE_UNAVAILABLE);
      if (Context.current().info.attempt >= FAULT_ATTEMPTS) {
        throw ApplicationFailure.create({
          message,
          type: 'internal_error',
          nonRetryable: true,
          cause: err instanceof Error ? err : undefined,
        });
      }
      throw err;
    }
  };
}

/** Every activity of an object wrapped by outageAware. */
export function withOutagePatience<T extends Record<string, (...args: any[]) => Promise<unknown>>>(acts: T): T {
  return Object.fromEntries(Object.entries(acts).map(([k, f]) => [k, outageAware(f)])) as T;
}
