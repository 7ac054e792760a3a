import Router from '@koa/router';
import { ping } from '../../storage/mongo';
import type { AppDeps } from '../deps';

async function check(name: string, fn: () => Promise<{ ok: boolean; detail: string }>) {
  try {
    return { name, ...(await fn()) };
  } catch (err) {
    return { name, ok: false, detail: err instanceof Error ? err.message : String(err) };
  }
}

export function healthRoutes(deps: AppDeps): Router {
  const r = new Router();
  // Liveness: the process answers. Never touches dependencies, so a database outage does not restart the API.
  r.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  // Readiness: MongoDB and Temporal reachable, a worker polling the scan task queue, and the dashboard's caches built
  // at start (src/http/warm.ts, at most WARM_TIMEOUT_MS). The route is public, so
  // it answers names and booleans only: a driver's message names hosts, ports and sometimes users. The details
  // go to the log.
  // Logged when the answer changes, not on every probe: an orchestrator probes every few seconds.
  let lastFailing = '[]';
  r.get('/readyz', async (ctx) => {
    const checks = await Promise.all([
      check('mongodb', async () => (await ping(deps.store), { ok: true, detail: 'reachable' })),
      check('temporal', () => deps.readiness.temporal()),
      ...(deps.warming
        ? [check('caches', async () => ({ ok: deps.warming!.done(), detail: 'alert indexes and trends warming' }))]
        : []),
    ]);
    const ready = checks.every((c) => c.ok);
    const failing = checks.filter((c) => !c.ok);
    const key = JSON.stringify(failing);
    if (key !== lastFailing) {
      if (ready) deps.logger.info('ready');
      else deps.logger.warn({ checks: failing }, 'not ready');
      lastFailing = key;
    }
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready', checks: checks.map(({ name, ok }) => ({ name, ok })) };
  });
  return r;
}
