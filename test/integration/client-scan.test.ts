// Evidence against the real service (Temporal + MongoDB-wire store): piscina's real lockfile scanned by the built
// client bundle gives the findings the advisory data predicts, with the right exit code under each --fail-on;
// replays, --rescan, metadata, a refused snapshot (exit 2) and a wrong token (exit 3).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from '@temporalio/worker';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { importAdvisories } from '../../src/advisories/import';
import { createLogger } from '../../src/logger';
import { createScanWorker } from '../../workers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { runClient } from '../helpers/client';
import { predictNpmFindings } from '../helpers/predict';
import { newOrg, requireEnv, testContext, type Org, type TestContext } from '../helpers/context';
import { itWithSharedData, sharedDataDir } from '../helpers/shared-data';

const SHARED = sharedDataDir();
const LOCKFILE = path.join(SHARED, 'lockfiles/npm/piscinajs__piscina__package-lock.json');
const ADVISORIES = path.join(SHARED, 'advisories/npm');

let t: TestContext;
let org: Org;
let key: string;
let worker: Worker;
let running: Promise<void>;
let project: string;
let env: Record<string, string>;

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  expect((await importAdvisories(t.store, [ADVISORIES])).rejected).toEqual([]);
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
  org = await newOrg(t.store);
  key = await org.key(['sca:upload', 'scans:read', 'findings:read']);
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'piscina-'));
  fs.copyFileSync(LOCKFILE, path.join(project, 'package-lock.json'));
  const port = (t.server.address() as { port: number }).port;
  env = { SCANNER_URL: `http://127.0.0.1:${port}`, SCANNER_TOKEN: key };
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await t?.close();
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

/** What the advisory data predicts, worked out with node-semver alone: advisory id|package|version. */
function predicted(): string[] {
  const lock = JSON.parse(fs.readFileSync(LOCKFILE, 'utf8'));
  const installed = new Set<string>();
  for (const [k, e] of Object.entries<{ name?: string; version?: string; link?: boolean }>(lock.packages)) {
    if (!k.includes('node_modules/') || e.link) continue;
    installed.add(`${e.name ?? k.slice(k.lastIndexOf('node_modules/') + 13)}@${e.version}`);
  }
  return predictNpmFindings(installed, ADVISORIES);
}

itWithSharedData(
  'piscina: the JSON report holds exactly the predicted findings; the exit code follows --fail-on',
  async () => {
    const expected = predicted();
    expect(expected.length).toBeGreaterThan(0);
    // The metadata is part of the body: runs with the same CI variables send the same bytes, hence the same key.
    const ci = {
      ...env,
      GITHUB_ACTIONS: 'true',
      GITHUB_SHA: 'a'.repeat(40),
      GITHUB_REF: 'refs/heads/main',
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'piscinajs/piscina',
      GITHUB_RUN_ID: '42',
    };
    const run = await runClient(['scan', project, '--project', 'piscina', '--format', 'json', '--fail-on', 'none'], ci);
    expect(run.stderr).toMatch(/javascript snapshot \(\d+ packages from package-lock\.json\) → scan scn_/);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.scans).toHaveLength(1);
    const { scan, findings } = report.scans[0];
    expect(scan).toMatchObject({
      status: 'completed',
      ecosystem: 'javascript',
      metadata: {
        commit: 'a'.repeat(40),
        ref: 'refs/heads/main',
        runUrl: expect.stringContaining('https://github.com/piscinajs/piscina/actions/runs/42'),
      },
    });
    const got = findings.map((f: { aliases: string[]; package: string; installedVersion: string }) => {
      const ghsa = f.aliases.find((a) => a.startsWith('GHSA-'));
      return `${ghsa}|${f.package}|${f.installedVersion}`;
    });
    expect(got.sort()).toEqual(expected);
    const counts = scan.findings as Record<string, number>;
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(findings.length);

    // The gate reads the scan's unsuppressed counts: exit 1 exactly when something is at or above --fail-on.
    const order = ['critical', 'high', 'medium', 'low'];
    for (const failOn of order) {
      const above = order.slice(0, order.indexOf(failOn) + 1).reduce((n, s) => n + counts[s], 0);
      const gated = await runClient(['scan', project, '--project', 'piscina', '--fail-on', failOn], ci);
      expect({ failOn, code: gated.code }).toEqual({ failOn, code: above > 0 ? 1 : 0 });
      expect(gated.stderr).toContain('unchanged since an earlier upload');
    }
    // The default gate is low: any finding fails.
    expect((await runClient(['scan', project, '--project', 'piscina'], ci)).code).toBe(findings.length > 0 ? 1 : 0);
  },
);

