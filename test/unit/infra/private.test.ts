// The pieces that keep the local stack private: passwords hidden in what is printed, files created 0600, DATA_DIR
// closed to other users, the SQLite socket's directory. No servers: runs under SCANNER_SKIP_INFRA=1 too.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { passwordFile, redactUri, secureDataDir, writePrivateFile } from '../../../src/infra/private';
import { readRuntime, writeRuntime } from '../../../src/infra/runtime-file';
import { socketPath } from '../../../src/infra/ferretdb';
import { temporalDbFile } from '../../../src/infra/temporal';

const mode = (p: string) => fs.statSync(p).mode & 0o7777;
const root = process.getuid?.() === 0;
let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'private-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** As root, with a permissive umask: a mode that comes from the umask rather than from creation shows up here. */
function withUmask<T>(mask: number, fn: () => T): T {
  const old = process.umask(mask);
  try {
    return fn();
  } finally {
    process.umask(old);
  }
}

describe('redactUri', () => {
  test.each([
    [
      'mongodb://postgres:0123abcd@127.0.0.1:27017/?authMechanism=PLAIN',
      'mongodb://postgres:***@127.0.0.1:27017/?authMechanism=PLAIN',
    ],
    ['mongodb+srv://app:s3cr%40t@cluster0.example.net/db', 'mongodb+srv://app:***@cluster0.example.net/db'],
    ['postgres://postgres:pw@127.0.0.1:5432/ferretdb', 'postgres://postgres:***@127.0.0.1:5432/ferretdb'],
    // A password with a raw '@' and ':' (not percent-encoded, as someone might paste it): hidden whole.
    ['mongodb://u:p@ss:w@rd@host:1/', 'mongodb://u:***@host:1/'],
    ['mongodb://:onlypassword@host/', 'mongodb://:***@host/'],
    ['MONGODB://U:P@HOST/', 'MONGODB://U:***@HOST/'],
    // Inside a longer message, twice, and next to other text.
    [
      'connect mongodb://a:x1@h1/ then postgres://b:y2@h2/ failed',
      'connect mongodb://a:***@h1/ then postgres://b:***@h2/ failed',
    ],
  ])('%s', (input, want) => {
    expect(redactUri(input)).toBe(want);
    expect(redactUri(input)).not.toMatch(/0123abcd|s3cr|:pw@|p@ss|onlypassword|:P@|x1|y2/);
  });

  test.each([
    'mongodb://127.0.0.1:27017/',
    'mongodb://%2Ftmp%2Fscanner%2Frun%2Fferretdb.sock/',
    'postgres://postgres@127.0.0.1:5432/ferretdb',
    'http://127.0.0.1:8080/v1/scans?x=a@b',
    'GET http://127.0.0.1:8080/v1/packages/@types/node 200',
    'no uri at all: user:pass@host',
  ])('leaves %s alone (no password in it)', (input) => {
    expect(redactUri(input)).toBe(input);
  });
});

