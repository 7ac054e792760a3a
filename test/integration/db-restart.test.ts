// The database restarts under a stream of uploads: every upload answered 201 ends completed or failed with a reason,
// requests that meet the outage get 503 service_unavailable (never a 500), and nothing stored is lost. Runs on a
// FerretDB of its own (SQLite, same port and data directory across the restart): the shared one stays untouched.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from '@temporalio/worker';
import { startFerretDB, type FerretDBHandle } from '../../src/infra/ferretdb';
import { ensureTools } from '../../src/infra/tools';
import { createLogger } from '../../src/logger';
import { createScanWorker } from '../../workers/worker';
import { installRuntime } from '../../workers/runtime';
import { bearer, newOrg, requireEnv, testContext, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

const quiet = { info: () => undefined, warn: () => undefined };
let binary: string | undefined;
let dataDir: string;
let ferret: FerretDBHandle;
let t: TestContext;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  installRuntime('error');
  binary = (await ensureTools(quiet, { temporal: false, mongo: true })).ferretdb;
  if (!binary) return;
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'db-restart-'));
  ferret = await startFerretDB({ binary, dataDir, log: quiet });
  t = await testContext({ mongoUri: ferret.uri });
  const w = await createScanWorker({ store: t.store, logger: createLogger('worker', 'silent'), temporalAddress: requireEnv('TEMPORAL_ADDRESS'), namespace: 'default', taskQueue: t.taskQueue });
  worker = w.worker;
  running = worker.run();
}, 180_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await t?.close();
  await ferret?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

test('every upload answered 201 ends completed or failed with a reason across a database restart', async () => {
  if (!binary) return console.warn('no FerretDB binary (a real mongod is in use): database restart test not run');
  const org = await newOrg(t.store);
  const key = await org.key(['sca:upload', 'scans:read']);
  const accepted: string[] = [];
  const refused: Array<{ status: number; body: any }> = [];
  let n = 0;
  const uploadOne = async () => {
    const res = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(v1Snapshot(`restart-${n++ % 3}`));
    if (res.status === 201) accepted.push(res.body.id);
    else refused.push({ status: res.status, body: res.body });
  };
  const stream = async (ms: number) => {
    const until = Date.now() + ms;
    while (Date.now() < until) await Promise.all([uploadOne(), uploadOne()]);
  };
  await stream(1500);
  const before = accepted.length;
  // Restart the database under the stream: stop it, keep uploading for a moment, start it again on the same port.
  const during = stream(2500);
  await new Promise((r) => setTimeout(r, 300));
  await ferret.stop();
  await new Promise((r) => setTimeout(r, 1500));
  ferret = await startFerretDB({ binary, dataDir, log: quiet, port: ferret.port });
  await during;
  await stream(1500);
  expect(before).toBeGreaterThan(0);
  expect(accepted.length).toBeGreaterThan(before); // uploads are accepted again after the restart
  // Requests that met the outage were refused with the spec's envelope, never a 500.
  for (const r of refused) expect([r.status, r.body.error?.code, r.body.error?.message]).toEqual([503, 'service_unavailable', expect.any(String)]);

  const terminal = new Map<string, { status: string; failureReason: string | null }>();
  const deadline = Date.now() + 90_000;
  while (terminal.size < accepted.length && Date.now() < deadline) {
    for (const id of accepted) {
      if (terminal.has(id)) continue;
      const res = await t.api.get(`/v1/scans/${id}`).set(bearer(key));
      if (res.status === 200 && (res.body.status === 'completed' || res.body.status === 'failed')) terminal.set(id, res.body);
    }
    if (terminal.size < accepted.length) await new Promise((r) => setTimeout(r, 250));
  }
  expect(accepted.filter((id) => !terminal.has(id))).toEqual([]);
  for (const s of terminal.values()) if (s.status === 'failed') expect(s.failureReason).not.toBeNull();
  // Nothing stored was lost: every accepted scan is still listed.
  const listed = new Set<string>();
  let cursor: string | null = null;
  do {
    const page: any = await t.api.get(`/v1/scans?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`).set(bearer(key));
    for (const s of page.body.scans) listed.add(s.id);
    cursor = page.body.nextCursor;
  } while (cursor);
  expect(accepted.filter((id) => !listed.has(id))).toEqual([]);
  console.log(`db restart: ${accepted.length} accepted (${before} before the stop), ${refused.length} refused with 503, ${[...terminal.values()].filter((s) => s.status === 'completed').length} completed`);
}, 180_000);
