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
import { benchSnapshot, quiesce, syntheticAdvisories, uploadLatency } from './scenarios';
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

/** What the suite needs beyond the service: workloads and OSV-Scanner, prepared once for every run. */
export interface ScanPathSetup {
  advisoryPaths: string[];
  typical: string;
  axios?: { body: string; packages: number; osv?: OsvScannerRunner };
  lockfile: { body: string; osv?: OsvScannerRunner };
  largest: { body: string; advisories: OsvAdvisory[] };
  close(): void;
}

export function prepareScanPath(): ScanPathSetup {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-scan-path-'));
  const synthetic = syntheticAdvisories(SYNTHETIC_ADVISORIES, 'per-advisory');
  const largest = largestV2();
  const largestDir = largestV2Advisories(largest);
  const advisoryPaths = [synthetic, largestDir];
  let axios: ScanPathSetup['axios'];
  if (hasSharedData()) {
    const npmAdvisories = sharedDataPath('advisories', 'npm');
    advisoryPaths.unshift(npmAdvisories);
    const lock = JSON.parse(fs.readFileSync(AXIOS_LOCK, 'utf8'));
    const snapshot = snapshotFromNpmLock(lock, { project: 'axios', includeDev: true });
    axios = {
      body: JSON.stringify(snapshot),
      packages: snapshot.nodes.length,
      osv: osvScannerRunner(AXIOS_LOCK, npmAdvisories),
    };
  } else
    console.log('skipped: the axios lockfile beside OSV-Scanner: no third-party advisories (set SCANNER_SHARED_DATA)');
  const lockPath = path.join(scratch, 'package-lock.json');
  fs.writeFileSync(lockPath, syntheticLockfile(LOCK_PACKAGES));
  const lockSnapshot = snapshotFromNpmLock(JSON.parse(fs.readFileSync(lockPath, 'utf8')), { project: 'bench-lock' });
  return {
    advisoryPaths,
    typical: benchSnapshot(1000, 'bench-1k'),
    axios,
    lockfile: { body: JSON.stringify(lockSnapshot), osv: osvScannerRunner(lockPath, synthetic) },
    largest: {
      body: JSON.stringify(largest),
      advisories: JSON.parse(fs.readFileSync(path.join(largestDir, 'v2.json'), 'utf8')) as OsvAdvisory[],
    },
    close() {
      axios?.osv?.close();
      this.lockfile.osv?.close();
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

/** Uploads and waits for completion `n` times, alternating with `other` when given: the medians of both. */
async function completedBeside(
  h: Harness,
  body: string,
  n: number,
  other?: () => number,
): Promise<{ ours: number; theirs?: number; scanId: string }> {
  await quiesce(h);
  const ours: number[] = [];
  const theirs: number[] = [];
  let scanId = '';
  for (let i = 0; i < n; i++) {
    if (other) theirs.push(other());
    const t0 = performance.now();
    scanId = (await h.upload(body)).id;
    const done = await h.waitCompleted(scanId, 2);
    if (done.status !== 'completed') throw new Error(`scan ${scanId} ${done.status}`);
    ours.push(performance.now() - t0);
  }
  return { ours: median(ours), theirs: other ? median(theirs) : undefined, scanId };
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
 * The suite on one running service: figures in a fixed order, and the digest of each scenario's findings. `quick`:
 * fewer repetitions (the comparison runs the suite several times).
 */
export async function scanPathFigures(
  h: Harness,
  setup: ScanPathSetup,
  quick = false,
): Promise<{ figures: Figure[]; digests: Record<string, string> }> {
  const figures: Figure[] = [];
  const digests: Record<string, string> = {};
  const add = (f: Figure) => {
    figures.push(f);
    const value = f.unit === 'ms' ? fmt(f.value) : `${f.value.toFixed(2)}×`;
    row(f.label, value, f.target?.text);
  };
  await h.importAdvisories(setup.advisoryPaths);
  const reps = quick ? 5 : 10;

  // A typical 1,000-node upload (1,000 findings): the 201's latency at 10 uploads/s, then upload → completed.
  await completedBeside(h, setup.typical, 3); // warm-up: bundles, caches, connections
  const paced = await uploadLatency(h, setup.typical, quick ? 60 : 100, '1,000-node, 10/s', 100);
  add({ label: '1,000-node upload at 10/s: 201 latency p50', value: median(paced), unit: 'ms' });
  add({
    label: '1,000-node upload at 10/s: 201 latency p99',
    value: percentile(paced, 99),
    unit: 'ms',
    target: { max: 40, text: '≤ 40 ms' },
  });
  const typical = await completedBeside(h, setup.typical, reps);
  add({
    label: '1,000-node upload → completed, median',
    value: typical.ours,
    unit: 'ms',
    target: { max: 120, text: '≤ 120 ms' },
  });
  digests['1,000-node'] = await findingsDigest(h, typical.scanId);

  // GET /v1/scans/{id}?wait=: how long after the scan's finishedAt the held answer arrives (trees from before ?wait=
  // answer at once: no figure).
  await quiesce(h);
  const lags: number[] = [];
  for (let i = 0; i < reps * 2; i++) {
    const { id } = await h.upload(setup.typical);
    const res = await h.get(`/v1/scans/${id}?wait=30`);
    const answered = Date.now();
    if (res.body.status !== 'completed') break;
    lags.push(answered - Date.parse(res.body.finishedAt));
  }
  if (lags.length)
    add({
      label: 'GET /v1/scans/{id}?wait=: answer after finishedAt, median',
      value: median(lags),
      unit: 'ms',
      target: { max: 10, text: '≤ 10 ms' },
    });
  else console.log('  (no ?wait= in this tree: answered at once)');

  // Real lockfiles beside OSV-Scanner, run alternately.
  if (setup.axios) {
    const r = await completedBeside(h, setup.axios.body, reps, setup.axios.osv && (() => setup.axios!.osv!.run()));
    add({
      label: `axios package-lock (${setup.axios.packages} packages): upload → completed`,
      value: r.ours,
      unit: 'ms',
    });
    if (r.theirs !== undefined) {
      add({ label: '  axios: OSV-Scanner offline, same lockfile', value: r.theirs, unit: 'ms' });
      add({
        label: '  axios: ratio to OSV-Scanner',
        value: r.ours / r.theirs,
        unit: '×',
        target: { max: 0.5, text: '≤ 0.5×' },
      });
    }
    digests.axios = await findingsDigest(h, r.scanId);
  }
  const lock = await completedBeside(
    h,
    setup.lockfile.body,
    quick ? 3 : 5,
    setup.lockfile.osv && (() => setup.lockfile.osv!.run()),
  );
  add({
    label: `${LOCK_PACKAGES.toLocaleString('en')}-package lockfile (100 vulnerable): upload → completed`,
    value: lock.ours,
    unit: 'ms',
  });
  if (lock.theirs !== undefined) {
    add({ label: '  10,000 packages: OSV-Scanner offline, same lockfile', value: lock.theirs, unit: 'ms' });
    add({
      label: '  10,000 packages: ratio to OSV-Scanner',
      value: lock.ours / lock.theirs,
      unit: '×',
      target: { max: 0.4, text: '≤ 0.4×' },
    });
  }
  digests.lockfile = await findingsDigest(h, lock.scanId);

  // The largest document against its whole computation in this process (alternating).
  const index = buildAdvisoryIndex(setup.largest.advisories);
  inProcessScan(setup.largest.body, index); // warm-up
  const largest = await completedBeside(h, setup.largest.body, 3, () => inProcessScan(setup.largest.body, index));
  add({ label: 'largest document (9.5 MB, 79k vertices): upload → completed', value: largest.ours, unit: 'ms' });
  add({ label: '  largest: the same computed in process (1 thread, no I/O)', value: largest.theirs!, unit: 'ms' });
  add({
    label: '  largest: ratio to in process',
    value: largest.ours / largest.theirs!,
    unit: '×',
    target: { max: 3, text: '≤ 3× in process' },
  });
  digests.largest = await findingsDigest(h, largest.scanId);
  return { figures, digests };
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
