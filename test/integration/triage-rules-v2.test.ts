// Triage rules on a real v2 graph: an npm workspace lockfile read by the CI client's own producer, uploaded by
// `scanner scan`, processed by the real worker. lodash reaches module web through devDependencies only; moment reaches
// web through devDependencies and api through dependencies. A dev-only rule silences lodash alone (its preview says so
// while it is a dry run, and changes nothing); enforced, it suppresses lodash's findings in the next scan (source rule,
// the rule's id), never moment's; and it never matches a v1 snapshot's finding, which has no attributions.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importAdvisories } from '../../src/advisories/import';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { runClient } from '../helpers/client';
import { bearer, newOrg, testContext, workflowClosed, type Org, type TestContext } from '../helpers/context';
import { directSnapshot } from '../helpers/snapshots';
import { describeWithSharedData, sharedDataDir } from '../helpers/shared-data';

let t: TestContext;
let worker: TestWorker | undefined;
let org: Org;
let key: string;
let env: Record<string, string>;
let dir = '';

/** The workspace: root with members web and api, an npm lockfile v3 as npm 9 writes it. */
function workspace(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'triage-ws-'));
  const write = (p: string, v: unknown) => {
    fs.mkdirSync(path.dirname(path.join(d, p)), { recursive: true });
    fs.writeFileSync(path.join(d, p), JSON.stringify(v, null, 2));
  };
  write('package.json', { name: 'ws', version: '1.0.0', private: true, workspaces: ['packages/*'] });
  write('packages/web/package.json', {
    name: 'web',
    version: '1.0.0',
    devDependencies: { lodash: '4.17.20', moment: '2.29.1' },
  });
  write('packages/api/package.json', { name: 'api', version: '1.0.0', dependencies: { moment: '2.29.1' } });
  write('package-lock.json', {
    name: 'ws',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'ws', version: '1.0.0', workspaces: ['packages/*'] },
      'node_modules/api': { resolved: 'packages/api', link: true },
      'node_modules/web': { resolved: 'packages/web', link: true },
      'node_modules/lodash': { version: '4.17.20', dev: true, license: 'MIT' },
      'node_modules/moment': { version: '2.29.1', license: 'MIT' },
      'packages/api': { name: 'api', version: '1.0.0', dependencies: { moment: '2.29.1' } },
      'packages/web': { name: 'web', version: '1.0.0', devDependencies: { lodash: '4.17.20', moment: '2.29.1' } },
    },
  });
  return d;
}

async function clientScan(...extra: string[]): Promise<string> {
  const run = await runClient(
    ['scan', dir, '--project', 'ws', '--fail-on', 'none', '--format', 'json', '--timeout', '120', ...extra],
    env,
  );
  expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
  const scanId = /→ scan (scn_[A-Za-z0-9_-]+)/.exec(run.stderr)?.[1];
  expect(scanId).toBeDefined();
  await workflowClosed(t, scanId!);
  return scanId!;
}

const findings = async (scanId: string) => {
  const res = await t.api.get(`/v1/scans/${scanId}/findings?suppressed=all`).set(bearer(key));
  expect(res.status).toBe(200);
  return res.body.findings as Array<Record<string, any>>;
};

describeWithSharedData('triage rules on a v2 graph', () => {
  beforeAll(async () => {
    installRuntime('error');
    t = await testContext();
    const report = await importAdvisories(t.store, [path.join(sharedDataDir(), 'advisories', 'npm')]);
    expect(report.rejected).toEqual([]);
    worker = await startTestWorker(t);
    org = await newOrg(t.store);
    key = await org.key(['sca:upload', 'scans:read', 'findings:read', 'findings:triage']);
    env = { SCANNER_URL: `http://127.0.0.1:${(t.server.address() as { port: number }).port}`, SCANNER_TOKEN: key };
    dir = workspace();
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a dev-only rule silences the package that only development reaches, and never a v1 finding', async () => {
    const first = await clientScan();
    const before = await findings(first);
    const byPackage = (list: Array<Record<string, any>>, p: string) => list.filter((f) => f.package === p);
    // the graph is what the test says: lodash through web's devDependencies only, moment also through api's dependencies
    const contexts = (p: string) =>
      [
        ...new Set(byPackage(before, p).flatMap((f) => f.attributions.map((a: any) => `${a.module} ${a.context}`))),
      ].sort();
    expect(contexts('lodash')).toEqual(['packages/web devDependencies']);
    expect(contexts('moment')).toEqual(['packages/api dependencies', 'packages/web devDependencies']);
    expect(before.every((f) => !f.suppressed)).toBe(true);

    const rule = await t.api
      .post('/v1/triage-rules')
      .set(bearer(org.ownerToken))
      .send({
        name: 'development only',
        conditions: { contexts: ['devDependencies'] },
        analysis: { state: 'not_affected', justification: 'requires_environment', detail: 'never shipped' },
        mode: 'dry_run',
      });
    expect(rule.status).toBe(201);
    const preview = await t.api.get(`/v1/triage-rules/${rule.body.id}/matches`).set(bearer(org.ownerToken));
    expect(preview.body.matches.map((m: any) => [m.alert.package, m.wouldChange])).toEqual(
      byPackage(before, 'lodash').map(() => ['lodash', true]),
    );
    // a dry run changes nothing
    const alerts = await t.api.get('/v1/alerts?project=ws').set(bearer(key));
    expect(alerts.body.alerts.every((a: any) => !a.suppressed && a.ruleId === null)).toBe(true);

    await t.api.patch(`/v1/triage-rules/${rule.body.id}`).set(bearer(org.ownerToken)).send({ mode: 'enforce' });
    // the same snapshot again: --rescan, or the client would be answered with the first scan
    const second = await clientScan('--rescan');
    expect(second).not.toBe(first);
    const after = await findings(second);
    for (const f of byPackage(after, 'lodash'))
      expect(f).toMatchObject({ suppressed: true, suppressionSource: 'rule', ruleId: rule.body.id });
    for (const f of byPackage(after, 'moment')) expect(f).toMatchObject({ suppressed: false, ruleId: null });
    const scan = (await t.api.get(`/v1/scans/${second}`).set(bearer(key))).body;
    expect(scan.suppressed).toBe(byPackage(after, 'lodash').length);

    // a v1 snapshot's lodash finding has no attributions: a context condition never holds for it
    const v1 = await t.api
      .post('/v1/scans/dependency-snapshots')
      .set(bearer(key))
      .send(directSnapshot('ws-v1', [['lodash', '4.17.20']]));
    expect(v1.status).toBe(201);
    await workflowClosed(t, v1.body.id);
    const v1Findings = await findings(v1.body.id);
    expect(v1Findings.length).toBeGreaterThan(0);
    for (const f of v1Findings) expect(f).toMatchObject({ suppressed: false, ruleId: null });
  }, 300_000);
});
