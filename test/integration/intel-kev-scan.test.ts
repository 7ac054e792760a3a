// KEV and EPSS on real findings end to end: the real CISA KEV catalog (the third-party data) and the real Maven
// advisories imported; the built client scans a real Gradle lockfile holding log4j-core 2.14.1 (JabRef's, with the
// pull request revision of test/fixtures/pr-gate); the log4j-core finding (GHSA-7rjr-3q55-vv33, alias
// CVE-2021-45046, in the catalog) and its alert carry the catalog's entry; the alerts' default order puts it first;
// `kev=true` filters; `--fail-on-kev` fails the scan, and the client's JSON report says KEV. EPSS scores below are
// MADE UP (no real score file can be had here), written in FIRST's format.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { importAdvisories } from '../../src/advisories/import';
import { importIntel } from '../../src/intel/import';
import { createLogger } from '../../src/logger';
import { installRuntime } from '../../workers/temporal-runtime';
import { runClient } from '../helpers/client';
import { bearer, newOrg, testContext, type TestContext } from '../helpers/context';
import { describeWithSharedData, sharedDataDir, sharedDataPath } from '../helpers/shared-data';
import { startTestWorker, type TestWorker } from '../helpers/worker';

const LOCKFILE = path.resolve(__dirname, '../fixtures/pr-gate/head/gradle.lockfile');
const LOG4J = 'org.apache.logging.log4j:log4j-core';

let t: TestContext;
let worker: TestWorker | undefined;
let key: string;
let env: Record<string, string>;
let dir: string;

describeWithSharedData('KEV and EPSS on the findings and alerts of a real scan', () => {
  beforeAll(async () => {
    installRuntime('error');
    t = await testContext();
    expect((await importAdvisories(t.store, [path.join(sharedDataDir(), 'advisories/maven')])).rejected).toEqual([]);
    await importIntel(t.store, 'kev', sharedDataPath('intel', 'known_exploited_vulnerabilities.json'));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kev-scan-'));
    // made-up EPSS scores in FIRST's format, gzipped as FIRST serves them
    const epss = path.join(dir, 'epss.csv.gz');
    fs.writeFileSync(
      epss,
      zlib.gzipSync(
        '#model_version:v2025.03.14,score_date:2025-08-25T00:00:00+0000\ncve,epss,percentile\n' +
          'CVE-2021-45046,0.94358,0.99950\nCVE-2022-22965,0.97000,0.99990\nCVE-2020-0001,0.00100,0.10000\n',
      ),
    );
    await importIntel(t.store, 'epss', epss);
    worker = await startTestWorker(t, { logger: createLogger('test', 'silent') });
    const org = await newOrg(t.store);
    key = await org.key(['sca:upload', 'scans:read', 'findings:read']);
    env = { SCANNER_URL: `http://127.0.0.1:${(t.server.address() as { port: number }).port}`, SCANNER_TOKEN: key };
    fs.mkdirSync(path.join(dir, 'repo'));
    fs.copyFileSync(LOCKFILE, path.join(dir, 'repo', 'gradle.lockfile'));
  }, 240_000);

  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the finding and its alert carry the KEV entry and the EPSS score; risk order, filters and the gate', async () => {
    const run = await runClient(
      [
        'scan',
        path.join(dir, 'repo'),
        '--project',
        'jabref',
        '--ref',
        'main',
        '--fail-on',
        'none',
        '--fail-on-kev',
        '--format',
        'json',
        '--timeout',
        '120',
      ],
      env,
    );
    expect(run.code).toBe(1); // a KEV finding, unsuppressed
    const report = JSON.parse(run.stdout);
    const scanId: string = report.scans[0].scan.id;
    const reported = report.scans[0].findings.find((f: any) => f.package === LOG4J);
    expect(reported.kev).toMatchObject({ dateAdded: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    expect(reported.epss).toEqual({ score: 0.94358, percentile: 0.9995, date: '2025-08-25' });

    const list = await t.api.get(`/v1/scans/${scanId}/findings?limit=200`).set(bearer(key));
    expect(list.status).toBe(200);
    const log4j = list.body.findings.filter((f: any) => f.package === LOG4J);
    expect(log4j.length).toBeGreaterThan(0);
    const kevFinding = log4j.find((f: any) => f.aliases.includes('CVE-2021-45046'));
    const catalog = JSON.parse(
      fs.readFileSync(sharedDataPath('intel', 'known_exploited_vulnerabilities.json'), 'utf8'),
    );
    const entry = catalog.vulnerabilities.find((v: any) => v.cveID === 'CVE-2021-45046');
    expect(kevFinding.kev).toEqual({
      dateAdded: entry.dateAdded,
      dueDate: entry.dueDate,
      knownRansomwareCampaignUse: entry.knownRansomwareCampaignUse,
    });
    // a finding whose alias group is not in the catalog has none
    expect(list.body.findings.filter((f: any) => f.kev === null).length).toBeGreaterThan(0);

    // the alert: the same entry; first in the default (risk) order; kev=true lists it
    let alerts: any;
    for (const until = Date.now() + 60_000; ;) {
      alerts = await t.api.get('/v1/alerts?limit=200').set(bearer(key));
      if (alerts.body.alerts?.some((a: any) => a.id === kevFinding.alertId) || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const alert = alerts.body.alerts.find((a: any) => a.id === kevFinding.alertId);
    expect(alert.kev).toEqual(kevFinding.kev);
    expect(alert.epss).toEqual({ score: 0.94358, percentile: 0.9995, date: '2025-08-25' });
    const firstNonKev = alerts.body.alerts.findIndex((a: any) => a.kev === null);
    expect(alerts.body.alerts.slice(0, firstNonKev).map((a: any) => a.id)).toContain(alert.id);
    expect(alerts.body.alerts.slice(firstNonKev).every((a: any) => a.kev === null)).toBe(true);
    const kevOnly = await t.api.get('/v1/alerts?kev=true&limit=200').set(bearer(key));
    expect(kevOnly.body.alerts.length).toBeGreaterThan(0);
    expect(kevOnly.body.alerts.every((a: any) => a.kev !== null)).toBe(true);

    // without --fail-on-kev (and --fail-on none) the same scan passes
    const again = await runClient(
      ['scan', path.join(dir, 'repo'), '--project', 'jabref', '--ref', 'main', '--fail-on', 'none', '--timeout', '120'],
      env,
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('KEV');
  }, 240_000);
});
