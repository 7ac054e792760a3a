// The webhook sender against loopback HTTPS servers only (127.0.0.1 allowed by CIDR, test CAs passed as extraCa):
// the exact body and headers arrive and verify as a receiver would check them; the connection goes to the address the
// check approved, with TLS verified against the URL's host name; certificates are checked; a 3xx is a status, never
// followed; a silent server times out; refused destinations never see a connection. No traffic leaves loopback.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { signatureHeader, verifySignature } from '../../../src/domain/webhooks/signature';
import {
  checkDestination,
  DestinationRefused,
  type DestinationPolicy,
  type Resolver,
} from '../../../src/infra/webhooks/destination';
import { MAX_RESPONSE_BYTES, postWebhook, SendFailed, USER_AGENT } from '../../../src/infra/webhooks/send';
import { startHttpsServer, type TestHttpsServer } from '../../helpers/https-server';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  servername?: string | false;
}

const loopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];

function record(into: Seen[], reply: (req: IncomingMessage, res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      into.push({
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks),
        servername: (req.socket as import('node:tls').TLSSocket).servername,
      });
      reply(req, res);
    });
  };
}

let dir: string;
let main: TestHttpsServer; // certificate for 127.0.0.1 and localhost
let target: TestHttpsServer; // where redirects point
let named: https.Server; // certificate for webhooks.invalid only (a name no resolver knows: RFC 2606)
let namedPort: number;
let namedCa: string;
let namedConnections = 0;
const seenMain: Seen[] = [];
const seenTarget: Seen[] = [];
const seenNamed: Seen[] = [];
const openSockets = new Set<net.Socket>();

beforeAll(async () => {
  target = await startHttpsServer(record(seenTarget, (_req, res) => res.end('target')));
  main = await startHttpsServer(
    record(seenMain, (req, res) => {
      const u = req.url!;
      if (u.startsWith('/hook')) return res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      if (u === '/status/503') return res.writeHead(503).end('busy');
      if (u === '/status/404') return res.writeHead(404).end();
      if (u === '/redirect') return res.writeHead(302, { location: `${target.base}/target` }).end();
      if (u === '/big') {
        res.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024, 'x');
        const more = (i: number): void => {
          if (i === 0 || res.destroyed) return void res.end();
          if (res.write(chunk)) more(i - 1);
          else res.once('drain', () => more(i - 1));
        };
        res.on('error', () => undefined);
        return more(64); // 4 MB, far past MAX_RESPONSE_BYTES
      }
      if (u === '/stall-body') return res.writeHead(200).write('partial'); // never ends
      // '/hang': never answers
    }),
  );

  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-send-'));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=webhooks.invalid',
      '-addext',
      'subjectAltName=DNS:webhooks.invalid',
    ],
    { stdio: 'pipe' },
  );
  namedCa = fs.readFileSync(cert, 'utf8');
  named = https.createServer(
    { key: fs.readFileSync(key), cert: namedCa },
    record(seenNamed, (_req, res) => res.end('ok')),
  );
  named.on('connection', (s: net.Socket) => {
    namedConnections += 1;
    openSockets.add(s);
    s.on('close', () => openSockets.delete(s));
  });
  await new Promise<void>((r) => named.listen(0, '127.0.0.1', r));
  namedPort = (named.address() as AddressInfo).port;
});

