// `npm run bench -- compare`: the PR gate's figures (docs/pr-gate.md) on the local stack, beside their targets.
// - GET /v1/scans/{id}/compare of two scans of a 10,000-package lockfile with 2,000 findings each (500 added, 500
//   fixed, 1,500 unchanged): the first request for a pair of scans (nothing of the head cached), and repeats;
// - `scanner scan --gate new` beside `--gate all` on the same lockfile: the requests it adds, and the client's own time
//   in its compare phase (the phase's wall time less the compare request's own latency, measured right after).
// The lockfile is a package-lock.json v3 of bench-<i> packages; synthetic advisories (bench-<i> < 1.0.1, ids shaped
// like GHSA ids) make bench-0 … bench-2499 at 1.0.0 vulnerable.
import { Client, Connection } from '@temporalio/client';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Harness } from './harness';
import { quiesce, syntheticAdvisories } from './scenarios';
import { fmt, median, percentile, row } from './stats';

const BUNDLE = path.resolve(__dirname, '..', 'cli', 'scanner.mjs');
const PACKAGES = 10_000;

/** A package-lock.json v3 of bench-0 … bench-<n-1>, each at 1.0.0 unless `fixed` says 1.0.1. */
function packageLock(n: number, fixed: (i: number) => boolean): string {
  const version = (i: number) => (fixed(i) ? '1.0.1' : '1.0.0');
  const packages: Record<string, unknown> = {
    '': {
      name: 'bench-compare',
      version: '1.0.0',
      dependencies: Object.fromEntries(Array.from({ length: n }, (_, i) => [`bench-${i}`, version(i)])),
    },
  };
  for (let i = 0; i < n; i++) packages[`node_modules/bench-${i}`] = { version: version(i) };
  return JSON.stringify({ name: 'bench-compare', version: '1.0.0', lockfileVersion: 3, requires: true, packages });
}

function checkout(lock: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-compare-'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'bench-compare', version: '1.0.0' }));
  fs.writeFileSync(path.join(dir, 'package-lock.json'), lock);
  return dir;
}

interface Run {
  ms: number;
  scanId: string;
  phases: Record<string, number>;
}

function scan(h: Harness, dir: string, args: string[]): Run {
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SCANNER_URL: h.baseUrl,
    SCANNER_TOKEN: h.key,
    SCANNER_TIMINGS: '1',
  };
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      BUNDLE,
      'scan',
      dir,
      '--project',
      'bench-compare',
      '--fail-on',
      'none',
      '--format',
      'json',
      '--output',
      path.join(dir, 'out.json'),
      ...args,
    ],
    { env, encoding: 'utf8' },
  );
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`scanner scan exited ${r.status}: ${r.stderr}`);
  const scanId = /→ scan (scn_[A-Za-z0-9_-]+)/.exec(r.stderr)?.[1];
  const timings = /scanner: timings (\{.*\})/.exec(r.stderr)?.[1];
  if (!scanId || !timings) throw new Error(`no scan id or timings in: ${r.stderr}`);
  return { ms, scanId, phases: JSON.parse(timings) };
}

/** A GET's wall time, and its Server-Timing and body size (what the route's time went to). */
async function timedGet(h: Harness, url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${h.baseUrl}${url}`, { headers: { Authorization: `Bearer ${h.key}` } });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${text.slice(0, 500)}`);
  lastServerTiming = `${res.headers.get('server-timing')}; ${(text.length / 1e6).toFixed(2)} MB`;
  return ms;
}
let lastServerTiming = '';

export async function compareBench(h: Harness, reps = 12): Promise<void> {
  await h.importAdvisories([syntheticAdvisories(2500)]);
  // Baseline: bench-0 … bench-1999 vulnerable (2,000 findings). Head: bench-500 … bench-2499 (500 fixed, 500 added).
  const base = checkout(packageLock(PACKAGES, (i) => i >= 2000));
  const head = checkout(packageLock(PACKAGES, (i) => i < 500));
  const commit = 'a'.repeat(40);
  await quiesce(h);
  const baseline = scan(h, base, ['--ref', 'main', '--commit', commit]);
  const pr = ['--ref', 'feature/bench', '--base-commit', commit];

  // The first compare of each pair (a new head scan each time: --rescan), then repeats of the last pair.
  const first: number[] = [];
  let headScan = '';
  // Each head scan's workflow is let close first (its last activities run after the scan completes): the figure is
  // the comparison's, not the worker's tail beside it on the same two cores.
  const connection = await Connection.connect({ address: h.temporalAddress });
  const temporal = new Client({ connection });
  // One more pair first: the API process's very first comparison also compiles its code (printed, not counted).
  let warm = 0;
  for (let i = -1; i < reps; i++) {
    await quiesce(h);
    headScan = scan(h, head, [...pr, '--gate', 'all', '--rescan']).scanId;
    await temporal.workflow
      .getHandle(headScan)
      .result()
      .catch(() => undefined);
    const ms = await timedGet(h, `/v1/scans/${headScan}/compare`);
    if (i < 0) {
      warm = ms;
      continue;
    }
    first.push(ms);
    console.log(`  (first request ${i + 1}: ${fmt(first[i])}, Server-Timing: ${lastServerTiming})`);
  }
  await connection.close();
  const c = (await h.get(`/v1/scans/${headScan}/compare`)).body;
  const sizes = ['added', 'unchanged', 'disclosed', 'removed'].map((k) => `${c.parts[`findings.${k}`].count} ${k}`);
  if (c.baseline?.id !== baseline.scanId) throw new Error(`compare chose ${c.baseline?.id}, not ${baseline.scanId}`);
  const repeat: number[] = [];
  for (let i = 0; i < 100; i++) repeat.push(await timedGet(h, `/v1/scans/${headScan}/compare`));
  console.log(`\nGET /v1/scans/{id}/compare, 10,000 packages, 2,000 findings each side (${sizes.join(', ')})`);
  row(
    'first request for a pair of scans, p99 (ms)',
    `${fmt(percentile(first, 99))} (median ${fmt(median(first))}, ${reps} pairs)`,
    '≤ 150',
  );
  row("the API process's first comparison (compiles the code; not counted above)", fmt(warm));
  row('repeated request, p99 (ms)', fmt(percentile(repeat, 99)), '≤ 150');
  console.log(`  (the last request's Server-Timing: ${lastServerTiming})`);

  // The client: --gate new beside --gate all on the same (replayed) scan; its compare phase less the request itself.
  const gateAll: number[] = [];
  const gateNew: number[] = [];
  const own: number[] = [];
  for (let i = 0; i < reps; i++) {
    await quiesce(h);
    gateAll.push(scan(h, head, [...pr, '--gate', 'all']).ms);
    const run = scan(h, head, [...pr, '--gate', 'new']);
    gateNew.push(run.ms);
    const request = await timedGet(h, `/v1/scans/${run.scanId}/compare`);
    own.push(Math.max(0, (run.phases.compare ?? 0) - request));
  }
  console.log('\nscanner scan --gate new beside --gate all, same lockfile (median ms)');
  row('--gate all, end to end', fmt(median(gateAll)));
  row('--gate new, end to end', `${fmt(median(gateNew))} (+${fmt(median(gateNew) - median(gateAll))})`, '+1 request');
  row("--gate new, the client's own time in its compare phase", fmt(median(own)), '≤ 20');
  for (const d of [base, head]) fs.rmSync(d, { recursive: true, force: true });
}
