// What keeps the local stack private to the user who runs it: DATA_DIR's modes, files created 0600 from the start,
// random passwords kept in such files, and URIs printed without their passwords.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export const isRoot = (): boolean => process.getuid?.() === 0;

export interface Owner {
  uid: number;
  gid: number;
}

/**
 * DATA_DIR holds the database files and the passwords: nobody else may list, read or write anything in it.
 * 0700 as a normal user. As root it is 0711: PostgreSQL runs as the `postgres` user and must traverse DATA_DIR to
 * reach its own 0700 subtree. 0711 grants others no read (no listing) and no write, only passage to a name they
 * already know, and every entry inside is 0700/0600 (or postgres' own 0700), so a known name opens nothing either.
 * What earlier versions left 0755/0644 is tightened here. Returns the entries it could not tighten.
 */
export function secureDataDir(dataDir: string): string[] {
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  try {
    fs.mkdirSync(dataDir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const st = fs.statSync(dataDir);
  if (!st.isDirectory()) throw new Error(`DATA_DIR ${dataDir} is not a directory`);
  // /tmp and the like: narrowing one would break every other user of it.
  if (st.mode & 0o1000 || path.dirname(dataDir) === dataDir) {
    throw new Error(`DATA_DIR ${dataDir} is a shared directory: give the scanner a directory of its own`);
  }
  fs.chmodSync(dataDir, isRoot() ? 0o711 : 0o700);
  const failed: string[] = [];
  // The whole tree, not only the top: a closed directory hides its files today, but not from whoever is given a
  // copy of the tree or a bind mount of a subdirectory. Symlinks are not followed.
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir)) {
      const entry = path.join(dir, name);
      try {
        const s = fs.lstatSync(entry);
        if (s.isSymbolicLink()) continue;
        if (s.mode & 0o077) fs.chmodSync(entry, s.mode & 0o7700);
        if (s.isDirectory()) walk(entry);
      } catch {
        failed.push(entry);
      }
    }
  };
  walk(dataDir);
  return failed;
}

/** A directory for the owner only (created, or narrowed when it exists). */
export function privateDir(dir: string, owner?: Owner): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
  fs.chmodSync(dir, 0o700);
}

/**
 * Written whole under a temporary name created 0600 (never readable by others, not even for a moment: a chmod after
 * the write would leave a window), then renamed over the file.
 */
export function writePrivateFile(file: string, data: string, owner?: Owner): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.rmSync(tmp, { force: true });
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    fs.writeFileSync(fd, data);
    if (owner) fs.fchownSync(fd, owner.uid, owner.gid);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

/** Hex: safe unquoted in URIs, SQL literals and files. 192 bits. */
export function randomPassword(): string {
  return randomBytes(24).toString('hex');
}

/** The password kept in `file` (0600), made on first use. `created` tells a caller that must now set it somewhere. */
export function passwordFile(file: string, owner?: Owner): { password: string; created: boolean } {
  try {
    const password = fs.readFileSync(file, 'utf8').trim();
    if (password) {
      fs.chmodSync(file, 0o600);
      return { password, created: false };
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const password = randomPassword();
  writePrivateFile(file, `${password}\n`, owner);
  return { password, created: true };
}

// scheme://user:password@host — the password runs to the last '@' of the authority (which ends at '/', '?', '#'), so
// one with a raw '@' or ':' in it is hidden whole, and an '@' in a path is left alone.
const CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/?#]*):[^\s/?#]*@/gi;

/** Any URI in `text` with its password replaced by ***, for everything printed or logged. */
export function redactUri(text: string): string {
  return text.replace(CREDENTIALS, '$1$2:***@');
}
