// The client on the other shared lockfiles, end to end against the real service: vuejs/core's pnpm lockfile gives
// the findings a node-semver reading of the npm advisories predicts; JabRef's gradle.lockfile the Maven findings the
// pipeline tests expect; a directory with lockfiles of two ecosystems becomes two snapshots, two scans of one project.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from '@temporalio/worker';
import { parse as parseYaml } from 'yaml';
import { importAdvisories } from '../../src/advisories/import';
import { createLogger } from '../../src/logger';
import { createScanWorker } from '../../workers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { runClient } from '../helpers/client';
import { newOrg, requireEnv, testContext, type TestContext } from '../helpers/context';
import { predictNpmFindings, predictPypiFindings } from '../helpers/predict';
import { itWithSharedData, sharedDataDir } from '../helpers/shared-data';

const SHARED = sharedDataDir();
const NPM_ADVISORIES = path.join(SHARED, 'advisories/npm');
const PYPI_ADVISORIES = path.join(SHARED, 'advisories/pypi');
const POETRY_LOCK = path.join(SHARED, 'lockfiles/pypi/python-poetry__poetry__poetry.lock');

let t: TestContext;
let worker: Worker;
let running: Promise<void>;
let env: Record<string, string>;
const dirs: string[] = [];

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  for (const dir of [NPM_ADVISORIES, path.join(SHARED, 'advisories/maven'), PYPI_ADVISORIES])
    expect((await importAdvisories(t.store, [dir])).rejected).toEqual([]);
  worker = (
    await createScanWorker({
      store: t.store,
      logger: createLogger('worker', 'silent'),
      temporalAddress: requireEnv('TEMPORAL_ADDRESS'),
      namespace: 'default',
      taskQueue: t.taskQueue,
    })
  ).worker;
  running = worker.run();
  const org = await newOrg(t.store);
  const key = await org.key(['sca:upload', 'scans:read', 'findings:read']);
  env = { SCANNER_URL: `http://127.0.0.1:${(t.server.address() as { port: number }).port}`, SCANNER_TOKEN: key };
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await t?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-eco-'));
  dirs.push(dir);
  for (const [name, from] of Object.entries(files)) fs.copyFileSync(from, path.join(dir, name));
  return dir;
}

interface Report {
  scans: Array<{
    ecosystem: string;
    scan: { id: string; status: string; findings: Record<string, number> };
    findings: Array<{
      aliases: string[];
      cve: string;
      package: string;
      installedVersion: string;
      fixedVersion: string | null;
      path: string[];
    }>;
  }>;
}

async function scanJson(dir: string, projectName: string): Promise<Report> {
  const run = await runClient(
    ['scan', dir, '--project', projectName, '--format', 'json', '--fail-on', 'none', '--timeout', '120'],
    env,
  );
  expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
  return JSON.parse(run.stdout);
}

itWithSharedData(
  'vuejs/core pnpm-lock.yaml: exactly the findings the npm advisory data predicts',
  async () => {
    const lockPath = path.join(SHARED, 'lockfiles/npm/vuejs__core__pnpm-lock.yaml');
    const lock = parseYaml(fs.readFileSync(lockPath, 'utf8')) as { packages: Record<string, unknown> };
    // The shared advisories (2024) predate this lockfile (2026) and match none of it; three advisories made here
    // for packages it does lock (a scoped one, one with two peer variants) make the comparison say something.
    const keys = Object.keys(lock.packages);
    const pick = [
      keys.find((k) => k.startsWith('@babel/parser@'))!,
      keys.find((k) => k.startsWith('fdir@'))!,
      keys.find((k) => /^[a-z]/.test(k) && !k.startsWith('fdir@'))!,
    ];
    const extra = fs.mkdtempSync(path.join(os.tmpdir(), 'adv-'));
    dirs.push(extra);
    pick.forEach((id, i) => {
      const at = id.lastIndexOf('@');
      const advisory = {
        id: `GHSA-test-000${i}-vvvv`,
        modified: '2026-01-01T00:00:00Z',
        published: '2026-01-01T00:00:00Z',
        summary: `made for ${id}`,
        database_specific: { severity: 'HIGH' },
        affected: [
          {
            package: { ecosystem: 'npm', name: id.slice(0, at) },
            ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '999.0.0' }] }],
          },
        ],
      };
      fs.writeFileSync(path.join(extra, `${advisory.id}.json`), JSON.stringify(advisory));
    });
    expect((await importAdvisories(t.store, [extra])).rejected).toEqual([]);
    expect(predictNpmFindings(keys, NPM_ADVISORIES)).toEqual([]);
    const expected = [...predictNpmFindings(keys, NPM_ADVISORIES), ...predictNpmFindings(keys, extra)].sort();
    expect(expected).toHaveLength(3);
    const report = await scanJson(project({ 'pnpm-lock.yaml': lockPath }), 'vue-core');
    expect(report.scans).toHaveLength(1);
    const { scan, findings } = report.scans[0];
    expect(scan).toMatchObject({ status: 'completed', ecosystem: 'javascript' });
    const got = findings.map(
      (f) => `${f.aliases.find((a) => a.startsWith('GHSA-'))}|${f.package}|${f.installedVersion}`,
    );
    expect(got.sort()).toEqual(expected);
  },
  120_000,
);

