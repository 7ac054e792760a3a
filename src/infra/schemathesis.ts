// Schemathesis (the contract test's OpenAPI fuzzer, test/integration/contract.test.ts), installed once like the
// Temporal CLI: pip --target into .tools/, because PyPI is the one installer these machines reach and the project
// must not depend on a system-wide Python package.
import fs from 'node:fs';
import path from 'node:path';
import { runCommand, which } from './proc';
import type { InfraLog } from './tools';

export const SCHEMATHESIS_VERSION = '4.32.5';

/** How to run it: `python -m schemathesis.cli` with `env` (PYTHONPATH pointing at the --target directory). */
export interface Schemathesis {
  python: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  version: string;
}

export async function ensureSchemathesis(root: string, log: InfraLog, install = true): Promise<Schemathesis> {
  const python = which('python3') ?? which('python');
  if (!python) throw new Error('schemathesis needs python3, which is not on PATH');
  const target = path.join(root, '.tools', 'schemathesis');
  // The dist-info directory names the installed version: a changed pin reinstalls instead of running an old copy.
  const marker = path.join(target, `schemathesis-${SCHEMATHESIS_VERSION}.dist-info`);
  if (!fs.existsSync(marker)) {
    if (!install) throw new Error(`schemathesis ${SCHEMATHESIS_VERSION} is not installed in ${target}`);
    log.info(`installing schemathesis ${SCHEMATHESIS_VERSION} into ${target} (pip, once)`);
    // --upgrade replaces an older pinned copy in place; --target keeps it out of the system's site-packages.
    await runCommand(
      'pip',
      python,
      [
        '-m',
        'pip',
        'install',
        '--quiet',
        '--disable-pip-version-check',
        '--upgrade',
        '--target',
        target,
        `schemathesis==${SCHEMATHESIS_VERSION}`,
      ],
      { timeoutMs: 10 * 60_000 },
    );
    if (!fs.existsSync(marker)) throw new Error(`pip installed schemathesis but ${marker} is missing`);
  }
  const pythonPath = [target, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter);
  return {
    python,
    args: ['-m', 'schemathesis.cli'],
    env: { ...process.env, PYTHONPATH: pythonPath },
    version: SCHEMATHESIS_VERSION,
  };
}
