import tls from 'node:tls';
import { createTransport, type Mail } from 'nodemailer';
import { checkMessage } from './message';
import type { MailMessage, MailSender } from './types';

export interface SmtpSettings {
  host: string;
  port: number;
  /** smtps://: TLS from the first byte; smtp://: plain, upgraded by STARTTLS when the server offers it. */
  secure: boolean;
  user?: string;
  pass?: string;
  from: string;
  /** How long one connection step may take before the send rejects; a dead server never hangs a request. */
  timeoutMs?: number;
  /** Extra trusted certificates (PEM), for a private CA; the system's CAs stay trusted. */
  ca?: string;
}

const DEFAULT_TIMEOUT_MS = 15_000;

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Sends through an SMTP server with nodemailer, one connection per message (sign-in mail is rare). */
export class SmtpMailSender implements MailSender {
  readonly description: string;
  private readonly transport: Mail;

  constructor(private readonly settings: SmtpSettings) {
    const { host, port, secure, user, pass, from } = settings;
    const timeout = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const scheme = secure ? 'smtps' : 'smtp';
    this.description = `${scheme}://${user !== undefined ? `${encodeURIComponent(user)}@` : ''}${host}:${port} from ${from}`;
    this.transport = createTransport({
      host,
      port,
      secure,
      // Credentials never cross the network in clear: off loopback, smtp:// with a user must upgrade by STARTTLS.
      requireTLS: !secure && user !== undefined && !isLoopback(host),
      ...(user !== undefined ? { auth: { user, pass: pass ?? '' } } : {}),
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      dnsTimeout: timeout,
      ...(settings.ca !== undefined ? { tls: { ca: [...tls.rootCertificates, settings.ca] } } : {}),
    });
  }

  async send(message: MailMessage): Promise<void> {
    const m = checkMessage(message);
    try {
      await this.transport.sendMail({ from: this.settings.from, to: m.to, subject: m.subject, text: m.text });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(
        `mail: the SMTP server ${this.settings.host}:${this.settings.port} did not take the message: ${reason}`,
        { cause: err },
      );
    }
  }
}
