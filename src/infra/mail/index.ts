import path from 'node:path';
import type { InfraLog } from '../tools';
import { ConsoleMailSender } from './console';
import { FileMailSender } from './file';
import { singleAddress } from './message';
import { SmtpMailSender } from './smtp';
import type { MailSender } from './types';

export type { MailMessage, MailSender } from './types';
export { ConsoleMailSender } from './console';
export { FileMailSender } from './file';
export { SmtpMailSender } from './smtp';

export const DEFAULT_MAIL_FROM = 'scanner@localhost';

function malformed(why: string): Error {
  return new Error(
    `MAIL_TRANSPORT ${why}; expected "console", "file:<directory>", "smtp://[user:password@]host[:port]" or "smtps://[user:password@]host[:port]"`,
  );
}

/** The value as written, with any password replaced: error messages must not leak it into logs. */
function redacted(value: string): string {
  // Up to the last '@': an unencoded '/' or '@' in the password must not leave a piece of it behind.
  return value.replace(/^([a-z][a-z0-9+.-]*:\/*[^:@/]*:).*@/i, '$1***@');
}

function mailFrom(env: NodeJS.ProcessEnv): string {
  const raw = env.MAIL_FROM;
  if (raw === undefined || raw.trim() === '') return DEFAULT_MAIL_FROM;
  const address = singleAddress(raw);
  if (!address)
    throw new Error(`MAIL_FROM must be one plain address such as ${DEFAULT_MAIL_FROM}, got ${JSON.stringify(raw)}`);
  return address;
}

function smtpFromUrl(value: string, env: NodeJS.ProcessEnv): SmtpMailSender {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw malformed(`is not a valid URL: "${redacted(value)}"`);
  }
  const secure = url.protocol === 'smtps:';
  if (!url.hostname) throw malformed(`has no host: "${redacted(value)}"`);
  if (url.pathname !== '' && url.pathname !== '/') throw malformed(`must not have a path: "${redacted(value)}"`);
  if (url.search || url.hash) throw malformed(`must not have a query or fragment: "${redacted(value)}"`);
  const port = url.port === '' ? (secure ? 465 : 587) : Number(url.port);
  if (port === 0) throw malformed(`has port 0: "${redacted(value)}"`);
  let user: string | undefined;
  let pass: string | undefined;
  try {
    user = url.username !== '' ? decodeURIComponent(url.username) : undefined;
    pass = url.password !== '' ? decodeURIComponent(url.password) : undefined;
  } catch {
    throw malformed('has a badly percent-encoded user or password');
  }
  if (pass !== undefined && user === undefined) throw malformed('has a password without a user');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new SmtpMailSender({ host, port, secure, user, pass, from: mailFrom(env) });
}

/**
 * The sender MAIL_TRANSPORT names: unset or `console` prints to the log, `file:DIR` writes JSON
 * files, `smtp://` / `smtps://` send through a server (MAIL_FROM is the sender). Anything else throws, naming the
 * setting, so a typo stops the start instead of silently dropping sign-in codes.
 */
export function mailFromEnv(env: NodeJS.ProcessEnv, log: InfraLog): MailSender {
  const raw = env.MAIL_TRANSPORT;
  const value = raw?.trim() ?? '';
  // MAIL_FROM is checked whatever the transport, so a bad one is found before the day SMTP is switched on.
  mailFrom(env);
  if (value === '' || value === 'console') return new ConsoleMailSender(log);
  if (value.startsWith('file:')) {
    const dir = value.slice('file:'.length);
    if (dir.trim() === '') throw malformed('"file:" needs a directory, e.g. file:/var/lib/scanner/mail');
    if (dir.includes('\0')) throw malformed('has a NUL byte in its directory');
    return new FileMailSender(path.resolve(dir));
  }
  if (/^smtps?:\/\//i.test(value)) return smtpFromUrl(value, env);
  throw malformed(`is not understood: "${redacted(value)}"`);
}
