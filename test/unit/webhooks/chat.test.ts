// The chat formats of webhooks, pure: what a message says about each event type, the cap of 20 alerts and "and N
// more", links only to PUBLIC_APP_URL, the masked URL, and the escaping of planted mentions, links, Markdown and HTML
// in every value that comes from a snapshot or an advisory (Slack: &, <, > as entities in verbatim mrkdwn; Teams:
// values only in TextRuns, which are plain text, and the service's own words escaped in Markdown texts).
import {
  CHAT_MAX_ALERTS,
  chatLinkBase,
  chatSummary,
  clip,
  maskedUrl,
  type ChatAlert,
  type ChatContext,
  type ChatEvent,
  type ChatScan,
} from '../../../src/domain/webhooks/chat';
import { slackEscape, slackMessage } from '../../../src/domain/webhooks/chat-slack';
import { teamsMarkdownEscape, teamsMessage } from '../../../src/domain/webhooks/chat-teams';
import { chatDeliveryHeaders } from '../../../src/domain/webhooks/deliveries';
import type { Severity } from '../../../src/shared/types';

const HOSTILE = {
  slug: 'web <!channel> <@U123> & co',
  pkg: '<https://evil.example|click> [x](https://evil.example)',
  version: '1.0.0<!here>',
  advisory: 'GHSA-<#C123>',
  summary: '<b>bold</b> **md** _it_ `code` # head > quote <at>Boss</at> https://evil.example/login &amp;',
  team: '<!subteam^S123> @here [team](javascript:alert(1))',
};
const PLANTED = ['<!channel>', '<@U123>', '<https://evil.example|click>', '<!here>', '<#C123>', '<!subteam^S123>'];

const alert = (i: number, over: Partial<ChatAlert> = {}): ChatAlert => ({
  id: `alr_${String(i).padStart(4, '0')}`,
  project: 'prj_web',
  package: `pkg-${i}`,
  advisory: `GHSA-0000-0000-${String(i).padStart(4, '0')}`,
  severity: (['critical', 'high', 'medium', 'low'] as Severity[])[i % 4],
  summary: `summary ${i}`,
  installedVersions: ['1.0.0'],
  fixedVersion: '1.0.1',
  teams: [],
  kev: null,
  ...over,
});
const hostileAlert = alert(1, {
  package: HOSTILE.pkg,
  installedVersions: [HOSTILE.version],
  advisory: HOSTILE.advisory,
  summary: HOSTILE.summary,
  teams: [HOSTILE.team],
  fixedVersion: '2.0.0 <!everyone>',
});
const scan = (over: Partial<ChatScan> = {}): ChatScan => ({
  id: 'scn_0001',
  project: 'prj_web',
  target: 'web',
  ecosystem: 'javascript',
  status: 'completed',
  findings: { critical: 1, high: 2, medium: 3, low: 4 },
  failureReason: null,
  metadata: { ref: 'refs/heads/main', commit: 'abc123' },
  ...over,
});
const ctx = (over: Partial<ChatContext> = {}): ChatContext => ({
  projects: new Map([['prj_web', HOSTILE.slug]]),
  appUrl: null,
  ...over,
});
const opened = (alerts: ChatAlert[]): ChatEvent => ({
  type: 'alert.opened',
  project: 'prj_web',
  ecosystem: 'javascript',
  trigger: 'scan',
  alerts,
});

/** Every string in a JSON value, with its path. */
function strings(v: unknown, path = ''): Array<[string, string]> {
  if (typeof v === 'string') return [[path, v]];
  if (Array.isArray(v)) return v.flatMap((x, i) => strings(x, `${path}[${i}]`));
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => strings(x, `${path}.${k}`));
  return [];
}

