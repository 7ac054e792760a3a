// A private PostgreSQL cluster under <dataDir>/postgres, the storage FerretDB writes through (local-database.md).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { descendants, isAlive, runCommand, signal, spawnProcess, type ManagedProcess } from './proc';
import { freePort, sleep } from './ports';
import type { InfraLog } from './tools';

export interface PostgresOptions {
  binDir: string;
  dataDir: string;
  log: InfraLog;
  port?: number;
  /** false for throwaway test clusters: skip fsync entirely. */
  durable?: boolean;
}

export interface PostgresHandle {
  url: string;
  port: number;
  process: ManagedProcess;
  stop(): Promise<void>;
}

const DATABASE = 'ferretdb';
/** sun_path is 108 bytes on Linux; past that PostgreSQL cannot create its socket, so we go TCP-only. */
const MAX_SOCKET_PATH = 100;

function ownerIds(user: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** PostgreSQL refuses to run as root; as root we hand the cluster to the `postgres` system user. */
function prepareDirs(root: string, runAs: string | undefined): void {
  fs.mkdirSync(root, { recursive: true, mode: 0o755 });
  if (!runAs) return;
  let ids: { uid: number; gid: number };
  try {
    ids = ownerIds(runAs);
  } catch {
    throw new Error(`running as root and there is no "${runAs}" system user to run PostgreSQL as`);
  }
  fs.chownSync(root, ids.uid, ids.gid);
  fs.chmodSync(root, 0o755);
  // Ask the kernel rather than reading modes: every parent must be traversable by that user (mkdtemp makes 0700).
  const probe = spawnSync('test', ['-w', root], { uid: ids.uid, gid: ids.gid });
  if (probe.status !== 0) {
    throw new Error(`user ${runAs} cannot reach ${root}: make each parent directory traversable (chmod 0755)`);
  }
}

/** A postmaster.pid left by a killed run blocks startup when its pid now belongs to someone else. */
async function clearStalePid(cluster: string, log: InfraLog): Promise<void> {
  const pidFile = path.join(cluster, 'postmaster.pid');
  let pid: number;
  try {
    pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  } catch {
    return;
  }
  let cmdline = '';
  try {
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    // no such process (or no /proc): nothing can be using the file
  }
  if (pid > 0 && isAlive(pid) && cmdline.includes('postgres') && cmdline.includes(cluster)) {
    // Our own postmaster, orphaned by a supervisor that died without its parent-death signal (no setpriv).
    // start.ts refuses to start twice on one DATA_DIR, so this is not a live sibling's server.
    log.warn(`stopping PostgreSQL pid ${pid} left running on ${cluster} by a previous run`);
    const tree = descendants(pid);
    signal(pid, 'SIGINT');
    for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(100);
    if (isAlive(pid)) for (const p of [pid, ...tree]) signal(p, 'SIGKILL');
    for (let i = 0; i < 50 && isAlive(pid); i++) await sleep(100);
  }
  if (!isAlive(pid) || !cmdline.includes(cluster)) fs.rmSync(pidFile, { force: true });
}

export async function startPostgres(o: PostgresOptions): Promise<PostgresHandle> {
  const root = path.join(o.dataDir, 'postgres');
  const cluster = path.join(root, 'data');
  const runAs = process.getuid?.() === 0 ? 'postgres' : undefined;
  const bin = (name: string) => path.join(o.binDir, name);
  prepareDirs(root, runAs);

  // PG_VERSION is written late by initdb: without it the directory is a failed attempt, safe to redo.
  if (!fs.existsSync(path.join(cluster, 'PG_VERSION'))) {
    fs.rmSync(cluster, { recursive: true, force: true });
    o.log.info(`initializing PostgreSQL cluster in ${cluster} (once)`);
    await runCommand('initdb', bin('initdb'),
      ['-D', cluster, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-locale', '--no-sync'],
      { runAs, cwd: root, timeoutMs: 120_000 });
  }
  await clearStalePid(cluster, o.log);

  const port = o.port ?? (await freePort());
  const socketDir = path.join(root, `.s.PGSQL.${port}`).length <= MAX_SOCKET_PATH ? root : '';
  const settings = [
    'listen_addresses=127.0.0.1',
    `unix_socket_directories=${socketDir}`,
    // A lost last commit on power failure is acceptable for a local dev store; per-insert fsync waits are not
    // (FerretDB commits every write). Never corrupts: WAL order is kept.
    'synchronous_commit=off',
    ...(o.durable === false ? ['fsync=off', 'full_page_writes=off'] : []),
  ];
  const proc = spawnProcess({
    name: 'postgres',
    command: bin('postgres'),
    args: ['-D', cluster, '-p', String(port), ...settings.flatMap((s) => ['-c', s])],
    runAs,
    cwd: root,
    // SIGINT is PostgreSQL's fast shutdown: it does not wait for clients that died with us.
    parentDeathSignal: 'SIGINT',
    logFile: path.join(o.dataDir, 'logs', 'postgres.log'),
  });
  const stop = async () => {
    await proc.stop({ signal: 'SIGINT', timeoutMs: 20_000 });
  };
  try {
    await proc.waitForLine(/database system is ready to accept connections/, 120_000);
    const psql = (sql: string) =>
      runCommand('psql', bin('psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres',
        '-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', '-c', sql], { timeoutMs: 30_000 });
    const exists = await psql(`SELECT 1 FROM pg_database WHERE datname = '${DATABASE}'`);
    if (exists.trim() !== '1') await psql(`CREATE DATABASE ${DATABASE}`);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/${DATABASE}`, port, process: proc, stop };
}
