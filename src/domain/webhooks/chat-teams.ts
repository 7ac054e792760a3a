// A Microsoft Teams message of an event for a Workflows webhook ("Post to a channel when a webhook request is
// received", docs/integrations.md#slack-and-microsoft-teams): `{type: "message", attachments: [{contentType:
// "application/vnd.microsoft.card.adaptive", content: <Adaptive Card 1.4>}]}`. The card: a title, the facts, the
// counts by severity (a FactSet), one block per listed alert (at most 20, then "and N more"), and an Action.OpenUrl to
// the web app when there is one.
//
// Escaping: TextBlock texts and FactSet titles and values are Markdown in Teams (links, emphasis, lists), so they hold
// only the service's own words and numbers, backslash-escaped all the same (teamsMarkdownEscape). Every value from a
// snapshot or an advisory is the text of a TextRun in a RichTextBlock, which Adaptive Cards render as plain text (no
// Markdown: `[click](https://evil.example)` is shown as typed); Teams mentions need an entity the card never declares,
// so `<at>name</at>` is text too. Pure.
import type { Severity } from '../../shared/types';
import type { ChatAlertLine, ChatSummary } from './chat';

/** Backslash before every character Markdown (and Teams' subset of it) gives a meaning to. */
export function teamsMarkdownEscape(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!<>|~]/g, (c) => `\\${c}`);
}

const textBlock = (text: string, extra: Record<string, unknown> = {}) => ({
  type: 'TextBlock',
  text: teamsMarkdownEscape(text),
  wrap: true,
  ...extra,
});

/** A run of plain text (never Markdown): where values go. */
const run = (text: string, extra: Record<string, unknown> = {}) => ({ type: 'TextRun', text, ...extra });

const COLOR: Record<Severity, string> = { critical: 'Attention', high: 'Attention', medium: 'Warning', low: 'Default' };

function alertBlock(a: ChatAlertLine) {
  const head = [
    run(a.severity, { weight: 'Bolder', color: COLOR[a.severity] }),
    ...(a.kev ? [run(' (KEV)', { weight: 'Bolder' })] : []),
    run(' · '),
    run(`${a.package} ${a.versions}`),
    run(' · '),
    run(a.advisory, a.url ? { selectAction: { type: 'Action.OpenUrl', url: a.url } } : {}),
  ];
  const details = [
    a.project !== null ? `project ${a.project}` : null,
    a.fixedVersion !== null ? `fixed in ${a.fixedVersion}` : null,
    a.teams !== null ? `teams ${a.teams}` : null,
  ].filter((x): x is string => x !== null);
  const items: object[] = [{ type: 'RichTextBlock', inlines: head }];
  if (a.summary !== null) items.push({ type: 'RichTextBlock', inlines: [run(a.summary)] });
  if (details.length) items.push({ type: 'RichTextBlock', inlines: [run(details.join(' · '), { isSubtle: true })] });
  return { type: 'Container', separator: true, spacing: 'Small', items };
}

/** The Adaptive Card alone (teamsMessage wraps it). */
export function teamsCard(s: ChatSummary) {
  const body: object[] = [textBlock(s.title, { size: 'Large', weight: 'Bolder' })];
  for (const f of s.facts)
    body.push({ type: 'RichTextBlock', inlines: [run(`${f.label}: `, { weight: 'Bolder' }), run(f.value)] });
  if (s.counts) {
    body.push(textBlock(s.countsOf, { weight: 'Bolder', spacing: 'Medium' }));
    body.push({
      type: 'FactSet',
      facts: (['critical', 'high', 'medium', 'low'] as const).map((sev) => ({
        title: teamsMarkdownEscape(sev),
        value: String(s.counts![sev]),
      })),
    });
  }
  for (const a of s.alerts) body.push(alertBlock(a));
  if (s.more > 0) body.push(textBlock(`and ${s.more} more`, { isSubtle: true }));
  return {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    msteams: { width: 'Full' },
    body,
    ...(s.link ? { actions: [{ type: 'Action.OpenUrl', title: s.link.label, url: s.link.url }] } : {}),
  };
}

/** The message a Workflows webhook posts to its channel. */
export function teamsMessage(s: ChatSummary) {
  return {
    type: 'message',
    attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: teamsCard(s) }],
  };
}

/** The raw body of a Teams delivery. */
export const teamsBody = (s: ChatSummary): string => JSON.stringify(teamsMessage(s));
