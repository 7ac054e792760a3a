// The local infrastructure the tests and `npm start` run on: a MongoDB-wire server the driver accepts, a Temporal
// dev server with our search attributes and its UI, and data that survives a restart on the same DATA_DIR. And that
// it is private: other local users can neither read DATA_DIR nor reach the database without the password, and
// nothing listens beyond loopback (see README "Security").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startLocalInfra } from '../../src/infra/local';
import { startPostgres, type PostgresHandle } from '../../src/infra/postgres';
import { startFerretDB, type FerretDBHandle } from '../../src/infra/ferretdb';
import { descendants, spawnProcess } from '../../src/infra/proc';
import { freePorts } from '../../src/infra/ports';
import { readRuntime } from '../../src/infra/runtime-file';
import { ensureTools, findPostgresBin, projectRoot, type Tools } from '../../src/infra/tools';
import { SA } from '../../src/temporal/scan-workflow-contract';
import { registerSearchAttributes, SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';

const skip = process.env.SCANNER_SKIP_INFRA === '1';
const d = skip ? describe.skip : describe;
const quiet = { info: () => undefined, warn: (m: string) => console.warn(m) };
const { IndexedValueType } = temporal.api.enums.v1;
const isRoot = process.getuid?.() === 0;
const mode = (p: string) => fs.statSync(p).mode & 0o7777;
/** What DATA_DIR must be: 0711 as root (PostgreSQL's user passes through, nobody lists), 0700 otherwise. */
const DATA_DIR_MODE = isRoot ? 0o711 : 0o700;

/** Every file and directory under dir (not following symlinks) with a group or other permission bit. */
function openToOthers(dir: string, except: string[] = []): string[] {
  const out: string[] = [];
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    if (except.includes(p)) continue;
    const s = fs.lstatSync(p);
    if (s.isSymbolicLink()) continue;
    if (s.mode & 0o077) out.push(`${p} ${(s.mode & 0o7777).toString(8)}`);
    if (s.isDirectory()) out.push(...openToOthers(p, except));
  }
  return out;
}

/**
 * A command run as `nobody`: what another local account could do. Root only (setuid needs it); callers skip
 * otherwise. Returns the exit status and output.
 */
function asNobody(command: string, args: string[]): { status: number | null; out: string } {
  const uid = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }));
  const gid = Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }));
  const r = spawnSync(command, args, { uid, gid, cwd: '/', encoding: 'utf8', timeout: 10_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Listening TCP sockets of these processes as "address:port", from /proc (what `ss -ltnp` shows). */
function tcpListeners(pids: number[]): string[] {
  const inodes = new Set<string>();
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // exited meanwhile
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]);
      } catch {
        // closed meanwhile
      }
    }
  }
  const out: string[] = [];
  for (const [file, v6] of [
    ['/proc/net/tcp', false],
    ['/proc/net/tcp6', true],
  ] as const) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A' || !inodes.has(f[9])) continue; // 0A: LISTEN
      const [hex, portHex] = f[1].split(':');
      const port = parseInt(portHex, 16);
      // The kernel prints each 32-bit word of the address in host (little-endian) byte order.
      const bytes = hex.match(/../g)!.map((b) => parseInt(b, 16));
      const words = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.slice(i * 4, i * 4 + 4).reverse()).flat();
      const address = v6
        ? /^0+$/.test(hex)
          ? '::'
          : hex === '00000000000000000000000001000000'
            ? '::1'
            : `[${words.map((b) => b.toString(16)).join(' ')}]`
        : words.join('.');
      out.push(v6 ? `[${address}]:${port}` : `${address}:${port}`);
    }
  }
  return [...new Set(out)].sort();
}
const loopback = (l: string) => /^(127\.\d+\.\d+\.\d+|\[::1\]):\d+$/.test(l);

/** psql as a client on this machine would run it: never prompting, no ~/.pgpass, the password (if any) by env. */
function psql(binDir: string, port: number, user: string, password: string | undefined, sql: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, PGPASSFILE: '/dev/null', PGCONNECT_TIMEOUT: '5' };
  delete env.PGPASSWORD;
  if (password !== undefined) env.PGPASSWORD = password;
  const r = spawnSync(
    path.join(binDir, 'psql'),
    ['-w', '-X', '-At', '-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', 'postgres', '-c', sql],
    { env, encoding: 'utf8', timeout: 15_000 },
  );
  return { status: r.status, out: `${r.stdout}${r.stderr}`.trim() };
}

