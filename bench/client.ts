// The CI client beside OSV-Scanner's offline CLI on the same lockfile (issue 11): `scanner snapshot` alone, and
// `scanner scan` end to end against the running service, with the client's own share (start, parse and build the
// snapshot, serialize and hash, print the report) from its SCANNER_TIMINGS line.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Harness } from './harness';
import { osvScannerRunner } from './osv-scanner';
import { fmt, median, row } from './stats';

const BUNDLE = path.resolve(__dirname, '..', 'cli', 'scanner.mjs');
const RUNS = 15;

function wall(args: string[], env: NodeJS.ProcessEnv, script = BUNDLE): { ms: number; stderr: string } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [script, ...args], { env, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`scanner ${args[0]} exited ${r.status}: ${r.stderr}`);
  return { ms, stderr: r.stderr };
}

export interface ClientCase {
  label: string;
  /** The lockfile's name in the project folder (package-lock.json, pnpm-lock.yaml, poetry.lock). */
  fileName: string;
  lockPath: string;
  advisoryDir: string;
  /** OSV-Scanner's ecosystem folder for its offline database (npm, PyPI). */
  osvEcosystem: string;
}

export async function clientBench(h: Harness, c: ClientCase): Promise<void> {
  const { lockPath, advisoryDir } = c;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-client-'));
  fs.copyFileSync(lockPath, path.join(dir, c.fileName));
  const out = path.join(dir, 'out.json');
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SCANNER_URL: h.baseUrl,
    SCANNER_TOKEN: h.key,
    SCANNER_TIMINGS: '1',
  };
  try {
    const snapshotArgs = [
      'snapshot',
      dir,
      '--project',
      'piscina',
      '--output',
      out.replace(/\.json$/, '.snapshot.json'),
    ];
    const scanArgs = [
      'scan',
      dir,
      '--project',
      `client-${c.osvEcosystem}`,
      '--rescan',
      '--fail-on',
      'none',
      '--format',
      'json',
      '--output',
      out,
    ];
    wall(snapshotArgs, env); // warm the page cache
    wall(scanArgs, env); // the first scan of a project warms the service's caches
    // Interleaved, run by run, so that this machine's drift falls on both sides alike.
    const osv = osvScannerRunner(lockPath, advisoryDir, { fileName: c.fileName, ecosystem: c.osvEcosystem });
    const snap: number[] = [];
    const scans: Array<{ ms: number; stderr: string }> = [];
    const theirsMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      if (osv) theirsMs.push(osv.run());
      snap.push(wall(snapshotArgs, env).ms);
      scans.push(wall(scanArgs, env));
    }
    osv?.close();
    const theirs = osv ? { medianMs: median(theirsMs), runs: RUNS, version: osv.version } : undefined;
    const phases = new Map<string, number[]>();
    for (const s of scans) {
      const line = /scanner: timings (\{.*\})/.exec(s.stderr);
      if (!line) throw new Error(`no timings line in: ${s.stderr}`);
      for (const [k, v] of Object.entries<number>(JSON.parse(line[1]))) phases.set(k, [...(phases.get(k) ?? []), v]);
    }
    const phase = (k: string) => median(phases.get(k) ?? [0]);
    const own = ['start', 'snapshot', 'serialize+hash', 'report'].reduce((n, k) => n + phase(k), 0);

    // The floor of any Node CLI here: starting node on an empty ES module and exiting.
    const empty = path.join(dir, 'empty.mjs');
    fs.writeFileSync(empty, '');
    const floor = median(Array.from({ length: RUNS }, () => wall([], env, empty).ms));
    // And the floor of any Node CLI that reads this lockfile and writes a snapshot of its size: start, read the
    // file, parse it (JSON.parse; for YAML and TOML a parse no faster than JSON's), serialize and write it back,
    // nothing else. What is left of the ratio's budget after this is what a client could still win.
    const io = path.join(dir, 'io-floor.mjs');
    fs.writeFileSync(
      io,
      "import fs from 'node:fs';\n" +
        `const text = fs.readFileSync(${JSON.stringify(path.join(dir, c.fileName))}, 'utf8');\n` +
        (c.fileName.endsWith('.json') ? 'const doc = JSON.parse(text);\n' : 'const doc = text.split(/\\r?\\n/);\n') +
        `fs.writeFileSync(${JSON.stringify(path.join(dir, 'io-floor.json'))}, JSON.stringify(doc));\n`,
    );
    const ioFloor = median(Array.from({ length: RUNS }, () => wall([], env, io).ms));
    // Where the service's share goes: the upload route's Server-Timing for this very snapshot.
    const body = fs.readFileSync(out.replace(/\.json$/, '.snapshot.json'), 'utf8');
    const timing = new Map<string, number[]>();
    for (let i = 0; i < RUNS; i++) {
      const r = await h.upload(body.replace('"project":"piscina"', `"project":"piscina-timing-${i}"`));
      for (const part of r.timing.split(', ')) {
        const [name, dur] = part.split(';dur=');
        if (dur) timing.set(name, [...(timing.get(name) ?? []), Number(dur)]);
      }
    }

    const ratio = (ms: number) => (theirs ? `${(ms / theirs.medianMs).toFixed(2)}×` : 'n/a');
    row(
      `${c.label}: OSV-Scanner offline CLI, median`,
      theirs ? fmt(theirs.medianMs) : 'not built',
      theirs ? `(${theirs.runs} runs; ${theirs.version})` : undefined,
    );
    row(
      '  scanner snapshot (node start to file written), median',
      fmt(median(snap)),
      `${ratio(median(snap))} of OSV-Scanner; ≤ 0.5×`,
    );
    row(
      '  scanner scan end to end (upload, scan, wait, report), median',
      fmt(median(scans.map((s) => s.ms))),
      `${ratio(median(scans.map((s) => s.ms)))} of OSV-Scanner; ≤ 1.0×`,
    );
    row('  of which the client itself (start, parse, build, hash, print)', fmt(own));
    console.log(
      `    client phases (median ms): ${[...phases.keys()].map((k) => `${k} ${phase(k).toFixed(1)}`).join(', ')}`,
    );
    row(
      '  floor: node starting an empty ES module, median',
      fmt(floor),
      theirs ? `${ratio(floor)} of OSV-Scanner` : undefined,
    );
    row(
      `  floor: node reading, parsing${c.fileName.endsWith('.json') ? '' : ' (lines only)'} and writing this file back, median`,
      fmt(ioFloor),
      theirs ? `${ratio(ioFloor)} of OSV-Scanner` : undefined,
    );
    console.log(
      `    upload route of this snapshot, Server-Timing (median ms): ${[...timing].map(([k, v]) => `${k} ${median(v).toFixed(1)}`).join(', ')}`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
