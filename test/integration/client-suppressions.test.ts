// Suppressions kept in the repository, end to end: the built client bundle reads piscina's
// `.scanner/suppressions.yaml` (or `--suppressions FILE`) and sends it with the snapshot; the real service
// (Temporal + MongoDB-wire store) suppresses the finding it names, stores the snapshot with it, and the client warns of
// the entries that suppressed nothing and of expired ones. A malformed file exits 2 before anything is uploaded.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importAdvisories } from '../../src/advisories/import';
import { getSnapshotBytes } from '../../src/storage/snapshots';
import { installRuntime } from '../../workers/temporal-runtime';
import { runClient } from '../helpers/client';
import { bearer, newOrg, testContext, type TestContext } from '../helpers/context';
import { describeWithSharedData, sharedDataDir } from '../helpers/shared-data';
import { startTestWorker, type TestWorker } from '../helpers/worker';

interface Finding {
  id: string;
  cve: string;
  aliases: string[];
  package: string;
  installedVersion: string;
  suppressed: boolean;
  suppressionReason: string | null;
  suppressionSource?: string | null;
}

const FILE = '.scanner/suppressions.yaml';
const today = () => new Date().toISOString().slice(0, 10);

describeWithSharedData('suppressions kept in the repository', () => {
  const SHARED = sharedDataDir();
  let t: TestContext;
  let worker: TestWorker | undefined;
  let key: string;
  let env: Record<string, string>;
  let project: string;
  /** The finding the files suppress, from a scan without any. */
  let target: Finding;

  const scanArgs = (...extra: string[]) => ['scan', '.', '--project', 'piscina', '--fail-on', 'none', ...extra];
  const scanIdOf = (stderr: string) => /→ scan (scn_\w+)/.exec(stderr)![1];
  const writeFile = (rel: string, lines: string[]) => {
    fs.mkdirSync(path.dirname(path.join(project, rel)), { recursive: true });
    fs.writeFileSync(path.join(project, rel), `${lines.join('\n')}\n`);
  };
  const findings = async (scanId: string, suppressed: 'true' | 'false'): Promise<Finding[]> => {
    const res = await t.api.get(`/v1/scans/${scanId}/findings?suppressed=${suppressed}&limit=200`).set(bearer(key));
    expect(res.status).toBe(200);
    return res.body.findings;
  };
  const storedSuppressions = async (scanId: string) => {
    const stored = await getSnapshotBytes(t.store, scanId);
    return JSON.parse(stored!.raw.toString('utf8')).suppressions;
  };
  const same = (a: Finding) => (b: Finding) =>
    a.cve === b.cve && a.package === b.package && a.installedVersion === b.installedVersion;

  beforeAll(async () => {
    installRuntime('error');
    t = await testContext();
    expect((await importAdvisories(t.store, [path.join(SHARED, 'advisories/npm')])).rejected).toEqual([]);
    worker = await startTestWorker(t);
    key = await (await newOrg(t.store)).key(['sca:upload', 'scans:read', 'findings:read']);
    env = { SCANNER_URL: `http://127.0.0.1:${(t.server.address() as { port: number }).port}`, SCANNER_TOKEN: key };
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'client-suppressions-'));
    fs.copyFileSync(
      path.join(SHARED, 'lockfiles/npm/piscinajs__piscina__package-lock.json'),
      path.join(project, 'package-lock.json'),
    );
    const plain = await runClient([...scanArgs('--format', 'json')], env, project);
    expect(plain.code).toBe(0);
    expect(plain.stderr).not.toContain('warning');
    const all: Finding[] = JSON.parse(plain.stdout).scans[0].findings;
    target = all.find((f) => f.package === 'ws') ?? all[0];
    expect(target).toBeDefined();
  }, 180_000);

  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  test('the file suppresses the finding it names (any id of its group, any case); the stored snapshot carries it; warnings for an entry that matched nothing and an expired one', async () => {
    // Another id of the advisory's group than the finding's own, lowercased: the service matches either way.
    const id = (target.aliases.find((a) => a !== target.cve) ?? target.cve).toLowerCase();
    writeFile(FILE, [
      '# suppressions of piscina (docs/client.md)',
      'suppressions:',
      `  - cve: ${id}`,
      `    package: "${target.package}"`,
      '    reason: Only the benchmarks open a WebSocket.',
      '  - cve: CVE-1999-0001',
      '    package: no-such-package',
      '    reason: stale',
      '  - cve: CVE-2000-0001',
      '    reason: long gone',
      '    expires: 2020-01-01',
    ]);
    const run = await runClient(scanArgs('--format', 'json'), env, project);
    expect(run.code).toBe(0);
    const warnings = run.stderr.split('\n').filter((l) => l.startsWith('scanner: warning:'));
    expect(warnings).toEqual([
      `scanner: warning: ${FILE}:9: suppression of CVE-2000-0001 expired (expires 2020-01-01, before today ${today()} UTC): the service ignores it`,
      `scanner: warning: ${FILE}:6: suppression of CVE-1999-0001 for no-such-package matched no finding`,
    ]);
    const scanId = scanIdOf(run.stderr);
    const report = JSON.parse(run.stdout).scans[0];
    expect(report.scan.suppressed).toBeGreaterThanOrEqual(1);
    expect((report.findings as Finding[]).filter(same(target))).toEqual([]);

    // Read back through the API: suppressed, with the file's reason, by the snapshot.
    const suppressed = await findings(scanId, 'true');
    expect(suppressed.filter(same(target))).toEqual([
      expect.objectContaining({
        suppressed: true,
        suppressionReason: 'Only the benchmarks open a WebSocket.',
        suppressionSource: 'snapshot',
      }),
    ]);
    // Only that package's findings of that advisory.
    expect(suppressed.every((f) => f.package === target.package)).toBe(true);
    expect((await findings(scanId, 'false')).filter(same(target))).toEqual([]);

    expect(await storedSuppressions(scanId)).toEqual([
      { cve: id, package: target.package, reason: 'Only the benchmarks open a WebSocket.' },
      { cve: 'CVE-1999-0001', package: 'no-such-package', reason: 'stale' },
      { cve: 'CVE-2000-0001', reason: 'long gone', expires: '2020-01-01' },
    ]);
  });

  test('a malformed file exits 2 naming the file and the line, and uploads nothing', async () => {
    const before = await t.store.c.scans.countDocuments({});
    writeFile(FILE, [
      'suppressions:',
      `  - cve: ${target.cve}`,
      '    reason: fine',
      `  - cve: ${target.cve}`,
      '    package: ws',
      '    reason: "unterminated',
    ]);
    const broken = await runClient(scanArgs(), env, project);
    expect({ code: broken.code, stdout: broken.stdout }).toEqual({ code: 2, stdout: '' });
    expect(broken.stderr).toMatch(new RegExp(`^scanner: ${FILE.replace('.', '\\.')}:6: invalid YAML: .+\\n$`));

    writeFile(FILE, ['suppressions:', `  - cve: ${target.cve}`, '    reason: fine', '    expires: 2025-02-29']);
    const invalid = await runClient(scanArgs(), env, project);
    expect({ code: invalid.code, stderr: invalid.stderr }).toEqual({
      code: 2,
      stderr: `scanner: ${FILE}:4: expires must be a calendar date YYYY-MM-DD\n`,
    });

    writeFile(FILE, ['suppressions:', `  - cve: ${target.cve}`, '    reason: fine', '    severity: low']);
    const unknown = await runClient(scanArgs(), env, project);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      `scanner: ${FILE}:4: unknown field "severity" in a suppression (its fields: cve, reason, package, expires)\n`,
    );
    expect(await t.store.c.scans.countDocuments({})).toBe(before);
  });

  test('--suppressions FILE is read instead of the default (which may be broken); one that does not exist exits 2', async () => {
    writeFile(FILE, ['suppressions: [broken']);
    writeFile('other.yaml', [
      'suppressions:',
      `  - cve: ${target.cve}`,
      '    reason: From the other file.',
      '  - cve: GHSA-0000-0000-0000',
      '    reason: matches nothing',
    ]);
    // cyclonedx: the report reads no findings; the check reads the suppressed ones itself.
    const run = await runClient(scanArgs('--suppressions', 'other.yaml', '--format', 'cyclonedx'), env, project);
    expect(run.code).toBe(0);
    expect(run.stderr.split('\n').filter((l) => l.startsWith('scanner: warning:'))).toEqual([
      'scanner: warning: other.yaml:4: suppression of GHSA-0000-0000-0000 matched no finding',
    ]);
    const scanId = scanIdOf(run.stderr);
    expect((await findings(scanId, 'true')).filter(same(target))).toEqual([
      expect.objectContaining({ suppressed: true, suppressionReason: 'From the other file.' }),
    ]);
    expect(await storedSuppressions(scanId)).toEqual([
      { cve: target.cve, reason: 'From the other file.' },
      { cve: 'GHSA-0000-0000-0000', reason: 'matches nothing' },
    ]);

    const before = await t.store.c.scans.countDocuments({});
    const missing = await runClient(scanArgs('--suppressions', 'missing.yaml'), env, project);
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({
      code: 2,
      stderr: 'scanner: --suppressions missing.yaml: no such file\n',
    });
    expect(await t.store.c.scans.countDocuments({})).toBe(before);
  });
});