/** Everything a client could try on a database: each must fail without the right credentials. */
async function tryEverything(uri: string): Promise<Record<string, string>> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 3000, connectTimeoutMS: 3000 });
  const outcome: Record<string, string> = {};
  const attempt = async (name: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
      outcome[name] = 'allowed';
    } catch (err) {
      outcome[name] = 'refused';
      void err;
    }
  };
  try {
    const col = client.db('scanner').collection<{ _id: string }>('api_keys');
    await attempt('insert', () => col.insertOne({ _id: `planted-${randomBytes(3).toString('hex')}` }));
    await attempt('find', () => col.find({}).toArray());
    await attempt('count', () => col.countDocuments());
    await attempt('update', () => col.updateMany({}, { $set: { planted: true } }));
    await attempt('listDatabases', () => client.db('admin').admin().listDatabases());
    await attempt('listCollections', () => client.db('scanner').listCollections().toArray());
    await attempt('drop', () => client.db('scanner').dropDatabase());
  } finally {
    await client.close().catch(() => undefined);
  }
  return outcome;
}
/** The same server, as a client that has not got the password would address it. */
const withoutCredentials = (uri: string) => uri.replace(/\/\/[^@/]*@/, '//').replace(/\?authMechanism=PLAIN$/, '');
const ALL_REFUSED = {
  insert: 'refused',
  find: 'refused',
  count: 'refused',
  update: 'refused',
  listDatabases: 'refused',
  listCollections: 'refused',
  drop: 'refused',
};

async function roundTrip(uri: string, db: string, doc: Record<string, unknown>) {
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    const col = client.db(db).collection<{ _id: string }>('probe');
    await col.insertOne({ ...doc, _id: doc._id as string });
    return await col.findOne({ _id: doc._id as string });
  } finally {
    await client.close();
  }
}

/** Processes whose command line mentions dir: after stop() there must be none. */
function processesUsing(dir: string): string[] {
  return fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .flatMap((p) => {
      try {
        const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').join(' ');
        return cmd.includes(dir) ? [`${p}: ${cmd}`] : [];
      } catch {
        return [];
      }
    });
}

d('local infrastructure (jest global setup)', () => {
  test('the MongoDB URI accepts a driver connection: insert and find', async () => {
    const db = `infra_${randomBytes(4).toString('hex')}`;
    const found = await roundTrip(process.env.MONGODB_URI!, db, { _id: 'a', n: 1, nested: { list: [1, 2] } });
    expect(found).toEqual({ _id: 'a', n: 1, nested: { list: [1, 2] } });
    const client = await MongoClient.connect(process.env.MONGODB_URI!);
    await client.db(db).dropDatabase();
    await client.close();
  });

  test('Temporal accepts a client and has the custom search attributes', async () => {
    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    try {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
        const want =
          type === 'Int' ? IndexedValueType.INDEXED_VALUE_TYPE_INT : IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
        expect([name, customAttributes?.[name]]).toEqual([name, want]);
      }
      // Registering again (what the worker does at start) is a no-op.
      await expect(registerSearchAttributes(connection, 'default')).resolves.toEqual([]);
    } finally {
      await connection.close();
    }
  });

  test('the search attributes registered are exactly the typed keys the workflow uses', () => {
    const fromKeys = Object.fromEntries(Object.values(SA).map((k) => [k.name, k.type === 'INT' ? 'Int' : 'Keyword']));
    expect(fromKeys).toEqual(SEARCH_ATTRIBUTES);
  });

  test('the Temporal UI answers HTTP 200', async () => {
    const url = process.env.TEMPORAL_UI_URL;
    if (!url) return; // an external Temporal (SCANNER_TEST_TEMPORAL_ADDRESS) has no UI we know of
    const res = await fetch(url);
    await res.body?.cancel();
    expect(res.status).toBe(200);
  });
});

