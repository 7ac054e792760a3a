// A worker SIGKILLed in the middle of an alert move (after the move stored its state, before its history and head):
// a new worker's retry finishes it, and the project's alerts and history are the same as one clean run's.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { importAdvisories } from '../../src/advisories/import';
import { pairIdOf } from '../../src/storage/alerts';
import { installRuntime } from '../../workers/temporal-runtime';
import { bearer, newOrg, requireEnv, testContext, workflowClosed, type TestContext } from '../helpers/context';
import { directSnapshot } from '../helpers/snapshots';
import { describeWithSharedData, sharedDataDir } from '../helpers/shared-data';

const ROOT = path.resolve(__dirname, '../..');
let t: TestContext;
let key: string;

const A: Array<[string, string]> = [
  ['lodash', '4.17.20'],
  ['moment', '2.29.1'],
];
const B: Array<[string, string]> = [
  ['lodash', '4.17.19'],
  ['express', '4.18.0'],
];

describeWithSharedData('alert move killed', () => {
  beforeAll(async () => {
    installRuntime('error');
    t = await testContext();
    const report = await importAdvisories(t.store, [path.join(sharedDataDir(), 'advisories/npm')]);
    expect(report.rejected).toEqual([]);
    const org = await newOrg(t.store, 'Killed');
    key = await org.key(['sca:upload', 'scans:read', 'findings:read']);
  }, 120_000);
  afterAll(() => t?.close());

  const startWorker = (pauseMs = 0): ChildProcess =>
    spawn(process.execPath, [path.join(ROOT, 'dist/workers/main.js')], {
      env: {
        ...process.env,
        MONGODB_URI: requireEnv('MONGODB_URI'),
        MONGODB_DB: t.store.db.databaseName,
        TEMPORAL_ADDRESS: requireEnv('TEMPORAL_ADDRESS'),
        TEMPORAL_TASK_QUEUE: t.taskQueue,
        LOG_LEVEL: 'warn',
        ADVISORY_SOURCES: '',
        WORKER_METRICS_PORT: 'off',
        ...(pauseMs ? { SCANNER_TEST_ALERT_PAUSE_MS: String(pauseMs) } : {}),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  const stop = async (w: ChildProcess, signal: NodeJS.Signals = 'SIGTERM') => {
    if (w.exitCode !== null || w.signalCode !== null) return;
    w.kill(signal);
    await new Promise((r) => w.once('exit', r));
  };

  async function upload(project: string, pkgs: Array<[string, string]>): Promise<{ id: string; projectId: string }> {
    const res = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(directSnapshot(project, pkgs));
    expect(res.status).toBe(201);
    return { id: res.body.id, projectId: res.body.project };
  }

  /** The project's alerts and each one's history, in terms that do not depend on the project. */
  async function picture(project: string, scans: string[]) {
    const alerts = (await t.api.get(`/v1/alerts?project=${project}&status=all`).set(bearer(key))).body.alerts as any[];
    const out = [];
    for (const a of alerts.sort((x, y) => `${x.package} ${x.advisory}`.localeCompare(`${y.package} ${y.advisory}`))) {
      const events = (await t.api.get(`/v1/alerts/${a.id}/history`).set(bearer(key))).body.events as any[];
      out.push({
        alert: [
          a.package,
          a.advisory,
          a.status,
          a.installedVersions,
          scans.indexOf(a.firstSeenScanId),
          scans.indexOf(a.lastSeenScanId),
        ],
        history: events.map((e) => [e.type, scans.indexOf(e.scanId), e.details]),
      });
    }
    return out;
  }

  test('SIGKILL between the stored state and its side effects: the retry on a new worker finishes the move', async () => {
    // A clean run: two tracked scans of project "clean".
    let worker = startWorker();
    try {
      const c1 = await upload('clean', A);
      await workflowClosed(t, c1.id);
      const c2 = await upload('clean', B);
      await workflowClosed(t, c2.id);
      const k1 = await upload('killed', A);
      await workflowClosed(t, k1.id);
      await stop(worker);

      const eventsBefore = await t.store.c.alertEvents.countDocuments({});
      // The second scan of "killed" on a worker that pauses every move after storing its state: killed right there.
      worker = startWorker(120_000);
      const k2 = await upload('killed', B);
      const pair = pairIdOf(k1.projectId, 'javascript');
      // A worker's start bundles the workflows, which takes a while on a busy CI machine: wait by deadline, and say
      // where the scan's workflow stands if the state never comes.
      let stored = null;
      for (const deadline = Date.now() + 120_000; !stored && Date.now() < deadline;) {
        stored = await t.store.c.alertStates.findOne({ _id: `${pair}:2` });
        if (!stored) await new Promise((r) => setTimeout(r, 100));
      }
      if (!stored) {
        const d = await t.temporal.client.workflow.getHandle(k2.id).describe();
        const pending = (d.raw.pendingActivities ?? []).map((a) => [a.activityType?.name, a.state, a.attempt]);
        throw new Error(`no stored state: workflow ${d.status.name}, pending ${JSON.stringify(pending)}`);
      }
      await stop(worker, 'SIGKILL');
      // Killed halfway: the state is stored, its history and the head are not.
      expect((await t.store.c.alertSets.findOne({ _id: pair }))!.seq).toBe(1);
      expect(await t.store.c.alertEvents.countDocuments({})).toBe(eventsBefore);

      worker = startWorker();
      await workflowClosed(t, k2.id);
      expect((await t.store.c.alertSets.findOne({ _id: pair }))!.seq).toBe(2);
      expect(await t.store.c.alertStates.countDocuments({ pairId: pair })).toBe(2); // nothing moved twice
      const clean = await picture('clean', [c1.id, c2.id]);
      const killed = await picture('killed', [k1.id, k2.id]);
      expect(killed).toEqual(clean);
      expect(clean.some((a) => a.history.some((e) => e[0] === 'fixed'))).toBe(true);
      expect(clean.some((a) => a.history.some((e) => e[0] === 'versions_changed'))).toBe(true);
    } finally {
      await stop(worker, 'SIGKILL');
    }
  }, 300_000);
});
