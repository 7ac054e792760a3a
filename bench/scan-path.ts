// `npm run bench -- scan-path`: the figures of a scan's path through the service (upload, processing, read), each
// beside its target and, where one exists, beside OSV-Scanner's offline CLI on the same lockfile in the same run.
// `npm run bench -- --against REF` runs the same suite on another commit too (bench/against.ts).
//
// Every scenario's findings are reduced to a digest and checked against the previous run's (kept in
// .bench/findings.json), so that a change that makes a scan faster by finding less shows at once.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildAdvisoryIndex } from '../src/domain/advisories';
import { moduleRank, orderModules } from '../src/domain/attribution/module-order';
import { attributeInline } from '../src/domain/attribution/v2-assemble';
import { buildAttributionGraph } from '../src/domain/attribution/v2-graph';
import { buildFindings } from '../src/domain/findings';
import { matchSnapshot } from '../src/domain/matching';
import { snapshotFromNpmLock, validateSnapshot } from '../src/domain/snapshot';
import type { OsvAdvisory } from '../src/shared/types';
import type { Snapshot } from '../src/shared/types';
import { hasSharedData, sharedDataPath } from '../src/infra/shared-data';
import { largestV2, largestV2Advisories } from './attribution';
import type { Harness } from './harness';
import { osvScannerRunner, type OsvScannerRunner } from './osv-scanner';
import { benchSnapshot, quiesce, syntheticAdvisories, TINY } from './scenarios';
import { fmt, median, percentile, row } from './stats';
import { THIS_ROOT } from './tree';

/** One figure of the suite: its value in ms (or a ratio), with the target it is held to. */
export interface Figure {
  label: string;
  value: number;
  unit: 'ms' | '×';
  target?: { max: number; text: string };
}

const AXIOS_LOCK = path.join(THIS_ROOT, 'bench', 'fixtures', 'axios-1.7.9-package-lock.json');
const SYNTHETIC_ADVISORIES = 2000;
const LOCK_PACKAGES = 10_000;

/**
 * A package-lock.json (v3) of `n` packages bench-<i>@1.0.0 from i = `first`, each depending on up to 3 later ones.
 * From first = SYNTHETIC_ADVISORIES - 100, the first 100 have an advisory (1 %): OSV-Scanner's time grows with what
 * it finds (about 3.5 ms a finding here), so a lockfile where a fifth of the packages are vulnerable would flatter us.
 */
function syntheticLockfile(n: number, first = SYNTHETIC_ADVISORIES - 100): string {
  const name = (i: number) => `bench-${first + i}`;
  const packages: Record<string, unknown> = {
    '': {
      name: 'bench-lockfile',
      version: '1.0.0',
      dependencies: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [name(i), '1.0.0'])),
    },
  };
  for (let i = 0; i < n; i++) {
    const deps = [i * 3 + 20, i * 3 + 21, i * 3 + 22].filter((k) => k < n);
    packages[`node_modules/${name(i)}`] = {
      version: '1.0.0',
      resolved: `https://registry.npmjs.org/${name(i)}/-/${name(i)}-1.0.0.tgz`,
      ...(deps.length ? { dependencies: Object.fromEntries(deps.map((k) => [name(k), '1.0.0'])) } : {}),
    };
  }
  return JSON.stringify({ name: 'bench-lockfile', version: '1.0.0', lockfileVersion: 3, requires: true, packages });
}

/** A lockfile scenario: its snapshot, OSV-Scanner set up on the lockfile, and how its figures are named and held. */
interface LockfileCase {
  /** Names its findings digest and prefixes its OSV-Scanner rows. */
  key: string;
  short: string;
  label: string;
  body: string;
  osv?: OsvScannerRunner;
  /** Repetitions, as a share of the suite's. */
  share: number;
  target: { max: number; text: string };
}

/** What the suite needs beyond the service: workloads and OSV-Scanner, prepared once for every run. */
export interface ScanPathSetup {
  advisoryPaths: string[];
  typical: string;
  /** Real-world lockfiles, each uploaded as the client makes its snapshot, beside OSV-Scanner on the lockfile. */
  lockfiles: LockfileCase[];
  largest: { body: string; advisories: OsvAdvisory[] };
  close(): void;
}

