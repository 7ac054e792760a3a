// Triage in the background through a real Temporal worker, the MongoDB-wire store and a local HTTPS receiver: a rule
// change reaches the existing alerts' histories (one analysis_changed event, source rule, only where the alert's
// suppression by a rule changed; none under the alert's own analysis; nothing more on a repeat), an analysis that
// reached its expiry is told once (an analysis_expired history event and one analysis.expired webhook delivery; a new
// analysis expiring later is told again), and the hourly schedule (created idempotently) tells an enforce rule's
// expiry.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DestinationPolicy } from '../../src/infra/webhooks/destination';
import { createLogger } from '../../src/logger';
import { createProject } from '../../src/storage/projects';
import { secretBox } from '../../src/storage/secrets';
import { createWebhook } from '../../src/storage/webhooks';
import { scanEvents } from '../../src/temporal/events';
import { ensureTriageSchedule, triageReconciler } from '../../src/temporal/triage-reconcile';
import {
  triageReconcileId,
  triageScheduleId,
  type TriageReconcileResult,
} from '../../src/temporal/triage-reconcile-workflow-contract';
import type { DeliveryRetry } from '../../src/temporal/webhook-workflow-contract';
import { installRuntime } from '../../workers/temporal-runtime';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { startHttpsServer, type TestHttpsServer } from '../helpers/https-server';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { storeFirstMove } from '../helpers/alerts';

const received: Array<{ path: string; type: string; body: any }> = [];
function receiver(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    received.push({ path: req.url ?? '/', type: body.type, body });
    res.writeHead(200).end('ok');
  });
}

const box = secretBox(randomBytes(32));
const RETRY: DeliveryRetry = {
  initialMs: 200,
  backoffCoefficient: 2,
  maxIntervalMs: 1000,
  windowMs: 60_000,
  attemptTimeoutMs: 5000,
};
const logger = createLogger('test', 'silent');
let t: TestContext;
let server: TestHttpsServer;
let worker: TestWorker | undefined;
let org: Org;
let key: string;
const alert: Record<string, string> = {};

const finding = (pkg: string, cve: string, severity: 'critical' | 'high' | 'medium' | 'low') => ({
  id: `fnd_${pkg}`,
  package: pkg,
  installedVersion: '1.0.0',
  fixedVersion: '1.0.1',
  severity,
  cve,
  aliases: [cve],
  summary: pkg,
  publishedAt: null,
  suppressed: false,
  cvss: null,
});

beforeAll(async () => {
  installRuntime('error');
  server = await startHttpsServer(receiver);
  t = await testContext();
  const policy: DestinationPolicy = {
    allowedCidrs: ['127.0.0.0/8'],
    extraCa: server.ca,
    resolve: async () => [{ address: '127.0.0.1', family: 4 }],
  };
  const events = scanEvents({
    store: t.store,
    logger,
    taskQueue: t.taskQueue,
    client: t.temporal.client,
    retry: RETRY,
  });
  worker = await startTestWorker(t, { logger, events, webhooks: { box, policy } });
  org = await newOrg(t.store, 'Reconciled');
  key = await org.key(['findings:read', 'findings:triage']);
  // Alerts of one project stored as a tracked scan's move would store them.
  const project = await createProject(t.store, org.orgId, 'reconciled');
  const stored = await storeFirstMove(t.store, {
    orgId: org.orgId,
    projectId: project._id,
    scanId: 'scn_seeded',
    findings: [
      finding('alpha', 'CVE-2020-1001', 'high'),
      finding('beta', 'CVE-2020-1002', 'critical'),
      finding('gamma', 'CVE-2020-1003', 'low'),
      finding('delta', 'CVE-2020-1004', 'high'),
    ],
  });
  for (const a of stored) alert[a.package] = a.id;
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
  await server?.close();
});

/** The organization's reconciliation, waited for (it runs until no change asked for another pass). */
const reconciled = (): Promise<TriageReconcileResult> =>
  t.temporal.client.workflow.getHandle(triageReconcileId(org.orgId)).result();

/** Asks for a reconciliation as a rule change does, and waits for it. */
async function reconcileAgain(): Promise<TriageReconcileResult> {
  expect(await triageReconciler(t.temporal, logger).reconcile(org.orgId)).toBe(true);
  return reconciled();
}

const history = async (pkg: string): Promise<any[]> => {
  const res = await t.api.get(`/v1/alerts/${alert[pkg]}/history?limit=100`).set(bearer(key));
  expect(res.status).toBe(200);
  return res.body.events;
};
const ruleEvents = async (pkg: string) =>
  (await history(pkg)).filter((e) => e.type === 'analysis_changed' && e.details.source === 'rule');

const inDays = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString();
const past = () => new Date(Date.now() - 1000).toISOString();

const notAffected = {
  state: 'not_affected',
  justification: 'code_not_reachable',
  detail: 'never called from our code',
};

