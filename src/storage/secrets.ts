// Secrets the service must read back (webhook signing secrets) are stored sealed with AES-256-GCM
// under a key that never enters the database: SECRETS_KEY (32 bytes, base64 or hex), else the key file
// SECRETS_KEY_FILE (default DATA_DIR/secrets.key, created with mode 0600 on first use, so that `npm start` on one
// machine needs nothing set). A replica set of API and worker processes on several machines must share SECRETS_KEY.
// SECRETS_KEY_PREVIOUS (comma-separated) lets a rotated key still open what it sealed; seal always uses SECRETS_KEY.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EncryptedSecret } from './documents/webhooks';

export interface SecretBox {
  seal(plain: string): EncryptedSecret;
  open(sealed: EncryptedSecret): string;
}

const keyId = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 16);

/** A 32-byte key written as base64 (44 characters) or hex (64); anything else throws, naming the setting. */
export function parseKey(name: string, text: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(t) && key.toString('base64') !== t)) {
    throw new Error(`${name} must be 32 bytes written as base64 or hex (for example: openssl rand -base64 32)`);
  }
  return key;
}

/**
 * Reads the key file, or creates it (0600) when absent; two processes creating it at once agree on the first. The key
 * is written to a temporary file first and linked into place (link fails when the name exists), so a reader never
 * sees the file before its content.
 */
function fileKey(file: string): Buffer {
  try {
    return parseKey(file, fs.readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, randomBytes(32).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
  try {
    fs.linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return parseKey(file, fs.readFileSync(file, 'utf8'));
}

export function secretBox(current: Buffer, previous: Buffer[] = []): SecretBox {
  const keys = new Map([current, ...previous].map((k) => [keyId(k), k] as const));
  const kid = keyId(current);
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', current, iv);
      const data = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return {
        v: 1,
        kid,
        iv: iv.toString('base64'),
        tag: c.getAuthTag().toString('base64'),
        data: data.toString('base64'),
      };
    },
    open(sealed) {
      const key = keys.get(sealed.kid);
      if (!key)
        throw new Error(
          `secret sealed with key ${sealed.kid}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS`,
        );
      // the full 16-byte tag only: GCM would otherwise accept a truncated tag, which is easier to forge
      const tag = Buffer.from(sealed.tag, 'base64');
      if (tag.length !== 16) throw new Error('sealed secret: malformed authentication tag');
      const d = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'), { authTagLength: 16 });
      d.setAuthTag(tag);
      return Buffer.concat([d.update(Buffer.from(sealed.data, 'base64')), d.final()]).toString('utf8');
    },
  };
}

let cached: { env: string; box: SecretBox } | undefined;

const keyFile = (env: NodeJS.ProcessEnv) =>
  env.SECRETS_KEY_FILE || path.join(path.resolve(env.DATA_DIR || '.data'), 'secrets.key');

/**
 * The current master key (SECRETS_KEY, else the key file, created when absent). Other keys are derived from it for
 * their one purpose (e.g. the sign-in code hashes, domain/sign-in/codes.ts deriveCodeKey); it never enters the database.
 */
export function masterKeyFromEnv(env: NodeJS.ProcessEnv = process.env): Buffer {
  return env.SECRETS_KEY ? parseKey('SECRETS_KEY', env.SECRETS_KEY) : fileKey(keyFile(env));
}

/** The process's secret box, from the environment (see the top of this file); read once per setting. */
export function secretsFromEnv(env: NodeJS.ProcessEnv = process.env): SecretBox {
  const file = keyFile(env);
  const sig = JSON.stringify([env.SECRETS_KEY ?? '', env.SECRETS_KEY_PREVIOUS ?? '', file]);
  if (cached?.env === sig) return cached.box;
  const current = masterKeyFromEnv(env);
  const previous = (env.SECRETS_KEY_PREVIOUS ?? '')
    .split(',')
    .filter((s) => s.trim())
    .map((s) => parseKey('SECRETS_KEY_PREVIOUS', s));
  const box = secretBox(current, previous);
  cached = { env: sig, box };
  return box;
}
