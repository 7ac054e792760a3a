// `npm run bench`: the figures issue 3 asks for, printed beside their targets. Runs the API and worker as separate
// processes from dist/ on the local infrastructure (FerretDB over PostgreSQL, Temporal dev server), as npm start.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importAdvisories } from '../src/advisories/import';
import { snapshotFromNpmLock, syntheticSnapshot } from '../src/domain/snapshot';
import { startHarness, type Harness } from './harness';
import { benchSnapshot, quiesce, syntheticAdvisories, TINY, uploadLatency, uploadToCompleted } from './scenarios';
import { clientBench, type ClientCase } from './client';
import { pagedBench } from './paged';
import { signInBench } from './sign-in';
import { heartbeatBench } from './heartbeats';
import { mcpScanBench } from './mcp-scan';
import { mcpUsageBench } from './mcp-usage';
import { matchingBench } from './matching';
import { scanDocumentBench } from './scan-document';
import {
  attributionEndToEnd,
  attributionInProcessBench,
  defaultThreads,
  largestV2,
  largestV2Advisories,
} from './attribution';
import { fmt, median, percentile, row, timed } from './stats';
import { hasSharedData, sharedDataDir, sharedDataPath } from '../src/infra/shared-data';

/** The benches on real lockfiles and advisories need the third-party data (src/infra/shared-data.ts). */
const HAS_DATA = hasSharedData();

/** True when the third-party data is there; else false, after one line saying that `what` is skipped. */
function withData(what: string): boolean {
  if (!HAS_DATA) console.log(`skipped: ${what}: no third-party data at ${sharedDataDir()} (set SCANNER_SHARED_DATA)`);
  return HAS_DATA;
}

/**
 * GET /v1/scans?limit=50 after a history of 300 scans in the organization, the last ones uploaded 10 at a time (tiny
 * snapshots), all processed: p50 and p99 of 100 requests, each checked for the list's order (newest first).
 */