itWithSharedData(
  'JabRef gradle.lockfile: the Maven advisories of jackson-databind, guava and snakeyaml',
  async () => {
    const report = await scanJson(
      project({ 'gradle.lockfile': path.join(SHARED, 'lockfiles/maven/JabRef__jabref__gradle.lockfile') }),
      'jabref',
    );
    const { scan, findings } = report.scans[0];
    expect(scan).toMatchObject({ status: 'completed', ecosystem: 'gradle' });
    expect(findings.map((f) => `${f.package}@${f.installedVersion} ${f.cve} fix=${f.fixedVersion}`)).toEqual(
      expect.arrayContaining([
        'com.fasterxml.jackson.core:jackson-databind@2.13.3 CVE-2022-42004 fix=2.13.4',
        'com.google.guava:guava@31.1-jre CVE-2023-2976 fix=32.0.0',
        'org.yaml:snakeyaml@1.30 CVE-2022-25857 fix=1.31',
        'org.yaml:snakeyaml@1.30 CVE-2022-38752 fix=1.32',
        'org.yaml:snakeyaml@1.30 CVE-2022-1471 fix=2.0',
      ]),
    );
    expect(findings.find((f) => f.cve === 'CVE-2022-1471')!.path[0]).toBe('build.gradle');
  },
  120_000,
);

itWithSharedData(
  'a package-lock.json beside a poetry.lock: two snapshots, two scans of one project, one gate over both',
  async () => {
    const dir = project({
      'package-lock.json': path.join(SHARED, 'lockfiles/npm/piscinajs__piscina__package-lock.json'),
      'poetry.lock': POETRY_LOCK,
    });
    // poetry's own lock (2026) is newer than every advisory of the shared set (2024): pins known to be vulnerable then
    // join it from a requirements.txt in the same folder, merged into the one python snapshot as another context.
    const pins = ['requests@2.19.0', 'urllib3@1.24.1', 'Jinja2@2.10'];
    fs.writeFileSync(path.join(dir, 'requirements.txt'), pins.map((p) => p.replace('@', '==')).join('\n') + '\n');
    const report = await scanJson(dir, 'mixed');
    expect(report.scans.map((s) => s.ecosystem).sort()).toEqual(['javascript', 'python']);
    // The python side: exactly what a PEP 440 reading of the PyPI advisories predicts for the locked packages.
    const lock = fs.readFileSync(POETRY_LOCK, 'utf8');
    const locked = [...lock.matchAll(/^\[\[package\]\]\r?\nname = "([^"]+)"\r?\nversion = "([^"]+)"/gm)].map(
      (m) => `${m[1]}@${m[2]}`,
    );
    expect(locked.length).toBe(78);
    const python = report.scans.find((s) => s.ecosystem === 'python')!;
    const norm = (n: string) => n.toLowerCase().replace(/[-_.]+/g, '-');
    const got = python.findings.map(
      (f) => `${f.aliases.find((a) => a.startsWith('PYSEC-'))}|${norm(f.package)}|${f.installedVersion}`,
    );
    expect(predictPypiFindings(locked, PYPI_ADVISORIES)).toEqual([]);
    const expected = predictPypiFindings([...locked, ...pins], PYPI_ADVISORIES);
    expect(expected.length).toBeGreaterThan(3);
    expect(got.sort()).toEqual(expected);
    expect(new Set(report.scans.map((s) => s.scan.id)).size).toBe(2);
    const scans = await t.api.get('/v1/scans?project=mixed').set('Authorization', `Bearer ${env.SCANNER_TOKEN}`);
    expect(scans.body.scans).toHaveLength(2);
    // The gate counts both: piscina's ws is high.
    const gated = await runClient(['scan', dir, '--project', 'mixed', '--fail-on', 'high'], env);
    expect(gated.code).toBe(1);
  },
  120_000,
);
