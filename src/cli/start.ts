// `npm start`: the whole service on one machine. Starts the local infrastructure, then the worker and the API as
// child processes, and stops all of it on Ctrl-C (or when a child dies), leaving no process behind.
import { publicAppUrlFromEnv } from '../http/platform';
import fs from 'node:fs';
import path from 'node:path';
import { startLocalInfra, type LocalInfra } from '../infra/local';
import { isAlive, spawnProcess, describeExit, type ManagedProcess } from '../infra/proc';
import { freePort, isPortFree, waitUntil } from '../infra/ports';
import { readRuntime, removeRuntime, runtimeFile, writeRuntime, type RuntimeInfo } from '../infra/runtime-file';
import { localMetricsPorts, type LocalMetrics } from '../metrics/local';
import { redactUri, secureDataDir } from '../infra/private';
import { projectRoot, type InfraLog } from '../infra/tools';
import { DEFAULT_HOST } from '../config';

// Everything printed goes through redactUri: a URI's password must not reach a terminal, a CI log or a bug report.
const log: InfraLog = {
  info: (msg) => console.log(`start  | ${redactUri(msg)}`),
  warn: (msg) => console.warn(`start  | WARNING: ${redactUri(msg)}`),
};

/** Where to reach an API bound to `host`: a wildcard address is reached on loopback. */
function apiUrlFor(host: string, port: number): string {
  const reach = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reach.includes(':') ? `[${reach}]` : reach}:${port}`;
}

// Above the children's own drains: the API's SHUTDOWN_GRACE_MS (20 s) and the worker's SHUTDOWN_FORCE (45 s).
const CHILD_STOP_MS = 50_000;

/** A runtime.json whose pid is a live `start.js` means another supervisor owns this DATA_DIR right now. */
function otherSupervisor(dataDir: string): number | undefined {
  const rt = readRuntime(dataDir);
  if (!rt || rt.pid === process.pid || !isAlive(rt.pid)) return undefined;
  try {
    return fs.readFileSync(`/proc/${rt.pid}/cmdline`, 'utf8').includes('start.js') ? rt.pid : undefined;
  } catch {
    return rt.pid; // no /proc: a live pid is the best evidence we have
  }
}

/** The URI without its password, and where the whole one is for a client that needs it. */
function mongoLine(uri: string, dataDir: string): string {
  const shown = redactUri(uri);
  return shown === uri ? uri : `${shown}  (with the password: ${runtimeFile(dataDir)}, yours only)`;
}

async function main(): Promise<void> {
  const dataDir = path.resolve(process.env.DATA_DIR || '.data');
  const port = Number(process.env.PORT || 8080);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`PORT must be a port number, got "${process.env.PORT}"`);
  const host = process.env.HOST || DEFAULT_HOST;
  for (const entry of secureDataDir(dataDir)) log.warn(`could not make ${entry} private to its owner (chmod go-rwx)`);
  const other = otherSupervisor(dataDir);
  if (other) throw new Error(`another \`npm start\` (pid ${other}) is running on ${dataDir}; stop it or set DATA_DIR`);
  if (!(await isPortFree(port, host))) throw new Error(`port ${port} is in use on ${host}; set PORT to another port`);

  const root = projectRoot();
  const entries = {
    worker: path.join(root, 'dist', 'workers', 'main.js'),
    api: path.join(root, 'dist', 'src', 'main.js'),
  };
  for (const file of Object.values(entries)) {
    if (!fs.existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` (npm start does it)`);
  }

  let infra: LocalInfra | undefined;
  const children: ManagedProcess[] = [];
  let stopping = false;
  let signals = 0;

  const shutdown = async (code: number, reason: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`stopping (${reason})`);
    try {
      // Children first (the API and worker still hold connections), then the servers they talk to.
      const exits = await Promise.all(children.map((c) => c.stop({ signal: 'SIGTERM', timeoutMs: CHILD_STOP_MS })));
      exits.forEach((e, i) => e.code !== 0 && log.warn(`${children[i].name} ${describeExit(e)} while stopping`));
      if (infra) {
        log.info(`stopping ${infra.started.join(', ') || 'nothing started locally'}`);
        await infra.stop();
      }
      removeRuntime(dataDir);
      log.info('stopped');
    } catch (err) {
      log.warn(`stopping failed: ${(err as Error).stack ?? String(err)}`);
      code = code || 1;
    }
    process.exit(code);
  };
  const onSignal = (sig: NodeJS.Signals) => {
    signals += 1;
    if (!infra) {
      // A first build of FerretDB can take minutes: a second Ctrl-C must not wait for it. Whatever was started
      // so far dies with us (parent-death signal).
      if (signals > 1) process.exit(130);
      // Still starting: startLocalInfra cannot be interrupted halfway; stop as soon as it returns.
      log.info(`${sig} received, stopping once startup returns (again to exit now)`);
      stopping = true;
      return;
    }
    if (signals > 1) {
      log.warn(`${sig} again: killing the API and worker now`);
      for (const c of children) void c.stop({ signal: 'SIGKILL', timeoutMs: 1000 });
      return;
    }
    void shutdown(0, sig);
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, onSignal);

  const t0 = Date.now();
  log.info(`data directory ${dataDir}`);
  // Temporal's usual ports when they are free (a stable UI address to bookmark), else whatever is free.
  const prefer = async (env: string | undefined, port: number) =>
    env ? Number(env) : (await isPortFree(port)) ? port : undefined;
  const ports = {
    temporal: await prefer(process.env.TEMPORAL_PORT, 7233),
    temporalUi: await prefer(process.env.TEMPORAL_UI_PORT, 8233),
  };
  infra = await startLocalInfra({ dataDir, log, ports });
  if (stopping) {
    stopping = false;
    return shutdown(0, 'signal during startup');
  }
  try {
    await runServices();
  } catch (err) {
    log.warn(`startup failed: ${(err as Error).message}`);
    await shutdown(1, 'startup failed');
  }

  async function runServices(): Promise<void> {
    const ready = infra!;
    log.info(
      `infrastructure ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (${ready.started.join(', ') || 'all external'}; server logs in ${ready.logDir})`,
    );

    const metrics: LocalMetrics = await localMetricsPorts(process.env, { isPortFree, freePort });
    const env = {
      ...process.env,
      ...metrics.env,
      MONGODB_URI: ready.mongoUri,
      TEMPORAL_ADDRESS: ready.temporalAddress,
      DATA_DIR: dataDir,
      HOST: host,
      PORT: String(port),
      // One machine runs everything here: scans yield the CPU to API requests (a separate worker fleet needs none).
      WORKER_NICE: process.env.WORKER_NICE ?? '10',
    };
    for (const [name, args] of [
      ['worker', [entries.worker]],
      ['api', [entries.api, 'api']],
    ] as const) {
      const child = spawnProcess({
        name,
        command: process.execPath,
        args: [...args],
        env,
        cwd: root,
        onLine: (line) => console.log(`${name.padEnd(6)} | ${redactUri(line)}`),
      });
      children.push(child);
      void child.exited.then((e) => {
        if (!stopping) {
          log.warn(`${name} ${describeExit(e)} unexpectedly`);
          void shutdown(1, `${name} died`);
        }
      });
    }

    const apiUrl = apiUrlFor(host, port);
    try {
      await waitUntil(
        `${apiUrl}/healthz`,
        async () => {
          const res = await fetch(`${apiUrl}/healthz`, { signal: AbortSignal.timeout(2000) });
          await res.body?.cancel();
          return res.ok;
        },
        { timeoutMs: 120_000, intervalMs: 300, abort: () => (stopping ? new Error('stopping') : undefined) },
      );
    } catch (err) {
      if (stopping) return; // a child died or a signal came: shutdown is already under way
      log.warn((err as Error).message);
      return shutdown(1, 'the API did not become healthy');
    }
    if (stopping) return;

    const runtime: RuntimeInfo & LocalMetrics['urls'] = {
      apiUrl,
      ...metrics.urls,
      temporalUiUrl: ready.temporalUiUrl,
      temporalAddress: ready.temporalAddress,
      mongoUri: ready.mongoUri,
      pid: process.pid,
      startedAt: new Date().toISOString(),
    };
    writeRuntime(dataDir, runtime);
    console.log(
      [
        '',
        `  API          ${apiUrl}`,
        `  Web app      ${publicAppUrlFromEnv({ ...process.env, PORT: String(port) })}/  (sign in with a code sent by ${process.env.MAIL_TRANSPORT?.trim() ? redactUri(process.env.MAIL_TRANSPORT.trim()) : 'console: printed in this log'})`,
        `  Metrics      API ${metrics.urls.metricsUrl ?? '(off)'}, worker ${metrics.urls.workerMetricsUrl ?? '(off)'}`,
        `  Temporal UI  ${ready.temporalUiUrl ?? '(external Temporal; set TEMPORAL_UI_URL to show it here)'}`,
        `  MongoDB      ${mongoLine(ready.mongoUri, dataDir)}`,
        `  Data         ${dataDir}`,
        '',
        `  ready in ${((Date.now() - t0) / 1000).toFixed(1)} s; press Ctrl-C to stop`,
        '',
      ].join('\n'),
    );
  }
}

main().catch((err) => {
  console.error(`start  | ${redactUri(err instanceof Error ? err.message : String(err))}`);
  process.exit(1);
});
