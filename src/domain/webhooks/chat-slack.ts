// A Slack incoming-webhook message of an event (docs/integrations.md#slack-and-microsoft-teams): `text` (the
// notification and fallback line) and Block Kit `blocks`: a header (the service's own words), a section of facts and
// counts, one section per listed alert (at most 20, then "and N more"), and the link to the web app when there is one.
//
// Escaping, as Slack requires: `&`, `<` and `>` become `&amp;`, `&lt;` and `&gt;` in every text, so a value can never
// form `<!channel>`, `<@U123>`, `<#C123>` or `<https://evil|click>`. mrkdwn texts are `verbatim`: Slack does not turn
// bare URLs, channel names or `@here` into links or mentions. Formatting characters (`*`, `_`, `~`, `` ` ``) in a
// value may still style it: Slack has no escape for them, and they cannot make a link or a mention. Pure.
import type { ChatAlertLine, ChatSummary } from './chat';

export function slackEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Slack's limit of a header's text. */
const HEADER_MAX = 150;

const mrkdwn = (text: string) => ({ type: 'mrkdwn', text, verbatim: true });

/** A link the service built (chat.ts: PUBLIC_APP_URL and a service id: no `|`, `<` or `>`), its label escaped. */
const slackLink = (url: string, label: string) => `<${url}|${slackEscape(label)}>`;

function alertText(a: ChatAlertLine): string {
  const e = slackEscape;
  const advisory = a.url ? slackLink(a.url, a.advisory) : e(a.advisory);
  const head = `*${a.severity}*${a.kev ? ' (KEV)' : ''} · ${e(a.package)} ${e(a.versions)} · ${advisory}`;
  const details = [
    a.project !== null ? `project ${e(a.project)}` : null,
    a.fixedVersion !== null ? `fixed in ${e(a.fixedVersion)}` : null,
    a.teams !== null ? `teams ${e(a.teams)}` : null,
  ].filter((x): x is string => x !== null);
  return [head, a.summary !== null ? e(a.summary) : null, details.length ? details.join(' · ') : null]
    .filter((x): x is string => x !== null)
    .join('\n');
}

/** The message as an object (slackBody serializes it). */
export function slackMessage(s: ChatSummary) {
  const e = slackEscape;
  const lines = s.facts.map((f) => `*${e(f.label)}:* ${e(f.value)}`);
  if (s.counts)
    lines.push(
      `*${e(s.countsOf)}:* ${s.counts.critical} critical · ${s.counts.high} high · ${s.counts.medium} medium · ${s.counts.low} low`,
    );
  const blocks: object[] = [{ type: 'header', text: { type: 'plain_text', text: e(s.title.slice(0, HEADER_MAX)) } }];
  if (lines.length) blocks.push({ type: 'section', text: mrkdwn(lines.join('\n')) });
  for (const a of s.alerts) blocks.push({ type: 'section', text: mrkdwn(alertText(a)) });
  if (s.more > 0) blocks.push({ type: 'context', elements: [mrkdwn(`and ${s.more} more`)] });
  if (s.link) blocks.push({ type: 'section', text: mrkdwn(slackLink(s.link.url, s.link.label)) });
  return { text: e(s.fallback), blocks, unfurl_links: false, unfurl_media: false };
}

/** The raw body of a Slack delivery. */
export const slackBody = (s: ChatSummary): string => JSON.stringify(slackMessage(s));
