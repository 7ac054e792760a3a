// Where used (docs/where-used.md), on the local stack: 100 projects, each a tracked scan of 1,000 packages of which
// 20 carry one of 5,000 synthetic advisories, all processed by the worker.
// - GET /v1/dependencies/usages over the 100 projects (one name in all of them): the first request (the index built),
//   then p50 / p99 of repeated requests (the index validated by one read), and the first request after a new scan of a
//   project completed (the index brought up to date); beside it, what reading every inventory per request costs;
// - GET /v1/advisories/{id}: an advisory with open alerts in the 100 projects (a page of 50, and all of them), one
//   with none, and the first read of a generation (its catalog built).
import { latestInventories, readInventory } from '../src/storage/inventory';
import type { Harness } from './harness';
import { namedSnapshot, quiesce, syntheticAdvisories } from './scenarios';
import { fmt, median, percentile, row } from './stats';

const PROJECTS = 100;
const PACKAGES = 1000;
/** Packages bench-0 .. bench-<VULNERABLE - 1> are in every project, each with its synthetic advisory. */
const VULNERABLE = 20;

/** 1,000 packages lib-<i>@1.0.0, the first VULNERABLE of them named bench-<i> instead; `version`: the last one's. */
function snapshot(project: string, version = '1.0.0'): string {
  const s = namedSnapshot(PACKAGES, project, 'lib');
  const rename = (id: string) => {
    const i = Number(/^lib-(\d+)@/.exec(id)![1]);
    return i < VULNERABLE ? `bench-${i}@1.0.0` : i === PACKAGES - 1 ? `lib-${i}@${version}` : id;
  };
  s.nodes = s.nodes
    .map((n) => {
      const id = rename(n.id);
      return {
        ...n,
        id,
        name: id.slice(0, id.lastIndexOf('@')),
        version: id.slice(id.lastIndexOf('@') + 1),
        dependencies: n.dependencies.map(rename),
      };
    })
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  s.roots = s.roots.map((r) => ({ ...r, dependencies: r.dependencies.map(rename) }));
  return JSON.stringify(s);
}

async function latency(h: Harness, urls: () => string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const url = urls();
    const t0 = performance.now();
    const r = await h.get(url);
    if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
    out.push(performance.now() - t0);
  }
  return out;
}

async function once(h: Harness, url: string): Promise<[number, any]> {
  const t0 = performance.now();
  const r = await h.get(url);
  if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
  return [performance.now() - t0, r.body];
}

const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)];

