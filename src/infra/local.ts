// The whole local stack in one call: a MongoDB-wire server and Temporal, each unless the environment names one.
import dns from 'node:dns';
import fs from 'node:fs';
import path from 'node:path';
import { ensureTools, type InfraLog, type Tools } from './tools';
import { startPostgres } from './postgres';
import { startFerretDB } from './ferretdb';
import { startMongod } from './mongod';
import { startTemporal } from './temporal';
import { secureDataDir } from './private';

export interface LocalInfraOptions {
  dataDir: string;
  log: InfraLog;
  ports?: { temporal?: number; temporalUi?: number; mongo?: number; postgres?: number };
  /** Where MONGODB_URI / TEMPORAL_ADDRESS / SCANNER_TRY_MONGOMS_DOWNLOAD are read; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** false for throwaway test data: PostgreSQL skips fsync. */
  durable?: boolean;
}

export interface LocalInfra {
  /** With its credentials: hand it to processes by environment or a 0600 file; print it through redactUri. */
  mongoUri: string;
  temporalAddress: string;
  /** Undefined when TEMPORAL_ADDRESS points at a server we did not start (TEMPORAL_UI_URL, if set, is used). */
  temporalUiUrl: string | undefined;
  /** What this call started, in start order, e.g. ['postgres', 'ferretdb', 'temporal']. */
  started: string[];
  /** Where the started servers' output goes. */
  logDir: string;
  stop(): Promise<void>;
}

interface Started {
  name: string;
  stop(): Promise<void>;
}

export async function startLocalInfra(o: LocalInfraOptions): Promise<LocalInfra> {
  const env = o.env ?? process.env;
  const dataDir = path.resolve(o.dataDir);
  for (const entry of secureDataDir(dataDir)) o.log.warn(`could not make ${entry} private to its owner (chmod go-rwx)`);
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true, mode: 0o700 });
  const tools = await ensureTools(o.log, { temporal: !env.TEMPORAL_ADDRESS, mongo: !env.MONGODB_URI });

  const started: Started[] = [];
  const stopAll = async () => {
    // Reverse order: FerretDB before the PostgreSQL it writes to. A failing stop must not keep the rest alive.
    for (const s of [...started].reverse()) {
      try {
        await s.stop();
      } catch (err) {
        o.log.warn(`stopping ${s.name} failed: ${(err as Error).message}`);
      }
    }
    started.length = 0;
  };

  // The two chains are independent, so they start concurrently (Temporal's startup dominates either way).
  const mongo = env.MONGODB_URI ? Promise.resolve(env.MONGODB_URI) : startMongo(o, dataDir, tools, env, started);
  const temporal = env.TEMPORAL_ADDRESS
    ? Promise.resolve({ address: env.TEMPORAL_ADDRESS, uiUrl: env.TEMPORAL_UI_URL || undefined })
    : startTemporal({
        cli: tools.temporalCli!,
        dataDir,
        log: o.log,
        port: o.ports?.temporal,
        uiPort: o.ports?.temporalUi,
      }).then((t) => (started.push({ name: 'temporal', stop: t.stop }), t));
  const [m, t] = await Promise.allSettled([mongo, temporal]);
  if (m.status === 'rejected' || t.status === 'rejected') {
    await stopAll();
    throw m.status === 'rejected' ? m.reason : (t as PromiseRejectedResult).reason;
  }
  return {
    mongoUri: m.value,
    temporalAddress: t.value.address,
    temporalUiUrl: t.value.uiUrl,
    started: started.map((s) => s.name),
    logDir,
    stop: stopAll,
  };
}

/**
 * mongodb-memory-server may download a mongod when the machine has internet. A failed download costs seconds, so
 * try it only when its host resolves (an offline machine answers ENOTFOUND in milliseconds), or when told to:
 * SCANNER_TRY_MONGOMS_DOWNLOAD=1 forces the attempt, =0 forbids it.
 */
async function mongodDownloadAllowed(env: NodeJS.ProcessEnv): Promise<boolean> {
  if (env.SCANNER_TRY_MONGOMS_DOWNLOAD === '1') return true;
  if (env.SCANNER_TRY_MONGOMS_DOWNLOAD === '0') return false;
  const host = env.MONGOMS_DOWNLOAD_MIRROR ? new URL(env.MONGOMS_DOWNLOAD_MIRROR).hostname : 'fastdl.mongodb.org';
  const lookup = dns.promises.lookup(host).then(
    () => true,
    () => false,
  );
  return Promise.race([lookup, new Promise<boolean>((r) => setTimeout(() => r(false), 1000).unref())]);
}

/** mongod when one is available, else FerretDB over PostgreSQL, else FerretDB over SQLite. */
async function startMongo(
  o: LocalInfraOptions,
  dataDir: string,
  tools: Tools,
  env: NodeJS.ProcessEnv,
  started: Started[],
): Promise<string> {
  // Keep using the store this DATA_DIR already holds: switching backends would silently show an empty database.
  const holdsData = (d: string) =>
    fs.existsSync(path.join(dataDir, d)) && fs.readdirSync(path.join(dataDir, d)).length > 0;
  const hasFerretData = holdsData('postgres') || holdsData('sqlite');
  const hasMongodData = holdsData('mongod');
  if (hasMongodData || !hasFerretData) {
    try {
      const mongod = await startMongod({
        dataDir,
        log: o.log,
        port: o.ports?.mongo,
        systemBinary: tools.mongod,
        allowDownload: await mongodDownloadAllowed(env),
      });
      if (mongod) {
        started.push({ name: 'mongod', stop: mongod.stop });
        return mongod.uri;
      }
    } catch (err) {
      if (hasMongodData) throw err;
      o.log.warn(`mongod could not start, using FerretDB instead: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (!tools.ferretdb) {
    throw new Error(
      'no MongoDB-wire server available: set MONGODB_URI, install mongod, or install Go so FerretDB can be built',
    );
  }
  let postgres: { url: string; user: string; password: string } | undefined;
  const hasSqliteData = holdsData('sqlite') && !holdsData('postgres');
  if (tools.postgresBin && !hasSqliteData) {
    const pgRoot = path.join(dataDir, 'postgres');
    const hadCluster = fs.existsSync(path.join(pgRoot, 'data', 'PG_VERSION'));
    try {
      const pg = await startPostgres({
        binDir: tools.postgresBin,
        dataDir,
        log: o.log,
        port: o.ports?.postgres,
        durable: o.durable,
      });
      started.push({ name: 'postgres', stop: pg.stop });
      postgres = pg;
    } catch (err) {
      // An existing cluster holds data: failing loudly beats starting on an empty SQLite store.
      if (hadCluster) throw err;
      o.log.warn(`PostgreSQL could not start, FerretDB uses SQLite instead: ${(err as Error).message}`);
      fs.rmSync(pgRoot, { recursive: true, force: true });
    }
  } else if (!tools.postgresBin) {
    o.log.warn(
      'PostgreSQL binaries not found: FerretDB uses SQLite, which is slower for filtered queries (see docs/configuration.md)',
    );
  }
  const ferret = await startFerretDB({
    binary: tools.ferretdb,
    dataDir,
    log: o.log,
    port: o.ports?.mongo,
    postgresUrl: postgres?.url,
    credentials: postgres && { username: postgres.user, password: postgres.password },
  });
  started.push({ name: `ferretdb`, stop: ferret.stop });
  return ferret.uri;
}
