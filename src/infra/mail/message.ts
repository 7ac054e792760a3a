import addressparser from 'nodemailer/lib/addressparser';
import type { MailMessage } from './types';

/**
 * One plain address (`a@b`), or undefined. Lists, groups and display names are refused: a sign-in code must reach
 * exactly the address that asked for it, never a second one slipped in with a comma or a header break.
 */
export function singleAddress(value: string): string | undefined {
  if (/[\r\n]/.test(value)) return undefined;
  const parsed = addressparser(value.trim(), { flatten: true });
  if (parsed.length !== 1) return undefined;
  const { address, name } = parsed[0];
  if (name || !/^[^@\s]+@[^@\s]+$/.test(address) || address !== value.trim()) return undefined;
  return address;
}

/** Refuses a message no sender should pass on; these are the caller's mistakes, so they throw before any I/O. */
export function checkMessage(m: MailMessage): MailMessage {
  if (typeof m.to !== 'string' || !singleAddress(m.to))
    throw new Error(`mail: "to" must be one plain address, got ${JSON.stringify(m.to)}`);
  if (typeof m.subject !== 'string' || /[\r\n]/.test(m.subject))
    throw new Error('mail: "subject" must be one line of text');
  if (typeof m.text !== 'string') throw new Error('mail: "text" must be a string');
  if (m.code !== undefined && typeof m.code !== 'string') throw new Error('mail: "code" must be a string when given');
  return { to: m.to.trim(), subject: m.subject, text: m.text, ...(m.code !== undefined ? { code: m.code } : {}) };
}