describe('Slack', () => {
  test('escaping: &, < and > as entities in every text, so no planted mention or link survives; mrkdwn verbatim', () => {
    expect(slackEscape('a & b <!channel> <x|y>')).toBe('a &amp; b &lt;!channel&gt; &lt;x|y&gt;');
    for (const e of [
      opened([hostileAlert]),
      { type: 'analysis.expired', alerts: [hostileAlert] } as ChatEvent,
      { type: 'scan.completed', scan: scan({ project: 'prj_web', metadata: { ref: HOSTILE.team } }) } as ChatEvent,
    ]) {
      const msg = slackMessage(chatSummary(e, ctx()));
      const all = strings(msg);
      for (const [path, text] of all) {
        for (const p of PLANTED) expect({ path, text, has: text.includes(p) }).toEqual({ path, text, has: false });
        // no raw < or > at all: the service added no link (no PUBLIC_APP_URL)
        expect({ path, raw: /[<>]/.test(text) }).toEqual({ path, raw: false });
        // every & starts an entity
        expect({ path, bare: /&(?!amp;|lt;|gt;)/.test(text) }).toEqual({ path, bare: false });
      }
      expect(JSON.stringify(msg)).toContain('&lt;!channel&gt;');
      for (const b of msg.blocks as any[]) {
        if (b.text?.type === 'mrkdwn') expect(b.text.verbatim).toBe(true);
        for (const el of b.elements ?? []) expect(el.verbatim).toBe(true);
      }
      expect(msg).toMatchObject({ unfurl_links: false, unfurl_media: false });
    }
    // an entity in a value is shown as typed, not decoded: its & is escaped too
    expect(JSON.stringify(slackMessage(chatSummary(opened([hostileAlert]), ctx())))).toContain('&amp;amp;');
  });

  test('alert.opened: header, facts and counts, one section per alert with package, versions, advisory, severity', () => {
    const alerts = [alert(0, { kev: { dateAdded: '2024-01-01' }, teams: ['payments', 'core'] }), alert(1)];
    const msg = slackMessage(chatSummary(opened(alerts), ctx({ projects: new Map([['prj_web', 'web']]) })));
    expect(msg.text).toBe('2 alerts opened in web (javascript): 1 critical, 1 high, 0 medium, 0 low');
    expect(msg.blocks).toEqual([
      { type: 'header', text: { type: 'plain_text', text: '2 alerts opened' } },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          verbatim: true,
          text: '*Project:* web\n*Ecosystem:* javascript\n*Alerts:* 1 critical · 1 high · 0 medium · 0 low',
        },
      },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          verbatim: true,
          text: '*critical* (KEV) · pkg-0 1.0.0 · GHSA-0000-0000-0000\nsummary 0\nfixed in 1.0.1 · teams payments, core',
        },
      },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          verbatim: true,
          text: '*high* · pkg-1 1.0.0 · GHSA-0000-0000-0001\nsummary 1\nfixed in 1.0.1',
        },
      },
    ]);
  });

  test(`at most ${CHAT_MAX_ALERTS} alerts, most severe first, then "and N more"; counts cover every alert`, () => {
    const many = Array.from({ length: 47 }, (_, i) => alert(i));
    const s = chatSummary(opened(many), ctx());
    expect(s.alerts).toHaveLength(CHAT_MAX_ALERTS);
    expect(s.more).toBe(27);
    expect(s.counts).toEqual({ critical: 12, high: 12, medium: 12, low: 11 });
    expect(s.alerts.slice(0, 12).every((a) => a.severity === 'critical')).toBe(true);
    const msg = slackMessage(s);
    expect(msg.blocks.filter((b: any) => b.type === 'section')).toHaveLength(1 + CHAT_MAX_ALERTS);
    expect(msg.blocks[msg.blocks.length - 1]).toEqual({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: 'and 27 more', verbatim: true }],
    });
    expect(msg.blocks.length).toBeLessThanOrEqual(50); // Slack's limit
    // exactly 20: no "and 0 more"
    const twenty = slackMessage(chatSummary(opened(many.slice(0, 20)), ctx()));
    expect(JSON.stringify(twenty)).not.toContain('more');
  });

  test("every section stays within Slack's 3,000 characters, however long and hostile the values", () => {
    const huge = alert(1, {
      package: '&'.repeat(5000),
      summary: '<'.repeat(5000),
      advisory: '>'.repeat(500),
      installedVersions: Array.from({ length: 200 }, () => '&&&&'),
      teams: Array.from({ length: 200 }, () => '<<<<'),
      fixedVersion: '&'.repeat(500),
    });
    const msg = slackMessage(chatSummary(opened(Array.from({ length: 25 }, () => huge)), ctx()));
    for (const b of msg.blocks as any[]) if (b.type === 'section') expect(b.text.text.length).toBeLessThanOrEqual(3000);
    expect(msg.blocks[0].text.text.length).toBeLessThanOrEqual(150);
  });

  test('each event type: its title and facts', () => {
    const title = (e: ChatEvent) => slackMessage(chatSummary(e, ctx())).blocks[0].text.text;
    expect(title({ type: 'scan.completed', scan: scan() })).toBe('Scan completed');
    expect(title({ type: 'scan.failed', scan: scan({ status: 'failed', findings: null, failureReason: 'x' }) })).toBe(
      'Scan failed',
    );
    expect(title(opened([alert(1)]))).toBe('1 alert opened');
    expect(title({ ...opened([alert(1), alert(2)]), type: 'alert.fixed' } as ChatEvent)).toBe('2 alerts fixed');
    expect(title({ ...opened([alert(1)]), type: 'alert.reopened' } as ChatEvent)).toBe('1 alert reopened');
    expect(title({ type: 'analysis.expired', alerts: [alert(1), alert(2)] })).toBe('Analysis expired on 2 alerts');

    const completed = slackMessage(chatSummary({ type: 'scan.completed', scan: scan() }, ctx()));
    expect(completed.text).toBe(
      'Scan completed: web &lt;!channel&gt; &lt;@U123&gt; &amp; co (javascript): 1 critical, 2 high, 3 medium, 4 low',
    );
    expect(completed.blocks[1].text.text).toBe(
      '*Project:* web &lt;!channel&gt; &lt;@U123&gt; &amp; co\n*Ecosystem:* javascript\n*Branch:* refs/heads/main\n' +
        '*Commit:* abc123\n*Findings:* 1 critical · 2 high · 3 medium · 4 low',
    );
    const failed = slackMessage(
      chatSummary(
        {
          type: 'scan.failed',
          scan: scan({ status: 'failed', findings: null, failureReason: 'internal_error', metadata: null }),
        },
        ctx({ projects: new Map() }),
      ),
    );
    expect(failed.text).toBe('Scan failed: web (javascript): internal_error'); // the target, without a slug
    expect(failed.blocks[1].text.text).toBe('*Project:* web\n*Ecosystem:* javascript\n*Reason:* internal_error');
    // a re-match says so; analysis.expired names each alert's project
    const rematch = chatSummary({ ...opened([alert(1)]), trigger: 'rematch' } as ChatEvent, ctx());
    expect(rematch.facts).toContainEqual({ label: 'Trigger', value: 'newly imported advisories' });
    const expired = slackMessage(chatSummary({ type: 'analysis.expired', alerts: [alert(1)] }, ctx()));
    expect(expired.blocks[2].text.text).toContain('project web &lt;!channel&gt;');
  });

  test('links only to an https PUBLIC_APP_URL, built from service ids', () => {
    const app = 'https://scanner.example.com/app';
    const msg = slackMessage(chatSummary(opened([alert(1)]), ctx({ appUrl: app })));
    const text = JSON.stringify(msg);
    expect(msg.blocks[2].text.text).toContain('<https://scanner.example.com/app/alerts/alr_0001|GHSA-0000-0000-0001>');
    expect(msg.blocks[msg.blocks.length - 1].text.text).toBe(
      "<https://scanner.example.com/app/projects/prj_web/alerts|Open the project's alerts>",
    );
    expect(text.match(/<https:/g)).toHaveLength(2);
    const scanMsg = slackMessage(chatSummary({ type: 'scan.completed', scan: scan() }, ctx({ appUrl: app })));
    expect(scanMsg.blocks[scanMsg.blocks.length - 1].text.text).toBe(
      '<https://scanner.example.com/app/scans/scn_0001|Open the scan>',
    );
    // an id that is not the service's is never linked
    const odd = chatSummary(opened([alert(1, { id: 'alr_x|<!channel>' })]), ctx({ appUrl: app }));
    expect(odd.alerts[0].url).toBeNull();
    // no base: no link at all
    expect(JSON.stringify(slackMessage(chatSummary(opened([alert(1)]), ctx())))).not.toContain('https:');
  });
});

