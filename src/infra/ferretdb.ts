// FerretDB (tools/ferretdb): the MongoDB wire protocol over PostgreSQL, or over SQLite when PostgreSQL is absent.
// Over PostgreSQL it listens on 127.0.0.1 and every client must log in (PLAIN): FerretDB 1.24 passes the user and
// password through to PostgreSQL, which checks them; the -postgresql-url it gets carries no password, so a client
// without credentials (which FerretDB serves with that URL's) is refused by PostgreSQL too. The SQLite handler has
// no authentication at all: there FerretDB listens only on a Unix socket in a 0700 directory, and the kernel
// decides who may connect.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnProcess, type ManagedProcess } from './proc';
import { canConnect, canConnectTo, freePort, waitUntil } from './ports';
import { privateDir, writePrivateFile } from './private';
import type { InfraLog } from './tools';

export interface FerretDBOptions {
  binary: string;
  dataDir: string;
  log: InfraLog;
  /** TCP port of the postgresql handler; the sqlite handler has none (its socket path follows from dataDir). */
  port?: number;
  /** Use the postgresql handler on this database; without it, the sqlite handler under <dataDir>/sqlite/. */
  postgresUrl?: string;
  /** The PostgreSQL user and password clients log in with: they go into `uri`, never to FerretDB. */
  credentials?: { username: string; password: string };
}

export interface FerretDBHandle {
  /** With the credentials (postgresql), or the percent-encoded socket path (sqlite). */
  uri: string;
  /** undefined for the sqlite handler, which listens on `socket` only. */
  port: number | undefined;
  socket: string | undefined;
  handler: 'postgresql' | 'sqlite';
  process: ManagedProcess;
  stop(): Promise<void>;
}

/** sun_path holds 108 bytes on Linux, the terminating NUL included. */
const MAX_SOCKET_PATH = 107;
const SOCKET_NAME = 'ferretdb.sock'; // the driver takes a host ending in .sock for a socket path

export async function startFerretDB(o: FerretDBOptions): Promise<FerretDBHandle> {
  const handler = o.postgresUrl ? 'postgresql' : 'sqlite';
  if (o.postgresUrl && !o.credentials)
    throw new Error('FerretDB over PostgreSQL needs the credentials its clients log in with');
  const port = o.postgresUrl ? (o.port ?? (await freePort())) : undefined;
  const socket = o.postgresUrl ? undefined : socketPath(o.dataDir);
  if (socket) await clearStaleSocket(socket);
  const listen = port ? ['-listen', `127.0.0.1:${port}`] : ['-listen', '', '-unix', socket!];
  const backendArgs = o.postgresUrl ? ['-postgresql-url', o.postgresUrl] : sqliteArgs(o.dataDir);
  const proc = spawnProcess({
    name: 'ferretdb',
    command: o.binary,
    args: [...listen, '-handler', handler, ...backendArgs, '-log-level', 'warn'],
    cwd: o.dataDir,
    env: backendEnv(),
    umask: 0o077,
    logFile: path.join(o.dataDir, 'logs', 'ferretdb.log'),
  });
  const stop = async () => {
    await proc.stop({ signal: 'SIGTERM', timeoutMs: 10_000 });
  };
  const where = port ? `port ${port}` : socket!;
  try {
    await proc.waitForLine(/^ready /, 60_000);
    // "ready" is printed as the listener starts, not once it accepts: confirm with a real connection.
    await waitUntil(`FerretDB on ${where}`, () => (port ? canConnect(port) : canConnectTo({ path: socket! })), {
      timeoutMs: 30_000,
      intervalMs: 100,
      abort: () => (proc.isRunning() ? undefined : new Error(`ferretdb exited; last output:\n${proc.tail()}`)),
    });
  } catch (err) {
    await stop();
    throw err;
  }
  let uri: string;
  if (port) {
    const { username, password } = o.credentials!;
    uri = `mongodb://${encodeURIComponent(username)}:${encodeURIComponent(password)}@127.0.0.1:${port}/?authMechanism=PLAIN`;
  } else {
    uri = `mongodb://${encodeURIComponent(socket!)}/`;
  }
  return { uri, port, socket, handler, process: proc, stop };
}

/**
 * Without a password in -postgresql-url, pgx would look for one in PGPASSWORD and ~/.pgpass: a password found there
 * would become the one unauthenticated clients are served with.
 */
function backendEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PG')));
  return { ...env, PGPASSFILE: '/dev/null' };
}

function sqliteArgs(dataDir: string): string[] {
  const dir = path.join(dataDir, 'sqlite');
  privateDir(dir);
  // FerretDB wants a directory URI ending in a slash; one SQLite file per MongoDB database goes inside.
  return ['-sqlite-url', `file:${dir}/`];
}

/**
 * <dataDir>/run/ferretdb.sock, a 0700 directory. When that path is too long for a socket, a 0700 directory of
 * ours under the system's temporary directory, whose path <dataDir>/run/socket-dir records: a restart on the same
 * data directory then serves the same URI.
 */
export function socketPath(dataDir: string): string {
  const run = path.join(dataDir, 'run');
  privateDir(run);
  const direct = path.join(run, SOCKET_NAME);
  if (Buffer.byteLength(direct) <= MAX_SOCKET_PATH) return direct;
  const record = path.join(run, 'socket-dir');
  let dir: string | undefined;
  try {
    dir = fs.readFileSync(record, 'utf8').trim();
  } catch {
    // none recorded yet
  }
  if (!dir || !ownPrivateDir(dir)) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-sock-'));
    writePrivateFile(record, `${dir}\n`);
  }
  const socket = path.join(dir, SOCKET_NAME);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH)
    throw new Error(`no socket path short enough for FerretDB: ${socket}`);
  return socket;
}

/** Ours and 0700 (lstat: a symlink planted by someone else in a shared /tmp is not followed). */
function ownPrivateDir(dir: string): boolean {
  try {
    const s = fs.lstatSync(dir);
    return s.isDirectory() && s.uid === process.getuid?.() && (s.mode & 0o777) === 0o700;
  } catch {
    return false;
  }
}

/** A socket file left by a killed server blocks the next listen; a live server on it means a second start. */
async function clearStaleSocket(socket: string): Promise<void> {
  if (!fs.existsSync(socket)) return;
  if (await canConnectTo({ path: socket }))
    throw new Error(`a server already listens on ${socket}: is another start using this data directory?`);
  fs.rmSync(socket, { force: true });
}
