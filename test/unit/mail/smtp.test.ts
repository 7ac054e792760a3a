// The SMTP sender against smtp-server instances this test starts on 127.0.0.1 (no traffic leaves loopback): the
// message arrives with its envelope, From, To, Subject and the text with the code; AUTH uses the user and password
// given; STARTTLS and smtps:// are verified against a certificate made here; a refused connection, a silent server and
// a server that rejects the recipient all reject with a clear message, never with the password.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { SmtpMailSender, type SmtpSettings } from '../../../src/infra/mail/smtp';

interface Received {
  mailFrom: string | false;
  rcptTo: string[];
  user?: string;
  secure: boolean;
  raw: Buffer;
}

interface TestSmtp {
  port: number;
  received: Received[];
  close(): Promise<void>;
}

async function startSmtp(options: SMTPServerOptions = {}): Promise<TestSmtp> {
  const received: Received[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    ...options,
    onData(stream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          mailFrom: session.envelope.mailFrom && session.envelope.mailFrom.address,
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
          secure: session.secure,
          raw: Buffer.concat(chunks),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const message = {
  to: 'dev@example.test',
  subject: 'Your sign-in code',
  text: 'Your code is 12345678. It expires in 10 minutes.',
  code: '12345678',
};
const base = (port: number, extra: Partial<SmtpSettings> = {}): SmtpSettings => ({
  host: '127.0.0.1',
  port,
  secure: false,
  from: 'scanner@localhost',
  timeoutMs: 5000,
  ...extra,
});

let certDir: string;
let key: string;
let cert: string;
beforeAll(() => {
  certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'smtp-test-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      path.join(certDir, 'key.pem'),
      '-out',
      path.join(certDir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'pipe' },
  );
  key = fs.readFileSync(path.join(certDir, 'key.pem'), 'utf8');
  cert = fs.readFileSync(path.join(certDir, 'cert.pem'), 'utf8');
});
afterAll(() => fs.rmSync(certDir, { recursive: true, force: true }));

describe('SmtpMailSender', () => {
  it('delivers the message: envelope, From, To, Subject, and the text with the code', async () => {
    const smtp = await startSmtp();
    try {
      await new SmtpMailSender(base(smtp.port, { from: 'noreply@scanner.test' })).send(message);
      expect(smtp.received).toHaveLength(1);
      const [got] = smtp.received;
      expect(got.mailFrom).toBe('noreply@scanner.test');
      expect(got.rcptTo).toEqual(['dev@example.test']);
      expect(got.user).toBeUndefined();
      const parsed = await simpleParser(got.raw);
      expect(parsed.from?.value).toEqual([{ address: 'noreply@scanner.test', name: '' }]);
      expect(Array.isArray(parsed.to) ? undefined : parsed.to?.value).toEqual([
        { address: 'dev@example.test', name: '' },
      ]);
      expect(parsed.subject).toBe('Your sign-in code');
      expect(parsed.text?.trim()).toBe('Your code is 12345678. It expires in 10 minutes.');
      expect(parsed.html).toBe(false);
    } finally {
      await smtp.close();
    }
  });

  it('authenticates with the user and password given', async () => {
    const seen: Array<{ username?: string; password?: string | null }> = [];
    const smtp = await startSmtp({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        seen.push({ username: auth.username, password: auth.password });
        if (auth.username === 'mailer' && auth.password === 'p@ss:w/rd') callback(null, { user: 'mailer' });
        else callback(new Error('Invalid username or password'));
      },
    });
    try {
      await new SmtpMailSender(base(smtp.port, { user: 'mailer', pass: 'p@ss:w/rd' })).send(message);
      expect(seen).toEqual([{ username: 'mailer', password: 'p@ss:w/rd' }]);
      expect(smtp.received.map((r) => r.user)).toEqual(['mailer']);

      const wrong = new SmtpMailSender(base(smtp.port, { user: 'mailer', pass: 'wrong-secret' })).send(message);
      await expect(wrong).rejects.toThrow(
        /^mail: the SMTP server 127\.0\.0\.1:\d+ did not take the message: .*Invalid username or password/,
      );
      await wrong.catch((err: Error) => expect(err.message).not.toContain('wrong-secret'));
      expect(smtp.received).toHaveLength(1);
    } finally {
      await smtp.close();
    }
  });

  it('is refused by a server that requires AUTH when no user is given', async () => {
    const smtp = await startSmtp({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth: (_a, _s, cb) => cb(new Error('no')),
    });
    try {
      await expect(new SmtpMailSender(base(smtp.port)).send(message)).rejects.toThrow(
        /^mail: the SMTP server 127\.0\.0\.1:\d+ did not take the message/,
      );
      expect(smtp.received).toEqual([]);
    } finally {
      await smtp.close();
    }
  });

  it('upgrades smtp:// by STARTTLS when offered, verifying the certificate', async () => {
    const smtp = await startSmtp({ disabledCommands: [], key, cert });
    try {
      await new SmtpMailSender(base(smtp.port, { ca: cert })).send(message);
      expect(smtp.received.map((r) => r.secure)).toEqual([true]);
      // Without the CA the certificate is not trusted: the send fails rather than going on in clear.
      await expect(new SmtpMailSender(base(smtp.port)).send(message)).rejects.toThrow(
        /did not take the message: .*certificate/i,
      );
      expect(smtp.received).toHaveLength(1);
    } finally {
      await smtp.close();
    }
  });

  it('speaks TLS from the first byte for smtps://', async () => {
    const smtp = await startSmtp({ secure: true, key, cert });
    try {
      await new SmtpMailSender(base(smtp.port, { secure: true, ca: cert })).send(message);
      expect(smtp.received.map((r) => [r.secure, r.rcptTo])).toEqual([[true, ['dev@example.test']]]);
    } finally {
      await smtp.close();
    }
  });

  it('rejects the recipient the server refuses', async () => {
    const smtp = await startSmtp({ onRcptTo: (_a, _s, cb) => cb(new Error('No such user here')) });
    try {
      await expect(new SmtpMailSender(base(smtp.port)).send(message)).rejects.toThrow(
        /did not take the message: .*No such user here/,
      );
      expect(smtp.received).toEqual([]);
    } finally {
      await smtp.close();
    }
  });

  it('rejects with a clear message when nothing listens', async () => {
    // A port that was just free: bound then released, so the connection is refused.
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    await expect(new SmtpMailSender(base(port)).send(message)).rejects.toThrow(
      new RegExp(`^mail: the SMTP server 127\\.0\\.0\\.1:${port} did not take the message: .*ECONNREFUSED`),
    );
  });

  it('gives up on a server that accepts the connection but never greets', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    try {
      await expect(new SmtpMailSender(base(port, { timeoutMs: 300 })).send(message)).rejects.toThrow(
        /did not take the message: .*(greeting|timeout)/i,
      );
      expect(sockets.length).toBe(1);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('refuses a bad message before connecting', async () => {
    let connections = 0;
    const counter = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => counter.listen(0, '127.0.0.1', r));
    try {
      const port = (counter.address() as AddressInfo).port;
      await expect(
        new SmtpMailSender(base(port)).send({ ...message, to: 'dev@example.test, thief@evil.test' }),
      ).rejects.toThrow(/"to" must be one plain address/);
      expect(connections).toBe(0);
    } finally {
      await new Promise<void>((r) => counter.close(() => r()));
    }
  });

  it('describes itself without the password', () => {
    const s = new SmtpMailSender(base(2525, { user: 'mailer', pass: 'hunter2' }));
    expect(s.description).toBe('smtp://mailer@127.0.0.1:2525 from scanner@localhost');
  });
});
