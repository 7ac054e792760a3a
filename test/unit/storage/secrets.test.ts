// The sealed-secret box (src/storage/secrets.ts): AES-256-GCM under a key that never enters the database, a fresh IV
// per seal, tampering and wrong keys refused, rotation through SECRETS_KEY_PREVIOUS, and the key file made on first use.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseKey, secretBox, secretsFromEnv } from '../../../src/storage/secrets';
import type { EncryptedSecret } from '../../../src/storage/documents/webhooks';

const key = () => randomBytes(32);
const b64 = (b: Buffer) => b.toString('base64');
const SECRET = 'svc_whs_' + 'A1b2C3d4'.repeat(5);

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-test-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('secretBox', () => {
  test('seal then open gives the plaintext back; the sealed form holds none of it', () => {
    const box = secretBox(key());
    const sealed = box.seal(SECRET);
    expect(sealed).toEqual({
      v: 1,
      kid: expect.stringMatching(/^[0-9a-f]{16}$/),
      iv: expect.any(String),
      tag: expect.any(String),
      data: expect.any(String),
    });
    expect(Buffer.from(sealed.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(sealed.tag, 'base64')).toHaveLength(16);
    const text = JSON.stringify(sealed);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SECRET.slice(8));
    expect(text).not.toContain(b64(Buffer.from(SECRET)));
    expect(box.open(sealed)).toBe(SECRET);
    expect(box.open(box.seal(''))).toBe('');
    expect(box.open(box.seal('ünïcødé ✓'))).toBe('ünïcødé ✓');
  });

  test('each seal uses a fresh IV: the same plaintext seals differently', () => {
    const box = secretBox(key());
    const a = box.seal(SECRET);
    const b = box.seal(SECRET);
    expect(a.iv).not.toBe(b.iv);
    expect(a.data).not.toBe(b.data);
    expect(a.kid).toBe(b.kid);
  });

  test('a changed ciphertext, tag or IV is refused, never opened to something else', () => {
    const box = secretBox(key());
    const sealed = box.seal(SECRET);
    const flip = (s: string) => {
      const b = Buffer.from(s, 'base64');
      b[0] ^= 1;
      return b64(b);
    };
    for (const bad of [
      { ...sealed, data: flip(sealed.data) },
      { ...sealed, tag: flip(sealed.tag) },
      { ...sealed, iv: flip(sealed.iv) },
    ]) {
      expect(() => box.open(bad)).toThrow();
    }
  });

  test('a truncated authentication tag is refused (GCM would otherwise check only its first bytes)', () => {
    const box = secretBox(key());
    const sealed = box.seal(SECRET);
    const short: EncryptedSecret = { ...sealed, tag: b64(Buffer.from(sealed.tag, 'base64').subarray(0, 4)) };
    expect(() => box.open(short)).toThrow(/tag/);
  });

  test('another key cannot open it; the error names the settings', () => {
    const sealed = secretBox(key()).seal(SECRET);
    expect(() => secretBox(key()).open(sealed)).toThrow(/neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS/);
    // a forged kid (the other key's id) still fails authentication
    const other = secretBox(key());
    expect(() => other.open({ ...sealed, kid: other.seal('x').kid })).toThrow();
  });

  test('rotation: a box with the old key as previous opens what the old key sealed, and seals with the new one', () => {
    const oldKey = key();
    const newKey = key();
    const before = secretBox(oldKey).seal(SECRET);
    const rotated = secretBox(newKey, [oldKey]);
    expect(rotated.open(before)).toBe(SECRET);
    const after = rotated.seal(SECRET);
    expect(after.kid).not.toBe(before.kid);
    expect(secretBox(newKey).open(after)).toBe(SECRET);
    expect(() => secretBox(oldKey).open(after)).toThrow();
  });
});

