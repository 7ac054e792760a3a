// pino, with credentials redacted wherever they could appear (headers, bodies of key creation).
import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(name: string, level = process.env.LOG_LEVEL || 'info'): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'secret', 'token', '*.secret', '*.token'],
      censor: '[redacted]',
    },
  });
}