d('startLocalInfra on one DATA_DIR, twice', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-infra-'));
    // What earlier versions left: DATA_DIR and its logs 0755, files 0644.
    fs.chmodSync(dataDir, 0o755);
    fs.mkdirSync(path.join(dataDir, 'logs'), { mode: 0o755 });
    fs.chmodSync(path.join(dataDir, 'logs'), 0o755);
    for (const f of ['logs/old.log', 'runtime.json']) {
      fs.writeFileSync(path.join(dataDir, f), '');
      fs.chmodSync(path.join(dataDir, f), 0o644);
    }
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('keeps documents and workflows across a stop and a start, and leaves no process behind', async () => {
    // Only this test's own servers: the run's shared ones must not be reused here.
    const env = { ...process.env, MONGODB_URI: undefined, TEMPORAL_ADDRESS: undefined };
    const workflowId = `persist-${randomBytes(4).toString('hex')}`;

    const first = await startLocalInfra({ dataDir, log: quiet, env });
    try {
      // Private: DATA_DIR 0711/0700, nothing inside open to group or others (PostgreSQL's own subtree included:
      // it is 0700 and its files 0600), Temporal's database in its 0700 directory.
      expect(mode(dataDir)).toBe(DATA_DIR_MODE);
      expect(openToOthers(dataDir)).toEqual([]);
      expect(mode(path.join(dataDir, 'temporal'))).toBe(0o700);
      expect(fs.readdirSync(path.join(dataDir, 'temporal'))).toContain('temporal.db');
      expect(fs.readdirSync(path.join(dataDir, 'logs')).length).toBeGreaterThan(1);
      if (first.started.includes('postgres')) {
        expect(first.mongoUri).toMatch(/^mongodb:\/\/postgres:[0-9a-f]{48}@127\.0\.0\.1:\d+\/\?authMechanism=PLAIN$/);
        expect(mode(path.join(dataDir, 'postgres', 'password'))).toBe(0o600);
        // The way in without the password: refused.
        expect(await tryEverything(withoutCredentials(first.mongoUri))).toEqual(ALL_REFUSED);
      }
      if (isRoot) {
        // Another account: cannot list DATA_DIR or anything in it, read a log or the password, or write.
        for (const [cmd, args] of [
          ['ls', [dataDir]],
          ['ls', [path.join(dataDir, 'logs')]],
          ['cat', [path.join(dataDir, 'logs', 'temporal.log')]],
          ['cat', [path.join(dataDir, 'postgres', 'password')]],
          ['ls', [path.join(dataDir, 'temporal')]],
          ['touch', [path.join(dataDir, 'planted')]],
          ['touch', [path.join(dataDir, 'logs', 'planted')]],
        ] as const) {
          const r = asNobody(cmd, [...args]);
          expect([cmd, args[0], r.status !== 0, /Permission denied/.test(r.out)]).toEqual([cmd, args[0], true, true]);
        }
      }
      expect(first.started).toContain('temporal');
      await roundTrip(first.mongoUri, 'persist', { _id: 'kept', v: 42 });
      const connection = await Connection.connect({ address: first.temporalAddress });
      // No worker polls this queue, so the workflow stays open: the second server must still know it.
      await new Client({ connection }).workflow.start('neverPolled', { taskQueue: 'nobody', workflowId });
      await connection.close();
    } finally {
      await first.stop();
    }
    expect(processesUsing(dataDir)).toEqual([]);

    const second = await startLocalInfra({ dataDir, log: quiet, env });
    try {
      expect([...second.started].sort()).toEqual([...first.started].sort());
      const client = await MongoClient.connect(second.mongoUri);
      expect(
        await client.db('persist').collection<{ _id: string; v: number }>('probe').findOne({ _id: 'kept' }),
      ).toEqual({ _id: 'kept', v: 42 });
      await client.close();
      const connection = await Connection.connect({ address: second.temporalAddress });
      const described = await new Client({ connection }).workflow.getHandle(workflowId).describe();
      expect(described.status.name).toBe('RUNNING');
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      expect(Object.keys(customAttributes ?? {})).toEqual(expect.arrayContaining(Object.keys(SEARCH_ATTRIBUTES)));
      await connection.close();
    } finally {
      await second.stop();
    }
    expect(processesUsing(dataDir)).toEqual([]);
  }, 180_000);
});