describe('Teams', () => {
  test('a Workflows message with an Adaptive Card 1.4: title, facts, counts, alerts, "and N more", link', () => {
    const many = Array.from({ length: 23 }, (_, i) => alert(i));
    const msg = teamsMessage(
      chatSummary(opened(many), ctx({ appUrl: 'https://scanner.example.com/app', projects: new Map() })),
    );
    expect(msg).toMatchObject({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            actions: [
              {
                type: 'Action.OpenUrl',
                title: "Open the project's alerts",
                url: 'https://scanner.example.com/app/projects/prj_web/alerts',
              },
            ],
          },
        },
      ],
    });
    expect(msg.attachments).toHaveLength(1);
    const body = msg.attachments[0].content.body as any[];
    expect(body[0]).toEqual({
      type: 'TextBlock',
      text: '23 alerts opened',
      wrap: true,
      size: 'Large',
      weight: 'Bolder',
    });
    expect(body[1]).toEqual({
      type: 'RichTextBlock',
      inlines: [
        { type: 'TextRun', text: 'Project: ', weight: 'Bolder' },
        { type: 'TextRun', text: 'prj_web' }, // no slug known: the id
      ],
    });
    expect(body.find((b) => b.type === 'FactSet').facts).toEqual([
      { title: 'critical', value: '6' },
      { title: 'high', value: '6' },
      { title: 'medium', value: '6' },
      { title: 'low', value: '5' },
    ]);
    const containers = body.filter((b) => b.type === 'Container');
    expect(containers).toHaveLength(CHAT_MAX_ALERTS);
    expect(containers[0].items[0].inlines.map((r: any) => r.text).join('')).toBe(
      'critical · pkg-0 1.0.0 · GHSA-0000-0000-0000',
    );
    expect(containers[0].items[0].inlines[4].selectAction).toEqual({
      type: 'Action.OpenUrl',
      url: 'https://scanner.example.com/app/alerts/alr_0000',
    });
    expect(body[body.length - 1]).toEqual({ type: 'TextBlock', text: 'and 3 more', wrap: true, isSubtle: true });
  });

  test('values only in TextRuns (plain text), never in Markdown texts; no link without PUBLIC_APP_URL', () => {
    for (const e of [
      opened([hostileAlert]),
      { type: 'analysis.expired', alerts: [hostileAlert] } as ChatEvent,
      { type: 'scan.failed', scan: scan({ failureReason: HOSTILE.summary, metadata: { ref: HOSTILE.team } }) },
    ] as ChatEvent[]) {
      const msg = teamsMessage(chatSummary(e, ctx()));
      const card = msg.attachments[0].content;
      expect(card).not.toHaveProperty('actions');
      for (const [path, text] of strings(card.body)) {
        const markdown = /\.text$/.test(path) && !/inlines\[\d+\]\.text$/.test(path);
        const fact = /facts\[\d+\]\.(title|value)$/.test(path);
        if (markdown || fact) {
          // the service's own words and numbers only: nothing planted reaches a Markdown text
          for (const v of [HOSTILE.slug, 'evil', '<', '>', '[', '*', '`'])
            expect({ path, text, has: text.includes(v) }).toEqual({ path, text, has: false });
        }
      }
      const runs = JSON.stringify(card);
      expect(runs).not.toContain('selectAction');
      expect(card.msteams).toEqual({ width: 'Full' }); // no mention entity is ever declared
    }
    // the planted values are shown as typed (whitespace folded), in TextRuns
    const card = teamsMessage(chatSummary(opened([hostileAlert]), ctx())).attachments[0].content;
    const runs = strings(card.body).filter(([p]) => /inlines\[\d+\]\.text$/.test(p));
    expect(runs.map(([, t]) => t)).toContain(HOSTILE.summary);
    expect(runs.map(([, t]) => t)).toContain(HOSTILE.slug);
    expect(runs.some(([, t]) => t.includes(HOSTILE.pkg))).toBe(true);
  });

  test('Markdown escaping of the texts that are Markdown', () => {
    expect(teamsMarkdownEscape('[x](https://e.example) **b** _i_ `c` # > <at>a</at> 1. - + ! | ~ \\')).toBe(
      '\\[x\\]\\(https://e\\.example\\) \\*\\*b\\*\\* \\_i\\_ \\`c\\` \\# \\> \\<at\\>a\\</at\\> 1\\. \\- \\+ \\! \\| \\~ \\\\',
    );
    expect(teamsMarkdownEscape('3 alerts opened')).toBe('3 alerts opened');
  });
});

