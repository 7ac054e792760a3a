import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { checkMessage } from './message';
import type { MailMessage, MailSender } from './types';

/**
 * Writes one JSON file per message, `{to, subject, text, code}`, into a directory (used by tests). Each file is
 * written under a hidden temporary name and renamed into place, so a reader listing `*.json` never sees half of one.
 * Names sort by the time of sending; the random part keeps concurrent senders (several processes) apart.
 */
export class FileMailSender implements MailSender {
  readonly description: string;
  private seq = 0;
  private lastMs = 0;

  constructor(readonly dir: string) {
    this.description = `file:${dir}`;
  }

  async send(message: MailMessage): Promise<void> {
    const m = checkMessage(message);
    // Named before any await, so one sender's files sort in the order send() was called (a clock step back too).
    this.lastMs = Math.max(this.lastMs, Date.now());
    const name = `${String(this.lastMs).padStart(15, '0')}-${String(this.seq++).padStart(9, '0')}-${randomUUID()}.json`;
    // The files hold live sign-in codes: readable by the service's user only.
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const tmp = path.join(this.dir, `.${name}.tmp`);
    const body = JSON.stringify({ to: m.to, subject: m.subject, text: m.text, code: m.code ?? null }, null, 2) + '\n';
    try {
      await writeFile(tmp, body, { mode: 0o600, flag: 'wx' });
      await rename(tmp, path.join(this.dir, name));
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }
}