d('PostgreSQL and FerretDB over it: a password for every connection', () => {
  let tools: Tools;
  let dataDir: string;
  let pg: PostgresHandle | undefined;
  let ferret: FerretDBHandle | undefined;
  const available = () =>
    Boolean(pg && ferret) || (console.warn('no PostgreSQL binaries or FerretDB build: not run'), false);
  beforeAll(async () => {
    tools = await ensureTools(quiet, { temporal: false, mongo: true });
    if (!tools.postgresBin || !tools.ferretdb) return;
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-pg-'));
    fs.chmodSync(dataDir, DATA_DIR_MODE);
    pg = await startPostgres({ binDir: tools.postgresBin, dataDir, log: quiet, durable: false });
    ferret = await startFerretDB({
      binary: tools.ferretdb,
      dataDir,
      log: quiet,
      postgresUrl: pg.url,
      credentials: { username: pg.user, password: pg.password },
    });
    // A client has logged in first: FerretDB then holds a pool with the password, which later clients must not share.
    const client = await MongoClient.connect(ferret.uri);
    await client
      .db('scanner')
      .collection('api_keys')
      .insertOne({ _id: 'real' } as never);
    await client.close();
  }, 120_000);
  afterAll(async () => {
    await ferret?.stop();
    await pg?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('the password is in a 0600 file beside a 0700 cluster; pg_hba.conf asks a password of every connection; no Unix socket', () => {
    if (!available()) return;
    const root = path.join(dataDir, 'postgres');
    const pgUid = isRoot ? Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })) : process.getuid!();
    expect([mode(root), fs.statSync(root).uid]).toEqual([0o700, pgUid]);
    expect([mode(path.join(root, 'password')), fs.statSync(path.join(root, 'password')).uid]).toEqual([0o600, pgUid]);
    expect(fs.readFileSync(path.join(root, 'password'), 'utf8').trim()).toBe(pg!.password);
    expect(mode(path.join(root, 'data'))).toBe(0o700);
    const hba = fs
      .readFileSync(path.join(root, 'data', 'pg_hba.conf'), 'utf8')
      .split('\n')
      .map((l) => l.replace(/#.*/, '').trim())
      .filter(Boolean);
    expect(hba.length).toBeGreaterThan(0);
    for (const line of hba) expect(line).toMatch(/\sscram-sha-256$/);
    expect(pg!.url).not.toContain(pg!.password);
    const sockets = execFileSync('find', [dataDir, '-type', 's'], { encoding: 'utf8' }).trim();
    expect(sockets).toBe('');
  });

  test.each([
    ['no password', 'postgres', () => undefined],
    ['an empty password', 'postgres', () => ''],
    ['a wrong password', 'postgres', () => 'wrong'],
    ['the password with a character more', 'postgres', () => `${pg!.password}x`],
    ['the password in upper case', 'postgres', () => pg!.password.toUpperCase()],
    ['SQL in the password', 'postgres', () => "' OR '1'='1"],
    ['another user with the right password', 'ferretdb', () => pg!.password],
  ])('PostgreSQL refuses %s', (_name, user, password) => {
    if (!available()) return;
    const r = psql(tools.postgresBin!, pg!.port, user, password(), 'SELECT 1');
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/password authentication failed|no password supplied/);
  });

  test('PostgreSQL accepts the password', () => {
    if (!available()) return;
    expect(psql(tools.postgresBin!, pg!.port, 'postgres', pg!.password, 'SELECT 1')).toEqual({ status: 0, out: '1' });
  });

  test('PostgreSQL and FerretDB listen on 127.0.0.1 only', () => {
    if (!available()) return;
    expect(tcpListeners([pg!.process.pid])).toEqual([`127.0.0.1:${pg!.port}`]);
    expect(tcpListeners([ferret!.process.pid])).toEqual([`127.0.0.1:${ferret!.port}`]);
  });

  test.each([
    ['no credentials', (port: number) => `mongodb://127.0.0.1:${port}/`],
    ['a wrong password', (port: number) => `mongodb://postgres:wrong@127.0.0.1:${port}/?authMechanism=PLAIN`],
    ['an empty password', (port: number) => `mongodb://postgres:@127.0.0.1:${port}/?authMechanism=PLAIN`],
    [
      'the password with a character more',
      (port: number) => `mongodb://postgres:${pg!.password}x@127.0.0.1:${port}/?authMechanism=PLAIN`,
    ],
    [
      'another user with the right password',
      (port: number) => `mongodb://ferretdb:${pg!.password}@127.0.0.1:${port}/?authMechanism=PLAIN`,
    ],
    [
      'another user that exists on every Linux',
      (port: number) => `mongodb://root:${pg!.password}@127.0.0.1:${port}/?authMechanism=PLAIN`,
    ],
    [
      'the right password through SCRAM, which FerretDB does not offer here',
      (port: number) => `mongodb://postgres:${pg!.password}@127.0.0.1:${port}/`,
    ],
  ])('FerretDB refuses a client with %s: no insert, read, list or drop', async (_name, uri) => {
    if (!available()) return;
    expect(await tryEverything(uri(ferret!.port!))).toEqual(ALL_REFUSED);
  });

  test('with the password a client reads and writes, and the refused clients planted nothing', async () => {
    if (!available()) return;
    const client = await MongoClient.connect(ferret!.uri);
    try {
      const docs = await client.db('scanner').collection('api_keys').find({}).toArray();
      expect(docs).toEqual([{ _id: 'real' }]);
    } finally {
      await client.close();
    }
  });
});

