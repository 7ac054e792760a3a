// FerretDB (tools/ferretdb): the MongoDB wire protocol over PostgreSQL, or over SQLite when PostgreSQL is absent.
import fs from 'node:fs';
import path from 'node:path';
import { spawnProcess, type ManagedProcess } from './proc';
import { canConnect, freePort, waitUntil } from './ports';
import type { InfraLog } from './tools';

export interface FerretDBOptions {
  binary: string;
  dataDir: string;
  log: InfraLog;
  port?: number;
  /** Use the postgresql handler on this database; without it, the sqlite handler under <dataDir>/sqlite/. */
  postgresUrl?: string;
}

export interface FerretDBHandle {
  uri: string;
  port: number;
  handler: 'postgresql' | 'sqlite';
  process: ManagedProcess;
  stop(): Promise<void>;
}

export async function startFerretDB(o: FerretDBOptions): Promise<FerretDBHandle> {
  const port = o.port ?? (await freePort());
  const handler = o.postgresUrl ? 'postgresql' : 'sqlite';
  const backendArgs = o.postgresUrl ? ['-postgresql-url', o.postgresUrl] : sqliteArgs(o.dataDir);
  const proc = spawnProcess({
    name: 'ferretdb',
    command: o.binary,
    args: ['-listen', `127.0.0.1:${port}`, '-handler', handler, ...backendArgs, '-log-level', 'warn'],
    cwd: o.dataDir,
    logFile: path.join(o.dataDir, 'logs', 'ferretdb.log'),
  });
  const stop = async () => {
    await proc.stop({ signal: 'SIGTERM', timeoutMs: 10_000 });
  };
  try {
    await proc.waitForLine(/^ready /, 60_000);
    // "ready" is printed as the listener starts, not once it accepts: confirm with a real connection.
    await waitUntil(`FerretDB on port ${port}`, () => canConnect(port), {
      timeoutMs: 30_000,
      intervalMs: 100,
      abort: () => (proc.isRunning() ? undefined : new Error(`ferretdb exited; last output:\n${proc.tail()}`)),
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { uri: `mongodb://127.0.0.1:${port}/`, port, handler, process: proc, stop };
}

function sqliteArgs(dataDir: string): string[] {
  const dir = path.join(dataDir, 'sqlite');
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  // FerretDB wants a directory URI ending in a slash; one SQLite file per MongoDB database goes inside.
  return ['-sqlite-url', `file:${dir}/`];
}
