// Alert webhook events through the real pipeline and a local HTTPS receiver: none on a project's first tracked scan;
// then one alert.opened, alert.fixed or alert.reopened event per tracked scan that changed alerts that way, listing
// them; each webhook gets the alerts its minSeverity and projects filters keep, and nothing when they keep none; the
// webhook's filters are validated at creation (422 unknown_project, invalid_parameter).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { importAdvisories } from '../../src/advisories/import';
import type { DestinationPolicy } from '../../src/infra/webhooks/destination';
import { createLogger } from '../../src/logger';
import { secretBox } from '../../src/storage/secrets';
import { createWebhook, type WebhookEvent } from '../../src/storage/webhooks';
import { scanEvents } from '../../src/temporal/events';
import type { DeliveryRetry } from '../../src/temporal/webhook-workflow-contract';
import { installRuntime } from '../../workers/temporal-runtime';
import { bearer, newOrg, testContext, workflowClosed, type Org, type TestContext } from '../helpers/context';
import { startHttpsServer, type TestHttpsServer } from '../helpers/https-server';
import { directSnapshot } from '../helpers/snapshots';
import { describeWithSharedData, sharedDataDir } from '../helpers/shared-data';
import { startTestWorker, type TestWorker } from '../helpers/worker';

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
let t: TestContext;
let server: TestHttpsServer;
let worker: TestWorker | undefined;
let org: Org;
let key: string;

describeWithSharedData('alert webhooks', () => {
  beforeAll(async () => {
    installRuntime('error');
    server = await startHttpsServer(receiver);
    t = await testContext();
    const report = await importAdvisories(t.store, [path.join(sharedDataDir(), 'advisories/npm')]);
    expect(report.rejected).toEqual([]);
    const policy: DestinationPolicy = {
      allowedCidrs: ['127.0.0.0/8'],
      extraCa: server.ca,
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    };
    const logger = createLogger('worker', 'silent');
    const events = scanEvents({
      store: t.store,
      logger,
      taskQueue: t.taskQueue,
      client: t.temporal.client,
      retry: RETRY,
    });
    worker = await startTestWorker(t, { logger, events, webhooks: { box, policy } });
    org = await newOrg(t.store, 'Hooked');
    key = await org.key(['sca:upload', 'scans:read', 'findings:read']);
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    await server?.close();
  });

  async function hook(
    p: string,
    events: WebhookEvent[],
    filters: { minSeverity?: 'critical' | 'high' | 'medium' | 'low'; projects?: string[] } = {},
  ) {
    await createWebhook(t.store, box, {
      orgId: org.orgId,
      url: `${server.base}${p}`,
      events,
      createdBy: org.memberId,
      ...filters,
    });
  }

  async function scan(project: string, pkgs: Array<[string, string]>): Promise<{ id: string; projectId: string }> {
    const res = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(directSnapshot(project, pkgs));
    expect(res.status).toBe(201);
    for (let i = 0; i < 100; i++) {
      const got = await t.api.get(`/v1/scans/${res.body.id}?wait=30`).set(bearer(key));
      if (got.body.status === 'completed') {
        await workflowClosed(t, res.body.id);
        return { id: res.body.id, projectId: got.body.project };
      }
    }
    throw new Error('scan did not complete');
  }

  /** Waits until `n` events reached `path` (deliveries are asynchronous), then a moment more for any extra one. */
  async function eventsAt(p: string, n: number) {
    for (let i = 0; i < 200 && received.filter((r) => r.path === p).length < n; i++)
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    return received.filter((r) => r.path === p);
  }

  test('one event per tracked scan and kind of change, none on the first; filters by severity and project', async () => {
    const first = await scan('hooked', [
      ['lodash', '4.17.20'], // high
      ['moment', '2.29.1'], // high
    ]);
    await hook('/all', ['alert.opened', 'alert.fixed', 'alert.reopened']);
    await hook('/critical', ['alert.opened', 'alert.fixed'], { minSeverity: 'critical' });
    await hook('/other-project', ['alert.opened', 'alert.fixed'], { projects: ['prj_nothing_here'] });
    expect(await eventsAt('/all', 0)).toEqual([]); // the first tracked scan announced nothing (it ran before the hooks, too)

    // moment fixed, minimist and follow-redirects opened.
    const second = await scan('hooked', [
      ['lodash', '4.17.20'],
      ['follow-redirects', '1.14.0'],
    ]);
    const all = await eventsAt('/all', 2);
    expect(all.map((r) => r.type).sort()).toEqual(['alert.fixed', 'alert.opened']);
    const opened = all.find((r) => r.type === 'alert.opened')!.body;
    expect(opened).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: 'alert.opened',
      data: { project: first.projectId, ecosystem: 'javascript', scanId: second.id, trigger: 'scan', truncated: 0 },
    });
    expect(opened.data.generation).toMatch(/^adv_/);
    expect(opened.data.alerts.map((a: any) => a.package)).toEqual([
      'follow-redirects',
      'follow-redirects',
      'follow-redirects',
    ]);
    const fixed = all.find((r) => r.type === 'alert.fixed')!.body;
    expect(fixed.data.alerts).toEqual([expect.objectContaining({ package: 'moment', status: 'fixed' })]);
    // The alert in the event is the Alert resource as GET /v1/alerts/{id} shows it.
    const one = await t.api.get(`/v1/alerts/${fixed.data.alerts[0].id}`).set(bearer(key));
    expect(one.body).toEqual(fixed.data.alerts[0]);
    // No critical alert changed, and no alert of the other project: those webhooks received nothing.
    expect(await eventsAt('/critical', 0)).toEqual([]);
    expect(await eventsAt('/other-project', 0)).toEqual([]);

    // moment back: reopened.
    await scan('hooked', [
      ['lodash', '4.17.20'],
      ['follow-redirects', '1.14.0'],
      ['moment', '2.29.1'],
    ]);
    const after = await eventsAt('/all', 3);
    expect(after.map((r) => r.type).sort()).toEqual(['alert.fixed', 'alert.opened', 'alert.reopened']);
    expect(after.find((r) => r.type === 'alert.reopened')!.body.data.alerts).toEqual([
      expect.objectContaining({ package: 'moment', status: 'open' }),
    ]);
  }, 120_000);

  test('webhook filters are checked at creation', async () => {
    const post = (body: object) => t.api.post('/v1/webhooks').set(bearer(org.ownerToken)).send(body);
    const base = { url: `${server.base}/x`, events: ['alert.opened'] };
    expect((await post({ ...base, minSeverity: 'huge' })).body.error).toMatchObject({ code: 'invalid_parameter' });
    expect((await post({ ...base, projects: [] })).body.error).toMatchObject({ code: 'invalid_parameter' });
    expect((await post({ ...base, projects: ['no-such-project'] })).body.error).toMatchObject({
      code: 'unknown_project',
    });
  });
});
