// Chat webhooks end to end, against the real Temporal and FerretDB and a local HTTPS receiver (as the json webhooks'
// tests): Slack and Teams webhooks created through the API receive a Slack message and a Teams card of a completed scan
// and of the alerts a tracked scan opened, at their full (sealed) URL, unsigned, with every planted value escaped
// and links only to PUBLIC_APP_URL; a json webhook beside them still gets its signed JSON. The list shows the masked
// URL, the audit trail never the full one; a destination refused at delivery is refused for a chat webhook as for a
// json one. Advisories are written here (one with a hostile summary), so no third-party data is needed.
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { importAdvisories } from '../../src/advisories/import';
import type { DestinationPolicy } from '../../src/infra/webhooks/destination';
import { createLogger } from '../../src/logger';
import { secretBox } from '../../src/storage/secrets';
import { createWebhook } from '../../src/storage/webhooks';
import { scanEvents } from '../../src/temporal/events';
import type { DeliveryRetry } from '../../src/temporal/webhook-workflow-contract';
import { installRuntime } from '../../workers/temporal-runtime';
import { bearer, newOrg, testContext, workflowClosed, type Org, type TestContext } from '../helpers/context';
import { startHttpsServer, type TestHttpsServer } from '../helpers/https-server';
import { directSnapshot } from '../helpers/snapshots';
import { startTestWorker, type TestWorker } from '../helpers/worker';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  raw: string;
  body: any;
}
const received: Received[] = [];
function receiver(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    received.push({ path: req.url ?? '/', headers: req.headers, raw, body: JSON.parse(raw) });
    res.writeHead(202).end(); // a Teams Workflows trigger answers 202 Accepted
  });
}

const APP = 'https://scanner.example.test/app';
const SLUG = 'shop <!channel> [x](https://evil.example)';
const SUMMARY = 'minimist <!channel> see <https://evil.example|the fix> [click](https://evil.example) **now** <@U42>';
const SLACK_PATH = '/services/T0CHAT/B0CHAT/slackSecretToken';
const TEAMS_PATH = '/workflows/w1/triggers/manual/paths/invoke?api-version=2016-06-01&sig=teamsSignatureSecret';

const box = secretBox(randomBytes(32));
const RETRY: DeliveryRetry = {
  initialMs: 200,
  backoffCoefficient: 2,
  maxIntervalMs: 1000,
  windowMs: 10 * 60_000,
  attemptTimeoutMs: 5000,
};
let t: TestContext;
let server: TestHttpsServer;
let worker: TestWorker | undefined;
let advisories: string;

const osv = (id: string, name: string, severity: string, summary: string) => ({
  id,
  modified: '2024-01-01T00:00:00Z',
  published: '2024-01-02T00:00:00Z',
  summary,
  aliases: [],
  database_specific: { severity },
  affected: [
    {
      package: { ecosystem: 'npm', name },
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '9.0.0' }] }],
    },
  ],
});

beforeAll(async () => {
  installRuntime('error');
  server = await startHttpsServer(receiver);
  const names: Record<string, Array<{ address: string; family: 4 | 6 }>> = {
    'internal.example.test': [{ address: '10.0.0.5', family: 4 }],
  };
  const policy: DestinationPolicy = {
    allowedCidrs: ['127.0.0.0/8'],
    extraCa: server.ca,
    resolve: async (host) => names[host] ?? [{ address: '127.0.0.1', family: 4 }],
  };
  t = await testContext({ webhooks: { box, policy } });
  advisories = fs.mkdtempSync(path.join(os.tmpdir(), 'chat-adv-'));
  for (const a of [
    osv('GHSA-chat-0000-0001', 'left-pad', 'HIGH', 'left-pad is vulnerable'),
    osv('GHSA-chat-0000-0002', 'minimist', 'CRITICAL', SUMMARY),
  ])
    fs.writeFileSync(path.join(advisories, `${a.id}.json`), JSON.stringify(a));
  expect((await importAdvisories(t.store, [advisories])).rejected).toEqual([]);
  const logger = createLogger('worker', 'silent');
  const events = scanEvents({
    store: t.store,
    logger,
    taskQueue: t.taskQueue,
    client: t.temporal.client,
    retry: RETRY,
  });
  worker = await startTestWorker(t, { logger, events, webhooks: { box, policy, appUrl: APP } });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
  await server?.close();
  if (advisories) fs.rmSync(advisories, { recursive: true, force: true });
});

