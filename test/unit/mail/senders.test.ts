// The console and file senders: the log receives the message with its code; file:DIR writes one complete JSON file
// per message ({to, subject, text, code}), never a temporary one, and many messages never overwrite each other.
// Messages that would reach a second recipient or break a header are refused before any output.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConsoleMailSender } from '../../../src/infra/mail/console';
import { FileMailSender } from '../../../src/infra/mail/file';
import { singleAddress } from '../../../src/infra/mail/message';

function recordingLog() {
  const infos: string[] = [];
  const warns: string[] = [];
  return { infos, warns, log: { info: (m: string) => void infos.push(m), warn: (m: string) => void warns.push(m) } };
}

const message = {
  to: 'dev@example.test',
  subject: 'Your sign-in code',
  text: 'Your code is 12345678. It expires in 10 minutes.',
  code: '12345678',
};

describe('ConsoleMailSender', () => {
  it('logs the recipient, subject, code and text', async () => {
    const { infos, log } = recordingLog();
    await new ConsoleMailSender(log).send(message);
    expect(infos).toHaveLength(1);
    expect(infos[0]).toContain('dev@example.test');
    expect(infos[0]).toContain('"Your sign-in code"');
    expect(infos[0]).toContain('code 12345678');
    expect(infos[0]).toContain('Your code is 12345678. It expires in 10 minutes.');
  });

  it('logs a message without a code', async () => {
    const { infos, log } = recordingLog();
    await new ConsoleMailSender(log).send({ to: 'a@b.test', subject: 'Invitation', text: 'Join us' });
    expect(infos).toHaveLength(1);
    expect(infos[0]).not.toContain('code');
    expect(infos[0]).toContain('Join us');
  });

  it.each([
    ['two recipients', { ...message, to: 'dev@example.test, thief@evil.test' }],
    ['a header break in to', { ...message, to: 'dev@example.test\r\nBcc: thief@evil.test' }],
    ['a display name', { ...message, to: 'Dev <dev@example.test>' }],
    ['no address at all', { ...message, to: 'dev' }],
    ['a header break in the subject', { ...message, subject: 'Hi\r\nBcc: thief@evil.test' }],
  ])('refuses %s and logs nothing', async (_name, bad) => {
    const { infos, log } = recordingLog();
    await expect(new ConsoleMailSender(log).send(bad)).rejects.toThrow(/^mail: /);
    expect(infos).toEqual([]);
  });
});

describe('singleAddress', () => {
  it('accepts one plain address and nothing else', () => {
    expect(singleAddress('dev@example.test')).toBe('dev@example.test');
    expect(singleAddress(' dev@example.test ')).toBe('dev@example.test');
    for (const bad of ['', 'dev', '@', 'a@b, c@d', 'A <a@b>', 'g: a@b;', 'a@b\nc', 'a b@c', '"a"@b <x@y>'])
      expect(singleAddress(bad)).toBeUndefined();
  });
});

describe('FileMailSender', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'mail-test-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const read = (dir: string) =>
    fs
      .readdirSync(dir)
      .sort()
      .map((f) => ({ f, body: JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) }));

  it('writes one JSON file {to, subject, text, code}, creating the directory', async () => {
    const dir = path.join(root, 'nested', 'mail');
    await new FileMailSender(dir).send(message);
    const files = read(dir);
    expect(files).toHaveLength(1);
    expect(files[0].f).toMatch(/^[^.].*\.json$/);
    expect(files[0].body).toEqual({
      to: 'dev@example.test',
      subject: 'Your sign-in code',
      text: message.text,
      code: '12345678',
    });
    expect(fs.statSync(path.join(dir, files[0].f)).mode & 0o077).toBe(0);
  });

  it('writes code null when the message has none', async () => {
    await new FileMailSender(root).send({ to: 'a@b.test', subject: 'Invitation', text: 'Join us' });
    expect(read(root)[0].body).toEqual({ to: 'a@b.test', subject: 'Invitation', text: 'Join us', code: null });
  });

  it('keeps every message of many, sent at once and by two senders on one directory, in sending order per sender', async () => {
    const a = new FileMailSender(root);
    const b = new FileMailSender(root);
    const sends = [];
    for (let i = 0; i < 25; i++) {
      sends.push(a.send({ ...message, code: `a${i}` }));
      sends.push(b.send({ ...message, code: `b${i}` }));
    }
    await Promise.all(sends);
    const files = read(root);
    expect(files).toHaveLength(50);
    expect(files.every(({ f }) => f.endsWith('.json') && !f.startsWith('.'))).toBe(true);
    const codes = files.map(({ body }) => body.code as string);
    expect(new Set(codes).size).toBe(50);
    for (const who of ['a', 'b']) {
      const mine = codes.filter((c) => c.startsWith(who));
      expect(mine).toEqual(Array.from({ length: 25 }, (_, i) => `${who}${i}`));
    }
  });

  it('rejects, leaving nothing behind, when the directory cannot be made', async () => {
    const blocker = path.join(root, 'file');
    fs.writeFileSync(blocker, 'not a directory');
    await expect(new FileMailSender(path.join(blocker, 'mail')).send(message)).rejects.toThrow();
    expect(fs.readdirSync(root)).toEqual(['file']);
  });

  it('refuses a bad message before writing anything', async () => {
    await expect(new FileMailSender(root).send({ ...message, to: 'a@b.test, c@d.test' })).rejects.toThrow(
      /"to" must be one plain address/,
    );
    expect(fs.readdirSync(root)).toEqual([]);
  });
});