test('a rule change reaches the existing alerts: one history event where the suppression changed, none elsewhere', async () => {
  // delta has an analysis of its own: it decides, whatever the rules say
  const own = await t.api.put(`/v1/alerts/${alert.delta}/analysis`).set(bearer(key)).send({ state: 'in_triage' });
  expect(own.status).toBe(200);

  const created = await t.api
    .post('/v1/triage-rules')
    .set(bearer(org.ownerToken))
    .send({
      name: 'not ours',
      conditions: { packages: ['alpha', 'beta', 'delta'] },
      analysis: notAffected,
      mode: 'enforce',
    });
  expect(created.status).toBe(201);
  const ruleId = created.body.id;
  expect(await reconciled()).toMatchObject({ ruleEvents: 2, failed: 0 });

  for (const pkg of ['alpha', 'beta']) {
    const events = await history(pkg);
    // the newest event: the rule now suppresses the alert; before, nothing did
    expect(events[0]).toMatchObject({
      type: 'analysis_changed',
      alertId: alert[pkg],
      details: { source: 'rule', ruleId, suppressed: true, before: { ruleId: null, suppressed: false } },
    });
    expect(events.filter((e) => e.details.source === 'rule')).toHaveLength(1);
  }
  expect(await ruleEvents('gamma')).toEqual([]); // not matched
  expect(await ruleEvents('delta')).toEqual([]); // matched, but its own analysis decides
  expect((await t.api.get(`/v1/alerts/${alert.alpha}`).set(bearer(key))).body).toMatchObject({
    suppressed: true,
    suppressionSource: 'rule',
    ruleId,
  });

  // Again: nothing new.
  expect(await reconcileAgain()).toMatchObject({ ruleEvents: 0, expired: 0 });
  expect((await ruleEvents('alpha')).length).toBe(1);
  expect((await ruleEvents('beta')).length).toBe(1);

  // A rule that matches alpha too, but a newer one: the older rule keeps deciding it; nothing to tell.
  const newer = await t.api
    .post('/v1/triage-rules')
    .set(bearer(org.ownerToken))
    .send({ name: 'newer', conditions: { packages: ['alpha'] }, analysis: notAffected, mode: 'enforce' });
  expect(newer.status).toBe(201);
  expect(await reconciled()).toMatchObject({ ruleEvents: 0 });

  // The older rule deleted: alpha goes to the newer rule (one event), beta to none (one event).
  expect((await t.api.delete(`/v1/triage-rules/${ruleId}`).set(bearer(org.ownerToken))).status).toBe(204);
  expect(await reconciled()).toMatchObject({ ruleEvents: 2 });
  expect((await ruleEvents('alpha'))[0].details).toEqual({
    source: 'rule',
    ruleId: newer.body.id,
    suppressed: true,
    before: { ruleId, suppressed: true },
  });
  expect((await ruleEvents('beta')).map((e) => e.details)).toEqual([
    { source: 'rule', ruleId: null, suppressed: false, before: { ruleId, suppressed: true } },
    { source: 'rule', ruleId, suppressed: true, before: { ruleId: null, suppressed: false } },
  ]);
  expect(await ruleEvents('gamma')).toEqual([]);
  expect(await ruleEvents('delta')).toEqual([]);

  expect((await t.api.delete(`/v1/triage-rules/${newer.body.id}`).set(bearer(org.ownerToken))).status).toBe(204);
  expect(await reconciled()).toMatchObject({ ruleEvents: 1 });
  expect(await reconcileAgain()).toMatchObject({ ruleEvents: 0 });
  expect((await ruleEvents('alpha')).length).toBe(3);
  expect((await ruleEvents('beta')).length).toBe(2);
  // An analysis decided after rule events: its revisions are its own (rule events are not taken for them).
  const later = await t.api.put(`/v1/alerts/${alert.alpha}/analysis`).set(bearer(key)).send({ state: 'exploitable' });
  expect(later.status).toBe(200);
  expect((await t.api.get(`/v1/alerts/${alert.alpha}`).set(bearer(key))).body.analysis).toMatchObject({
    state: 'exploitable',
  });
  // One audit event per rule change, none from the background.
  const audit = await t.api.get('/v1/audit-events?limit=100').set(bearer(org.ownerToken));
  expect(audit.body.auditEvents.filter((e: any) => e.type.startsWith('triage_rule.')).length).toBe(4);
}, 120_000);

/** Waits until `n` deliveries reached `path`, then a moment more for any extra one. */
async function deliveriesAt(p: string, n: number) {
  for (let i = 0; i < 200 && received.filter((r) => r.path === p).length < n; i++)
    await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 500));
  return received.filter((r) => r.path === p);
}