itWithSharedData(
  'the table names package, versions, advisory and path; --rescan makes a new scan of the same lockfile',
  async () => {
    const first = await runClient(['scan', project, '--project', 'piscina', '--fail-on', 'none'], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/ws/);
    expect(first.stdout).toMatch(/7\.5\.9/);
    expect(first.stdout).toMatch(/7\.5\.10/);
    const id = /→ scan (scn_\w+)/.exec(first.stderr)![1];
    const again = await runClient(['scan', project, '--project', 'piscina', '--fail-on', 'none', '--rescan'], env);
    expect(again.code).toBe(0);
    const id2 = /→ scan (scn_\w+)/.exec(again.stderr)![1];
    expect(id2).not.toBe(id);
    expect(again.stderr).not.toContain('unchanged since an earlier upload');
  },
);

itWithSharedData(
  'SARIF of the real scan is valid against the official 2.1.0 schema and written to --output',
  async () => {
    const out = path.join(project, 'report.sarif');
    const run = await runClient(
      ['scan', '.', '--project', 'piscina', '--format', 'sarif', '--output', out, '--fail-on', 'none'],
      env,
      project,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    const sarif = JSON.parse(fs.readFileSync(out, 'utf8'));
    fs.rmSync(out);
    const schema = JSON.parse(fs.readFileSync(path.join(SHARED, 'schemas/sarif-schema-2.1.0.draft-07.json'), 'utf8'));
    // unicodeRegExp off: the schema's `language` pattern has a stray `]` that the u flag rejects.
    const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    expect(validate(sarif) ? [] : validate.errors).toEqual([]);
    expect(sarif.runs).toHaveLength(1);
    const ws = sarif.runs[0].results.find((r: { message: { text: string } }) => r.message.text.includes('ws'));
    expect(ws.locations[0].physicalLocation.artifactLocation.uri).toBe('package-lock.json');
    const line = fs.readFileSync(LOCKFILE, 'utf8').split('\n')[ws.locations[0].physicalLocation.region.startLine - 1];
    expect(line).toMatch(/"node_modules\/(.+\/node_modules\/)?ws": \{/);
  },
);

itWithSharedData(
  'a snapshot the service refuses exits 2; a wrong token exits 3; no service reachable exits 3',
  async () => {
    const restricted = await org.key(['sca:upload', 'scans:read', 'findings:read'], ['some-other-project']);
    const refused = await runClient(['scan', project, '--project', 'piscina-new'], {
      ...env,
      SCANNER_TOKEN: restricted,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/422 unknown_project/);

    const wrong = await runClient(['scan', project, '--project', 'piscina'], {
      ...env,
      SCANNER_TOKEN: 'sk_live_not_a_real_key',
    });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toMatch(/: 401 \w+: .*check SCANNER_TOKEN/);

    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const down = await runClient(['scan', project, '--project', 'piscina'], {
      ...env,
      SCANNER_URL: `http://127.0.0.1:${port}`,
      SCANNER_MAX_ATTEMPTS: '2',
      SCANNER_RETRY_BASE_MS: '10',
    });
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/gave up after 2 attempts/);
  },
);
