// TCP port helpers for the locally started servers.
import net from 'node:net';

/** A port the OS reports free right now. Another process may take it before we bind; the window is small. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('could not obtain a free port'))));
    });
  });
}

/** Several distinct free ports (each freePort call could in theory return a port handed out just before). */
export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort(host));
  return [...ports];
}

export function canConnect(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return canConnectTo({ port, host }, timeoutMs);
}

/** Whether a TCP port or a Unix socket (`{path}`) accepts a connection within `timeoutMs`. */
export function canConnectTo(target: net.NetConnectOpts, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(target);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Polls `probe` until it returns true or the deadline passes. `abort` lets a caller stop early with a useful error,
 * e.g. when the server process being waited for has already exited.
 */
export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  opts: { timeoutMs: number; intervalMs?: number; abort?: () => Error | undefined },
): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    const aborted = opts.abort?.();
    if (aborted) throw aborted;
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${what}`);
    await sleep(opts.intervalMs ?? 200);
  }
}
