// <DATA_DIR>/runtime.json: where a running `npm start` put things, so `npm run api`/`worker` and the CLI find them.
import fs from 'node:fs';
import path from 'node:path';
import { writePrivateFile } from './private';

export interface RuntimeInfo {
  apiUrl: string;
  temporalUiUrl: string | undefined;
  temporalAddress: string;
  /** With its credentials: the file is 0600, for the user who ran `npm start` (and root) only. */
  mongoUri: string;
  /** The `npm start` supervisor's pid: a second start on the same DATA_DIR checks it is gone. */
  pid: number;
  startedAt: string;
}

export function runtimeFile(dataDir: string): string {
  return path.join(dataDir, 'runtime.json');
}

export function readRuntime(dataDir: string): RuntimeInfo | undefined {
  try {
    return JSON.parse(fs.readFileSync(runtimeFile(dataDir), 'utf8')) as RuntimeInfo;
  } catch {
    return undefined;
  }
}

/** Written whole then renamed, so a reader never sees half a file; 0600 from its creation (it holds the password). */
export function writeRuntime(dataDir: string, info: RuntimeInfo): void {
  writePrivateFile(runtimeFile(dataDir), JSON.stringify(info, null, 2) + '\n');
}

/** Only removes the file if it is still ours: a newer supervisor may have replaced it. */
export function removeRuntime(dataDir: string, pid = process.pid): void {
  if (readRuntime(dataDir)?.pid === pid) fs.rmSync(runtimeFile(dataDir), { force: true });
}