d('an existing cluster an earlier version initialised with -A trust', () => {
  const binDir = findPostgresBin();
  let dataDir: string;
  afterAll(() => dataDir && fs.rmSync(dataDir, { recursive: true, force: true }));

  test('is given a password and made to require it at start, its data kept; a lost password file is replaced', async () => {
    if (!binDir) return console.warn('no PostgreSQL binaries: not run');
    // The layout the earlier code made: DATA_DIR and DATA_DIR/postgres 0755, the cluster initialised with trust.
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-trust-'));
    fs.chmodSync(dataDir, 0o755);
    const root = path.join(dataDir, 'postgres');
    const cluster = path.join(root, 'data');
    fs.mkdirSync(root, { mode: 0o755 });
    fs.chmodSync(root, 0o755);
    const ids = isRoot
      ? {
          uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
          gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
        }
      : {};
    if (isRoot) fs.chownSync(root, ids.uid!, ids.gid!);
    const as = { ...ids, cwd: root, encoding: 'utf8' as const };
    const init = spawnSync(
      path.join(binDir, 'initdb'),
      ['-D', cluster, '-A', 'trust', '-U', 'postgres', '--no-sync'],
      as,
    );
    expect(init.status).toBe(0);
    const single = spawnSync(path.join(binDir, 'postgres'), ['--single', '-D', cluster, 'postgres'], {
      ...as,
      input: 'CREATE TABLE kept (v int);\nINSERT INTO kept VALUES (42);\n',
    });
    expect(single.stderr).not.toMatch(/ERROR/);

    const lines: string[] = [];
    const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
    let pg = await startPostgres({ binDir, dataDir, log, durable: false });
    let first: string;
    try {
      first = pg.password;
      expect(lines.join('\n')).toMatch(/setting the PostgreSQL password/);
      expect(lines.join('\n')).not.toContain(pg.password);
      expect(mode(root)).toBe(0o700);
      expect(mode(path.join(root, 'password'))).toBe(0o600);
      expect(psql(binDir, pg.port, 'postgres', undefined, 'SELECT v FROM kept').status).not.toBe(0);
      expect(psql(binDir, pg.port, 'postgres', 'wrong', 'SELECT v FROM kept').status).not.toBe(0);
      expect(psql(binDir, pg.port, 'postgres', pg.password, 'SELECT v FROM kept')).toEqual({ status: 0, out: '42' });
      // The server that already runs reads the new pg_hba.conf: no 'trust' line left.
      expect(
        psql(
          binDir,
          pg.port,
          'postgres',
          pg.password,
          "SELECT count(*) FROM pg_hba_file_rules WHERE auth_method <> 'scram-sha-256'",
        ),
      ).toEqual({ status: 0, out: '0' });
    } finally {
      await pg.stop();
    }

    // Next start: already private, nothing to redo.
    lines.length = 0;
    pg = await startPostgres({ binDir, dataDir, log, durable: false });
    await pg.stop();
    expect(pg.password).toBe(first);
    expect(lines.join('\n')).not.toMatch(/setting the PostgreSQL password/);

    // The password file lost: a new password replaces the old one, which no longer opens anything.
    fs.rmSync(path.join(root, 'password'));
    pg = await startPostgres({ binDir, dataDir, log, durable: false });
    try {
      expect(pg.password).not.toBe(first);
      expect(psql(binDir, pg.port, 'postgres', first, 'SELECT 1').status).not.toBe(0);
      expect(psql(binDir, pg.port, 'postgres', pg.password, 'SELECT v FROM kept')).toEqual({ status: 0, out: '42' });
    } finally {
      await pg.stop();
    }
  }, 120_000);
});

