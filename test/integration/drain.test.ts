// SIGTERM drains: the API stops accepting connections, lets the requests in flight finish with their normal answers
// (bounded by a grace period, then cut), answers ?wait= long-polls at once, and exits 0. Tested in-process on a real
// http.Server, and on the real API process (dist/src/main.js) with an upload whose body is still arriving.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { closableWaiter, drainHttpServer } from '../../src/main';
import { freePort } from '../../src/infra/ports';
import { spawnProcess } from '../../src/infra/proc';
import { projectRoot } from '../../src/infra/tools';
import { connectStore, ensureIndexes } from '../../src/storage/mongo';
import { getScan } from '../../src/storage/scans';
import { syntheticSnapshot } from '../../src/domain/snapshot/synthetic';
import { createLogger } from '../../src/logger';
import { attributionPool, type ShardRunner } from '../../src/pool/attribution-pool';
import { createScanWorker } from '../../workers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { bearer, newOrg, requireEnv, testContext, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

/** Whether a new TCP connection is accepted (a closed listener refuses it). */
function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

async function until(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function get(port: number, agent?: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ port, host: '127.0.0.1', path: '/', agent }, (res) => {
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (c) => (body += c))
          .on('end', () => resolve({ status: res.statusCode!, body }));
      })
      .once('error', reject);
  });
}

