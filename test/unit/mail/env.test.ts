// mailFromEnv: MAIL_TRANSPORT picks the sender (unset or console → log, file:DIR, smtp:// and smtps:// with MAIL_FROM);
// malformed values throw naming the setting and never echo a password; a URL's user and password (percent-decoded)
// are what the SMTP server sees in AUTH.
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import {
  ConsoleMailSender,
  DEFAULT_MAIL_FROM,
  FileMailSender,
  mailFromEnv,
  SmtpMailSender,
} from '../../../src/infra/mail';

const infos: string[] = [];
const log = { info: (m: string) => void infos.push(m), warn: () => undefined };
const message = { to: 'dev@example.test', subject: 'Your sign-in code', text: 'Code 12345678', code: '12345678' };

describe('mailFromEnv', () => {
  beforeEach(() => void (infos.length = 0));

  it.each([[{}], [{ MAIL_TRANSPORT: '' }], [{ MAIL_TRANSPORT: '  ' }], [{ MAIL_TRANSPORT: 'console' }]])(
    'console for %j',
    async (env) => {
      const sender = mailFromEnv(env, log);
      expect(sender).toBeInstanceOf(ConsoleMailSender);
      await sender.send(message);
      expect(infos).toHaveLength(1);
      expect(infos[0]).toContain('12345678');
    },
  );

  it('file:DIR writes into that directory, a relative one resolved against the working directory', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mail-env-'));
    try {
      const sender = mailFromEnv({ MAIL_TRANSPORT: `file:${dir}` }, log);
      expect(sender).toBeInstanceOf(FileMailSender);
      await sender.send(message);
      const files = fs.readdirSync(dir);
      expect(files).toHaveLength(1);
      expect(JSON.parse(fs.readFileSync(path.join(dir, files[0]), 'utf8'))).toEqual({ ...message });
      expect((mailFromEnv({ MAIL_TRANSPORT: 'file:rel/mail' }, log) as FileMailSender).dir).toBe(
        path.resolve('rel/mail'),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['smtp://mail.example.test', 'smtp://mail.example.test:587 from scanner@localhost'],
    ['smtps://mail.example.test', 'smtps://mail.example.test:465 from scanner@localhost'],
    ['smtp://relay:2525/', 'smtp://relay:2525 from scanner@localhost'],
    ['SMTP://u%40x:secret@[::1]:25', 'smtp://u%40x@::1:25 from scanner@localhost'],
  ])('%s is an SMTP sender', (value, description) => {
    const sender = mailFromEnv({ MAIL_TRANSPORT: value }, log);
    expect(sender).toBeInstanceOf(SmtpMailSender);
    expect(sender.description).toBe(description);
  });

  it('MAIL_FROM sets the sender, scanner@localhost by default', () => {
    expect(DEFAULT_MAIL_FROM).toBe('scanner@localhost');
    expect(mailFromEnv({ MAIL_TRANSPORT: 'smtp://relay', MAIL_FROM: 'noreply@scanner.test' }, log).description).toBe(
      'smtp://relay:587 from noreply@scanner.test',
    );
    expect(mailFromEnv({ MAIL_TRANSPORT: 'smtp://relay', MAIL_FROM: '' }, log).description).toBe(
      'smtp://relay:587 from scanner@localhost',
    );
  });

  it.each([
    ['file:', /^MAIL_TRANSPORT "file:" needs a directory/],
    ['file:   ', /^MAIL_TRANSPORT "file:" needs a directory/],
    ['files:/tmp', /^MAIL_TRANSPORT is not understood: "files:\/tmp"/],
    ['Console', /^MAIL_TRANSPORT is not understood/],
    ['smtp:relay', /^MAIL_TRANSPORT is not understood/],
    ['http://relay', /^MAIL_TRANSPORT is not understood/],
    ['smtp://', /^MAIL_TRANSPORT (is not a valid URL|has no host)/],
    ['smtp://relay:99999', /^MAIL_TRANSPORT is not a valid URL/],
    ['smtp://relay:0', /^MAIL_TRANSPORT has port 0/],
    ['smtp://relay/path', /^MAIL_TRANSPORT must not have a path/],
    ['smtp://relay?secure=false', /^MAIL_TRANSPORT must not have a query or fragment/],
    ['smtp://relay#x', /^MAIL_TRANSPORT must not have a query or fragment/],
    ['smtp://:secret@relay', /^MAIL_TRANSPORT has a password without a user/],
    ['smtp://u:%E0%A4%A@relay', /^MAIL_TRANSPORT has a badly percent-encoded user or password/],
  ])('%j throws naming MAIL_TRANSPORT', (value, expected) => {
    expect(() => mailFromEnv({ MAIL_TRANSPORT: value }, log)).toThrow(expected);
    expect(() => mailFromEnv({ MAIL_TRANSPORT: value }, log)).toThrow(/expected "console", "file:<directory>"/);
  });

  it('never puts the password of a malformed URL in the error', () => {
    for (const value of [
      'smtp://mailer:hunter2@relay/path',
      'smtp://mailer:hunter2@relay:99999',
      'smtps://mailer:hunter2@relay?x=1',
      'smtp://mailer:hun/ter2@relay',
      'smtp://mailer:hun@ter2@relay/x',
      'smtq://mailer:hunter2@relay',
    ]) {
      let message = '';
      try {
        mailFromEnv({ MAIL_TRANSPORT: value }, log);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/^MAIL_TRANSPORT /);
      expect(message).not.toMatch(/hunter2|ter2/);
      expect(message).toContain('mailer:***@relay');
    }
  });

  it.each(['scanner', 'a@b, c@d', 'Scanner <scanner@x.test>', 'a@b\r\nBcc: c@d'])(
    'MAIL_FROM %j throws naming MAIL_FROM, whatever the transport',
    (from) => {
      for (const transport of ['console', 'smtp://relay']) {
        expect(() => mailFromEnv({ MAIL_TRANSPORT: transport, MAIL_FROM: from }, log)).toThrow(
          /^MAIL_FROM must be one plain address/,
        );
      }
    },
  );

  it('uses the URL user and percent-decoded password for AUTH', async () => {
    const seen: Array<[string | undefined, string | null | undefined]> = [];
    const server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _s, cb) {
        seen.push([auth.username, auth.password]);
        cb(null, { user: auth.username });
      },
      onData(stream, _s, cb) {
        stream.resume();
        stream.on('end', () => cb());
      },
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.server.address() as AddressInfo).port;
      await mailFromEnv({ MAIL_TRANSPORT: `smtp://mail%40er:p%40ss%3Aw%2Frd@127.0.0.1:${port}` }, log).send(message);
      expect(seen).toEqual([['mail@er', 'p@ss:w/rd']]);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