describe('parseKey', () => {
  test('accepts 32 bytes as base64 or hex (surrounding whitespace ignored)', () => {
    const k = key();
    expect(parseKey('K', b64(k)).equals(k)).toBe(true);
    expect(parseKey('K', k.toString('hex')).equals(k)).toBe(true);
    expect(parseKey('K', k.toString('hex').toUpperCase()).equals(k)).toBe(true);
    expect(parseKey('K', `  ${b64(k)}\n`).equals(k)).toBe(true);
  });

  test.each([
    ['empty', ''],
    ['16 bytes', randomBytes(16).toString('base64')],
    ['33 bytes', randomBytes(33).toString('base64')],
    ['31 bytes of hex', randomBytes(31).toString('hex')],
    ['not base64', 'this is not a key at all, not one bit of it!!'],
    ['base64url', Buffer.alloc(32, 0xfb).toString('base64url')], // "-_v7..."
  ])('refuses %s, naming the setting', (_, text) => {
    expect(() => parseKey('SECRETS_KEY', text)).toThrow(/^SECRETS_KEY must be 32 bytes/);
  });
});

describe('secretsFromEnv', () => {
  test('SECRETS_KEY (base64) is the key: a box from it opens what another process sealed with the same setting', () => {
    const k = key();
    const sealed = secretBox(k).seal(SECRET);
    const box = secretsFromEnv({ SECRETS_KEY: b64(k), DATA_DIR: dir });
    expect(box.open(sealed)).toBe(SECRET);
    expect(fs.readdirSync(dir)).toEqual([]); // no key file made beside it
  });

  test('SECRETS_KEY_PREVIOUS (comma-separated, hex or base64) opens what rotated keys sealed', () => {
    const [k1, k2, k3] = [key(), key(), key()];
    const s1 = secretBox(k1).seal('one');
    const s2 = secretBox(k2).seal('two');
    const box = secretsFromEnv({
      SECRETS_KEY: b64(k3),
      SECRETS_KEY_PREVIOUS: `${k1.toString('hex')}, ${b64(k2)}`,
      DATA_DIR: dir,
    });
    expect([box.open(s1), box.open(s2)]).toEqual(['one', 'two']);
    expect(secretBox(k3).open(box.seal('three'))).toBe('three');
  });

  test('a malformed SECRETS_KEY or SECRETS_KEY_PREVIOUS fails, naming the setting', () => {
    expect(() => secretsFromEnv({ SECRETS_KEY: 'short', DATA_DIR: dir })).toThrow(/^SECRETS_KEY must be/);
    expect(() => secretsFromEnv({ SECRETS_KEY: b64(key()), SECRETS_KEY_PREVIOUS: 'nope', DATA_DIR: dir })).toThrow(
      /^SECRETS_KEY_PREVIOUS must be/,
    );
  });

  test('without SECRETS_KEY: DATA_DIR/secrets.key is created (0600) once and read back by later processes', () => {
    const file = path.join(dir, 'nested', 'secrets.key');
    const box = secretsFromEnv({ DATA_DIR: path.join(dir, 'nested') });
    expect(fs.existsSync(file)).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const k = parseKey(file, fs.readFileSync(file, 'utf8'));
    expect(secretBox(k).open(box.seal(SECRET))).toBe(SECRET);
    // another process (same file, its own cache): the same key, the file unchanged, no temporary files left
    const before = fs.readFileSync(file, 'utf8');
    jest.isolateModules(() => {
      const again = (
        require('../../../src/storage/secrets') as typeof import('../../../src/storage/secrets')
      ).secretsFromEnv({ DATA_DIR: path.join(dir, 'nested') });
      expect(again.open(box.seal(SECRET))).toBe(SECRET);
    });
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['secrets.key']);
  });

  test('SECRETS_KEY_FILE names the file; a file holding a malformed key fails, naming the file', () => {
    const file = path.join(dir, 'custom.key');
    const k = key();
    fs.writeFileSync(file, k.toString('hex') + '\n');
    const box = secretsFromEnv({ SECRETS_KEY_FILE: file, DATA_DIR: path.join(dir, 'unused') });
    expect(secretBox(k).open(box.seal(SECRET))).toBe(SECRET);
    expect(fs.existsSync(path.join(dir, 'unused'))).toBe(false);
    const bad = path.join(dir, 'bad.key');
    fs.writeFileSync(bad, 'garbage\n');
    expect(() => secretsFromEnv({ SECRETS_KEY_FILE: bad })).toThrow(
      new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} must be 32 bytes`),
    );
  });
});
