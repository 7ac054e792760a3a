// Without the third-party data (a clone outside this setup), the tests that read it are skipped, each file saying so
// in one line, and nothing fails: one such file run by jest with SCANNER_SHARED_DATA pointing nowhere.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

test('a test file that reads the shared data skips, with one line saying which and why, when the data is absent', async () => {
  const jest = path.join(ROOT, 'node_modules/jest/bin/jest.js');
  const file = 'test/unit/domain/pypi-versions.test.ts';
  const env = { ...process.env, SCANNER_SKIP_INFRA: '1', SCANNER_SHARED_DATA: '/nonexistent/shared-data' };
  const { stdout, stderr } = await run(process.execPath, [jest, '--runTestsByPath', file], {
    cwd: ROOT,
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
  const out = stdout + stderr;
  const lines = out.split('\n').filter((l) => l.startsWith('skipped: '));
  expect(lines).toEqual([
    `skipped: ${file} needs third-party data at /nonexistent/shared-data (set SCANNER_SHARED_DATA)`,
  ]);
  expect(out).toMatch(/^0 passed, 0 failed$/m);
}, 120_000);
