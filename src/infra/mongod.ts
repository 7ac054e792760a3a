// A real mongod through mongodb-memory-server-core, when one exists on this machine (or may be downloaded):
// the closest local match to production. Data persists in <dataDir>/mongod; mongod runs with --auth, its root user's
// password in <dataDir>/mongod.password (0600).
import fs from 'node:fs';
import path from 'node:path';
import { passwordFile, privateDir } from './private';
import type { InfraLog } from './tools';

export interface MongodOptions {
  dataDir: string;
  log: InfraLog;
  port?: number;
  /** mongod from PATH or MONGOMS_SYSTEM_BINARY (tools.ts). */
  systemBinary?: string;
  /** Let mongodb-memory-server download a mongod (needs fastdl.mongodb.org; costs ~7 s of retries offline). */
  allowDownload: boolean;
}

export interface MongodHandle {
  /** With the root user's credentials. */
  uri: string;
  stop(): Promise<void>;
}

const ROOT_USER = 'scanner';

/**
 * Starts mongod when a binary is at hand; resolves undefined when none is and downloading is not allowed, so the
 * caller falls back to FerretDB. Rejects when a start was attempted and failed (e.g. the download had no network).
 */
export async function startMongod(o: MongodOptions): Promise<MongodHandle | undefined> {
  const mms = await import('mongodb-memory-server-core');
  let binary = o.systemBinary;
  if (!binary) {
    // A binary mongodb-memory-server downloaded earlier (its cache) counts as available without the network.
    binary = await mms.DryMongoBinary.locateBinary(mms.DryMongoBinary.getEnsuredOptions()).catch(() => undefined);
  }
  if (!binary && !o.allowDownload) return undefined;

  const dbPath = path.join(o.dataDir, 'mongod');
  privateDir(dbPath);
  // Outside dbPath: mongodb-memory-server takes an empty dbPath for a new database, the one it creates the user in.
  const { password, created } = passwordFile(path.join(o.dataDir, 'mongod.password'));
  const isNew = fs.readdirSync(dbPath).length === 0;
  o.log.info(binary ? `starting mongod ${binary}` : 'starting mongod (mongodb-memory-server may download it first)');
  let server: InstanceType<typeof mms.MongoMemoryServer>;
  try {
    // A single node, not a replica set: the service uses no transactions or change streams (FerretDB has
    // neither), and a persistent replica set would need its config re-initiated on every start.
    server = await mms.MongoMemoryServer.create({
      instance: { dbPath, storageEngine: 'wiredTiger', ip: '127.0.0.1', port: o.port, launchTimeout: 60_000 },
      binary: binary ? { systemBinary: binary } : undefined,
      // The root user is created through mongod's localhost exception, which holds only while no user exists: on a
      // new dbPath, and on one an earlier version ran without --auth (a new password file then forces it). With a
      // user already there and the password file lost, creating fails and so does the start: loudly, not open.
      auth: { enable: true, customRootName: ROOT_USER, customRootPwd: password, force: created && !isNew },
    });
  } catch (err) {
    // An empty directory left behind would make the next start insist on mongod (local.ts keeps a DATA_DIR's
    // backend), so only a directory that holds data survives a failed start.
    if (fs.readdirSync(dbPath).length === 0) fs.rmdirSync(dbPath);
    throw err;
  }
  const port = server.instanceInfo!.port;
  return {
    uri: `mongodb://${ROOT_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/?authSource=admin`,
    async stop() {
      // doCleanup false: the dbPath is ours and must survive for the next start.
      await server.stop({ doCleanup: false });
    },
  };
}
