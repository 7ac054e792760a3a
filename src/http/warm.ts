// The caches the dashboard reads, built before the API says it is ready: at start, the alert index
// (src/http/alerts/index-cache.ts) with its risk order, today's trend point and the portfolio, and the stored trends
// (src/http/metrics/cache.ts) of the organizations whose alerts
// moved most recently (WARM_ORGS, default 8), one after another. A fresh process behind a readiness-gated rollout
// then answers its first dashboard as a warm one does, where building an index of 50,000 alerts in the first request
// takes seconds. Readiness waits at most WARM_TIMEOUT_MS (default 30 s); a failure is logged and ends the warming.
import { envInt } from '../config';
import { dayOf } from '../domain/metrics/points';
import type { Logger } from '../logger';
import type { Store } from '../storage/mongo';
import { orgAlerts } from './alerts/index-cache';
import { lastTrackedScans, livePoints, orgTotal, orgTrends, portfolioOfIndex } from './metrics/cache';

export interface Warming {
  /** True once the caches are built, the time is up, or building failed. */
  done(): boolean;
  finished: Promise<void>;
}

export function warmCaches(store: Store, logger: Logger): Warming {
  const orgs = envInt('WARM_ORGS', 8, { min: 0 });
  const timeoutMs = envInt('WARM_TIMEOUT_MS', 30_000, { min: 0 });
  let done = orgs === 0;
  const started = Date.now();
  const work = (async () => {
    if (done) return;
    const heads = await store.c.alertSets.find({}, { projection: { orgId: 1, updatedAt: 1 } }).toArray();
    const latest = new Map<string, number>();
    for (const h of heads) latest.set(h.orgId, Math.max(latest.get(h.orgId) ?? 0, h.updatedAt.getTime()));
    const chosen = [...latest].sort((a, b) => b[1] - a[1]).slice(0, orgs);
    for (const [orgId] of chosen) {
      if (done) break;
      const { index } = await orgAlerts(store, orgId);
      const today = dayOf(new Date());
      index.sorted('risk'); // the alerts' default order, made on first use
      livePoints(index, today); // today's trend point
      const projects = await store.c.projects.find({ orgId }, { projection: { _id: 1, slug: 1 } }).toArray();
      await portfolioOfIndex(index, projects, () => lastTrackedScans(store, orgId)); // as an unrestricted read asks
      orgTotal(await orgTrends(store, orgId, today));
    }
    logger.info({ orgs: chosen.length, ms: Date.now() - started }, 'caches warm');
  })()
    .catch((err) => logger.warn({ err }, 'caches not warmed; the first requests build them'))
    .finally(() => (done = true));
  const timer = setTimeout(() => {
    if (!done) logger.warn({ timeoutMs }, 'caches still warming: ready without them');
    done = true;
  }, timeoutMs);
  timer.unref();
  return { done: () => done, finished: work };
}
