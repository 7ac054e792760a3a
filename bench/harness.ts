// Runs the service as it runs in production (API and worker as separate processes from dist/) on the local
// infrastructure, on a database and task queue of its own, and gives the benchmarks an HTTP client for it. The
// service may come from another built tree (bench/tree.ts: `npm run bench -- --against REF`): its processes, and the
// storage functions that seed its database, are then that tree's.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startLocalInfra, type LocalInfra } from '../src/infra/local';
import { freePort } from '../src/infra/ports';
import type { Store } from '../src/storage/mongo';
import { redactUri } from '../src/infra/private';
import { loadTree, thisTree, type ServiceTree } from './tree';

export interface Harness {
  /** The tree whose service runs (this one unless `--against`). */
  tree: ServiceTree;
  store: Store;
  /** Imports advisory files or folders with the service tree's own import. */
  importAdvisories(paths: string[]): Promise<unknown>;
  baseUrl: string;
  /** The Temporal server the worker uses (workflow histories). */
  temporalAddress: string;
  /** The task queue the service's worker polls. */
  taskQueue: string;
  key: string;
  upload(body: string, headers?: Record<string, string>): Promise<{ status: number; id: string; timing: string }>;
  waitCompleted(id: string, pollMs?: number): Promise<{ status: string; ms: number }>;
  get(url: string): Promise<{ status: number; body: any }>;
  /** Stops the worker and starts it again with these extra environment variables (for example ATTRIBUTION_THREADS). */
  restartWorker(extra: NodeJS.ProcessEnv): Promise<void>;
  /** Stops the API process and starts it again (its caches empty: a cold read). */
  restartApi(): Promise<void>;
  /** Starts one more worker process on the same task queue (until close). */
  addWorker(extra: NodeJS.ProcessEnv): Promise<void>;
  /** The service's processes by pid: 'api', 'worker'. */
  roles: Map<number, string>;
  /** The largest peak resident set (VmHWM, threads included) of the live worker processes, in bytes. */
  workerPeakBytes(): number;
  close(): Promise<void>;
}

