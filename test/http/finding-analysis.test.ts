// The findings list reads its alerts' current analyses cheaply (no Temporal: the scan and its alerts are stored
// directly): one query by pair when the analyses kept by this process are out of date, none while they are current
// (one read by _id of the organization's alerts version decides), and nothing at all in an organization without
// alerts; only the pair's analyses are read; every analysis write shows at the next read.
import type http from 'node:http';
import type request from 'supertest';
import { moveAlerts } from '../../src/domain/alerts/move';
import { uploadPreparer } from '../../src/pool/upload-pool';
import type { Finding } from '../../src/shared/types';
import { advanceHead, insertState, pairIdOf } from '../../src/storage/alerts';
import type { Store } from '../../src/storage/mongo';
import { writeResults } from '../../src/storage/results';
import { markCompleted } from '../../src/storage/scans';
import { appWithoutTemporal, bearer, newOrg, type Org } from '../helpers/context';
import { countedStore, type ReadCounts } from '../helpers/counted-store';
import { v1Snapshot } from '../helpers/snapshots';

let store: Store;
let reads: ReadCounts;
let server: http.Server;
let api: ReturnType<typeof request>;
const uploads = uploadPreparer(1);

beforeAll(async () => {
  ({ store, reads } = await countedStore());
  ({ server, api } = await appWithoutTemporal(store, { uploads }));
}, 60_000);
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await uploads.close();
  await store.db.dropDatabase().catch(() => undefined);
  await store.close();
});

const finding = (scanId: string, pkg: string, version: string, cve: string, alertId: string | null): Finding => ({
  id: `fnd_${scanId}_${pkg}`,
  scanId,
  severity: 'high',
  cve,
  publishedAt: null,
  package: pkg,
  installedVersion: version,
  fixedVersion: null,
  path: [pkg],
  suppressed: false,
  suppressionReason: null,
  attributions: [],
  summary: pkg,
  aliases: [cve],
  packageRef: `dep_${pkg}`,
  cvss: null,
  alertId,
  firstSeenAt: null,
  suppressionSource: null,
  ruleId: null,
});

const PKGS: Array<[string, string, string]> = [
  ['lodash', '4.17.20', 'CVE-2021-23337'],
  ['minimist', '1.2.5', 'CVE-2021-44906'],
];

/**
 * A completed scan of `project` whose findings belong to alerts of its pair (the alerts stored as a tracked scan's
 * move stores them, which moves the organization's alerts version); `alerts`: false for findings without alerts.
 */
async function completedScan(org: Org, key: string, project: string, alerts = true) {
  const up = await api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(v1Snapshot(project));
  expect(up.status).toBe(201);
  const scanId: string = up.body.id;
  const projectId: string = up.body.project;
  const at = new Date().toISOString();
  const moved = moveAlerts(
    [],
    PKGS.map(([p, v, cve]) => finding(scanId, p, v, cve, null)),
    { projectId, ecosystem: 'javascript', scanId, startedAt: at, at, generation: null },
    () => null,
    true,
  );
  const ids = PKGS.map(([p]) => moved.alerts.find((a) => a.package === p)!.id);
  if (alerts) {
    const head = {
      pairId: pairIdOf(projectId, 'javascript'),
      orgId: org.orgId,
      projectId,
      ecosystem: 'javascript',
      scanId,
      startedAt: new Date(),
      seq: 1,
    };
    await insertState(store, {
      ...head,
      at: new Date(),
      generation: null,
      rematch: false,
      alerts: moved.alerts,
      move: { events: [], opened: [], fixed: [], reopened: [], announce: false },
    });
    await advanceHead(store, { ...head, at: new Date(), open: PKGS.length });
  }
  const findings = PKGS.map(([p, v, cve], i) => finding(scanId, p, v, cve, alerts ? ids[i] : null));
  const resultChunks = await writeResults(store, scanId, findings);
  await markCompleted(store, scanId, {
    findings: { critical: 0, high: findings.length, medium: 0, low: 0 },
    suppressed: 0,
    advisoryGeneration: null,
    unmatchedVersions: 0,
    resultChunks,
    findingCount: findings.length,
  });
  return { scanId, alertIds: ids };
}

async function list(key: string, scanId: string) {
  const res = await api.get(`/v1/scans/${scanId}/findings`).set(bearer(key));
  expect(res.status).toBe(200);
  return Object.fromEntries((res.body.findings as any[]).map((f) => [f.package, f]));
}

/** What one findings read costs in analysis reads: queries of alertAnalyses, documents they answered. */
async function measured(key: string, scanId: string) {
  reads.reset();
  const byPkg = await list(key, scanId);
  return {
    byPkg,
    queries: reads.queries.get('alertAnalyses') ?? 0,
    docs: reads.docs.get('alertAnalyses') ?? 0,
    versionReads: reads.queries.get('settings') ?? 0,
  };
}

test("one query by pair when out of date, none while current; only the pair's analyses are read", async () => {
  const org = await newOrg(store, 'reads');
  const key = await org.key(['sca:upload', 'findings:read', 'findings:triage']);
  const a = await completedScan(org, key, 'first');
  const b = await completedScan(org, key, 'second');
  // an analysis on the other project's alert: never read for the first project's scan
  const other = await api.put(`/v1/alerts/${b.alertIds[0]}/analysis`).set(bearer(key)).send({ state: 'in_triage' });
  expect(other.status).toBe(200);

  const first = await measured(key, a.scanId);
  expect(first.byPkg.lodash.analysis).toBeNull();
  expect([first.queries, first.docs]).toEqual([1, 0]);
  const kept = await measured(key, a.scanId);
  expect([kept.queries, kept.versionReads]).toEqual([0, 1]);

  // a decision: the version moves, the next read queries the pair once, then it is kept again
  const decided = await api
    .put(`/v1/alerts/${a.alertIds[0]}/analysis`)
    .set(bearer(key))
    .send({ state: 'false_positive', detail: 'not our lodash' });
  expect(decided.status).toBe(200);
  const after = await measured(key, a.scanId);
  expect(after.byPkg.lodash).toMatchObject({
    suppressed: false,
    analysis: { state: 'false_positive', detail: 'not our lodash', expired: false },
  });
  expect(after.byPkg.minimist.analysis).toBeNull();
  expect([after.queries, after.docs]).toEqual([1, 1]);
  expect((await measured(key, a.scanId)).queries).toBe(0);
  // the other project's scan shows its own
  expect((await list(key, b.scanId)).lodash.analysis).toMatchObject({ state: 'in_triage' });

  // deleted: null at the next read
  expect((await api.delete(`/v1/alerts/${a.alertIds[0]}/analysis`).set(bearer(key))).status).toBe(204);
  expect((await list(key, a.scanId)).lodash.analysis).toBeNull();
});

test('an organization without alerts reads no analyses; findings without an alert show null', async () => {
  const org = await newOrg(store, 'no-alerts');
  const key = await org.key(['sca:upload', 'findings:read']);
  const s = await completedScan(org, key, 'untracked', false);
  const read = await measured(key, s.scanId);
  expect(read.byPkg.lodash).toMatchObject({ alertId: null, analysis: null });
  expect(read.queries).toBe(0);
});
