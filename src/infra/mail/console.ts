import type { InfraLog } from '../tools';
import { checkMessage } from './message';
import type { MailMessage, MailSender } from './types';

/** Prints each message, code included, to the log: the default under `npm start`, where no mail server exists. */
export class ConsoleMailSender implements MailSender {
  readonly description = 'console (messages are printed to the log)';

  constructor(private readonly log: InfraLog) {}

  async send(message: MailMessage): Promise<void> {
    const m = checkMessage(message);
    const code = m.code !== undefined ? ` code ${m.code}` : '';
    this.log.info(`mail to ${m.to}: ${JSON.stringify(m.subject)}${code}\n${m.text}`);
  }
}
