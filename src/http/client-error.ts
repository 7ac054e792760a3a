// Requests Node's HTTP parser refuses never reach Koa, so the error envelope middleware cannot answer them. Node's
// default 'clientError' handler writes a bare `HTTP/1.1 400 Bad Request` with no body and no X-Request-Id, which breaks
// the API's rule that every error carries the envelope. This handler answers them with it instead:
// {"error":{"code":"bad_request","message":...}} (bad_request, malformed HTTP), X-Request-Id, then closes.
// The request id is always a new UUID, as the request-id middleware makes: a client's own X-Request-Id is not echoed,
// since the headers of a request the parser refused were never parsed (and may be what is malformed).
//
// Status: 400 for malformed requests. Where Node's default already answers with a more precise status, that status is
// kept, still with code `bad_request` (the one code for HTTP the parser refused): 431 for headers over the size limit
// (HPE_HEADER_OVERFLOW), 413 for oversized chunk extensions, 408 when the request did not arrive in time. Clients
// and proxies act on those statuses (431: send smaller headers, 408: retry), which a 400 would hide.
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger';

interface ClientError extends Error {
  code?: string;
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
};

// Fixed messages per llhttp error code: the parser's own text is stable too, but a fixed one is known never to
// carry request bytes back to the client or into logs.
const MESSAGES: Record<string, [status: number, message: string]> = {
  HPE_HEADER_OVERFLOW: [431, 'request headers exceed the size limit'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'chunk extensions exceed the size limit'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'the request was not received in time'],
  HPE_INVALID_HEADER_TOKEN: [400, 'malformed HTTP request: invalid character in a header name or value'],
  // llhttp uses this one for Content-Length beside Transfer-Encoding too.
  HPE_INVALID_CONTENT_LENGTH: [400, 'malformed HTTP request: invalid Content-Length'],
  HPE_UNEXPECTED_CONTENT_LENGTH: [400, 'malformed HTTP request: conflicting Content-Length headers'],
  HPE_INVALID_TRANSFER_ENCODING: [400, 'malformed HTTP request: invalid Transfer-Encoding'],
  HPE_INVALID_CHUNK_SIZE: [400, 'malformed HTTP request: invalid chunk size'],
  HPE_INVALID_METHOD: [400, 'malformed HTTP request: invalid method'],
  HPE_INVALID_URL: [400, 'malformed HTTP request: invalid request target'],
  HPE_INVALID_VERSION: [400, 'malformed HTTP request: invalid HTTP version'],
  HPE_INVALID_CONSTANT: [400, 'malformed HTTP request: invalid request line'],
  HPE_LF_EXPECTED: [400, 'malformed HTTP request: CR without LF'],
  HPE_CR_EXPECTED: [400, 'malformed HTTP request: LF without CR'],
  HPE_STRICT: [400, 'malformed HTTP request: invalid line ending'],
};

/** A flushed response whose peer never reads must not hold the socket forever. */
const LINGER_MS = 5000;

/** The complete HTTP/1.1 response for a parser error: status line, headers, envelope body. */
export function clientErrorResponse(
  err: ClientError,
  requestId: string = randomUUID(),
): { status: number; bytes: Buffer } {
  const [status, message] = MESSAGES[err.code ?? ''] ?? [400, 'malformed HTTP request'];
  const body = Buffer.from(JSON.stringify({ error: { code: 'bad_request', message } }));
  const head =
    `HTTP/1.1 ${status} ${REASONS[status]}\r\n` +
    `Content-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${body.length}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    `Date: ${new Date().toUTCString()}\r\n` +
    `Connection: close\r\n\r\n`;
  return { status, bytes: Buffer.concat([Buffer.from(head, 'latin1'), body]) };
}

/**
 * Sockets already answered. Node keeps feeding the failed parser whatever else arrives (the rest of an oversized
 * header, the peer's FIN, the request timeout) and each time emits 'clientError' again on the same socket: those
 * calls must neither write a second response nor destroy the socket before the first one is flushed.
 */
const answered = new WeakSet<Duplex>();

/**
 * The 'clientError' listener. Once one is installed Node no longer writes anything or destroys the socket itself,
 * so every path here ends with the socket closed (at once, or once the response is delivered).
 */
export function handleClientError(err: ClientError, socket: Duplex, logger?: Logger): void {
  if (answered.has(socket)) return;
  // A peer that reset the connection cannot read anything; writing would only raise EPIPE on a dead socket.
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // As Node's default: a response already under way on this socket (a pipelined request's) must not get a second
  // status line in the middle of its bytes; the peer only sees the connection close.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  answered.add(socket);
  const requestId = randomUUID();
  const { status, bytes } = clientErrorResponse(err, requestId);
  logger?.debug({ requestId, code: err.code, status }, 'malformed request refused by the HTTP parser');
  // Errors from here on (the peer going away while we write) end this socket, never the server.
  socket.on('error', () => socket.destroy());
  // A lingering close: end() sends the response then FIN, and the socket goes on reading (and discarding) what the
  // peer still sends until it closes its side too (the socket then closes itself). Destroying right after the write
  // would close with unread request bytes in the kernel's buffer, which sends RST instead of FIN, and an RST can
  // make the peer drop the response before reading it: a status line with no body, or nothing at all.
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
  socket.end(bytes);
  socket.resume();
}

/** Answers requests Node's parser refuses with the envelope. In src/main.ts: `installClientErrorHandler(server, logger)`. */
export function installClientErrorHandler(server: http.Server, logger?: Logger): void {
  server.on('clientError', (err: ClientError, socket: Duplex) => handleClientError(err, socket, logger));
}
