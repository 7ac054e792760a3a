// Formatting is prettier's (.prettierrc.json: line width 120), checked on every `npm test`, so CI fails on a file
// that `npm run format` would change. .prettierignore lists what is kept as it is (fixtures, patches, built output).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

test('every source, test, doc and configuration file is formatted as `npm run format` leaves it', async () => {
  const bin = path.join(ROOT, 'node_modules/prettier/bin/prettier.cjs');
  // The tracked files (what other tests write into the tree while this one runs is not looked at); prettier still
  // skips what .prettierignore lists and what it cannot format.
  const tracked = (await run('git', ['ls-files', '-z'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 })).stdout
    .split('\0')
    .filter(Boolean);
  expect(tracked.length).toBeGreaterThan(100);
  try {
    await run(process.execPath, [bin, '--list-different', '--ignore-unknown', ...tracked], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    const files = (e.stdout ?? '').trim();
    throw new Error(`not formatted (run npm run format):\n${files}${e.stderr ? `\n${e.stderr}` : ''}`);
  }
}, 120_000);