describe('private files', () => {
  test('writePrivateFile creates 0600 whatever the umask, and narrows a file an older version made 0644', () => {
    const file = path.join(tmp, 'secret');
    withUmask(0, () => writePrivateFile(file, 'one'));
    expect(mode(file)).toBe(0o600);
    fs.writeFileSync(file, 'old', { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    withUmask(0, () => writePrivateFile(file, 'two'));
    expect([fs.readFileSync(file, 'utf8'), mode(file)]).toEqual(['two', 0o600]);
    expect(fs.readdirSync(tmp)).toEqual(['secret']); // no temporary file left behind
  });

  test('a file planted under the temporary name is replaced, not written through', () => {
    const file = path.join(tmp, 'secret');
    const planted = path.join(tmp, 'elsewhere');
    fs.writeFileSync(planted, 'untouched');
    fs.symlinkSync(planted, `${file}.${process.pid}.tmp`);
    writePrivateFile(file, 'pw');
    expect(fs.readFileSync(planted, 'utf8')).toBe('untouched');
    expect([fs.readFileSync(file, 'utf8'), mode(file), fs.lstatSync(file).isFile()]).toEqual(['pw', 0o600, true]);
  });

  test('passwordFile makes a random password once (0600), then keeps it; an existing file is narrowed', () => {
    const file = path.join(tmp, 'password');
    const first = withUmask(0, () => passwordFile(file));
    expect(first.created).toBe(true);
    expect(first.password).toMatch(/^[0-9a-f]{48}$/);
    expect(mode(file)).toBe(0o600);
    fs.chmodSync(file, 0o644);
    expect(passwordFile(file)).toEqual({ password: first.password, created: false });
    expect(mode(file)).toBe(0o600);
    expect(passwordFile(path.join(tmp, 'other')).password).not.toBe(first.password);
  });

  test('runtime.json, through the real writeRuntime: 0600 from creation, also over one an older version left 0644', () => {
    const info = {
      apiUrl: 'http://127.0.0.1:8080',
      temporalUiUrl: undefined,
      temporalAddress: '127.0.0.1:7233',
      mongoUri: 'mongodb://postgres:secretpw@127.0.0.1:1/?authMechanism=PLAIN',
      pid: process.pid,
      startedAt: new Date().toISOString(),
    };
    fs.writeFileSync(path.join(tmp, 'runtime.json'), '{}', { mode: 0o644 });
    withUmask(0, () => writeRuntime(tmp, info));
    expect(mode(path.join(tmp, 'runtime.json'))).toBe(0o600);
    expect(readRuntime(tmp)?.mongoUri).toBe(info.mongoUri);
  });
});

describe('secureDataDir', () => {
  test("DATA_DIR is 0711 as root (PostgreSQL's user passes through) and 0700 otherwise; entries lose group and other bits", () => {
    const dataDir = path.join(tmp, 'data');
    fs.mkdirSync(path.join(dataDir, 'logs'), { recursive: true, mode: 0o755 });
    fs.chmodSync(dataDir, 0o777);
    fs.chmodSync(path.join(dataDir, 'logs'), 0o755);
    fs.writeFileSync(path.join(dataDir, 'runtime.json'), '{}', { mode: 0o666 });
    fs.chmodSync(path.join(dataDir, 'runtime.json'), 0o666);
    fs.writeFileSync(path.join(dataDir, 'temporal.db'), '', { mode: 0o644 });
    fs.chmodSync(path.join(dataDir, 'temporal.db'), 0o644);
    fs.writeFileSync(path.join(dataDir, 'logs', 'ferretdb.log'), '');
    fs.chmodSync(path.join(dataDir, 'logs', 'ferretdb.log'), 0o666);
    expect(secureDataDir(dataDir)).toEqual([]);
    expect(mode(path.join(dataDir, 'logs', 'ferretdb.log'))).toBe(0o600);
    expect(mode(dataDir)).toBe(root ? 0o711 : 0o700);
    expect(mode(dataDir) & 0o066).toBe(0); // neither readable nor writable by group or others
    expect([
      mode(path.join(dataDir, 'logs')),
      mode(path.join(dataDir, 'runtime.json')),
      mode(path.join(dataDir, 'temporal.db')),
    ]).toEqual([0o700, 0o600, 0o600]);
  });

  test('creates a missing DATA_DIR private', () => {
    const dataDir = path.join(tmp, 'a', 'b', 'data');
    withUmask(0, () => secureDataDir(dataDir));
    expect(mode(dataDir)).toBe(root ? 0o711 : 0o700);
  });

  test('refuses a shared directory (sticky bit, e.g. /tmp) and a file', () => {
    const shared = path.join(tmp, 'shared');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o1777);
    expect(() => secureDataDir(shared)).toThrow(/shared directory/);
    expect(mode(shared)).toBe(0o1777);
    expect(() => secureDataDir(os.tmpdir())).toThrow(/shared directory/);
    fs.writeFileSync(path.join(tmp, 'file'), '');
    expect(() => secureDataDir(path.join(tmp, 'file'))).toThrow(/not a directory/);
  });

  test('does not follow a symlink inside DATA_DIR to narrow what it points at', () => {
    const dataDir = path.join(tmp, 'data');
    fs.mkdirSync(dataDir);
    const outside = path.join(tmp, 'outside');
    fs.writeFileSync(outside, '');
    fs.chmodSync(outside, 0o644);
    fs.symlinkSync(outside, path.join(dataDir, 'link'));
    secureDataDir(dataDir);
    expect(mode(outside)).toBe(0o644);
  });
});

describe('the SQLite socket path', () => {
  test('is <DATA_DIR>/run/ferretdb.sock in a 0700 directory', () => {
    const socket = withUmask(0, () => socketPath(tmp));
    expect(socket).toBe(path.join(tmp, 'run', 'ferretdb.sock'));
    expect(mode(path.join(tmp, 'run'))).toBe(0o700);
  });

  test('too long for sun_path: a 0700 directory of ours under the temporary directory, the same on the next start', () => {
    const deep = path.join(tmp, 'x'.repeat(60), 'y'.repeat(60));
    fs.mkdirSync(deep, { recursive: true });
    const first = socketPath(deep);
    try {
      expect(Buffer.byteLength(first)).toBeLessThanOrEqual(107);
      expect(first.startsWith(os.tmpdir())).toBe(true);
      expect(mode(path.dirname(first))).toBe(0o700);
      expect(mode(path.join(deep, 'run', 'socket-dir'))).toBe(0o600);
      expect(socketPath(deep)).toBe(first);
      // A recorded directory that is no longer private (or no longer ours) is not reused.
      fs.chmodSync(path.dirname(first), 0o755);
      const second = socketPath(deep);
      expect(second).not.toBe(first);
      expect(mode(path.dirname(second))).toBe(0o700);
      fs.rmSync(path.dirname(second), { recursive: true, force: true });
    } finally {
      fs.rmSync(path.dirname(first), { recursive: true, force: true });
    }
  });
});

describe("Temporal's database", () => {
  test('lives in <DATA_DIR>/temporal (0700); one an earlier version kept in DATA_DIR moves there with its -wal and -shm', () => {
    for (const suffix of ['', '-wal', '-shm'])
      fs.writeFileSync(path.join(tmp, `temporal.db${suffix}`), suffix || 'main');
    const file = temporalDbFile(tmp);
    expect(file).toBe(path.join(tmp, 'temporal', 'temporal.db'));
    expect(mode(path.join(tmp, 'temporal'))).toBe(0o700);
    expect(fs.readdirSync(path.join(tmp, 'temporal')).sort()).toEqual([
      'temporal.db',
      'temporal.db-shm',
      'temporal.db-wal',
    ]);
    expect(fs.readFileSync(file, 'utf8')).toBe('main');
    expect(fs.readdirSync(tmp)).toEqual(['temporal']);
    // Once moved, a later start leaves both alone (a stray old file never overwrites the live database).
    fs.writeFileSync(path.join(tmp, 'temporal.db'), 'stray');
    temporalDbFile(tmp);
    expect(fs.readFileSync(file, 'utf8')).toBe('main');
  });
});