function child(root: string, script: string, args: string[], env: NodeJS.ProcessEnv, nodeArgs: string[] = []) {
  const p: ChildProcess = spawn(process.execPath, [...nodeArgs, path.join(root, 'dist', script), ...args], {
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return p;
}

/** The local infrastructure alone, in a fresh folder (several harnesses may share it). */
export async function startBenchInfra(): Promise<LocalInfra & { dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-bench-'));
  const infra = await startLocalInfra({
    dataDir,
    log: { info: () => undefined, warn: (m: string) => console.error(redactUri(m)) } as never,
  });
  return {
    ...infra,
    dataDir,
    async stop() {
      await infra.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The service on the local infrastructure: started for this harness, or `shared` (left running on close). `root`:
 * the built tree whose API and worker run (this one by default).
 */
export async function startHarness(
  opts: { root?: string; shared?: LocalInfra & { dataDir: string }; nodeArgs?: string[] } = {},
): Promise<Harness> {
  const tree = opts.root ? loadTree(opts.root) : thisTree();
  const infra = opts.shared ?? (await startBenchInfra());
  const dataDir = infra.dataDir;
  const dbName = `bench_${randomBytes(4).toString('hex')}`;
  const taskQueue = `bench-${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const env = {
    WORKER_NICE: '10',
    MONGODB_URI: infra.mongoUri,
    MONGODB_DB: dbName,
    TEMPORAL_ADDRESS: infra.temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    // Harnesses sharing the infrastructure run side by side: their metrics listen on any free port.
    ...(opts.shared ? { METRICS_PORT: '0', WORKER_METRICS_PORT: '0' } : {}),
  };
  const store = await tree.connectStore(infra.mongoUri, dbName);
  await tree.prepare(store);
  const { org, member } = await tree.createOrgWithOwner(store, 'bench', 'bench@example.test');
  const { secret } = await tree.createApiKey(store, {
    orgId: org._id,
    name: 'bench',
    scopes: ['sca:upload', 'scans:read', 'findings:read', 'findings:triage', 'deps:read'],
    projects: 'all',
    createdBy: member._id,
    expiresAt: null,
  });
  let worker = child(tree.root, 'workers/main.js', [], env, opts.nodeArgs);
  const extraWorkers: ChildProcess[] = [];
  let api = child(tree.root, 'src/main.js', ['api'], env, opts.nodeArgs);
  const baseUrl = `http://127.0.0.1:${port}`;
  const auth = { Authorization: `Bearer ${secret}` };

  const waitReady = async () => {
    for (let i = 0; ; i++) {
      const ready = await fetch(`${baseUrl}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) break;
      if (i > 600) throw new Error('service did not become ready within 60 s');
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  await waitReady();
  const roles = new Map<number, string>([
    [api.pid!, 'api'],
    [worker.pid!, 'worker'],
  ]);
  const h: Harness = {
    tree,
    roles,
    store,
    importAdvisories: (paths) => tree.importAdvisories(store, paths),
    baseUrl,
    temporalAddress: infra.temporalAddress,
    taskQueue,
    key: secret,
    async upload(body, headers = {}) {
      const r = await fetch(`${baseUrl}/v1/scans/dependency-snapshots`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json', ...headers },
        body,
      });
      const json: any = await r.json();
      if (r.status !== 201 && r.status !== 200) throw new Error(`upload answered ${r.status}: ${JSON.stringify(json)}`);
      return { status: r.status, id: json.id, timing: r.headers.get('server-timing') ?? '' };
    },
    async waitCompleted(id, pollMs = 5) {
      const t0 = performance.now();
      for (;;) {
        const scan = await store.c.scans.findOne({ _id: id }, { projection: { status: 1 } });
        if (scan && (scan.status === 'completed' || scan.status === 'failed'))
          return { status: scan.status, ms: performance.now() - t0 };
        if (performance.now() - t0 > 300_000) throw new Error(`scan ${id} did not finish within 5 minutes`);
        await new Promise((r) => setTimeout(r, pollMs));
      }
    },
    async get(url) {
      const r = await fetch(`${baseUrl}${url}`, { headers: auth });
      return { status: r.status, body: await r.json() };
    },
    async restartWorker(extra) {
      worker.kill('SIGTERM');
      await new Promise((r) => (worker.exitCode !== null ? r(null) : worker.once('exit', r)));
      worker = child(tree.root, 'workers/main.js', [], { ...env, ...extra });
      roles.set(worker.pid!, 'worker');
      await new Promise((r) => setTimeout(r, 1000));
      await waitReady();
    },
    async restartApi() {
      roles.delete(api.pid!);
      api.kill('SIGTERM');
      await new Promise((r) => (api.exitCode !== null ? r(null) : api.once('exit', r)));
      api = child(tree.root, 'src/main.js', ['api'], env, opts.nodeArgs);
      roles.set(api.pid!, 'api');
      await waitReady();
    },
    async addWorker(extra) {
      extraWorkers.push(child(tree.root, 'workers/main.js', [], { ...env, WORKER_METRICS_PORT: '0', ...extra })); // any free metrics port: the first worker holds the default
      await new Promise((r) => setTimeout(r, 1000));
      await waitReady();
    },
    workerPeakBytes() {
      let peak = 0;
      for (const p of [worker, ...extraWorkers]) {
        const status = fs.readFileSync(`/proc/${p.pid}/status`, 'utf8');
        const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
        peak = Math.max(peak, kb * 1024);
      }
      return peak;
    },
    async close() {
      const all = [api, worker, ...extraWorkers];
      for (const p of all) p.kill('SIGTERM');
      await Promise.all(all.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
      await store.db.dropDatabase().catch(() => undefined);
      await store.close();
      if (!opts.shared) await infra.stop();
    },
  };
  return h;
}
