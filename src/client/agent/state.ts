// The state file of `scanner sidecar` and `scanner gateway`: where the service is, who we are to it and the credential
// it gave us. The credential is a secret: the file is created readable by its user only (mode
// 0600, set when the file is created, never chmod-ed afterwards), written whole or not at all (a temporary file in the
// same directory, fsync, rename), and a file that group or others can read or write is refused, not used.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InputError } from '../errors';

export type AgentKind = 'sidecar' | 'gateway';

export interface SidecarState {
  kind: 'sidecar';
  serverUrl: string;
  hostId: string;
  credential: string;
  /** Only when the machine has no /etc/machine-id: the random id this host attested with, kept for the next run. */
  machineId?: string;
}

export interface GatewayState {
  kind: 'gateway';
  serverUrl: string;
  gatewayId: string;
  credential: string;
  /** SHA-256 (hex) of the enrollment token this gateway enrolled with: the same (single-use) token again is a restart. */
  enrollmentTokenSha256?: string;
}

export type AgentState = SidecarState | GatewayState;

/** `$XDG_CONFIG_HOME/scanner/<kind>.json`, else `~/.config/scanner/<kind>.json`. */
export function defaultStatePath(kind: AgentKind, env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'scanner', `${kind}.json`);
}

/** The server URL as compared between runs: origin and path, without trailing slashes. */
export function sameServer(a: string, b: string): boolean {
  return normalizeServer(a) === normalizeServer(b);
}

export function normalizeServer(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return url.replace(/\/+$/, '');
  }
}

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * The state in FILE, or null when there is none. Refused (exit 2, with the fix) when it is not a regular file, belongs
 * to another user, can be read or written by group or others, or is not a state of this kind.
 */
export function readState<K extends AgentKind>(file: string, kind: K): Extract<AgentState, { kind: K }> | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new InputError(`state file ${file}: ${(err as Error).message}`);
  }
  if (!st.isFile()) throw new InputError(`state file ${file} is not a regular file`);
  if (process.platform !== 'win32') {
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) {
      throw new InputError(
        `state file ${file} belongs to user ${st.uid}, not to this user (${uid}): it holds a credential, so it is used only by its owner. Run as its owner, or pass --state for a file of your own`,
      );
    }
    const loose = st.mode & 0o077;
    if (loose) {
      const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
      throw new InputError(
        `state file ${file} has mode ${mode}: ${loose & 0o044 ? 'readable' : 'writable'} by group or others, and it holds a credential, so it is not used. ` +
          `Fix: chmod 600 ${JSON.stringify(file)} (if others may have read it, revoke the ${kind === 'sidecar' ? 'host' : 'gateway'} in the service and register again)`,
      );
    }
  }
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError(
      `state file ${file} is not readable JSON (${(err as Error).message}): move it away to register again`,
    );
  }
  const d = data as Record<string, unknown>;
  const ok =
    d !== null &&
    typeof d === 'object' &&
    d.kind === kind &&
    isText(d.serverUrl) &&
    isText(d.credential) &&
    (kind === 'sidecar' ? isText(d.hostId) && (d.machineId === undefined || isText(d.machineId)) : isText(d.gatewayId));
  if (!ok)
    throw new InputError(
      `state file ${file} is not the state of a scanner ${kind}${isText(d?.kind) && d.kind !== kind ? ` (it is a ${String(d.kind)}'s)` : ''}: pass --state for another file`,
    );
  return d as unknown as Extract<AgentState, { kind: K }>;
}

/**
 * Writes the state whole: a new file (mode 0600 from its creation) in the same directory, synced, then renamed over
 * FILE. The directory is created (mode 0700) when missing. A crash leaves the old state or the new one, never half.
 */
export function writeState(file: string, state: AgentState): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = path.join(
    dir,
    `.${path.basename(file)}.${process.pid}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`,
  );
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  try {
    try {
      fs.writeFileSync(fd, `${JSON.stringify(state, null, 2)}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw new InputError(`could not write the state file ${file}: ${(err as Error).message}`);
  }
  try {
    // The rename is durable once the directory is synced (not possible everywhere: best effort).
    const dfd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(dfd);
    } finally {
      fs.closeSync(dfd);
    }
  } catch {
    /* a directory cannot be opened for sync on every platform */
  }
}

/** The token of a `--registration-token FILE` / `--enrollment-token FILE`: the file's first line; `-` reads stdin. */
export function readTokenFile(flag: string, file: string, readStdin: () => string): string {
  let text: string;
  try {
    text = file === '-' ? readStdin() : fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(
      `--${flag} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
    );
  }
  const token =
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l !== '') ?? '';
  if (!token)
    throw new InputError(
      `--${flag} ${file}: the file is empty (it should hold the token the service issued, on one line)`,
    );
  if (/\s/.test(token)) throw new InputError(`--${flag} ${file}: the first line is not one token (it has spaces)`);
  return token;
}
