/** One outgoing message: a plain-text mail to a single recipient. `code` is the one-time code it carries, if any. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  code?: string;
}

/** Where sign-in codes and invitations go out: chosen by MAIL_TRANSPORT. */
export interface MailSender {
  /** Resolves once the message is handed over (logged, written, or accepted by the SMTP server); rejects otherwise. */
  send(m: MailMessage): Promise<void>;
  /** What the sender is, for the start log: never includes a password. */
  readonly description: string;
}