async function scan(key: string, project: string, pkgs: Array<[string, string]>): Promise<string> {
  const res = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(directSnapshot(project, pkgs));
  expect(res.status).toBe(201);
  await workflowClosed(t, res.body.id);
  return res.body.id as string;
}

/** Waits until `n` deliveries of `type` reached `p`. */
async function at(p: string, type: string, n: number): Promise<Received[]> {
  const of = () => received.filter((r) => r.path === p && r.headers['x-svc-event'] === type);
  for (let i = 0; i < 400 && of().length < n; i++) await new Promise((r) => setTimeout(r, 50));
  expect(of()).toHaveLength(n);
  return of();
}

async function hook(org: Org, body: object) {
  const res = await t.api.post('/v1/webhooks').set(bearer(org.ownerToken)).send(body);
  expect(res.status).toBe(201);
  return res.body as { webhook: { id: string; url: string; format: string }; secret: string | null };
}

/** Every string in a JSON value. */
const strings = (v: unknown): string[] =>
  typeof v === 'string'
    ? [v]
    : Array.isArray(v)
      ? v.flatMap(strings)
      : v && typeof v === 'object'
        ? Object.values(v).flatMap(strings)
        : [];

test('Slack and Teams webhooks get a message and a card of a completed scan and of the alerts it opened', async () => {
  const org = await newOrg(t.store, 'Chatty');
  const key = await org.key(['sca:upload', 'scans:read', 'findings:read']);
  const events = ['scan.completed', 'alert.opened'];
  const slack = await hook(org, { url: `${server.base}${SLACK_PATH}`, events, format: 'slack' });
  const teams = await hook(org, { url: `${server.base}${TEAMS_PATH}`, events, format: 'teams' });
  const json = await hook(org, { url: `${server.base}/json`, events });
  const masked = `${server.base}/…`;
  expect([slack.webhook.url, teams.webhook.url, slack.secret, teams.secret]).toEqual([masked, masked, null, null]);
  const listed = (await t.api.get('/v1/webhooks').set(bearer(org.ownerToken))).body.webhooks;
  expect(listed.map((w: any) => [w.format, w.url])).toEqual([
    ['json', `${server.base}/json`],
    ['teams', masked],
    ['slack', masked],
  ]);

  // The first tracked scan: scan.completed only (no alert event on a project's first tracked scan).
  const first = await scan(key, SLUG, [['left-pad', '1.0.0']]);
  const [s1] = await at(SLACK_PATH, 'scan.completed', 1);
  expect(s1.headers['content-type']).toMatch(/^application\/json/);
  expect(s1.headers['x-svc-delivery']).toMatch(/^dlv_/);
  expect(s1.headers['x-svc-signature']).toBeUndefined(); // chat deliveries are not signed
  expect(s1.body).toEqual({
    text: 'Scan completed: shop &lt;!channel&gt; [x](https://evil.example) (javascript): 0 critical, 1 high, 0 medium, 0 low',
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: 'Scan completed' } },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          verbatim: true,
          text:
            '*Project:* shop &lt;!channel&gt; [x](https://evil.example)\n*Ecosystem:* javascript\n' +
            '*Findings:* 0 critical · 1 high · 0 medium · 0 low',
        },
      },
      { type: 'section', text: { type: 'mrkdwn', verbatim: true, text: `<${APP}/scans/${first}|Open the scan>` } },
    ],
    unfurl_links: false,
    unfurl_media: false,
  });
  const [c1] = await at(TEAMS_PATH, 'scan.completed', 1);
  expect(c1.headers['x-svc-signature']).toBeUndefined();
  expect(c1.body.type).toBe('message');
  expect(c1.body.attachments[0].content).toMatchObject({
    type: 'AdaptiveCard',
    version: '1.4',
    body: [
      { type: 'TextBlock', text: 'Scan completed' },
      { type: 'RichTextBlock', inlines: [{ text: 'Project: ' }, { type: 'TextRun', text: SLUG }] },
      { type: 'RichTextBlock', inlines: [{ text: 'Ecosystem: ' }, { text: 'javascript' }] },
      { type: 'TextBlock', text: 'Findings' },
      { type: 'FactSet', facts: [{ title: 'critical', value: '0' }, { title: 'high', value: '1' }, {}, {}] },
    ],
    actions: [{ type: 'Action.OpenUrl', title: 'Open the scan', url: `${APP}/scans/${first}` }],
  });

  // The second adds minimist: one alert opened, whose advisory's summary plants mentions and links.
  await scan(key, SLUG, [
    ['left-pad', '1.0.0'],
    ['minimist', '1.2.5'],
  ]);
  const [s2] = await at(SLACK_PATH, 'alert.opened', 1);
  const alertId = /\/alerts\/(alr_[0-9a-z]+)\|/.exec(s2.raw)?.[1];
  expect(alertId).toBeDefined();
  const project = (await t.api.get(`/v1/alerts/${alertId}`).set(bearer(key))).body.project;
  expect(s2.body.text).toBe(
    '1 alert opened in shop &lt;!channel&gt; [x](https://evil.example) (javascript): 1 critical, 0 high, 0 medium, 0 low',
  );
  expect(s2.body.blocks).toEqual([
    { type: 'header', text: { type: 'plain_text', text: '1 alert opened' } },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        verbatim: true,
        text:
          '*Project:* shop &lt;!channel&gt; [x](https://evil.example)\n*Ecosystem:* javascript\n' +
          '*Alerts:* 1 critical · 0 high · 0 medium · 0 low',
      },
    },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        verbatim: true,
        text:
          `*critical* · minimist 1.2.5 · <${APP}/alerts/${alertId}|GHSA-chat-0000-0002>\n` +
          'minimist &lt;!channel&gt; see &lt;https://evil.example|the fix&gt; [click](https://evil.example) **now** &lt;@U42&gt;\n' +
          'fixed in 9.0.0',
      },
    },
    {
      type: 'section',
      text: { type: 'mrkdwn', verbatim: true, text: `<${APP}/projects/${project}/alerts|Open the project's alerts>` },
    },
  ]);
  // no planted mention or link survives anywhere in the message; the only links are the app's
  for (const text of strings(s2.body)) {
    for (const planted of ['<!channel>', '<@U42>', '<https://evil'])
      expect({ text, planted: text.includes(planted) }).toEqual({ text, planted: false });
    for (const m of text.matchAll(/<([^>]*)>/g)) expect(m[1].startsWith(`${APP}/`)).toBe(true);
  }

  const [c2] = await at(TEAMS_PATH, 'alert.opened', 1);
  const card = c2.body.attachments[0].content;
  expect(card.body[0]).toMatchObject({ type: 'TextBlock', text: '1 alert opened' });
  const container = card.body.find((b: any) => b.type === 'Container');
  expect(container.items).toEqual([
    {
      type: 'RichTextBlock',
      inlines: [
        { type: 'TextRun', text: 'critical', weight: 'Bolder', color: 'Attention' },
        { type: 'TextRun', text: ' · ' },
        { type: 'TextRun', text: 'minimist 1.2.5' },
        { type: 'TextRun', text: ' · ' },
        {
          type: 'TextRun',
          text: 'GHSA-chat-0000-0002',
          selectAction: { type: 'Action.OpenUrl', url: `${APP}/alerts/${alertId}` },
        },
      ],
    },
    { type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: SUMMARY }] }, // plain text, shown as typed
    { type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: 'fixed in 9.0.0', isSubtle: true }] },
  ]);
  // Markdown texts (TextBlocks, facts) hold only the service's words
  const markdown = strings(card.body.filter((b: any) => b.type === 'TextBlock' || b.type === 'FactSet'));
  expect(markdown).toEqual([
    'TextBlock',
    '1 alert opened',
    'Large',
    'Bolder',
    'TextBlock',
    'Alerts',
    'Bolder',
    'Medium',
    'FactSet',
    'critical',
    '1',
    'high',
    '0',
    'medium',
    '0',
    'low',
    '0',
  ]);

  // The json webhook beside them: the signed JSON of today, its alert as the API shows it.
  const [j] = await at('/json', 'alert.opened', 1);
  const sig = String(j.headers['x-svc-signature']);
  const ts = /t=(\d+)/.exec(sig)![1];
  expect(sig).toContain(`v1=${createHmac('sha256', json.secret!).update(`${ts}.${j.raw}`).digest('hex')}`);
  expect(j.body.data.alerts.map((a: any) => [a.id, a.summary])).toEqual([[alertId, SUMMARY]]);

  // Each chat delivery went to the full, sealed URL and succeeded once; the log reads as for json.
  for (const h of [slack, teams]) {
    const log = (await t.api.get(`/v1/webhooks/${h.webhook.id}/deliveries`).set(bearer(org.ownerToken))).body;
    expect(log.deliveries.map((d: any) => [d.type, d.status, d.attempts.length])).toEqual([
      ['alert.opened', 'succeeded', 1],
      ['scan.completed', 'succeeded', 1],
      ['scan.completed', 'succeeded', 1],
    ]);
  }
  // The audit trail holds the masked form only.
  const audit = JSON.stringify(
    (await t.api.get('/v1/audit-events').set(bearer(org.ownerToken))).body.auditEvents.filter(
      (e: any) => e.type === 'webhook.created',
    ),
  );
  expect(audit).toContain(masked);
  for (const secret of ['slackSecretToken', 'teamsSignatureSecret', '/services/', '/workflows/'])
    expect({ secret, found: audit.includes(secret) }).toEqual({ secret, found: false });
}, 120_000);

