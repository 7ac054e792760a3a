// Child processes of the local stack: spawned so they die with us, output kept line by line, stopped as a tree.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

export interface SpawnOptions {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Run as this system user (PostgreSQL refuses root). Only meaningful when we are root. */
  runAs?: string;
  /** Signal the child gets from the kernel when we die, even by SIGKILL (Linux, via setpriv). */
  parentDeathSignal?: NodeJS.Signals;
  /** Every output line, stdout and stderr alike. */
  onLine?: (line: string) => void;
  /** Output is also appended here (truncated at start): infra logs stay off the console but findable. */
  logFile?: string;
  /** The child's umask, e.g. 0o077 so that whatever a server creates is its owner's only. */
  umask?: number;
}

export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcess;
  readonly exited: Promise<ExitInfo>;
  isRunning(): boolean;
  /** The last lines of output, for error messages. */
  tail(): string;
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
  /** Graceful signal, then SIGKILL to the whole tree after timeoutMs. Resolves once the process has exited. */
  stop(opts?: { signal?: NodeJS.Signals; timeoutMs?: number }): Promise<ExitInfo>;
}

const TAIL_LINES = 60;

/** The first executable file named `cmd` on PATH. */
export function which(cmd: string, envPath = process.env.PATH ?? ''): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, cmd);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

const setpriv = process.platform === 'linux' ? which('setpriv') : undefined;

export function describeExit(e: ExitInfo): string {
  if (e.error) return e.error.message;
  return e.signal ? `killed by ${e.signal}` : `exited with code ${e.code}`;
}

function userIds(user: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export function spawnProcess(o: SpawnOptions): ManagedProcess {
  // Relative to our cwd, not the child's: o.cwd may differ.
  let command = o.command.includes('/') ? path.resolve(o.command) : o.command;
  let args = o.args;
  const asUser = o.runAs && process.getuid?.() === 0 ? o.runAs : undefined;
  let ids: { uid: number; gid: number } | undefined;
  // setpriv execs in place (no intermediate process), so our signals reach the real server directly, unlike
  // runuser/su which sit in between and translate them. PR_SET_PDEATHSIG is set after the uid change, as it must.
  if (setpriv) {
    const pre = asUser ? ['--reuid', asUser, '--regid', asUser, '--clear-groups'] : [];
    args = [...pre, '--pdeathsig', o.parentDeathSignal ?? 'SIGTERM', '--', command, ...args];
    command = setpriv;
  } else if (asUser) {
    ids = userIds(asUser);
  }
  // Opened first: a log that cannot be opened fails the call before there is a child to leave behind.
  const log = o.logFile ? privateLog(o.logFile) : undefined;
  log?.on('error', () => undefined);
  // The child inherits the umask at fork, which spawn() does synchronously: ours is restored right after.
  const umask = o.umask === undefined ? undefined : process.umask(o.umask);
  let child: ChildProcess;
  try {
    child = spawn(command, args, {
      cwd: o.cwd,
      env: o.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // With a parent-death signal the child can live in its own process group: a Ctrl-C in the terminal then
      // reaches only the supervisor, which stops everything in order. Without it, staying in our group is the
      // only way a Ctrl-C still reaches the child.
      detached: Boolean(setpriv),
      ...ids,
    });
  } finally {
    if (umask !== undefined) process.umask(umask);
  }

  const lines: string[] = [];
  const waiters = new Set<(line: string) => void>();
  const onLine = (line: string) => {
    lines.push(line);
    if (lines.length > TAIL_LINES) lines.shift();
    log?.write(line + '\n');
    o.onLine?.(line);
    for (const w of waiters) w(line);
  };
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', onLine);
  }

  let exitInfo: ExitInfo | undefined;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('error', (error) => {
      // Spawn failures (ENOENT, EACCES) emit 'error' and never 'exit'.
      if (child.pid === undefined) resolve((exitInfo = { code: null, signal: null, error }));
    });
    child.once('exit', (code, signal) => resolve((exitInfo = { code, signal })));
  });
  void exited.then(() => setTimeout(() => log?.end(), 100));

  const tail = () => lines.join('\n');
  const proc: ManagedProcess = {
    name: o.name,
    pid: child.pid ?? -1,
    child,
    exited,
    isRunning: () => exitInfo === undefined,
    tail,
    waitForLine(pattern, timeoutMs) {
      const seen = lines.find((l) => pattern.test(l));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<string>((resolve, reject) => {
        const finish = (err: Error | undefined, line?: string) => {
          clearTimeout(timer);
          waiters.delete(waiter);
          if (err) reject(err);
          else resolve(line!);
        };
        const waiter = (line: string) => pattern.test(line) && finish(undefined, line);
        const timer = setTimeout(
          () =>
            finish(new Error(`${o.name}: no line matching ${pattern} within ${timeoutMs} ms; last output:\n${tail()}`)),
          timeoutMs,
        );
        waiters.add(waiter);
        void exited.then((e) =>
          finish(new Error(`${o.name} ${describeExit(e)} before it was ready; last output:\n${tail()}`)),
        );
      });
    },
    async stop(opts = {}) {
      if (exitInfo) return exitInfo;
      const tree = descendants(proc.pid);
      signal(proc.pid, opts.signal ?? 'SIGTERM');
      const timeoutMs = opts.timeoutMs ?? 10_000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
      const first = await Promise.race([exited, timedOut]);
      clearTimeout(timer);
      if (first === 'timeout') {
        for (const pid of [proc.pid, ...tree, ...descendants(proc.pid)]) signal(pid, 'SIGKILL');
      }
      return exited;
    },
  };
  return proc;
}

/** Server output can hold data and names: the log is 0600 in a 0700 directory, also when an older run made it 0644. */
function privateLog(file: string): fs.WriteStream {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const fd = fs.openSync(file, 'w', 0o600);
  fs.fchmodSync(fd, 0o600);
  return fs.createWriteStream(file, { fd });
}

export function signal(pid: number, sig: NodeJS.Signals): void {
  // kill(0) and kill(-1) address whole groups or every process we may signal: never what is meant here.
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** All live descendants of pid, from /proc (Linux); empty elsewhere, where only the process itself is signalled. */
export function descendants(pid: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const e of entries) {
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      // Field 4 is the parent pid; the command name (field 2) may contain spaces, so split after its ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(e));
      children.set(ppid, list);
    } catch {
      // process ended while we looked
    }
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length) {
    for (const c of children.get(queue.shift()!) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs a command to completion; rejects with its last output when it fails. */
export async function runCommand(
  name: string,
  command: string,
  args: string[],
  opts: {
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    runAs?: string;
    onLine?: (line: string) => void;
    timeoutMs?: number;
  } = {},
): Promise<string> {
  const p = spawnProcess({ name, command, args, ...opts });
  let timer: NodeJS.Timeout | undefined;
  if (opts.timeoutMs) timer = setTimeout(() => void p.stop({ signal: 'SIGKILL' }), opts.timeoutMs);
  // 'close' follows 'exit' once the pipes are drained, so the tail is complete; bounded in case a grandchild keeps them.
  const closed = new Promise<void>((r) => p.child.once('close', () => r()));
  const e = await p.exited;
  await Promise.race([closed, new Promise((r) => setTimeout(r, 2000).unref())]);
  clearTimeout(timer);
  if (e.code !== 0) throw new Error(`${name} (${command} ${args.join(' ')}) ${describeExit(e)}:\n${p.tail()}`);
  return p.tail();
}
