// Jest globalSetup: one local stack (FerretDB over PostgreSQL or mongod, Temporal dev server) for the whole run,
// handed to the test workers through environment variables (they are forked after this runs and inherit them).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalInfra, type LocalInfra } from '../../src/infra/local';
import { redactUri } from '../../src/infra/private';
import { hasSharedData, sharedDataDir } from '../../src/infra/shared-data';
import { findTemporalCli, projectRoot } from '../../src/infra/tools';

export interface InfraState {
  infra: LocalInfra;
  dataDir: string;
}
/** Jest runs globalSetup and globalTeardown in the same process: the handle passes through globalThis. */
export const holder = globalThis as unknown as { __SCANNER_INFRA__?: InfraState };

/** Quiet unless something is wrong: jest's own output (and the totals line) should stay readable. */
const log = {
  info: (msg: string) => (process.env.SCANNER_INFRA_VERBOSE ? console.log(`[infra] ${redactUri(msg)}`) : undefined),
  warn: (msg: string) => console.warn(`[infra] ${redactUri(msg)}`),
};

export default async function globalSetup(): Promise<void> {
  // Webhook secrets sealed by tests use a key of this run, never a developer's DATA_DIR/secrets.key.
  process.env.SECRETS_KEY_FILE = path.join(
    fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-test-secrets-')),
    'secrets.key',
  );
  delete process.env.SECRETS_KEY;
  // The tests that read third-party data skip themselves without it (test/helpers/shared-data.ts), one line each.
  if (!hasSharedData())
    process.stderr.write(`shared data absent at ${sharedDataDir()}: tests that read it are skipped\n`);
  if (process.env.SCANNER_SKIP_INFRA === '1') return;
  // mkdtemp makes 0700; startLocalInfra narrows or widens it to what DATA_DIR gets (0711 as root, for PostgreSQL's
  // user to pass through; see src/infra/private.ts).
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-test-'));
  // Only what the tests' own configuration says counts: a developer's MONGODB_URI must not receive test data.
  const env = {
    ...process.env,
    MONGODB_URI: process.env.SCANNER_TEST_MONGODB_URI,
    TEMPORAL_ADDRESS: process.env.SCANNER_TEST_TEMPORAL_ADDRESS,
  };
  const infra = await startLocalInfra({ dataDir, log, env, durable: false });
  holder.__SCANNER_INFRA__ = { infra, dataDir };
  // With its credentials: the test workers inherit it by environment.
  process.env.MONGODB_URI = infra.mongoUri;
  process.env.TEMPORAL_ADDRESS = infra.temporalAddress;
  if (infra.temporalUiUrl) process.env.TEMPORAL_UI_URL = infra.temporalUiUrl;
  // @temporalio/testing's TestWorkflowEnvironment.createLocal runs this binary ('existing-path') instead of
  // downloading one, which these machines cannot do.
  process.env.TEMPORAL_CLI_PATH ||= await findTemporalCli(projectRoot(), log);
  process.env.SCANNER_TEST_DATA_DIR = dataDir;
}