test('a destination refused at delivery is refused for a chat webhook as for a json one', async () => {
  const org = await newOrg(t.store, 'Refused');
  const key = await org.key(['sca:upload', 'scans:read']);
  // Stored directly: the API refuses such a URL at creation (test/http/webhooks.test.ts); a name can change since.
  const url = 'https://internal.example.test/services/T/B/X';
  const ids: string[] = [];
  for (const format of ['json', 'slack', 'teams'] as const)
    ids.push(
      (
        await createWebhook(t.store, box, {
          orgId: org.orgId,
          url,
          format,
          events: ['scan.completed'],
          createdBy: null,
        })
      ).doc._id,
    );
  await scan(key, 'refused', [['left-pad', '1.0.0']]);
  const errors: string[] = [];
  for (const id of ids) {
    let attempts: any[] = [];
    for (let i = 0; i < 200 && attempts.length === 0; i++) {
      const log = (await t.api.get(`/v1/webhooks/${id}/deliveries`).set(bearer(org.ownerToken))).body;
      attempts = log.deliveries[0]?.attempts ?? [];
      if (!attempts.length) await new Promise((r) => setTimeout(r, 50));
    }
    expect(attempts[0]).toMatchObject({ statusCode: null });
    errors.push(attempts[0].error);
    // stop its retries
    expect((await t.api.delete(`/v1/webhooks/${id}`).set(bearer(org.ownerToken))).status).toBe(204);
  }
  expect(errors[0]).toContain('internal.example.test resolves to 10.0.0.5');
  expect(errors).toEqual([errors[0], errors[0], errors[0]]);
  expect(received.filter((r) => r.path.startsWith('/services/T/'))).toHaveLength(0);
}, 60_000);
