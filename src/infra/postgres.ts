// A private PostgreSQL cluster under <dataDir>/postgres, the storage FerretDB writes through (docs/configuration.md).
// Password (SCRAM) for every connection, TCP on 127.0.0.1 only, no Unix socket; the password is in
// <dataDir>/postgres/password (0600).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { descendants, isAlive, runCommand, signal, spawnProcess, type ManagedProcess } from './proc';
import { freePort, sleep } from './ports';
import { passwordFile, privateDir, writePrivateFile, type Owner } from './private';
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
  /** Without the password, which travels apart from it (environment, file), never on a command line. */
  url: string;
  user: string;
  password: string;
  port: number;
  process: ManagedProcess;
  stop(): Promise<void>;
}

const DATABASE = 'ferretdb';
const USER = 'postgres';
/** Every connection, local or TCP, authenticates with the password. */
const HBA = [
  "# Written by the scanner's local stack (src/infra/postgres.ts): a password (SCRAM) for every connection.",
  'local   all           all                         scram-sha-256',
  'host    all           all         127.0.0.1/32    scram-sha-256',
  'host    all           all         ::1/128         scram-sha-256',
  'local   replication   all                         scram-sha-256',
  'host    replication   all         127.0.0.1/32    scram-sha-256',
  'host    replication   all         ::1/128         scram-sha-256',
  '',
].join('\n');

function ownerIds(user: string): Owner {
  const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * PostgreSQL refuses to run as root; as root we hand the cluster to the `postgres` system user: <dataDir>/postgres
 * is then that user's, 0700, and DATA_DIR (0711 as root, private.ts) lets it pass. Returns its ids when root.
 */
function prepareDirs(root: string, runAs: string | undefined): Owner | undefined {
  if (!runAs) {
    privateDir(root);
    return undefined;
  }
  let ids: Owner;
  try {
    ids = ownerIds(runAs);
  } catch {
    throw new Error(`running as root and there is no "${runAs}" system user to run PostgreSQL as`);
  }
  privateDir(root, ids);
  // Ask the kernel rather than reading modes: every parent must be traversable by that user (mkdtemp makes 0700).
  const probe = spawnSync('test', ['-w', root], { uid: ids.uid, gid: ids.gid });
  if (probe.status !== 0) {
    throw new Error(`user ${runAs} cannot reach ${root}: make each parent directory traversable (chmod 0711)`);
  }
  return ids;
}

/** Active pg_hba.conf lines with any method but scram-sha-256 (trust, as earlier versions wrote, md5, peer...). */
function hbaOpen(cluster: string): boolean {
  const lines = fs.readFileSync(path.join(cluster, 'pg_hba.conf'), 'utf8').split('\n');
  return lines
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean)
    .some((l) => !/\sscram-sha-256(\s|$)/.test(l));
}

/**
 * Gives USER the password and makes pg_hba.conf require it: for clusters initialised with `-A trust` by earlier
 * versions, or whose password file was lost. Runs before the server listens (single-user mode, the statement on
 * stdin), so there is no moment when the cluster is both reachable and open.
 */
function securePassword(
  binDir: string,
  cluster: string,
  password: string,
  owner: Owner | undefined,
  log: InfraLog,
): void {
  log.info(`setting the PostgreSQL password and requiring it in ${cluster}`);
  const res = spawnSync(
    path.join(binDir, 'postgres'),
    ['--single', '-D', cluster, '-c', 'password_encryption=scram-sha-256', 'postgres'],
    {
      input: `ALTER ROLE ${USER} WITH PASSWORD '${password.replace(/'/g, "''")}';\n`,
      cwd: path.dirname(cluster),
      encoding: 'utf8',
      timeout: 120_000,
      ...owner,
    },
  );
  // Single-user mode exits 0 after a failed statement: its stderr says so (and echoes the statement: hidden here).
  const output = `${res.stdout ?? ''}${res.stderr ?? ''}`.split(password).join('***');
  if (res.status !== 0 || /\b(ERROR|FATAL|PANIC):/.test(output)) {
    throw new Error(
      `could not set the PostgreSQL password in ${cluster} (${res.error?.message ?? `exit ${res.status}`}):\n${output.slice(-2000)}`,
    );
  }
  writePrivateFile(path.join(cluster, 'pg_hba.conf'), HBA, owner);
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
  const owner = prepareDirs(root, runAs);
  // Owned by the user initdb runs as (it reads it); we read it as that user or as root.
  const pwFile = path.join(root, 'password');
  const { password, created } = passwordFile(pwFile, owner);

  // PG_VERSION is written late by initdb: without it the directory is a failed attempt, safe to redo.
  if (!fs.existsSync(path.join(cluster, 'PG_VERSION'))) {
    fs.rmSync(cluster, { recursive: true, force: true });
    o.log.info(`initializing PostgreSQL cluster in ${cluster} (once)`);
    await runCommand(
      'initdb',
      bin('initdb'),
      [
        '-D',
        cluster,
        '--auth=scram-sha-256',
        `--pwfile=${pwFile}`,
        '-U',
        USER,
        '-E',
        'UTF8',
        '--no-locale',
        '--no-sync',
      ],
      { runAs, cwd: root, timeoutMs: 120_000 },
    );
  } else {
    await clearStalePid(cluster, o.log);
    if (created || hbaOpen(cluster)) securePassword(o.binDir, cluster, password, owner, o.log);
  }

  const port = o.port ?? (await freePort());
  const settings = [
    'listen_addresses=127.0.0.1',
    // No Unix socket: TCP with a password is the one way in (a socket would be one more door to keep closed).
    'unix_socket_directories=',
    'password_encryption=scram-sha-256',
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
      runCommand(
        'psql',
        bin('psql'),
        [
          '-h',
          '127.0.0.1',
          '-p',
          String(port),
          '-U',
          USER,
          '-d',
          'postgres',
          '-X',
          '-q',
          '-t',
          '-A',
          '-v',
          'ON_ERROR_STOP=1',
          '-c',
          sql,
        ],
        { timeoutMs: 30_000, env: psqlEnv(password) },
      );
    const exists = await psql(`SELECT 1 FROM pg_database WHERE datname = '${DATABASE}'`);
    if (exists.trim() !== '1') await psql(`CREATE DATABASE ${DATABASE}`);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `postgres://${USER}@127.0.0.1:${port}/${DATABASE}`, user: USER, password, port, process: proc, stop };
}

/** The password by environment (a command line is visible to every user in ps), and no ~/.pgpass to consult. */
function psqlEnv(password: string): NodeJS.ProcessEnv {
  return { ...process.env, PGPASSWORD: password, PGPASSFILE: '/dev/null' };
}
