// Issue 14's benchmark: a generated monorepo at the multipart budgets (as close as this 2-core, 24 GiB machine
// holds; the sizes are printed), uploaded in parts; processing with one and with two worker processes, the workers'
// peak memory, and the p99 of the paged reads (a modules page, an attributions page, a path) and of an inventory
// page of 200 over 10,000 packages.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importAdvisories } from '../src/advisories/import';
import { syntheticSnapshot } from '../src/domain/snapshot/synthetic';
import type { Snapshot } from '../src/shared/types';
import type { Harness } from './harness';
import { fmt, median, percentile, row, timed } from './stats';

const UPLOADS = '/v1/scans/dependency-snapshots/uploads';
const PART_BYTES = 9 * 1024 * 1024; // under the 10 MB part limit with room to spare

/** The monorepo: 100,000 packages, 10,000 modules with one root each, about 1,000,000 vertices and 3,700,000 edges. */
export function budgetMonorepo(project: string): Snapshot {
  return syntheticSnapshot({
    schemaVersion: 2,
    nodes: 100_000,
    roots: 10_000,
    modules: 10_000,
    depsPerNode: 6,
    packagesPerRoot: 98,
    project,
    ecosystem: 'gradle',
  });
}

/** Advisories for every 100th synthetic package: about 1,000 findings, each reached from about ten roots. */
function advisoriesFor(s: Snapshot, every = 100): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-paged-adv-'));
  const names = [...new Set(s.nodes.map((n) => n.name))].sort();
  const list = names
    .filter((_, i) => i % every === 0)
    .map((name, i) => ({
      id: `GHSA-bnch-${String(i).padStart(4, '0')}-page`,
      modified: '2024-01-01T00:00:00Z',
      published: '2024-01-01T00:00:00Z',
      summary: `synthetic paged ${i}`,
      affected: [
        {
          package: { ecosystem: 'Maven', name },
          ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '99.0.0' }] }],
        },
      ],
    }));
  fs.writeFileSync(path.join(dir, 'paged.json'), JSON.stringify(list));
  return dir;
}

/** The graph's items in parts of at most PART_BYTES of JSON each, in document order. */
export function partsOf(s: Snapshot): string[] {
  const parts: string[] = [];
  let cur: Record<'modules' | 'nodes' | 'roots', unknown[]> = { modules: [], nodes: [], roots: [] };
  let bytes = 2;
  const flush = () => {
    parts.push(JSON.stringify(Object.fromEntries(Object.entries(cur).filter(([, v]) => v.length))));
    cur = { modules: [], nodes: [], roots: [] };
    bytes = 2;
  };
  for (const kind of ['modules', 'nodes', 'roots'] as const) {
    for (const item of s[kind] ?? []) {
      const size = JSON.stringify(item).length + 1;
      if (bytes + size + 40 > PART_BYTES) flush();
      cur[kind].push(item);
      bytes += size;
    }
  }
  flush();
  return parts;
}

async function call(h: Harness, method: string, url: string, body?: string): Promise<{ status: number; json: any }> {
  const r = await fetch(`${h.baseUrl}${url}`, {
    method,
    headers: { Authorization: `Bearer ${h.key}`, 'Content-Type': 'application/json' },
    body,
  });
  return { status: r.status, json: await r.json() };
}

