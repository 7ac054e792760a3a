// Times OSV-Scanner's offline CLI on a lockfile with a local database made of the same advisories we import.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median } from './stats';

const VERSION = 'v2.2.4';
const LOCAL = path.resolve(__dirname, '..', '..', '.tools', 'bin', 'osv-scanner');

function findBinary(): string | undefined {
  const candidates = [
    process.env.OSV_SCANNER,
    LOCAL,
    path.join(os.homedir(), 'go', 'bin', 'osv-scanner'),
    'osv-scanner',
  ];
  for (const c of candidates) {
    if (!c) continue;
    const r = spawnSync(c, ['--version'], { encoding: 'utf8' });
    if (r.status === 0) return c;
  }
  return undefined;
}

/** OSV-Scanner's CLI, built from source into .tools/bin with the Go toolchain when it is not there yet (2-3 min). */
export function ensureOsvScanner(): string | undefined {
  const found = findBinary();
  if (found) return found;
  if (spawnSync('go', ['version']).status !== 0) return undefined;
  console.log(`bench: building OSV-Scanner ${VERSION} (go install, once) into .tools/bin`);
  const r = spawnSync('go', ['install', `github.com/google/osv-scanner/v2/cmd/osv-scanner@${VERSION}`], {
    env: { ...process.env, GOBIN: path.dirname(LOCAL), GOFLAGS: '-mod=mod' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return r.status === 0 ? findBinary() : undefined;
}

export interface OsvScannerRunner {
  version: string;
  /** One run of the offline CLI on the lockfile: its wall time in ms. */
  run(): number;
  close(): void;
}

/** OSV-Scanner's offline CLI set up on a lockfile with a local database made of the given advisories. */
export function osvScannerRunner(
  lockfile: string,
  advisoryDir: string,
  opts: { fileName?: string; ecosystem?: string } = {},
): OsvScannerRunner | undefined {
  const bin = ensureOsvScanner();
  if (!bin) return undefined;
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'osv-db-'));
  const zipDir = path.join(cache, 'osv-scanner', opts.ecosystem ?? 'npm');
  fs.mkdirSync(zipDir, { recursive: true });
  // The per-ecosystem all.zip layout OSV-Scanner reads offline: flat <ID>.json entries.
  execFileSync('python3', [
    '-c',
    'import sys,zipfile,os\nz=zipfile.ZipFile(sys.argv[1],"w",zipfile.ZIP_DEFLATED)\nfor f in sorted(os.listdir(sys.argv[2])):\n  f.endswith(".json") and z.write(os.path.join(sys.argv[2],f),f)\nz.close()',
    path.join(zipDir, 'all.zip'),
    advisoryDir,
  ]);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'osv-lock-'));
  const target = path.join(work, opts.fileName ?? 'package-lock.json');
  fs.copyFileSync(lockfile, target);
  const env = { ...process.env, OSV_SCANNER_LOCAL_DB_CACHE_DIRECTORY: cache };
  const args = ['scan', '--offline-vulnerabilities', '-L', target];
  const warm = spawnSync(bin, args, { env, encoding: 'utf8' }); // warm the page cache
  // 0: nothing found, 1: vulnerabilities found; anything else means it did not scan (and its time means nothing).
  if (warm.status !== 0 && warm.status !== 1)
    throw new Error(`osv-scanner ${args.join(' ')} exited ${warm.status}: ${warm.stderr}`);
  const version = (spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] || 'osv-scanner').trim();
  return {
    version,
    run() {
      const t0 = performance.now();
      spawnSync(bin, args, { env });
      return performance.now() - t0;
    },
    close() {
      fs.rmSync(cache, { recursive: true, force: true });
      fs.rmSync(work, { recursive: true, force: true });
    },
  };
}

export function osvScannerComparison(
  lockfile: string,
  advisoryDir: string,
  runs = 10,
): { medianMs: number; runs: number; version: string } | undefined {
  const runner = osvScannerRunner(lockfile, advisoryDir);
  if (!runner) return undefined;
  const times = Array.from({ length: runs }, () => runner.run());
  runner.close();
  return { medianMs: median(times), runs, version: runner.version };
}
