// pino, with credentials redacted wherever they could appear (headers, bodies of key creation).
import pino from 'pino';

export type Logger = pino.Logger;

/** `destination`: where lines go (default stdout; tests pass a stream to read them back). */
export function createLogger(
  name: string,
  level = process.env.LOG_LEVEL || 'info',
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    redact: {
      // X-Svc-Host-Credential carries a host credential, as does `credential` in the 201s of hosts and gateways
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'authorization',
        'secret',
        'token',
        '*.secret',
        '*.token',
        'req.headers["x-svc-host-credential"]',
        'headers["x-svc-host-credential"]',
        'credential',
        '*.credential',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
