// One webhook POST to a checked destination.
//
// The request names the URL's host (so the Host header, TLS SNI and the certificate check all use the name the user
// gave) while its `lookup` answers with the address checkDestination approved: the name is never resolved a second
// time, so a DNS answer that changes between the check and the connection (rebinding) cannot redirect the request.
// agent: false (a fresh connection, never a global agent that someone replaced with a proxy agent); node:https follows
// no redirects, so a 3xx is only a status; one timer bounds the whole exchange.
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import type { CheckedDestination, DestinationPolicy } from './destination';

export interface SendResult {
  /** The response status; the response body is read (at most a few KB) and discarded. */
  statusCode: number;
  durationMs: number;
}

/** Response bytes read before the connection is dropped: enough to let small answers finish cleanly. */
export const MAX_RESPONSE_BYTES = 4096;
export const USER_AGENT = 'supply-chain-scanner-webhooks/1';

/** A delivery attempt that got no HTTP status; `message` is short and fit for the delivery log. */
export class SendFailed extends Error {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.name = 'SendFailed';
    this.code = code;
  }
}

const contexts = new Map<string, tls.SecureContext>();

/** Node's bundled CAs plus the extra ones, as one secure context per bundle (building one parses ~150 certificates). */
function secureContextFor(extraCa: string): tls.SecureContext {
  let ctx = contexts.get(extraCa);
  if (!ctx) {
    ctx = tls.createSecureContext({ ca: [...tls.rootCertificates, extraCa] });
    if (contexts.size >= 8) contexts.clear();
    contexts.set(extraCa, ctx);
  }
  return ctx;
}

function fixedLookup(dest: CheckedDestination): LookupFunction {
  return (_hostname, options, callback) => {
    const cb = callback as (
      err: Error | null,
      address: string | Array<{ address: string; family: number }>,
      family?: number,
    ) => void;
    if ((options as { all?: boolean }).all) cb(null, [{ address: dest.address, family: dest.family }]);
    else cb(null, dest.address, dest.family);
  };
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME|ISSUER|HOSTNAME/;

function failure(err: NodeJS.ErrnoException): SendFailed {
  const code = err.code ?? 'ERROR';
  if (TLS_CODES.test(code)) return new SendFailed(`certificate rejected: ${err.message}`, code);
  switch (code) {
    case 'ECONNREFUSED':
      return new SendFailed('connection refused', code);
    case 'ECONNRESET':
      return new SendFailed('connection reset', code);
    case 'EPIPE':
      return new SendFailed('connection closed while sending', code);
    case 'EHOSTUNREACH':
      return new SendFailed('host unreachable', code);
    case 'ENETUNREACH':
      return new SendFailed('network unreachable', code);
    case 'EPROTO':
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
      return new SendFailed(`TLS handshake failed (${err.message.replace(/^.*:/s, '').trim() || code})`, code);
    default:
      if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_'))
        return new SendFailed(`TLS failed (${err.message})`, code);
      return new SendFailed(err.message || code, code);
  }
}

/**
 * POSTs `body` to the destination's checked address (TLS verified against the URL's host name and Node's CAs plus
 * policy.extraCa; no redirects followed; no proxy), with the headers given plus Content-Type: application/json and a
 * User-Agent. Resolves with any status (the caller decides: 2xx ends a delivery); rejects with SendFailed on a network
 * or TLS error or after timeoutMs, with a message fit for the delivery log. Once a status has arrived it is the result,
 * even when the body that follows is cut short (by MAX_RESPONSE_BYTES, the timer or the peer).
 */
export async function postWebhook(
  dest: CheckedDestination,
  body: string,
  headers: Record<string, string>,
  policy: DestinationPolicy,
  opts: { timeoutMs: number },
): Promise<SendResult> {
  const url = dest.url;
  if (!(url instanceof URL) || url.protocol !== 'https:') throw new SendFailed('https only', 'ERR_INVALID_URL');
  const payload = Buffer.from(body, 'utf8');
  const started = performance.now();
  return new Promise<SendResult>((resolve, reject) => {
    let settled = false;
    let statusCode: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    let req: ReturnType<typeof https.request> | undefined;
    const settle = (err?: SendFailed) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req?.destroy();
      if (statusCode !== undefined) resolve({ statusCode, durationMs: Math.round(performance.now() - started) });
      else reject(err ?? new SendFailed('no response', 'ENORESPONSE'));
    };
    try {
      req = https.request({
        method: 'POST',
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port || 443,
        path: `${url.pathname}${url.search}`,
        headers: {
          ...headers,
          'Content-Type': 'application/json',
          'User-Agent': USER_AGENT,
          'Content-Length': String(payload.length),
        },
        agent: false,
        lookup: fixedLookup(dest),
        ...(policy.extraCa ? { secureContext: secureContextFor(policy.extraCa) } : {}),
      });
    } catch (err) {
      // A header value the caller passed that HTTP cannot carry, or a bad extra CA: nothing was sent.
      settle(new SendFailed((err as Error).message, (err as NodeJS.ErrnoException).code ?? 'ERR_INVALID_REQUEST'));
      return;
    }
    timer = setTimeout(
      () => settle(new SendFailed(`timed out after ${seconds(opts.timeoutMs)}`, 'ETIMEDOUT')),
      opts.timeoutMs,
    );
    req.on('response', (res) => {
      statusCode = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) settle();
      });
      res.on('end', () => settle());
      res.on('error', () => settle());
      res.on('close', () => settle());
    });
    req.on('error', (err) => settle(failure(err)));
    req.end(payload);
  });
}