export function prepareScanPath(): ScanPathSetup {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-scan-path-'));
  const synthetic = syntheticAdvisories(SYNTHETIC_ADVISORIES, 'per-advisory');
  const largest = largestV2();
  const largestDir = largestV2Advisories(largest);
  const advisoryPaths = [synthetic, largestDir];
  const lockfiles: LockfileCase[] = [];
  if (hasSharedData()) {
    const npmAdvisories = sharedDataPath('advisories', 'npm');
    advisoryPaths.unshift(npmAdvisories);
    const lock = JSON.parse(fs.readFileSync(AXIOS_LOCK, 'utf8'));
    const snapshot = snapshotFromNpmLock(lock, { project: 'axios', includeDev: true });
    lockfiles.push({
      key: 'axios',
      short: 'axios',
      label: `axios package-lock (${snapshot.nodes.length} packages): upload → completed`,
      body: JSON.stringify(snapshot),
      osv: osvScannerRunner(AXIOS_LOCK, npmAdvisories),
      share: 1,
      target: { max: 0.5, text: '≤ 0.5×' },
    });
  } else
    console.log('skipped: the axios lockfile beside OSV-Scanner: no third-party advisories (set SCANNER_SHARED_DATA)');
  const lockPath = path.join(scratch, 'package-lock.json');
  fs.writeFileSync(lockPath, syntheticLockfile(LOCK_PACKAGES));
  const lockSnapshot = snapshotFromNpmLock(JSON.parse(fs.readFileSync(lockPath, 'utf8')), { project: 'bench-lock' });
  lockfiles.push({
    key: 'lockfile',
    short: '10,000 packages',
    label: `${LOCK_PACKAGES.toLocaleString('en')}-package lockfile (100 vulnerable): upload → completed`,
    body: JSON.stringify(lockSnapshot),
    osv: osvScannerRunner(lockPath, synthetic),
    share: 0.5,
    target: { max: 0.4, text: '≤ 0.4×' },
  });
  return {
    advisoryPaths,
    typical: benchSnapshot(1000, 'bench-1k'),
    lockfiles,
    largest: {
      body: JSON.stringify(largest),
      advisories: JSON.parse(fs.readFileSync(path.join(largestDir, 'v2.json'), 'utf8')) as OsvAdvisory[],
    },
    close() {
      for (const c of lockfiles) c.osv?.close();
      for (const dir of [scratch, synthetic, largestDir]) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The scan's findings reduced to a digest: what was found, where, and whether it was suppressed. */
async function findingsDigest(h: Harness, scanId: string): Promise<string> {
  const lines: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await h.get(
      `/v1/scans/${scanId}/findings?limit=200&suppressed=all${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (res.status !== 200) throw new Error(`findings of ${scanId} answered ${res.status}`);
    for (const f of res.body.findings as Array<Record<string, any>>)
      lines.push(
        [
          f.cve,
          f.package,
          f.installedVersion,
          f.severity,
          f.suppressed,
          (f.path ?? []).join('>'),
          f.attributions?.length,
        ]
          .map(String)
          .join('|'),
      );
    cursor = res.body.nextCursor;
  } while (cursor);
  lines.sort();
  return `${lines.length}:${crypto.createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16)}`;
}

/**
 * One upload and its completion: the time from just before the upload is sent to the finishedAt the service stamped
 * on the scan, so the figure does not depend on how often the bench looks. It polls every 20 ms, which costs the
 * database little (a 2 ms poll would take a good share of this 2-core machine's database from the scan it measures).
 */
async function uploadCompleted(h: Harness, body: string): Promise<{ ms: number; scanId: string }> {
  await quiesce(h);
  const t0 = Date.now();
  const { id } = await h.upload(body);
  const done = await h.waitCompleted(id, 20);
  if (done.status !== 'completed') throw new Error(`scan ${id} ${done.status}`);
  const scan = await h.get(`/v1/scans/${id}`);
  return { ms: Date.parse(scan.body.finishedAt) - t0, scanId: id };
}

/** The largest document's whole computation in this process, one thread, no storage or Temporal: its wall time. */
function inProcessScan(body: string, index: ReturnType<typeof buildAdvisoryIndex>): number {
  const t0 = performance.now();
  const snapshot = JSON.parse(body) as Snapshot;
  validateSnapshot(snapshot, Buffer.byteLength(body));
  const m = matchSnapshot(snapshot, index);
  const modules = orderModules(snapshot.modules ?? []);
  const v2 = attributeInline(
    snapshot,
    buildAttributionGraph(snapshot),
    m.matches.map((x) => x.nodeId),
    moduleRank(modules),
  );
  buildFindings({
    scanId: 'scn_reference',
    projectId: 'prj_reference',
    snapshot,
    matches: m.matches,
    paths: v2.paths,
    attributions: v2.attributions,
    processingDay: new Date().toISOString().slice(0, 10),
  });
  return performance.now() - t0;
}

/**
 * The organization's history brought to `n` scans (tiny snapshots, 10 uploads at a time), all processed, and the
 * service idle again: a tree whose worker packs list groups once they are quiet (storage/scan-list-cache.ts) has
 * written its packs (their count has stopped moving), so that the lists below are measured on an idle service, as
 * every other figure is.
 */
async function history(h: Harness, n: number): Promise<void> {
  const have = (await h.get('/v1/scans?limit=200')).body.scans.length as number;
  for (let i = have; i < n; i += 10) await Promise.all(Array.from({ length: 10 }, () => h.upload(TINY)));
  await quiesce(h);
  const packs = h.store.db.collection('scanListPacks');
  let last = -1;
  await new Promise((r) => setTimeout(r, 1_500));
  for (let i = 0; i < 100; i++) {
    const now = await packs.countDocuments({});
    if (now === last) break;
    last = now;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** One page of the scan list (after `cursor`): its latency, and the next cursor. */
async function listPage(h: Harness, cursor?: string | null): Promise<{ ms: number; next: string | null }> {
  const t0 = performance.now();
  const res = await h.get(`/v1/scans?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  const ms = performance.now() - t0;
  if (res.status !== 200 || res.body.scans.length !== 50) throw new Error(`scan list answered ${res.status}`);
  return { ms, next: res.body.nextCursor };
}

/** What the suite measured on one service: its figures in a fixed order, and each scenario's findings digest. */
export interface ScanPathResult {
  figures: Figure[];
  digests: Record<string, string>;
}

/**
 * The suite on one or more running services (several: the trees of a comparison, up at once on one infrastructure),
 * interleaved: every repetition measures each service in turn, the order flipping each time, so that a drift of the
 * machine's speed falls on all of them alike. Printed as it goes when there is one service.
 */
export async function scanPathFigures(hs: Harness[], setup: ScanPathSetup, reps = 10): Promise<ScanPathResult[]> {
  const out: ScanPathResult[] = hs.map(() => ({ figures: [], digests: {} }));
  const add = (k: number, f: Figure) => {
    out[k].figures.push(f);
    if (hs.length === 1) row(f.label, f.unit === 'ms' ? fmt(f.value) : `${f.value.toFixed(2)}×`, f.target?.text);
  };
  const order = (i: number) => (i % 2 ? [...hs.keys()].reverse() : [...hs.keys()]);
  /** `n` repetitions of `measure` on every service, interleaved; `before` runs once per repetition (OSV-Scanner). */
  async function interleaved<T>(n: number, measure: (h: Harness) => Promise<T>, before?: () => number) {
    const values = hs.map(() => [] as T[]);
    const others: number[] = [];
    for (let i = 0; i < n; i++) {
      if (before) others.push(before());
      for (const k of order(i)) values[k].push(await measure(hs[k]));
    }
    return { values, others };
  }
  for (const h of hs) await h.importAdvisories(setup.advisoryPaths);

  // A typical 1,000-node upload (1,000 findings): the 201's latency at 10 uploads/s (blocks of 20 uploads per
  // service), then upload → completed.
  await interleaved(3, (h) => uploadCompleted(h, setup.typical)); // warm-up: bundles, caches, connections
  const paced = await interleaved(Math.ceil((reps * 10) / 20), async (h) => {
    const lat: number[] = [];
    await quiesce(h);
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      await h.upload(setup.typical);
      const ms = performance.now() - t0;
      lat.push(ms);
      if (ms < 100) await new Promise((r) => setTimeout(r, 100 - ms));
    }
    return lat;
  });
  const typical = await interleaved(reps, (h) => uploadCompleted(h, setup.typical));
  // GET /v1/scans/{id}?wait=: how long after the scan's finishedAt the held answer arrives (a tree from before ?wait=
  // answers at once: no figure for it).
  const lags = await interleaved(reps * 2, async (h) => {
    await quiesce(h);
    const { id } = await h.upload(setup.typical);
    const res = await h.get(`/v1/scans/${id}?wait=30`);
    const answered = Date.now();
    return res.body.status === 'completed' ? answered - Date.parse(res.body.finishedAt) : undefined;
  });
  // Real lockfiles beside OSV-Scanner, and the largest document beside its whole computation in this process.
  const lockRuns = [];
  for (const c of setup.lockfiles)
    lockRuns.push(
      await interleaved(Math.ceil(reps * c.share), (h) => uploadCompleted(h, c.body), c.osv && (() => c.osv!.run())),
    );
  // The scan list of 50 after a history of 300 scans: the first page (groups kept by the API), pages 2-5 read once
  // (not kept yet: read from their packs, or from their scans), and the first page with an upload before each read.
  for (const h of hs) await history(h, 300);
  const firstPages = await interleaved(reps * 5, async (h) => (await listPage(h)).ms);
  const cursors = await Promise.all(hs.map(async (h) => (await listPage(h)).next));
  const coldPages = await interleaved(4, async (h) => {
    const k = hs.indexOf(h);
    const page = await listPage(h, cursors[k]);
    cursors[k] = page.next;
    return page.ms;
  });
  const busyPages = await interleaved(reps * 2, async (h) => {
    await h.upload(TINY);
    return (await listPage(h)).ms;
  });
  const index = buildAdvisoryIndex(setup.largest.advisories);
  inProcessScan(setup.largest.body, index); // warm-up
  const largestRuns = await interleaved(
    3,
    (h) => uploadCompleted(h, setup.largest.body),
    () => inProcessScan(setup.largest.body, index),
  );

  for (const k of hs.keys()) {
    const h = hs[k];
    const ms = (runs: Array<{ ms: number }>) => median(runs.map((r) => r.ms));
    const last = (runs: Array<{ scanId: string }>) => runs[runs.length - 1].scanId;
    const beside = (label: string, ours: number, theirs: number, target: Figure['target'], what: string) => {
      add(k, { label: `  ${label}: ${what}`, value: theirs, unit: 'ms' });
      add(k, { label: `  ${label}: ratio to ${what.split(',')[0]}`, value: ours / theirs, unit: '×', target });
    };
    const flat = paced.values[k].flat();
    add(k, { label: '1,000-node upload at 10/s: 201 latency p50', value: median(flat), unit: 'ms' });
    add(k, {
      label: '1,000-node upload at 10/s: 201 latency p99',
      value: percentile(flat, 99),
      unit: 'ms',
      target: { max: 40, text: '≤ 40 ms' },
    });
    add(k, {
      label: '1,000-node upload → completed, median',
      value: ms(typical.values[k]),
      unit: 'ms',
      target: { max: 120, text: '≤ 120 ms' },
    });
    out[k].digests['1,000-node'] = await findingsDigest(h, last(typical.values[k]));
    const lag = lags.values[k].filter((v): v is number => v !== undefined);
    if (lag.length)
      add(k, {
        label: 'GET /v1/scans/{id}?wait=: answer after finishedAt, median',
        value: median(lag),
        unit: 'ms',
        target: { max: 10, text: '≤ 10 ms' },
      });
    for (const [i, c] of setup.lockfiles.entries()) {
      const ours = ms(lockRuns[i].values[k]);
      add(k, { label: c.label, value: ours, unit: 'ms' });
      if (lockRuns[i].others.length)
        beside(c.short, ours, median(lockRuns[i].others), c.target, 'OSV-Scanner offline, same lockfile');
      out[k].digests[c.key] = await findingsDigest(h, last(lockRuns[i].values[k]));
    }
    add(k, { label: 'scan list of 50 after 300 scans: p50', value: median(firstPages.values[k]), unit: 'ms' });
    add(k, {
      label: 'scan list of 50 after 300 scans: p99',
      value: percentile(firstPages.values[k], 99),
      unit: 'ms',
      target: { max: 30, text: '≤ 30 ms' },
    });
    add(k, {
      label: '  pages 2-5 read once (groups not kept): median',
      value: median(coldPages.values[k]),
      unit: 'ms',
    });
    add(k, { label: '  with an upload before each read: p50', value: median(busyPages.values[k]), unit: 'ms' });
    add(k, { label: '  with an upload before each read: p99', value: percentile(busyPages.values[k], 99), unit: 'ms' });
    const largest = ms(largestRuns.values[k]);
    add(k, { label: 'largest document (9.5 MB, 79k vertices): upload → completed', value: largest, unit: 'ms' });
    beside('largest', largest, median(largestRuns.others), { max: 3, text: '≤ 3×' }, 'in process, 1 thread, no I/O');
    out[k].digests.largest = await findingsDigest(h, last(largestRuns.values[k]));
  }
  return out;
}

const DIGESTS = path.join(THIS_ROOT, '.bench', 'findings.json');

/**
 * Compares the digests with the previous run's and keeps these: true when every scenario found what it found last
 * time (a scenario new to this run is kept without comparison).
 */
export function checkDigests(digests: Record<string, string>): boolean {
  const previous: Record<string, string> = fs.existsSync(DIGESTS) ? JSON.parse(fs.readFileSync(DIGESTS, 'utf8')) : {};
  let same = true;
  for (const [k, v] of Object.entries(digests)) {
    if (previous[k] === undefined) continue;
    if (previous[k] !== v) {
      same = false;
      console.log(`findings of ${k} DIFFER from the previous run: ${previous[k]} before, ${v} now`);
    }
  }
  if (same)
    console.log(`findings: the same as the previous run's in every scenario (${Object.keys(digests).join(', ')})`);
  fs.mkdirSync(path.dirname(DIGESTS), { recursive: true });
  fs.writeFileSync(DIGESTS, JSON.stringify({ ...previous, ...digests }, null, 2));
  return same;
}
