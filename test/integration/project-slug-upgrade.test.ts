// A DATA_DIR whose Temporal database an earlier version created (before ProjectSlug): the dev server applies its
// --search-attribute flags only when it creates the database, so startTemporal registers what is missing itself.
// Without that, the API's first workflow starts after an upgrade would be refused until the worker registered them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { freePorts, waitUntil } from '../../src/infra/ports';
import { spawnProcess } from '../../src/infra/proc';
import { startTemporal, temporalDbFile } from '../../src/infra/temporal';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';

const cli = process.env.TEMPORAL_CLI_PATH;
const d = cli ? describe : describe.skip;
const quiet = { info: () => undefined, warn: () => undefined };

async function customAttributes(address: string): Promise<string[]> {
  const connection = await Connection.connect({ address });
  try {
    const res = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
    return Object.keys(res.customAttributes ?? {}).sort();
  } finally {
    await connection.close();
  }
}

d('the Temporal dev server on a database created before ProjectSlug', () => {
  let dataDir: string;
  beforeAll(() => (dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-sa-'))));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('startTemporal adds the attributes the old database lacks', async () => {
    // The earlier version: same database file, the attributes it knew.
    const [port, uiPort] = await freePorts(2);
    const address = `127.0.0.1:${port}`;
    const old = spawnProcess({
      name: 'temporal-old',
      command: cli!,
      args: [
        'server',
        'start-dev',
        '--db-filename',
        temporalDbFile(dataDir),
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--ui-port',
        String(uiPort),
        '--headless',
        '--log-level',
        'error',
        '--search-attribute',
        'ScanId=Keyword',
        '--search-attribute',
        'ProjectId=Keyword',
      ],
      cwd: dataDir,
    });
    try {
      await waitUntil('the old dev server', async () => (await customAttributes(address)).includes('ProjectId'), {
        timeoutMs: 60_000,
        intervalMs: 250,
      });
      expect(await customAttributes(address)).not.toContain('ProjectSlug');
    } finally {
      await old.stop({ signal: 'SIGTERM', timeoutMs: 15_000 });
    }

    const upgraded = await startTemporal({ cli: cli!, dataDir, log: quiet });
    try {
      expect(await customAttributes(upgraded.address)).toEqual(expect.arrayContaining(Object.keys(SEARCH_ATTRIBUTES)));
      expect(await customAttributes(upgraded.address)).toContain('ProjectSlug');
    } finally {
      await upgraded.stop();
    }
  }, 180_000);
});
