// The built CI client against the real service with a project above the single-document limits: a generated
// package-lock.json of 12,000 packages goes up as a multipart upload (in several parts, sent a few at a time) and
// comes back as a completed paged scan with the findings the advisory data predicts; the same run again replays the
// same upload and scan; a v1 snapshot above the limits is an input error (exit 2), sent nowhere.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importAdvisories } from '../../src/advisories/import';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { runClient } from '../helpers/client';
import { newOrg, testContext, type TestContext } from '../helpers/context';

const PACKAGES = 12_000;
/** Packages 0..99 are the project's direct dependencies; package i depends on i + 100: 120 levels deep. */
const FANOUT = 100;
const name = (i: number) => `gen-pkg-${String(i).padStart(5, '0')}`;
const VULNERABLE = [42, 5_042, 11_999];

let t: TestContext;
let worker: TestWorker | undefined;
let env: Record<string, string>;
let dir: string;

function writeProject(root: string): void {
  const deps = Object.fromEntries(Array.from({ length: FANOUT }, (_, i) => [name(i), '^1.0.0']));
  const packages: Record<string, unknown> = { '': { name: 'big-app', version: '1.0.0', dependencies: deps } };
  for (let i = 0; i < PACKAGES; i++) {
    const entry: Record<string, unknown> = {
      version: '1.0.0',
      resolved: `https://registry.npmjs.org/${name(i)}/-/${name(i)}-1.0.0.tgz`,
      integrity: 'sha512-AAAA',
    };
    if (i + FANOUT < PACKAGES) entry.dependencies = { [name(i + FANOUT)]: '^1.0.0' };
    packages[`node_modules/${name(i)}`] = entry;
  }
  fs.writeFileSync(
    path.join(root, 'package.json'),
    JSON.stringify({ name: 'big-app', version: '1.0.0', dependencies: deps }, null, 2),
  );
  fs.writeFileSync(
    path.join(root, 'package-lock.json'),
    JSON.stringify({ name: 'big-app', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2),
  );
}

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-multipart-'));
  const advisories = path.join(dir, 'advisories');
  fs.mkdirSync(advisories);
  for (const i of VULNERABLE) {
    const id = `GHSA-mult-${String(i).padStart(4, '0')}-part`;
    const osv = {
      id,
      modified: '2024-01-01T00:00:00Z',
      published: '2024-01-01T00:00:00Z',
      summary: `generated ${i}`,
      affected: [
        {
          package: { ecosystem: 'npm', name: name(i) },
          ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.1' }] }],
        },
      ],
    };
    fs.writeFileSync(path.join(advisories, `${id}.json`), JSON.stringify(osv));
  }
  expect((await importAdvisories(t.store, [advisories])).rejected).toEqual([]);
  worker = await startTestWorker(t);
  const key = await (await newOrg(t.store)).key(['sca:upload', 'scans:read', 'findings:read']);
  env = { SCANNER_URL: `http://127.0.0.1:${(t.server.address() as { port: number }).port}`, SCANNER_TOKEN: key };
  fs.mkdirSync(path.join(dir, 'big'));
  writeProject(path.join(dir, 'big'));
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('a project above the single-document limits: sent in parts, a completed paged scan with the predicted findings; a repeated run replays it', async () => {
  // parts of at most 1 MB (the lockfile makes about 3 MB of snapshot): several parts, sent four at a time
  const partEnv = { ...env, SCANNER_PART_BYTES: String(1024 * 1024) };
  const run = await runClient(
    [
      'scan',
      path.join(dir, 'big'),
      '--project',
      'big-app',
      '--format',
      'json',
      '--fail-on',
      'medium',
      '--timeout',
      '240',
    ],
    partEnv,
  );
  expect(run.stderr).toMatch(
    new RegExp(
      `javascript snapshot \\(${PACKAGES} packages from package-lock\\.json\\) → scan scn_\\w+ \\(over the single-document limits: ${PACKAGES} packages \\(limit 10000\\), attribution work \\d+ \\(limit 50000000\\); sent as multipart upload upl_\\w+ in \\d+ parts\\)`,
    ),
  );
  const parts = Number(/in (\d+) parts/.exec(run.stderr)![1]);
  expect(parts).toBeGreaterThan(2);
  const report = JSON.parse(run.stdout);
  const { scan, findings } = report.scans[0];
  expect(scan).toMatchObject({
    status: 'completed',
    attributionMode: 'paged',
    moduleCount: 1,
    modules: [],
    target: 'big-app',
  });
  expect(
    findings
      .map(
        (f: { package: string; installedVersion: string; fixedVersion: string }) =>
          `${f.package}@${f.installedVersion}>${f.fixedVersion}`,
      )
      .sort(),
  ).toEqual(VULNERABLE.map((i) => `${name(i)}@1.0.0>1.0.1`));
  const deepest = findings.find((f: { package: string }) => f.package === name(11_999));
  expect(deepest.path).toHaveLength(1 + 120); // the module, then every level of the chain
  expect(run.code).toBe(1); // three medium findings (no severity in the advisories: medium), at the gate
  const stored = await t.store.c.uploads.findOne({ scanId: scan.id });
  expect(stored).toMatchObject({
    status: 'completed',
    parts,
    received: Array.from({ length: parts }, (_, i) => i + 1),
  });

  const again = await runClient(
    ['scan', path.join(dir, 'big'), '--project', 'big-app', '--format', 'json', '--fail-on', 'none'],
    partEnv,
  );
  expect(again.code).toBe(0);
  expect(again.stderr).toContain(`→ scan ${scan.id} (over the single-document limits`);
  expect(again.stderr).toContain('(unchanged since an earlier upload: its scan; --rescan for a new one)');
  expect(await t.store.c.uploads.countDocuments({ projectId: scan.project })).toBe(1);
}, 300_000);

test('a v1 snapshot above the limits is an input error (exit 2), nothing sent', async () => {
  const py = path.join(dir, 'py');
  fs.mkdirSync(py);
  fs.writeFileSync(
    path.join(py, 'requirements.txt'),
    Array.from({ length: 10_001 }, (_, i) => `${name(i)}==1.0.0`).join('\n') + '\n',
  );
  const before = await t.store.c.uploads.countDocuments({});
  const run = await runClient(['scan', py, '--project', 'py-big'], env);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(
    'python snapshot (10001 packages from requirements.txt) is over the single-document limits (10001 packages (limit 10000)), and a snapshot v1 cannot be sent in parts: only v2 snapshots can',
  );
  expect(await t.store.c.uploads.countDocuments({})).toBe(before);
  expect(await t.store.c.projects.countDocuments({ slug: 'py-big' })).toBe(0);
});
