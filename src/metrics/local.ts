// `npm start`'s choice of the two metrics ports: the documented defaults when free (stable addresses to point a
// scraper at), else any free port, so a second checkout's `npm start` or a busy 9464 does not stop the service.
import {
  DEFAULT_METRICS_PORT,
  DEFAULT_WORKER_METRICS_PORT,
  metricsListenFromEnv,
  urlOf,
  type MetricsListen,
} from './server';

export interface LocalMetrics {
  /** Passed to the children: METRICS_PORT and WORKER_METRICS_PORT (`off` kept as it is). */
  env: { METRICS_PORT: string; WORKER_METRICS_PORT: string };
  /** Recorded in runtime.json and printed; absent when that server is off. */
  urls: { metricsUrl?: string; workerMetricsUrl?: string };
}

export interface PortProbe {
  isPortFree(port: number, host: string): Promise<boolean>;
  freePort(host: string): Promise<number>;
}

export async function localMetricsPorts(env: NodeJS.ProcessEnv, probe: PortProbe): Promise<LocalMetrics> {
  const pick = async (name: string, fallback: number, taken: number[]): Promise<MetricsListen | undefined> => {
    const listen = metricsListenFromEnv(name, fallback, env);
    if (!listen || env[name]?.trim()) return listen; // off, or a port the operator chose: used as it is
    if (!taken.includes(listen.port) && (await probe.isPortFree(listen.port, listen.host))) return listen;
    let port = await probe.freePort(listen.host);
    while (taken.includes(port)) port = await probe.freePort(listen.host);
    return { ...listen, port };
  };
  const api = await pick('METRICS_PORT', DEFAULT_METRICS_PORT, []);
  const worker = await pick('WORKER_METRICS_PORT', DEFAULT_WORKER_METRICS_PORT, api ? [api.port] : []);
  return {
    env: { METRICS_PORT: api ? String(api.port) : 'off', WORKER_METRICS_PORT: worker ? String(worker.port) : 'off' },
    urls: {
      ...(api && api.port ? { metricsUrl: urlOf(api.host, api.port) } : {}),
      ...(worker && worker.port ? { workerMetricsUrl: urlOf(worker.host, worker.port) } : {}),
    },
  };
}