afterAll(async () => {
  await Promise.all([main.close(), target.close()]);
  for (const s of openSockets) s.destroy();
  await new Promise((r) => named.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

const mainPolicy = (): DestinationPolicy => ({ allowedCidrs: ['127.0.0.0/8'], extraCa: main.ca, resolve: loopback });

async function deliver(
  url: string,
  policy: DestinationPolicy,
  body = '{}',
  headers: Record<string, string> = {},
  timeoutMs = 10_000,
) {
  const dest = await checkDestination(url, policy);
  return postWebhook(dest, body, headers, policy, { timeoutMs });
}

async function failure(p: Promise<unknown>): Promise<SendFailed> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SendFailed);
  return err as SendFailed;
}

describe('postWebhook to a loopback HTTPS server', () => {
  it('POSTs the exact body with the given headers, and the receiver verifies the signature', async () => {
    const secret = 'whsec_test';
    const body = JSON.stringify({
      id: 'evt_1',
      type: 'scan.completed',
      createdAt: '2025-01-02T03:04:05.000Z',
      data: { scan: { id: 'scn_1', name: 'naïve ✓ 漢字' } },
    });
    const t = Math.floor(Date.now() / 1000);
    const headers = {
      'X-Svc-Event': 'scan.completed',
      'X-Svc-Delivery': 'dlv_1',
      'X-Svc-Signature': signatureHeader(secret, body, t),
    };
    const before = seenMain.length;
    const result = await deliver(`${main.base}/hook/in?team=a%20b`, mainPolicy(), body, headers);
    expect(result.statusCode).toBe(200);
    expect(typeof result.durationMs).toBe('number');
    expect(result.durationMs).toBeGreaterThanOrEqual(0);

    expect(seenMain).toHaveLength(before + 1);
    const seen = seenMain[before];
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/hook/in?team=a%20b');
    expect(seen.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(seen.headers['user-agent']).toBe(USER_AGENT);
    expect(seen.headers['x-svc-event']).toBe('scan.completed');
    expect(seen.headers['x-svc-delivery']).toBe('dlv_1');
    expect(seen.headers.host).toBe(new URL(main.base).host);
    expect(
      verifySignature(secret, seen.headers['x-svc-signature'] as string, seen.body, {
        now: Math.floor(Date.now() / 1000),
      }),
    ).toBe(true);
    expect(
      verifySignature('whsec_other', seen.headers['x-svc-signature'] as string, seen.body, {
        now: Math.floor(Date.now() / 1000),
      }),
    ).toBe(false);
  });

  it('resolves with any status: the caller decides', async () => {
    await expect(deliver(`${main.base}/status/503`, mainPolicy())).resolves.toMatchObject({ statusCode: 503 });
    await expect(deliver(`${main.base}/status/404`, mainPolicy())).resolves.toMatchObject({ statusCode: 404 });
  });

  it('returns a 302 as 302 and does not follow it (the redirect target sees nothing)', async () => {
    const before = seenMain.length;
    const targetPolicy: DestinationPolicy = { ...mainPolicy(), extraCa: `${main.ca}\n${target.ca}` }; // following would be trusted
    await expect(deliver(`${main.base}/redirect`, targetPolicy)).resolves.toMatchObject({ statusCode: 302 });
    expect(seenMain.slice(before).map((s) => s.url)).toEqual(['/redirect']);
    expect(seenTarget).toHaveLength(0);
  });

  it('without the test CA, fails with a certificate error and sends nothing', async () => {
    const before = seenMain.length;
    const err = await failure(deliver(`${main.base}/hook`, { ...mainPolicy(), extraCa: undefined }));
    expect(err.message).toMatch(/^certificate rejected: self[- ]signed certificate/);
    expect(seenMain).toHaveLength(before);
  });

  it('with another CA than the server certificate, fails with a certificate error', async () => {
    const err = await failure(deliver(`${main.base}/hook`, { ...mainPolicy(), extraCa: namedCa }));
    expect(err.message).toMatch(/^certificate rejected: /);
  });

  it('times out a server that never answers', async () => {
    const err = await failure(deliver(`${main.base}/hang`, mainPolicy(), '{}', {}, 300));
    expect(err).toMatchObject({ code: 'ETIMEDOUT', message: 'timed out after 300 ms' });
  });

  it('times out a server that accepts the connection and never speaks TLS', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const port = (silent.address() as AddressInfo).port;
      const err = await failure(deliver(`https://127.0.0.1:${port}/`, mainPolicy(), '{}', {}, 1500));
      expect(err.message).toBe('timed out after 1.5 s');
      expect(sockets).toHaveLength(1);
    } finally {
      sockets.forEach((s) => s.destroy());
      await new Promise((r) => silent.close(r));
    }
  });

  it('a status that arrived is the result even if the body then stalls or is too large to read', async () => {
    await expect(deliver(`${main.base}/stall-body`, mainPolicy(), '{}', {}, 500)).resolves.toMatchObject({
      statusCode: 200,
    });
    expect(MAX_RESPONSE_BYTES).toBeLessThan(64 * 1024);
    await expect(deliver(`${main.base}/big`, mainPolicy())).resolves.toMatchObject({ statusCode: 200 });
  });

  it('reports a refused connection', async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const err = await failure(deliver(`https://127.0.0.1:${port}/`, mainPolicy()));
    expect(err).toMatchObject({ code: 'ECONNREFUSED', message: 'connection refused' });
  });

  it('reports a server that does not speak TLS', async () => {
    const plain = http.createServer((_req, res) => res.end('plain'));
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    try {
      const port = (plain.address() as AddressInfo).port;
      const err = await failure(deliver(`https://127.0.0.1:${port}/`, mainPolicy()));
      expect(err.message).toMatch(/^TLS handshake failed \(.+\)$/);
    } finally {
      plain.closeAllConnections();
      await new Promise((r) => plain.close(r));
    }
  });

  it('rejects a header value HTTP cannot carry, without throwing synchronously or sending', async () => {
    const before = seenMain.length;
    const dest = await checkDestination(`${main.base}/hook`, mainPolicy());
    const err = await failure(
      postWebhook(dest, '{}', { 'X-Bad': 'a\r\nInjected: yes' }, mainPolicy(), { timeoutMs: 5000 }),
    );
    expect(err.message).toMatch(/Invalid character in header content/);
    expect(seenMain).toHaveLength(before);
  });

  it('refuses a destination whose URL is not https', async () => {
    const err = await failure(
      postWebhook({ url: new URL('http://127.0.0.1/'), address: '127.0.0.1', family: 4 }, '{}', {}, mainPolicy(), {
        timeoutMs: 1000,
      }),
    );
    expect(err.message).toBe('https only');
  });
});