d('FerretDB on SQLite: a Unix socket in a 0700 directory, no TCP port', () => {
  let dataDir: string;
  let ferret: FerretDBHandle | undefined;
  let binary: string | undefined;
  beforeAll(async () => {
    binary = (await ensureTools(quiet, { temporal: false, mongo: true })).ferretdb;
    if (!binary) return;
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-sqlite-'));
    ferret = await startFerretDB({ binary, dataDir, log: quiet });
  }, 60_000);
  afterAll(async () => {
    await ferret?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('listens on nothing but its socket, which only its owner can reach; files 0600 in 0700 directories', async () => {
    if (!ferret) return console.warn('no FerretDB build: not run');
    expect(ferret.port).toBeUndefined();
    expect(ferret.socket).toBe(path.join(dataDir, 'run', 'ferretdb.sock'));
    expect(ferret.uri).toBe(`mongodb://${encodeURIComponent(ferret.socket!)}/`);
    expect(tcpListeners([ferret.process.pid])).toEqual([]);
    expect(mode(path.join(dataDir, 'run'))).toBe(0o700);
    await roundTrip(ferret.uri, 'sqlite_probe', { _id: 'a', n: 1 });
    expect(mode(path.join(dataDir, 'sqlite'))).toBe(0o700);
    expect(openToOthers(dataDir)).toEqual([]);
    if (isRoot) {
      // Another account: connecting to the socket is refused by the kernel, and the files cannot be listed or read.
      const probe = `require('net').connect(${JSON.stringify(ferret.socket)}).on('connect', () => { console.log('connected'); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(1); })`;
      expect(asNobody(process.execPath, ['-e', probe])).toEqual({ status: 1, out: 'EACCES\n' });
      expect(asNobody('ls', [path.join(dataDir, 'sqlite')]).status).not.toBe(0);
      expect(asNobody('cat', [path.join(dataDir, 'sqlite', 'sqlite_probe.sqlite')]).status).not.toBe(0);
    }
  });

  test('a restart on the same data directory serves the same URI and the same data (what db-restart.test.ts relies on)', async () => {
    if (!ferret) return;
    const { uri, port } = ferret;
    await ferret.stop();
    ferret = await startFerretDB({ binary: binary!, dataDir, log: quiet, port });
    expect(ferret.uri).toBe(uri);
    const client = await MongoClient.connect(ferret.uri);
    expect(
      await client
        .db('sqlite_probe')
        .collection('probe')
        .findOne({ _id: 'a' as never }),
    ).toEqual({ _id: 'a', n: 1 });
    await client.close();
  });
});

/** dist/ compiled from the current sources: the tests below run the compiled entry points, as `npm start` does. */
function distFresh(): boolean {
  const root = projectRoot();
  const fresh = [
    'src/cli/start.ts',
    'src/main.ts',
    'src/config.ts',
    'src/infra/private.ts',
    'src/infra/local.ts',
    'src/infra/ferretdb.ts',
  ].every((f) => {
    const js = path.join(root, 'dist', f.replace(/\.ts$/, '.js'));
    return fs.existsSync(js) && fs.statSync(js).mtimeMs >= fs.statSync(path.join(root, f)).mtimeMs;
  });
  if (!fresh)
    console.warn(
      'dist/ is older than the sources (npm test builds first; run `npm run build`): compiled entry points not tested',
    );
  return fresh;
}

d('npm start (dist/src/cli/start.js) and the API process', () => {
  test('everything listens on loopback; the output has no password; runtime.json is 0600; /readyz says names and booleans', async () => {
    if (!distFresh()) return;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-start-'));
    const [port, temporalPort, temporalUiPort] = await freePorts(3);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      TEMPORAL_PORT: String(temporalPort),
      TEMPORAL_UI_PORT: String(temporalUiPort),
    };
    for (const k of ['MONGODB_URI', 'TEMPORAL_ADDRESS', 'TEMPORAL_UI_URL', 'HOST']) delete env[k];
    const output: string[] = [];
    const start = spawnProcess({
      name: 'npm start',
      command: process.execPath,
      args: [path.join(projectRoot(), 'dist', 'src', 'cli', 'start.js')],
      env,
      cwd: projectRoot(),
      onLine: (l) => output.push(l),
    });
    try {
      await start.waitForLine(/ready in .* press Ctrl-C/, 180_000);
      const rt = readRuntime(dataDir)!;
      expect(mode(path.join(dataDir, 'runtime.json'))).toBe(0o600);
      expect(mode(dataDir)).toBe(DATA_DIR_MODE);
      expect(openToOthers(dataDir)).toEqual([]);
      const printed = output.join('\n');
      expect(printed).toContain(`API listening on http://127.0.0.1:${port}`);
      expect(printed).toContain(`API          http://127.0.0.1:${port}`);
      const password = /^mongodb:\/\/[^:]+:([^@]+)@/.exec(rt.mongoUri)?.[1];
      if (password) {
        expect(printed).not.toContain(password);
        expect(printed).toMatch(/MongoDB {6}mongodb:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\//);
        expect(await tryEverything(withoutCredentials(rt.mongoUri))).toEqual(ALL_REFUSED);
      }
      // The API, the worker, PostgreSQL, FerretDB, Temporal and its UI: every listening socket is on loopback.
      const listeners = tcpListeners([start.pid, ...descendants(start.pid)]);
      expect(listeners).toContain(`127.0.0.1:${port}`);
      expect(listeners.filter((l) => !loopback(l))).toEqual([]);
      // Both processes' metrics: printed, recorded in runtime.json, answering Prometheus text on loopback.
      const urls = rt as unknown as { metricsUrl?: string; workerMetricsUrl?: string };
      expect(printed).toContain(`Metrics      API ${urls.metricsUrl}, worker ${urls.workerMetricsUrl}`);
      for (const [url, metric] of [
        [urls.metricsUrl, 'http_request_duration_seconds'],
        [urls.workerMetricsUrl, 'scans_total'],
      ] as const) {
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
        // npm start says ready when the API is; the worker, started beside it, serves its metrics as its first step.
        let text = '';
        for (let i = 0; i < 100 && !text; i++)
          text = await fetch(url!).then(
            (r) => r.text(),
            () => new Promise<string>((r) => setTimeout(() => r(''), 100)),
          );
        expect(text).toContain(`# TYPE ${metric} `);
      }
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      const body = (await ready.json()) as { status: string; checks: object[] };
      expect(Object.keys(body).sort()).toEqual(['checks', 'status']);
      for (const c of body.checks) expect(Object.keys(c).sort()).toEqual(['name', 'ok']);
      if (isRoot) expect(asNobody('cat', [path.join(dataDir, 'runtime.json')]).status).not.toBe(0);
    } finally {
      const exit = await start.stop({ signal: 'SIGINT', timeoutMs: 60_000 });
      // On failure, say why: the supervisor's own last lines (its children's are prefixed).
      expect({ exit, tail: exit.code === 0 ? '' : start.tail() }).toEqual({
        exit: { code: 0, signal: null },
        tail: '',
      });
      expect(fs.existsSync(path.join(dataDir, 'runtime.json'))).toBe(false);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);

  test.each([
    ['unset', '127.0.0.1', undefined],
    ['0.0.0.0 (as in Docker)', '0.0.0.0', '0.0.0.0'],
  ])(
    'HOST %s: the API binds %s and its log says what it bound',
    async (_name, bound, host) => {
      if (!distFresh()) return;
      const [port, metricsPort] = await freePorts(2);
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-api-'));
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        MONGODB_DB: `bind_${randomBytes(4).toString('hex')}`,
        TEMPORAL_TASK_QUEUE: `bind-${randomBytes(4).toString('hex')}`,
      };
      delete env.HOST;
      if (host) env.HOST = host;
      const api = spawnProcess({
        name: 'api',
        command: process.execPath,
        args: [path.join(projectRoot(), 'dist', 'src', 'main.js'), 'api'],
        env,
        cwd: projectRoot(),
      });
      try {
        const line = await api.waitForLine(/API listening on/, 60_000);
        expect(JSON.parse(line).msg).toBe(`API listening on http://${bound}:${port}`);
        // The API where HOST says; its metrics on loopback whatever HOST is (METRICS_HOST decides, README "Metrics").
        for (let i = 0; i < 50 && tcpListeners([api.pid]).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
        expect(tcpListeners([api.pid]).sort()).toEqual([`${bound}:${port}`, `127.0.0.1:${metricsPort}`].sort());
      } finally {
        await api.stop({ signal: 'SIGTERM', timeoutMs: 15_000 });
        const client = await MongoClient.connect(process.env.MONGODB_URI!);
        await client
          .db(env.MONGODB_DB)
          .dropDatabase()
          .catch(() => undefined);
        await client.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    90_000,
  );
});