test('an expired analysis is told once: one analysis_expired history event and one analysis.expired webhook event', async () => {
  await createWebhook(t.store, box, {
    orgId: org.orgId,
    url: `${server.base}/expired`,
    events: ['analysis.expired'],
    createdBy: org.memberId,
  });
  await createWebhook(t.store, box, {
    orgId: org.orgId,
    url: `${server.base}/critical-only`,
    events: ['analysis.expired'],
    createdBy: org.memberId,
    minSeverity: 'critical',
  });
  const decided = await t.api
    .put(`/v1/alerts/${alert.gamma}/analysis`)
    .set(bearer(key))
    .send({ state: 'false_positive', detail: 'not our gamma', expiresAt: inDays(1) });
  expect(decided.status).toBe(200);
  // Not expired yet: nothing to tell.
  expect(await reconcileAgain()).toMatchObject({ expired: 0, announced: 0 });
  // Its expiry passes (stored so, as time would).
  await t.store.c.alertAnalyses.updateMany({ alertId: alert.gamma }, { $set: { 'analysis.expiresAt': past() } });
  expect(await reconcileAgain()).toMatchObject({ expired: 1, announced: 1, failed: 0 });

  const expired = (await history('gamma')).filter((e) => e.type === 'analysis_expired');
  expect(expired).toHaveLength(1);
  expect(expired[0]).toMatchObject({
    alertId: alert.gamma,
    details: { analysis: { state: 'false_positive' }, suppressed: false, suppressionSource: null, ruleId: null },
  });
  // newest first: the expiry comes after the decision it ends
  expect((await history('gamma'))[0].type).toBe('analysis_expired');

  const got = await deliveriesAt('/expired', 1);
  expect(got).toHaveLength(1);
  expect(got[0].body).toMatchObject({
    id: expect.stringMatching(/^evt_/),
    type: 'analysis.expired',
    data: { truncated: 0 },
  });
  expect(got[0].body.data.alerts).toEqual([
    expect.objectContaining({
      id: alert.gamma,
      package: 'gamma',
      suppressed: false,
      analysis: expect.objectContaining({ state: 'false_positive', expired: true }),
    }),
  ]);
  // gamma is low: the critical-only webhook receives nothing
  expect(await deliveriesAt('/critical-only', 0)).toEqual([]);

  // Again: not told twice.
  expect(await reconcileAgain()).toMatchObject({ expired: 0, announced: 0 });
  expect((await history('gamma')).filter((e) => e.type === 'analysis_expired')).toHaveLength(1);
  expect(await deliveriesAt('/expired', 1)).toHaveLength(1);

  // A new analysis with its own expiry: told again when it expires.
  const again = await t.api
    .put(`/v1/alerts/${alert.gamma}/analysis`)
    .set(bearer(key))
    .send({ state: 'not_affected', justification: 'requires_environment', detail: 'dev only', expiresAt: inDays(2) });
  expect(again.status).toBe(200);
  await t.store.c.alertAnalyses.updateMany({ alertId: alert.gamma }, { $set: { 'analysis.expiresAt': past() } });
  expect(await reconcileAgain()).toMatchObject({ expired: 1, announced: 1 });
  expect((await history('gamma')).filter((e) => e.type === 'analysis_expired')).toHaveLength(2);
  const both = await deliveriesAt('/expired', 2);
  expect(both).toHaveLength(2);
  expect(both[1].body.id).not.toBe(both[0].body.id);
  expect(both[1].body.data.alerts[0].analysis).toMatchObject({ state: 'not_affected', expired: true });
}, 120_000);

test("the hourly schedule is created idempotently and tells an enforce rule's expiry", async () => {
  const client = t.temporal.client;
  const database = t.store.db.databaseName;
  expect(await ensureTriageSchedule(client, t.taskQueue, database)).toBe('created');
  expect(await ensureTriageSchedule(client, t.taskQueue, database)).toBe('updated');
  const schedule = client.schedule.getHandle(triageScheduleId(database));
  try {
    const rule = await t.api
      .post('/v1/triage-rules')
      .set(bearer(org.ownerToken))
      .send({
        name: 'for a while',
        conditions: { packages: ['beta'] },
        analysis: notAffected,
        mode: 'enforce',
        expiresAt: inDays(3),
      });
    expect(rule.status).toBe(201);
    expect(await reconciled()).toMatchObject({ ruleEvents: 1 });
    expect((await ruleEvents('beta'))[0].details).toMatchObject({ ruleId: rule.body.id, suppressed: true });

    // The rule's expiry passes (stored so, as time would); nobody changes a rule: the hourly run tells it.
    await t.store.c.triageRules.updateOne({ _id: rule.body.id }, { $set: { 'rule.expiresAt': past() } });
    await schedule.trigger();
    let sweep: string | undefined;
    for (let i = 0; i < 100 && !sweep; i++) {
      const d = await schedule.describe();
      const action = d.info.recentActions[0]?.action;
      sweep = action?.type === 'startWorkflow' ? action.workflow.workflowId : undefined;
      if (!sweep) await new Promise((r) => setTimeout(r, 100));
    }
    expect(sweep).toBeDefined();
    expect(await client.workflow.getHandle(sweep!).result()).toMatchObject({ failed: 0 });
    await reconciled(); // the organization's run the sweep started (or signalled)
    expect((await ruleEvents('beta'))[0].details).toEqual({
      source: 'rule',
      ruleId: null,
      suppressed: false,
      before: { ruleId: rule.body.id, suppressed: true },
    });
    expect((await ruleEvents('beta')).length).toBe(4);
  } finally {
    await schedule.delete();
  }
}, 120_000);
