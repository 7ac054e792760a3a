// Temporal's dev server (the CLI's `server start-dev`): SQLite-backed, persistent in <dataDir>/temporal/temporal.db.
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { spawnProcess, type ManagedProcess } from './proc';
import { freePorts, waitUntil } from './ports';
import { privateDir } from './private';
import { registerSearchAttributes, searchAttributeFlags } from '../temporal/search-attributes';
import type { InfraLog } from './tools';

export interface TemporalOptions {
  cli: string;
  dataDir: string;
  log: InfraLog;
  port?: number;
  uiPort?: number;
  namespace?: string;
}

export interface TemporalHandle {
  address: string;
  uiUrl: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

export function startDevArgs(dbFile: string, port: number, uiPort: number, namespace: string): string[] {
  return [
    'server',
    'start-dev',
    '--db-filename',
    dbFile,
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--namespace',
    namespace,
    '--log-level',
    'warn',
    // Write-ahead log, synced at checkpoints rather than on every commit: a crash of the process loses nothing, a
    // power loss may lose the last transactions (as the local PostgreSQL's synchronous_commit=off does), and each
    // workflow task, activity result and start stops paying an fsync.
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=normal',
    ...searchAttributeFlags(),
  ];
}

/**
 * The database file in a 0700 directory of its own: SQLite makes its -wal and -shm files beside it, with the
 * process's umask, so a directory is what keeps all three private. Earlier versions kept them in DATA_DIR itself.
 */
export function temporalDbFile(dataDir: string): string {
  const dir = path.join(dataDir, 'temporal');
  privateDir(dir);
  const file = path.join(dir, 'temporal.db');
  const old = path.join(dataDir, 'temporal.db');
  if (fs.existsSync(old) && !fs.existsSync(file)) {
    for (const suffix of ['-wal', '-shm', '']) {
      if (fs.existsSync(old + suffix)) fs.renameSync(old + suffix, file + suffix);
    }
  }
  return file;
}

/**
 * The dev server picks its internal services' ports itself, at start, before our frontend port is bound: now and then
 * it picks that very port and dies with "address already in use" (seen once in a bench run). Such a start is tried
 * again, a few times; any other failure is final.
 */
export async function startTemporal(o: TemporalOptions): Promise<TemporalHandle> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startTemporalOnce(o);
    } catch (err) {
      if (attempt >= 3 || !/address already in use/.test((err as Error).message)) throw err;
      o.log.warn(`the Temporal dev server lost a port race at start; starting it again (attempt ${attempt + 1})`);
    }
  }
}

async function startTemporalOnce(o: TemporalOptions): Promise<TemporalHandle> {
  const [fallbackPort, fallbackUi] = await freePorts(2);
  const port = o.port ?? fallbackPort;
  const uiPort = o.uiPort ?? (fallbackUi !== port ? fallbackUi : fallbackPort);
  const namespace = o.namespace ?? 'default';
  const address = `127.0.0.1:${port}`;
  const uiUrl = `http://127.0.0.1:${uiPort}`;
  const proc = spawnProcess({
    name: 'temporal',
    command: o.cli,
    args: startDevArgs(temporalDbFile(o.dataDir), port, uiPort, namespace),
    cwd: o.dataDir,
    umask: 0o077,
    logFile: path.join(o.dataDir, 'logs', 'temporal.log'),
  });
  const stop = async () => {
    await proc.stop({ signal: 'SIGTERM', timeoutMs: 15_000 });
  };
  const abort = () =>
    proc.isRunning() ? undefined : new Error(`temporal dev server exited; last output:\n${proc.tail()}`);
  try {
    // Ready means: the frontend answers gRPC *and* knows the namespace (it is created during startup).
    await waitUntil(
      `Temporal frontend at ${address}`,
      async () => {
        const connection = await Connection.connect({ address, connectTimeout: 1000 });
        try {
          await connection.workflowService.describeNamespace({ namespace });
          return true;
        } finally {
          await connection.close();
        }
      },
      { timeoutMs: 120_000, intervalMs: 250, abort },
    );
    // The --search-attribute flags only take effect when the database file is created: a DATA_DIR from a version
    // with fewer attributes (before ProjectSlug) would otherwise lack the new ones until the worker registers them,
    // and the API's first workflow starts would be refused meanwhile.
    const admin = await Connection.connect({ address, connectTimeout: 5000 });
    try {
      await registerSearchAttributes(admin, namespace);
    } finally {
      await admin.close();
    }
    await waitUntil(
      `Temporal UI at ${uiUrl}`,
      async () => {
        const res = await fetch(uiUrl, { signal: AbortSignal.timeout(2000) });
        await res.body?.cancel();
        return res.ok;
      },
      {
        timeoutMs: 60_000,
        intervalMs: 250,
        abort,
      },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { address, uiUrl, process: proc, stop };
}