/** Create, send the parts four at a time, complete: the scan id and the time it took. */
async function uploadInParts(h: Harness, s: Snapshot, parts: string[]): Promise<{ scanId: string; ms: number }> {
  const t0 = performance.now();
  const { modules: _m, nodes: _n, roots: _r, ...header } = s;
  const created = await call(h, 'POST', UPLOADS, JSON.stringify({ ...header, parts: parts.length }));
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.json)}`);
  const id = created.json.upload.id;
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let n = next++; n < parts.length; n = next++) {
        const r = await call(h, 'PUT', `${UPLOADS}/${id}/parts/${n + 1}`, parts[n]);
        if (r.status !== 201) throw new Error(`part ${n + 1} answered ${r.status}: ${JSON.stringify(r.json)}`);
      }
    }),
  );
  const done = await call(h, 'POST', `${UPLOADS}/${id}/completion`);
  if (done.status !== 201) throw new Error(`completion answered ${done.status}: ${JSON.stringify(done.json)}`);
  return { scanId: done.json.id, ms: performance.now() - t0 };
}

/** p99 (and p50) of `n` timed GETs of the urls `pick(i)` gives. */
async function latency(h: Harness, n: number, pick: (i: number) => string): Promise<{ p50: number; p99: number }> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const [r, t] = await timed(() => h.get(pick(i)));
    if (r.status !== 200) throw new Error(`${pick(i)} answered ${r.status}: ${JSON.stringify(r.body)}`);
    ms.push(t);
  }
  return { p50: median(ms), p99: percentile(ms, 99) };
}

/** Every page's cursor of a list, so the latency runs read pages all over it, not only the first. */
async function cursors(h: Harness, url: string, max = 50): Promise<string[]> {
  const out = [''];
  for (let c: string | null = null; out.length < max;) {
    const r = await h.get(`${url}${c ? `&cursor=${encodeURIComponent(c)}` : ''}`);
    c = r.body.nextCursor;
    if (!c) break;
    out.push(`&cursor=${encodeURIComponent(c)}`);
  }
  return out;
}

export async function pagedBench(h: Harness): Promise<void> {
  const t0 = performance.now();
  const s = budgetMonorepo('paged-monorepo');
  let vertices = 0;
  let edges = 0;
  for (const r of s.roots) for (const v of r.resolution!.vertices) (vertices++, (edges += v.dependencies.length));
  const parts = partsOf(s);
  const bytes = parts.reduce((n, p) => n + p.length, 0);
  console.log(
    `paged monorepo: ${s.nodes.length} packages, ${s.modules!.length} modules, ${s.roots.length} roots, ${vertices} vertices, ${edges} edges ` +
      `in ${parts.length} parts (${(bytes / 1e6).toFixed(0)} MB; generated in ${fmt(performance.now() - t0)}). ` +
      'Budgets: 100,000 / 10,000 / 10,000 / 1,000,000 / 5,000,000: the edges stop at what the generator gives at this vertex count.',
  );
  await importAdvisories(h.store, [advisoriesFor(s)]);

  const one = await uploadInParts(h, s, parts);
  row('paged monorepo: create + parts + completion (4 parts in flight)', fmt(one.ms));
  const oneDone = await h.waitCompleted(one.scanId, 200);
  if (oneDone.status !== 'completed') throw new Error(`paged scan ${one.scanId} ${oneDone.status}`);
  row('  processing, 1 worker process (completion → completed)', fmt(oneDone.ms));
  row('  peak worker memory (VmHWM), 1 worker', `${(h.workerPeakBytes() / 2 ** 20).toFixed(0)} MiB`, '≤ 2048 MiB');

  await h.addWorker({});
  const two = await uploadInParts(h, { ...s, project: 'paged-monorepo-2' }, parts);
  const twoDone = await h.waitCompleted(two.scanId, 200);
  if (twoDone.status !== 'completed') throw new Error(`paged scan ${two.scanId} ${twoDone.status}`);
  row('  processing, 2 worker processes', fmt(twoDone.ms));
  row(
    '  peak worker memory (VmHWM), largest of the 2 workers',
    `${(h.workerPeakBytes() / 2 ** 20).toFixed(0)} MiB`,
    '≤ 2048 MiB',
  );

  // The reads of the first scan.
  const scanId = one.scanId;
  const modulePages = await cursors(h, `/v1/scans/${scanId}/modules?limit=50`);
  const mods = await latency(
    h,
    200,
    (i) => `/v1/scans/${scanId}/modules?limit=50${modulePages[i % modulePages.length]}`,
  );
  row(
    `  modules page of 50 (${modulePages.length} pages sampled) p99`,
    fmt(mods.p99),
    `≤ 50 ms (p50 ${fmt(mods.p50)})`,
  );
  const findings = (await h.get(`/v1/scans/${scanId}/findings?limit=200&details=summary&suppressed=all`)).body
    .findings as Array<{ id: string }>;
  const atts = await latency(
    h,
    200,
    (i) => `/v1/scans/${scanId}/findings/${findings[(i * 37) % findings.length].id}/attributions?limit=50`,
  );
  row(
    `  attributions page of 50 (${findings.length} findings sampled) p99`,
    fmt(atts.p99),
    `≤ 50 ms (p50 ${fmt(atts.p50)})`,
  );
  const attIds: Array<[string, string]> = [];
  for (const f of findings.slice(0, 40)) {
    const r = await h.get(`/v1/scans/${scanId}/findings/${f.id}/attributions?limit=10`);
    for (const a of r.body.attributions as Array<{ id: string }>) attIds.push([f.id, a.id]);
  }
  const paths = await latency(h, 200, (i) => {
    const [f, a] = attIds[(i * 13) % attIds.length];
    return `/v1/scans/${scanId}/findings/${f}/attributions/${a}/path`;
  });
  row(
    `  attribution path (${attIds.length} attributions sampled) p99`,
    fmt(paths.p99),
    `≤ 50 ms (p50 ${fmt(paths.p50)})`,
  );

  // The inventory of a project whose latest scan holds 10,000 packages.
  const inv = syntheticSnapshot({
    schemaVersion: 1,
    nodes: 10_000,
    roots: 20,
    depsPerNode: 3,
    project: 'inventory-10k',
    ecosystem: 'javascript',
  });
  const up = await h.upload(JSON.stringify(inv));
  await h.waitCompleted(up.id, 50);
  const invPages = await cursors(h, '/v1/dependencies?project=inventory-10k&limit=200');
  const inventory = await latency(
    h,
    200,
    (i) => `/v1/dependencies?project=inventory-10k&limit=200${invPages[i % invPages.length]}`,
  );
  row(
    `inventory page of 200 over 10,000 packages (${invPages.length} pages) p99`,
    fmt(inventory.p99),
    `≤ 30 ms (p50 ${fmt(inventory.p50)})`,
  );
}