test('values are clipped and their whitespace folded: one line each', () => {
  expect(clip('a\n\tb\u2028c  d', 100)).toBe('a b c d');
  expect(clip('x'.repeat(10), 5)).toBe('xxxx…');
  expect([...clip('😀'.repeat(10), 5)]).toHaveLength(5); // by characters, never half a surrogate pair
});

test('the masked URL and the link base', () => {
  expect(maskedUrl('https://hooks.slack.com/services/T000/B000/XXXX')).toBe('https://hooks.slack.com/…');
  expect(maskedUrl('https://prod-1.westeurope.logic.azure.com:443/workflows/abc/triggers?sig=s')).toBe(
    'https://prod-1.westeurope.logic.azure.com/…',
  );
  expect(maskedUrl('https://127.0.0.1:8443/x?y')).toBe('https://127.0.0.1:8443/…');
  expect(chatLinkBase('https://scanner.example.com/app/')).toBe('https://scanner.example.com/app');
  expect(chatLinkBase(' https://scanner.example.com ')).toBe('https://scanner.example.com');
  for (const bad of [
    undefined,
    '',
    'http://scanner.example.com/app',
    'https://u:p@scanner.example.com',
    'https://scanner.example.com/?q',
    'https://scanner.example.com/#f',
    'https://scanner.example.com/a|b',
    'https://scanner.example.com/<x>',
    'javascript:alert(1)',
    'not a url',
  ])
    expect({ bad, base: chatLinkBase(bad) }).toEqual({ bad, base: null });
});

test('chat deliveries carry the event and delivery ids, and no signature', () => {
  expect(chatDeliveryHeaders('scan.completed', 'dlv_x')).toEqual({
    'X-Svc-Event': 'scan.completed',
    'X-Svc-Delivery': 'dlv_x',
  });
});