describe('drainHttpServer', () => {
  let release: () => void;
  let started: Promise<void>;
  let server: http.Server;
  let port: number;
  beforeEach(async () => {
    let onStart!: () => void;
    started = new Promise((r) => (onStart = r));
    const gate = new Promise<void>((r) => (release = r));
    server = http.createServer((req, res) => {
      onStart();
      void gate.then(() => res.end('slow answer'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as net.AddressInfo).port;
  });
  afterEach(() => {
    release();
    server.closeAllConnections();
  });

  test('a request in flight finishes with its answer; new connections are refused meanwhile', async () => {
    // An idle kept-alive connection must not hold the drain either.
    const agent = new http.Agent({ keepAlive: true });
    const inFlight = get(port, agent);
    await started;
    const drained = drainHttpServer(server, 30_000);
    expect(await connects(port)).toBe(false);
    release();
    expect(await inFlight).toEqual({ status: 200, body: 'slow answer' });
    expect(await drained).toEqual({ forced: false });
    agent.destroy();
  });

  test('past the grace period what is left is cut', async () => {
    const inFlight = get(port).then(
      () => 'answered',
      () => 'cut',
    );
    await started;
    expect(await drainHttpServer(server, 200)).toEqual({ forced: true });
    expect(await inFlight).toBe('cut');
  });
});

test('closableWaiter: close() ends pending waits and answers later ones at once', async () => {
  const ended: string[] = [];
  const inner = {
    until: (scanId: string) => new Promise<void>((r) => pending.push(() => (ended.push(scanId), r()))),
    close: () => pending.splice(0).forEach((f) => f()),
  };
  const pending: Array<() => void> = [];
  const w = closableWaiter(inner);
  const first = w.until('scn_a', 60_000);
  w.close();
  await first;
  await w.until('scn_b', 60_000); // would hang without the closed flag: inner never answers it
  expect(ended).toEqual(['scn_a']);
});

/** dist/src/main.js at least as new as the sources it is built from (npm test builds first). */
function distFresh(): boolean {
  const root = projectRoot();
  return ['src/main.ts', 'src/metrics/server.ts', 'src/http/app.ts'].every((f) => {
    const js = path.join(root, 'dist', f.replace(/\.ts$/, '.js'));
    return fs.existsSync(js) && fs.statSync(js).mtimeMs >= fs.statSync(path.join(root, f)).mtimeMs;
  });
}

test('the API process: SIGTERM while an upload is still arriving; the upload is answered 201, then it exits 0', async () => {
  if (!distFresh()) {
    console.warn(
      'dist/ is older than the sources (npm test builds first; run `npm run build`): the API process drain is not tested',
    );
    return;
  }
  const dbName = `t_${randomBytes(6).toString('hex')}`;
  const store = await connectStore(requireEnv('MONGODB_URI'), dbName);
  await ensureIndexes(store);
  const org = await newOrg(store);
  const key = await org.key(['sca:upload', 'scans:read']);
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-drain-'));
  const output: string[] = [];
  const api = spawnProcess({
    name: 'api',
    command: process.execPath,
    args: [path.join(projectRoot(), 'dist', 'src', 'main.js'), 'api'],
    cwd: projectRoot(),
    onLine: (l) => output.push(l),
    env: {
      ...process.env,
      MONGODB_URI: requireEnv('MONGODB_URI'),
      MONGODB_DB: dbName,
      TEMPORAL_ADDRESS: requireEnv('TEMPORAL_ADDRESS'),
      TEMPORAL_TASK_QUEUE: `tq-${randomBytes(6).toString('hex')}`, // no worker: the scan stays queued
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
    },
  });
  try {
    await api.waitForLine(/API listening on/, 60_000);
    const body = Buffer.from(JSON.stringify(v1Snapshot('drain')));
    const half = Math.floor(body.length / 2);
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/v1/scans/dependency-snapshots',
      headers: {
        ...bearer(key),
        'Content-Type': 'application/json',
        'Content-Length': body.length,
        Expect: '100-continue',
      },
    });
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.once('response', (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (c) => (text += c))
          .on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.once('error', reject);
    });
    // 100 Continue: the API has accepted the connection and read the headers; the request is in flight.
    await new Promise<void>((resolve) => req.once('continue', resolve));
    req.write(body.subarray(0, half));
    api.child.kill('SIGTERM');
    await until(async () => !(await connects(port)), 'the API to stop accepting connections');
    req.end(body.subarray(half));
    const res = await answered;
    expect(res.status).toBe(201);
    const scan = JSON.parse(res.body) as { id: string; status: string };
    expect(scan.status).toBe('queued');
    expect((await api.exited).code).toBe(0);
    expect((await getScan(store, scan.id))?.projectId).toBeDefined(); // stored, not half-done
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- API output ---\n${output.join('\n')}`);
  } finally {
    if (api.isRunning()) await api.stop({ signal: 'SIGKILL' });
    await store.db.dropDatabase().catch(() => undefined);
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

describe('the worker', () => {
  let t: TestContext;
  beforeAll(async () => {
    installRuntime('error');
    t = await testContext(); // no worker polls its task queue until the test starts one
  });
  afterAll(() => t.close());

  test('shutdown() lets a running activity finish (not cancelled, not retried); another worker completes the scan', async () => {
    const org = await newOrg(t.store);
    const key = await org.key(['sca:upload', 'scans:read']);
    // Past the small-snapshot fast path: prepare, match, derivePaths (on the pool), publish.
    const snapshot = syntheticSnapshot({
      schemaVersion: 2,
      nodes: 2500,
      roots: 20,
      packagesPerRoot: 20,
      depsPerNode: 2,
      rootDeps: 2,
      project: 'drain',
    });
    const up = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(snapshot);
    expect(up.status).toBe(201);
    const scanId = up.body.id as string;

    // The attribution pool held at a gate: derivePaths is in flight until the test opens it. While held it heeds the
    // activity's cancellation, as a cancellation-aware activity does: shutdown cancels running activities once the
    // grace time is over (at once with Temporal's default of 0), which would fail this attempt.
    const pool = attributionPool(1);
    let entered!: () => void;
    const inFlight = new Promise<void>((r) => (entered = r));
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const gated: ShardRunner = {
      threads: pool.threads,
      run: async (batch, signal) => {
        entered();
        const cancel = Context.current().cancellationSignal;
        await new Promise<void>((resolve, reject) => {
          void gate.then(resolve);
          cancel.addEventListener('abort', () => reject(new Error('activity cancelled by the worker shutdown')), {
            once: true,
          });
        });
        return pool.run(batch, signal);
      },
      close: () => pool.close(),
    };
    const logger = createLogger('worker', 'silent');
    const first = await createScanWorker({
      store: t.store,
      logger,
      temporalAddress: requireEnv('TEMPORAL_ADDRESS'),
      namespace: 'default',
      taskQueue: t.taskQueue,
      shards: gated,
    });
    expect(first.worker.options.shutdownGraceTimeMs).toBe(30_000);
    const running = first.worker.run();
    let stateAfterShutdown: string | undefined;
    try {
      await inFlight;
      first.worker.shutdown();
      stateAfterShutdown = first.worker.getState();
      // Held a while into the shutdown: long enough for a cancellation to arrive were the grace time 0, far below 30 s.
      await new Promise((r) => setTimeout(r, 1500));
      open();
      await running; // returns once the activity has finished and reported
    } finally {
      open();
      if (first.worker.getState() === 'RUNNING') first.worker.shutdown();
      await running.catch(() => undefined);
      await first.connection.close();
    }
    expect(['STOPPING', 'DRAINING']).toContain(stateAfterShutdown); // shutting down while the activity was held

    const history = await t.temporal.client.workflow.getHandle(scanId).fetchHistory();
    const events = history.events ?? [];
    const scheduled = new Map(
      events
        .filter((e) => e.activityTaskScheduledEventAttributes)
        .map((e) => [String(e.eventId), e.activityTaskScheduledEventAttributes!.activityType?.name]),
    );
    const completed = events
      .filter((e) => e.activityTaskCompletedEventAttributes)
      .map((e) => scheduled.get(String(e.activityTaskCompletedEventAttributes!.scheduledEventId)));
    expect(completed).toContain('derivePaths');
    expect(
      events.filter(
        (e) =>
          e.activityTaskFailedEventAttributes ||
          e.activityTaskTimedOutEventAttributes ||
          e.activityTaskCanceledEventAttributes,
      ),
    ).toEqual([]);

    const second = await createScanWorker({
      store: t.store,
      logger,
      temporalAddress: requireEnv('TEMPORAL_ADDRESS'),
      namespace: 'default',
      taskQueue: t.taskQueue,
      shards: pool,
    });
    try {
      await second.worker.runUntil(t.temporal.client.workflow.getHandle(scanId).result());
    } finally {
      await second.connection.close();
      await pool.close();
    }
    expect((await getScan(t.store, scanId))?.status).toBe('completed');
  }, 120_000);
});
