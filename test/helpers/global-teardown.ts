// Jest globalTeardown: stops what global-setup started and removes its data. Prints nothing on success, because
// it runs after the reporters and the totals line must stay jest's last line.
import fs from 'node:fs';
import type { InfraState } from './global-setup';

const holder = globalThis as unknown as { __SCANNER_INFRA__?: InfraState };

export default async function globalTeardown(): Promise<void> {
  const state = holder.__SCANNER_INFRA__;
  if (!state) return;
  holder.__SCANNER_INFRA__ = undefined;
  await state.infra.stop();
  // Kept on request, e.g. to read the server logs in <dir>/logs after a failure.
  if (process.env.SCANNER_KEEP_TEST_DATA !== '1') fs.rmSync(state.dataDir, { recursive: true, force: true });
}
