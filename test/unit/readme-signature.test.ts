// The webhook-signature snippets of docs/integrations.md (Node and Python) are what users copy: run both, as written, against
// signatures made by the service's own signing code, and against forgeries.
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { signatureHeader } from '../../src/domain/webhooks/signature';

const readme = fs.readFileSync(path.join(__dirname, '../../docs/integrations.md'), 'utf8');

function snippet(marker: string, lang: string): string {
  const m = readme.match(new RegExp(`<!-- ${marker} -->\\n+\`\`\`${lang}\\n([\\s\\S]*?)\\n\`\`\`\\n`));
  if (!m) throw new Error(`docs/integrations.md has no ${lang} block after <!-- ${marker} -->`);
  return m[1];
}

const secret = 'svc_whs_' + 'x'.repeat(40);
const body = JSON.stringify({
  id: 'evt_1',
  type: 'scan.completed',
  createdAt: '2026-11-23T10:00:00.000Z',
  data: { scan: { id: 'scn_1', note: 'ünïcode ✓' } },
});
const now = () => Math.floor(Date.now() / 1000);

/** [header, body, expected] cases: genuine ones (made by the service's code) and forgeries. */
function cases(): Array<{ name: string; header: string; body: string; valid: boolean }> {
  const t = now();
  const genuine = signatureHeader(secret, body, t);
  const v1 = genuine.split('v1=')[1];
  return [
    { name: 'genuine', header: genuine, body, valid: true },
    { name: 'genuine, a second (rotated) v1 first', header: `t=${t},v1=${'0'.repeat(64)},v1=${v1}`, body, valid: true },
    { name: 'body changed', header: genuine, body: body.replace('scn_1', 'scn_2'), valid: false },
    { name: 'other secret', header: signatureHeader(secret + 'y', body, t), body, valid: false },
    { name: 'ten minutes old', header: signatureHeader(secret, body, t - 600), body, valid: false },
    { name: 'timestamp swapped', header: `t=${t - 1},v1=${v1}`, body, valid: false },
    { name: 'no v1', header: `t=${t}`, body, valid: false },
    { name: 'garbage', header: 'nonsense', body, valid: false },
  ];
}

test('the service signs as the README says: hex HMAC-SHA256(secret, "<t>.<raw body>")', () => {
  const t = 1_700_000_000;
  expect(signatureHeader(secret, body, t)).toBe(
    `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`,
  );
});

test('the Node snippet accepts genuine deliveries and refuses forgeries', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-node-'));
  fs.writeFileSync(path.join(dir, 'verify.mjs'), snippet('verify-node', 'js'));
  const all = cases();
  fs.writeFileSync(
    path.join(dir, 'run.mjs'),
    `import { verifySvcSignature } from './verify.mjs';\nconst cases = ${JSON.stringify(all)};\n` +
      `console.log(JSON.stringify(cases.map((c) => verifySvcSignature(${JSON.stringify(secret)}, c.header, Buffer.from(c.body, 'utf8')))));\n`,
  );
  const out = JSON.parse(execFileSync(process.execPath, [path.join(dir, 'run.mjs')], { encoding: 'utf8' }));
  expect(Object.fromEntries(all.map((c, i) => [c.name, out[i]]))).toEqual(
    Object.fromEntries(all.map((c) => [c.name, c.valid])),
  );
});

test('the Python snippet accepts genuine deliveries and refuses forgeries', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-python-'));
  const all = cases();
  fs.writeFileSync(
    path.join(dir, 'run.py'),
    snippet('verify-python', 'python') +
      `\n\nimport json, sys\ncases = json.loads(sys.stdin.read())\n` +
      `print(json.dumps([verify_svc_signature(${JSON.stringify(secret)}, c["header"], c["body"].encode("utf-8")) for c in cases]))\n`,
  );
  const out = JSON.parse(
    execFileSync('python3', [path.join(dir, 'run.py')], { input: JSON.stringify(all), encoding: 'utf8' }),
  );
  expect(Object.fromEntries(all.map((c, i) => [c.name, out[i]]))).toEqual(
    Object.fromEntries(all.map((c) => [c.name, c.valid])),
  );
});