export async function whereUsedBench(h: Harness): Promise<void> {
  await h.importAdvisories([syntheticAdvisories(5000)]);
  // 100 tracked scans, 10 at a time
  for (let p = 0; p < PROJECTS; p += 10) {
    const ids = await Promise.all(
      Array.from({ length: 10 }, async (_, k) => (await h.upload(snapshot(`used-${p + k}`))).id),
    );
    for (const id of ids) {
      const done = await h.waitCompleted(id, 10);
      if (done.status !== 'completed') throw new Error(`scan ${id} ${done.status}`);
    }
  }
  await quiesce(h);
  // the alerts moved after the last completion: wait until the advisory page shows every project
  for (let i = 0; ; i++) {
    const r = await h.get('/v1/advisories/GHSA-bnch-0007-xxxx?limit=200');
    if (r.status === 200 && r.body.projects.length === PROJECTS) break;
    if (i > 600) throw new Error('alerts not moved');
    await new Promise((res) => setTimeout(res, 100));
  }

  console.log(`\nWhere used: ${PROJECTS} projects × ${PACKAGES} packages (ms; p50 / p99 of 200 requests)`);
  const [first, body] = await once(h, '/v1/dependencies/usages?name=lib-500&limit=200');
  if (body.usages.length !== PROJECTS) throw new Error(`lib-500 used in ${body.usages.length} projects`);
  row('GET /v1/dependencies/usages, first request (index built)', fmt(first));
  const names = Array.from({ length: PACKAGES - VULNERABLE - 1 }, (_, i) => `lib-${i + VULNERABLE}`);
  const all = await latency(h, () => `/v1/dependencies/usages?name=${pick(names)}&limit=200`, 200);
  row(
    'usages of a package in all 100 projects (limit=200)',
    `${fmt(median(all))} / ${fmt(percentile(all, 99))}`,
    'p99 ≤ 50 ms',
  );
  const page = await latency(h, () => `/v1/dependencies/usages?name=${pick(names)}`, 200);
  row('the same, default page of 50', `${fmt(median(page))} / ${fmt(percentile(page, 99))}`, 'p99 ≤ 50 ms');
  const version = await latency(
    h,
    () => `/v1/dependencies/usages?name=${pick(names)}&version=1.0.0&ecosystem=javascript`,
    200,
  );
  row('with version and ecosystem', `${fmt(median(version))} / ${fmt(percentile(version, 99))}`, 'p99 ≤ 50 ms');
  const none = await latency(h, () => `/v1/dependencies/usages?name=no-such-${Math.random()}`, 200);
  row('a package nobody uses', `${fmt(median(none))} / ${fmt(percentile(none, 99))}`, 'p99 ≤ 50 ms');
  // a new scan of one project: the first request after its completion brings the index up to date
  const after: number[] = [];
  for (let i = 0; i < 5; i++) {
    const { id } = await h.upload(snapshot(`used-${i}`, `2.0.${i}`));
    await h.waitCompleted(id, 5);
    const [ms, b] = await once(h, `/v1/dependencies/usages?name=lib-${PACKAGES - 1}&version=2.0.${i}`);
    if (b.usages.length !== 1) throw new Error('the new scan is not seen');
    after.push(ms);
  }
  row('first request after a new scan of a project completed', `${fmt(median(after))} (median of 5)`);
  // what one request would cost reading every inventory (the same reads, in this process, cold then cached)
  const projects = await h.store.c.projects.find({ slug: { $regex: '^used-' } } as never).toArray();
  const scanAll = async () => {
    const t0 = performance.now();
    await Promise.all(
      projects.map(async (p) => {
        const latest = await latestInventories(h.store, p._id);
        await Promise.all(Object.entries(latest).map(([eco, scanId]) => readInventory(h.store, scanId, eco)));
      }),
    );
    return performance.now() - t0;
  };
  const cold = await scanAll();
  const warm = await scanAll();
  row('(reading every latest inventory per request: cold / cached)', `${fmt(cold)} / ${fmt(warm)}`);

  console.log(`\nThe advisory page: open alerts in ${PROJECTS} projects (ms; p50 / p99 of 200 requests)`);
  const ids = Array.from({ length: VULNERABLE }, (_, i) => `GHSA-bnch-${String(i).padStart(4, '0')}-xxxx`);
  const full = await latency(h, () => `/v1/advisories/${pick(ids)}?limit=200`, 200);
  row(
    'GET /v1/advisories/{id}, all 100 projects (limit=200)',
    `${fmt(median(full))} / ${fmt(percentile(full, 99))}`,
    'p99 ≤ 50 ms',
  );
  const fifty = await latency(h, () => `/v1/advisories/${pick(ids).toLowerCase()}`, 200);
  row(
    'the same, default page of 50, id in lower case',
    `${fmt(median(fifty))} / ${fmt(percentile(fifty, 99))}`,
    'p99 ≤ 50 ms',
  );
  const quiet = await latency(h, () => `/v1/advisories/GHSA-bnch-${3000 + Math.floor(Math.random() * 1000)}-xxxx`, 200);
  row('an advisory with no alert', `${fmt(median(quiet))} / ${fmt(percentile(quiet, 99))}`, 'p99 ≤ 50 ms');
  // a new generation: the first read builds its catalog (5,001 advisories)
  await h.importAdvisories([syntheticAdvisories(5001)]);
  const [build] = await once(h, `/v1/advisories/${ids[0]}`);
  row('first read of a new generation (5,001 advisories: catalog built)', fmt(build));
}