describe('connecting to the checked address, by name', () => {
  const namedUrl = () => `https://webhooks.invalid:${namedPort}/in`;

  it('resolves once; a resolver that answers 127.0.0.1 and then 10.0.0.1 (rebinding) is not asked again, and the POST reaches loopback', async () => {
    const resolve = jest
      .fn<ReturnType<Resolver>, Parameters<Resolver>>()
      .mockResolvedValueOnce([{ address: '127.0.0.1', family: 4 }])
      .mockResolvedValue([{ address: '10.0.0.1', family: 4 }]);
    const policy: DestinationPolicy = { allowedCidrs: ['127.0.0.0/8'], extraCa: namedCa, resolve };
    const before = seenNamed.length;
    await expect(deliver(namedUrl(), policy, '{"n":1}')).resolves.toMatchObject({ statusCode: 200 });
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(seenNamed).toHaveLength(before + 1);
    // The name no resolver knows reached the server: the connection used the checked address, while the Host header,
    // SNI and the certificate check used the URL's host name (the certificate covers only webhooks.invalid).
    expect(seenNamed[before]).toMatchObject({ url: '/in', servername: 'webhooks.invalid' });
    expect(seenNamed[before].headers.host).toBe(`webhooks.invalid:${namedPort}`);
    expect(seenNamed[before].body.toString()).toBe('{"n":1}');
    // The next attempt checks again, and the rebound answer is refused before any connection.
    const connections = namedConnections;
    await expect(checkDestination(namedUrl(), policy)).rejects.toThrow(
      'webhooks.invalid resolves to 10.0.0.1, a private address (10.0.0.0/8)',
    );
    expect(resolve).toHaveBeenCalledTimes(2);
    expect(namedConnections).toBe(connections);
  });

  it('verifies the certificate against the URL host name, not the address', async () => {
    const policy: DestinationPolicy = { allowedCidrs: ['127.0.0.0/8'], extraCa: namedCa, resolve: loopback };
    const other = await failure(deliver(`https://other.invalid:${namedPort}/in`, policy));
    expect(other.message).toMatch(/^certificate rejected: .*other\.invalid.*altnames/);
    const byAddress = await failure(deliver(`https://127.0.0.1:${namedPort}/in`, policy));
    expect(byAddress.message).toMatch(/^certificate rejected: .*altnames.*127\.0\.0\.1/);
  });

  it('a refused destination never sees a connection: the resolver is the only thing called', async () => {
    const connections = namedConnections;
    const before = seenNamed.length;
    for (const allowedCidrs of [[], ['10.0.0.0/8'], ['::ffff:0:0/96']]) {
      const resolve = jest.fn<ReturnType<Resolver>, Parameters<Resolver>>(loopback);
      const err = await deliver(namedUrl(), { allowedCidrs, extraCa: namedCa, resolve }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DestinationRefused);
      expect((err as Error).message).toBe(
        'webhooks.invalid resolves to 127.0.0.1, a loopback address (127.0.0.0/8); allow it with WEBHOOKS_ALLOWED_CIDRS',
      );
      expect(resolve).toHaveBeenCalledTimes(1);
    }
    expect(namedConnections).toBe(connections);
    expect(seenNamed).toHaveLength(before);
  });
});
