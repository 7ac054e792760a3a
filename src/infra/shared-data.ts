// Third-party data the tests and benchmarks read but the repository does not hold: real OSV advisories, version-order
// fixtures, lockfiles of public projects and official JSON Schemas. It lives in one folder outside the clone, named by
// SCANNER_SHARED_DATA, by default `data` in a `shared` folder beside the project's folder (docs/development.md).
// Where it is absent, what needs it is skipped (test/helpers/shared-data.ts, bench/run.ts); nothing the service runs
// reads it.
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from './tools';

/** The folder of third-party data: SCANNER_SHARED_DATA, else `data` in a `shared` folder beside the project root. */
export function sharedDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.SCANNER_SHARED_DATA;
  if (fromEnv) return path.resolve(fromEnv);
  return path.resolve(projectRoot(__dirname), '../shared/data');
}

/** Whether that folder is there (a directory). */
export function hasSharedData(env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    return fs.statSync(sharedDataDir(env)).isDirectory();
  } catch {
    return false;
  }
}

/** A path inside that folder, e.g. sharedDataPath('advisories', 'npm'). Not checked: it may not exist. */
export function sharedDataPath(...parts: string[]): string {
  return path.join(sharedDataDir(), ...parts);
}
