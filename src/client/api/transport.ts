// One HTTP exchange over node:http/https. Not fetch: Node 20 loads its fetch implementation (undici) on first use,
// about 45 ms of a CI client's start (measured: 55 ms for the first fetch against 12 ms for node:http), and this
// client makes only plain JSON requests. One keep-alive agent per run reuses the connection between requests.
import type http from 'node:http';
import { nodeHttp, nodeHttps } from '../builtins';

export interface Exchange {
  status: number;
  headers: { get(name: string): string | null };
  text: string;
}

const agents: { http?: http.Agent; https?: http.Agent } = {};

/** A network failure or a timeout: the request may be retried. */
export class TransportError extends Error {}

export function exchange(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
): Promise<Exchange> {
  const u = new URL(url);
  const secure = u.protocol === 'https:';
  const payload = body === undefined ? undefined : Buffer.from(body, 'utf8');
  const lib = secure ? nodeHttps() : nodeHttp();
  const agent = secure
    ? (agents.https ??= new (nodeHttps().Agent)({ keepAlive: true }))
    : (agents.http ??= new (nodeHttp().Agent)({ keepAlive: true }));
  return new Promise((resolve, reject) => {
    const req = lib.request(
      u,
      {
        method,
        agent,
        headers: { ...headers, ...(payload ? { 'content-length': String(payload.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          const h = res.headers;
          resolve({
            status: res.statusCode ?? 0,
            headers: {
              get: (name) => {
                const v = h[name.toLowerCase()];
                return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
              },
            },
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', (err) => fail(err));
      },
    );
    const fail = (err: Error) => {
      clearTimeout(timer);
      const code = (err as NodeJS.ErrnoException).code;
      reject(new TransportError(code && !err.message.includes(code) ? `${err.message} (${code})` : err.message));
    };
    const timer = setTimeout(() => req.destroy(new Error('no answer in time')), timeoutMs);
    req.on('error', fail);
    req.end(payload);
  });
}

/** Lets the process exit once the run is over instead of keeping idle connections open. */
export function closeConnections(): void {
  agents.http?.destroy();
  agents.https?.destroy();
}
