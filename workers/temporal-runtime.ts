// The Temporal SDK's process-wide runtime: its logs go through the same level as ours. Installed once per process.
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';

const LEVELS: Record<string, LogLevel> = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  fatal: 'ERROR',
  silent: 'ERROR',
};
let installed = false;

export function installRuntime(level = process.env.LOG_LEVEL || 'info'): void {
  if (installed) return;
  installed = true;
  try {
    Runtime.install({ logger: new DefaultLogger(LEVELS[level] ?? 'INFO') });
  } catch {
    // Already installed by someone else in this process (a test harness): keep theirs.
  }
}