async function scanListBench(h: Harness) {
  const have = (await h.store.c.scans.countDocuments({})) as number;
  const tiny = TINY;
  const history: string[] = [];
  for (let i = have; i < 300; i += 10)
    history.push(...(await Promise.all(Array.from({ length: 10 }, () => h.upload(tiny).then((r) => r.id)))));
  for (const id of history) await h.waitCompleted(id, 20); // measure the list, not the worker's backlog
  /** One page of 50, checked for the list's order; its latency and Server-Timing phases. */
  const phases = new Map<string, number[]>();
  let nextCursor: string | null = null;
  const list = async (cursor?: string): Promise<number> => {
    const [res, ms] = await timed(async () => {
      const r = await fetch(`${h.baseUrl}/v1/scans?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        headers: { Authorization: `Bearer ${h.key}` },
      });
      return {
        status: r.status,
        body: (await r.json()) as { scans: Array<{ id: string; startedAt: string }>; nextCursor: string | null },
        timing: r.headers.get('server-timing') ?? '',
      };
    });
    nextCursor = res.body.nextCursor;
    for (const part of res.timing.split(', ')) {
      const [name, dur] = part.split(';dur=');
      if (dur) phases.set(name, [...(phases.get(name) ?? []), Number(dur)]);
    }
    const scans = res.body.scans;
    if (res.status !== 200 || scans.length !== 50)
      throw new Error(`scan list answered ${res.status} with ${scans?.length} scans`);
    for (let k = 1; k < scans.length; k++) {
      const [a, b] = [scans[k - 1], scans[k]];
      if (a.startedAt < b.startedAt || (a.startedAt === b.startedAt && a.id <= b.id))
        throw new Error(`scan list out of order: ${a.id} before ${b.id}`);
    }
    return ms;
  };
  const showPhases = (label: string) => {
    console.log(
      `  ${label} phases (p50 / p99 ms): ${[...phases].map(([k, v]) => `${k} ${median(v).toFixed(1)} / ${percentile(v, 99).toFixed(1)}`).join(', ')}`,
    );
    phases.clear();
  };
  const lists: number[] = [];
  for (let i = 0; i < 100; i++) lists.push(await list());
  showPhases('scan list');
  row('scan list of 50 after 300 scans p50', fmt(median(lists)));
  row('scan list of 50 after 300 scans p99', fmt(percentile(lists, 99)), '≤ 30 ms');
  // The API keeps the groups a page reads while they are unchanged (storage/scan-list-cache.ts): the first read above
  // decoded them, the others did not. The next pages, read once, decode theirs; an upload before each read changes the
  // newest group, which is read again, while the worker processes the scan.
  const cold: number[] = [];
  for (let cursor = nextCursor as string | null; cursor && cold.length < 4; cursor = nextCursor)
    cold.push(await list(cursor));
  phases.clear();
  row('  pages 2-5, read once (groups not kept yet): median / max', `${fmt(median(cold))} / ${fmt(Math.max(...cold))}`);
  const busy: number[] = [];
  for (let i = 0; i < 30; i++) {
    await h.upload(tiny);
    busy.push(await list());
  }
  showPhases('with uploads');
  row('  with an upload before each read: p50 / p99', `${fmt(median(busy))} / ${fmt(percentile(busy, 99))}`);
  // One scan by id, as a client polling it does: a stored scan document decoded and presented.
  const ids = ((await h.get('/v1/scans?limit=50')).body.scans as Array<{ id: string }>).map((s) => s.id);
  const reads: number[] = [];
  for (let i = 0; i < 200; i++) {
    const [res, ms] = await timed(() => h.get(`/v1/scans/${ids[i % ids.length]}`));
    if (res.status !== 200) throw new Error(`scan read answered ${res.status}`);
    reads.push(ms);
  }
  row('scan read by id (GET /v1/scans/{id}) p50 / p99', `${fmt(median(reads))} / ${fmt(percentile(reads, 99))}`);
}

/** `npm run bench -- scan-path`: the figures of a scan's path through the service, with OSV-Scanner beside them. */
async function scanPathOnly(): Promise<void> {
  const { prepareScanPath, scanPathFigures, checkDigests } = await import('./scan-path');
  const setup = prepareScanPath();
  const h = await startHarness();
  try {
    const [{ digests }] = await scanPathFigures([h], setup);
    if (!checkDigests(digests)) process.exitCode = 1;
  } finally {
    await h.close();
    setup.close();
  }
}

/** `npm run bench -- alerts`: only the alerts' figures (docs/alerts.md), a few minutes. */
async function alertsOnly(): Promise<void> {
  const { alertsBench } = await import('./alerts');
  const h = await startHarness();
  try {
    await alertsBench(h);
  } finally {
    await h.close();
  }
}

/** `npm run bench -- triage`: only triage's figures (docs/triage.md), a few minutes. */
async function triageOnly(): Promise<void> {
  const { triageBench } = await import('./triage');
  const h = await startHarness();
  try {
    await triageBench(h);
  } finally {
    await h.close();
  }
}

/** `npm run bench -- vex`: only VEX import and export (issue 35 point 6), a few minutes. */
async function vexOnly(): Promise<void> {
  const { vexBench } = await import('./vex');
  const h = await startHarness({ nodeArgs: process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) });
  try {
    await vexBench(h);
  } finally {
    await h.close();
  }
}

/** `npm run bench -- intel`: the intelligence feeds, the joins, where used and the advisory page (issue 36). */
async function intelOnly(): Promise<void> {
  const { intelBench } = await import('./intel');
  const h = await startHarness();
  try {
    await intelBench(h);
  } finally {
    await h.close();
  }
}

/** `npm run bench -- compare`: only the PR gate's figures (docs/pr-gate.md), a few minutes. */
async function compareOnly(): Promise<void> {
  const { compareBench } = await import('./compare');
  // BENCH_NODE_ARGS: node flags for the service's processes (for example --trace-gc while looking into a figure).
  const h = await startHarness({ nodeArgs: process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) });
  try {
    await compareBench(h);
  } finally {
    await h.close();
  }
}

/** `npm run bench -- scans`: only the scan list (a minute instead of the whole run). */
async function scansOnly(): Promise<void> {
  const h = await startHarness();
  try {
    await scanListBench(h);
  } finally {
    await h.close();
  }
}

/** The real lockfiles of the third-party data the CI client is timed on, beside OSV-Scanner on the same file. */
const CLIENT_CASES: ClientCase[] = [
  {
    label: 'piscina package-lock.json (722 entries)',
    fileName: 'package-lock.json',
    lockPath: sharedDataPath('lockfiles', 'npm', 'piscinajs__piscina__package-lock.json'),
    advisoryDir: sharedDataPath('advisories', 'npm'),
    osvEcosystem: 'npm',
  },
  {
    label: 'vuejs/core pnpm-lock.yaml (620 packages)',
    fileName: 'pnpm-lock.yaml',
    lockPath: sharedDataPath('lockfiles', 'npm', 'vuejs__core__pnpm-lock.yaml'),
    advisoryDir: sharedDataPath('advisories', 'npm'),
    osvEcosystem: 'npm',
  },
  {
    label: 'poetry poetry.lock (78 packages)',
    fileName: 'poetry.lock',
    lockPath: sharedDataPath('lockfiles', 'pypi', 'python-poetry__poetry__poetry.lock'),
    advisoryDir: sharedDataPath('advisories', 'pypi'),
    osvEcosystem: 'PyPI',
  },
];

/** `npm run bench -- client`: only the CI client beside OSV-Scanner (a minute instead of the whole run). */
async function clientOnly(): Promise<void> {
  if (!withData('the CI client on real lockfiles')) return;
  const h = await startHarness();
  try {
    await importAdvisories(h.store, [sharedDataPath('advisories', 'npm'), sharedDataPath('advisories', 'pypi')]);
    for (const c of CLIENT_CASES) await clientBench(h, c);
  } finally {
    await h.close();
  }
}

/** `npm run bench -- paged`: only issue 14's multipart/paged figures (several minutes). */
async function pagedOnly(): Promise<void> {
  const h = await startHarness();
  try {
    await pagedBench(h);
  } finally {
    await h.close();
  }
}

/** `npm run bench -- sign-in`: only the sign-in timing of known and unknown emails (seconds). */
async function signInOnly(): Promise<void> {
  const h = await startHarness();
  try {
    await signInBench(h);
  } finally {
    await h.close();
  }
}

/** `npm run bench -- heartbeats`: only issue 18's heartbeats of 1,000 hosts at 50 per second (about a minute). */
async function heartbeatsOnly(): Promise<void> {
  const h = await startHarness();
  try {
    await heartbeatBench(h);
  } finally {
    await h.close();
  }
}

/** `npm run bench -- mcp-scan`: only issue 19's MCP scan of 100 servers processed end to end (seconds). */
async function mcpScanOnly(): Promise<void> {
  const h = await startHarness();
  try {
    if (withData('the real npm and PyPI advisories of the MCP scan (it runs against none)')) {
      await importAdvisories(h.store, [sharedDataPath('advisories', 'npm'), sharedDataPath('advisories', 'pypi')]);
    }
    await mcpScanBench(h);
  } finally {
    await h.close();
  }
}

/** `npm run bench -- portfolio`: the dashboard's figures (bench/portfolio.ts, a few minutes). */
async function portfolioOnly(): Promise<void> {
  const h = await startHarness();
  try {
    await (await import('./portfolio')).portfolioBench(h);
  } finally {
    await h.close();
  }
}

/** `npm run bench -- mcp-usage`: only issue 19's usage-event batches of 1,000 at 10 requests per second (about 40 s). */
async function mcpUsageOnly(): Promise<void> {
  const h = await startHarness();
  try {
    await mcpUsageBench(h);
  } finally {
    await h.close();
  }
}

async function main(): Promise<void> {
  console.log(`bench: ${os.cpus().length} cores, node ${process.version}`);
  // every code request of the bench comes from 127.0.0.1, and a few hundred go to fresh emails
  process.env.SIGN_IN_CODES_PER_ADDRESS ??= '100000';
  if (process.argv.includes('--against')) return (await import('./against')).againstBench();
  if (process.argv.includes('alerts')) return alertsOnly();
  if (process.argv.includes('compare')) return compareOnly();
  if (process.argv.includes('triage')) return triageOnly();
  if (process.argv.includes('vex')) return vexOnly();
  if (process.argv.includes('intel')) return intelOnly();
  if (process.argv.includes('portfolio')) return portfolioOnly();
  if (process.argv.includes('scan-path')) return scanPathOnly();
  if (process.argv.includes('profile')) return (await import('./profile')).profileBench();
  if (process.argv.includes('sign-in')) return signInOnly();
  if (process.argv.includes('client')) return clientOnly();
  if (process.argv.includes('scans')) return scansOnly();
  if (process.argv.includes('scan-document')) return scanDocumentBench();
  if (process.argv.includes('paged')) return pagedOnly();
  if (process.argv.includes('heartbeats')) return heartbeatsOnly();
  if (process.argv.includes('mcp-scan')) return mcpScanOnly();
  if (process.argv.includes('mcp-usage')) return mcpUsageOnly();
  if (withData('matching speed on the real advisories')) await matchingBench();
  await attributionInProcessBench();
  const h = await startHarness();
  try {
    if (withData('import of the complete PyPI set')) {
      const [pypi, pypiMs] = await timed(() =>
        importAdvisories(h.store, [sharedDataPath('advisories', 'pypi-all.zip')]),
      );
      row(`import of the complete PyPI set (pypi-all.zip, ${pypi.new} advisories)`, fmt(pypiMs));
      const [again, againMs] = await timed(() =>
        importAdvisories(h.store, [sharedDataPath('advisories', 'pypi-all.zip')]),
      );
      row(
        `re-import of the same set (${again.unchanged} unchanged, generation kept: ${again.generation === pypi.generation})`,
        fmt(againMs),
      );
    }
    // The synthetic advisories are what the 10,000-node snapshot's findings below come from: imported either way.
    const npm = withData('the real npm advisories of the advisory import (synthetic ones only)')
      ? [sharedDataPath('advisories', 'npm')]
      : [];
    const [imported, importMs] = await timed(() => importAdvisories(h.store, [...npm, syntheticAdvisories(2000)]));
    row(
      `advisory import (${npm.length ? 'npm + ' : ''}2,000 synthetic)`,
      fmt(importMs),
      `${imported.total} advisories`,
    );

    const small = benchSnapshot(1000, 'bench-1k');
    const big = benchSnapshot(10000, 'bench-10k');
    await uploadToCompleted(h, small, 3); // warm-up: bundles, caches, connections

    // Paced at 10 uploads/s, which the worker keeps up with on this machine; then back to back, which it does not
    // (every upload then competes for the 2 cores with the scans of the uploads before it).
    const paced = await uploadLatency(h, small, 100, '1,000-node, 10/s', 100);
    row('1,000-node v1 upload at 10/s: 201 latency p50', fmt(median(paced)));
    row('1,000-node v1 upload at 10/s: 201 latency p99', fmt(percentile(paced, 99)), '≤ 50 ms');
    await quiesce(h);
    const lat = await uploadLatency(h, small, 100, '1,000-node, back to back');
    row('1,000-node v1 upload back to back: 201 latency p50', fmt(median(lat)));
    row('1,000-node v1 upload back to back: 201 latency p99', fmt(percentile(lat, 99)), '≤ 50 ms');
    row('1,000-node v1 upload → completed (median of 5)', fmt(median(await uploadToCompleted(h, small, 5))));
    await quiesce(h);
    const bigLat = await uploadLatency(h, big, 10, '10,000-node');
    row('10,000-node v1 upload: 201 latency p50', fmt(median(bigLat)));
    row('10,000-node v1 upload: 201 latency p99', fmt(percentile(bigLat, 99)));
    row('10,000-node v1 upload → completed (median of 3)', fmt(median(await uploadToCompleted(h, big, 3))));

    await quiesce(h);
    // Throughput: 20 concurrent uploads of the 1,000-node snapshot, until all are completed.
    const t0 = performance.now();
    const ids = await Promise.all(Array.from({ length: 20 }, () => h.upload(small).then((r) => r.id)));
    await Promise.all(ids.map((id) => h.waitCompleted(id, 20)));
    const secs = (performance.now() - t0) / 1000;
    row('scans completed per second, 20 concurrent 1,000-node uploads', `${(20 / secs).toFixed(1)} /s`);

    // A scan with 2,000 findings: the 10,000-node snapshot matches the first 2,000 synthetic advisories.
    const { id: bigScan } = await h.upload(big);
    await h.waitCompleted(bigScan);
    const scan = await h.get(`/v1/scans/${bigScan}`);
    const total =
      scan.body.findings.critical + scan.body.findings.high + scan.body.findings.medium + scan.body.findings.low;
    const pages: number[] = [];
    const filters = [
      '',
      '&severity=high',
      '&severity=medium&severityMode=exact',
      '&suppressed=all',
      '&severity=critical&suppressed=all',
    ];
    for (let i = 0; i < 100; i++) {
      const [res, ms] = await timed(() =>
        h.get(`/v1/scans/${bigScan}/findings?limit=200${filters[i % filters.length]}`),
      );
      if (res.status !== 200) throw new Error(`findings answered ${res.status}`);
      pages.push(ms);
    }
    row(`findings page of 200 (${total} findings, mixed filters) p50`, fmt(median(pages)));
    row(`findings page of 200 (${total} findings, mixed filters) p99`, fmt(percentile(pages, 99)), '≤ 30 ms');

    await scanListBench(h);

    // The largest single document the limits allow: parse and validation run on the upload thread pool, so other
    // requests keep being answered meanwhile. Probe /healthz every 5 ms during the upload.
    await quiesce(h);
    const largest = JSON.stringify(
      syntheticSnapshot({
        schemaVersion: 2,
        nodes: 10000,
        roots: 1000,
        depsPerNode: 6,
        packagesPerRoot: 79,
        project: 'largest',
        ecosystem: 'javascript',
      }),
    );
    const probes: number[] = [];
    let uploading = true;
    const prober = (async () => {
      while (uploading) {
        const [, ms] = await timed(() => fetch(`${h.baseUrl}/healthz`).then((r) => r.text()));
        probes.push(ms);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const [, largestMs] = await timed(() => h.upload(largest));
    uploading = false;
    await prober;
    row(`largest document (${(largest.length / 1e6).toFixed(1)} MB, v2, 10,000 nodes): 201 latency`, fmt(largestMs));
    row(
      `  /healthz during that upload: max of ${probes.length} probes`,
      fmt(Math.max(...probes)),
      `p50 ${fmt(median(probes))}`,
    );

    // v2 attribution of the largest document, upload → completed: with 1 thread, then with the default pool.
    await quiesce(h);
    await importAdvisories(h.store, [largestV2Advisories(largestV2())]);
    await h.restartWorker({ ATTRIBUTION_THREADS: '1' });
    await attributionEndToEnd(h, 'warm', 1);
    row(
      'largest v2 document (1,000 roots): upload → completed, 1 thread',
      fmt(await attributionEndToEnd(h, 'one')),
      '≤ 2 s',
    );
    await h.restartWorker({});
    await attributionEndToEnd(h, 'warm2', 1);
    row(
      `largest v2 document: upload → completed, pool of ${defaultThreads()} threads`,
      fmt(await attributionEndToEnd(h, 'pool')),
      '≤ 2 s',
    );

    // The real npm lockfile, against OSV-Scanner's offline CLI on the same advisories.
    if (withData('the real lockfiles: piscina upload → completed, the CI client beside OSV-Scanner')) {
      const lockPath = sharedDataPath('lockfiles', 'npm', 'piscinajs__piscina__package-lock.json');
      const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
      const real = JSON.stringify(snapshotFromNpmLock(lock, { project: 'piscina', includeDev: true }));
      const ours = await uploadToCompleted(h, real, 10);
      row('piscina package-lock (592 packages): upload → completed, median', fmt(median(ours)));
      await importAdvisories(h.store, [sharedDataPath('advisories', 'pypi')]);
      for (const c of CLIENT_CASES) await clientBench(h, c);
    }
    await quiesce(h);
    await pagedBench(h);
    await signInBench(h);
    await heartbeatBench(h);
    await mcpScanBench(h); // issue 19: an MCP scan of 100 servers processed end to end
    await (await import('./web')).webBench(h); // issue 17: the web app's first screen of a 10,000-finding scan
  } finally {
    await h.close();
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
