// Runs the built client bundle (dist/cli/scanner.mjs, the file GET /cli/scanner.mjs serves) as CI would run it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const CLIENT_BUNDLE = path.resolve(__dirname, '../../dist/cli/scanner.mjs');

export interface ClientRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runClient(args: string[], env: Record<string, string | undefined>, cwd?: string): Promise<ClientRun> {
  if (!fs.existsSync(CLIENT_BUNDLE))
    throw new Error(`${CLIENT_BUNDLE} is not built: run npm run build (npm test does)`);
  // A clean environment: the CI variables of the machine running the tests must not leak into the metadata.
  const base = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLIENT_BUNDLE, ...args], {
      env: { ...base, ...env },
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
