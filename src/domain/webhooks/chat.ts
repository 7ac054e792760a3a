// Chat formats of webhooks (docs/integrations.md#slack-and-microsoft-teams): what a Slack or Microsoft Teams message
// says about an event, before either's markup. chat-slack.ts and chat-teams.ts render a ChatSummary, each escaping
// every value as its markup requires. Values (project slugs, package names, versions, advisory ids and summaries,
// team labels, branches) come from snapshots and advisories: they are clipped here, never trusted. The only links are
// to the service's own web app (PUBLIC_APP_URL, https), built from ids the service made. Pure.
import { SEVERITIES, severityRank, type Severity, type SeverityCounts } from '../../shared/types';

export const WEBHOOK_FORMATS = ['json', 'slack', 'teams'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];
export type ChatFormat = Exclude<WebhookFormat, 'json'>;
export const isChatFormat = (f: string | null | undefined): f is ChatFormat => f === 'slack' || f === 'teams';

/** Alerts listed in one chat message; the rest are counted ("and N more"). */
export const CHAT_MAX_ALERTS = 20;

/**
 * How a chat webhook's URL is shown (lists, the create answer, the audit trail): the URL is a credential (whoever
 * holds it can post to the channel), so only its origin is shown: `https://hooks.slack.com/…`.
 */
export function maskedUrl(href: string): string {
  return `https://${new URL(href).host}/…`;
}

/**
 * The base of links in chat messages: PUBLIC_APP_URL when it is set and an https URL (without credentials, query or
 * fragment, and without the characters Slack's link syntax reserves); otherwise null, and messages carry no link.
 */
export function chatLinkBase(raw: string | null | undefined): string | null {
  const text = raw?.trim();
  if (!text || /[\s<>|"`]/.test(text)) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.search || url.hash) return null;
  if (text.includes('?') || text.includes('#')) return null;
  return url.href.replace(/\/+$/, '');
}

/** An id the service made (scn_..., alr_..., prj_...): the only thing a link path is built from. */
const SERVICE_ID = /^[a-z]{3}_[0-9a-z]{1,64}$/;

function link(base: string | null, path: string, id: string): string | null {
  return base && SERVICE_ID.test(id) ? `${base}/${path}/${id}` : null;
}

/** The fields of an Alert resource (GET /v1/alerts/{id}) a chat message shows. */
export interface ChatAlert {
  id: string;
  project: string;
  package: string;
  advisory: string;
  severity: Severity;
  summary: string | null;
  installedVersions: readonly string[];
  fixedVersion: string | null;
  teams: readonly string[];
  kev?: unknown;
}

/** The fields of a Scan resource (GET /v1/scans/{id}) a chat message shows. */
export interface ChatScan {
  id: string;
  project: string;
  target: string;
  ecosystem: string;
  status: string;
  findings: SeverityCounts | null;
  failureReason: string | null;
  metadata: { ref?: string; commit?: string } | null;
}

export type ChatEvent =
  | { type: 'scan.completed' | 'scan.failed'; scan: ChatScan }
  | {
      type: 'alert.opened' | 'alert.fixed' | 'alert.reopened';
      project: string;
      ecosystem: string;
      trigger: 'scan' | 'rematch';
      /** The alerts the webhook's filters keep, most severe first (every one: the message lists CHAT_MAX_ALERTS). */
      alerts: readonly ChatAlert[];
    }
  | { type: 'analysis.expired'; alerts: readonly ChatAlert[] };

export interface ChatContext {
  /** Project id → slug (a project missing here is shown by its id). */
  projects: ReadonlyMap<string, string>;
  /** chatLinkBase(PUBLIC_APP_URL): null, no links. */
  appUrl: string | null;
}

/** One alert line. Every string is a raw value (clipped, whitespace folded): the renderer escapes it. */
export interface ChatAlertLine {
  severity: Severity;
  package: string;
  versions: string;
  advisory: string;
  summary: string | null;
  fixedVersion: string | null;
  teams: string | null;
  /** Set on messages about alerts of several projects (analysis.expired). */
  project: string | null;
  kev: boolean;
  url: string | null;
}

/**
 * What a chat message says. `title` and fact labels are the service's own words; fact values, `fallback`'s values
 * and the alert lines hold raw values that the renderers escape.
 */
export interface ChatSummary {
  type: string;
  title: string;
  facts: Array<{ label: string; value: string }>;
  /** By severity: a scan's unsuppressed findings, or the alerts of the event (all of them, not only those listed). */
  counts: SeverityCounts | null;
  /** The label of the counts: "Findings" or "Alerts". */
  countsOf: string;
  alerts: ChatAlertLine[];
  /** How many alerts were not listed ("and N more"). */
  more: number;
  /** A link to the web app (null when PUBLIC_APP_URL is not an https URL, or nothing fits). */
  link: { label: string; url: string } | null;
  /** One line for notifications and clients that show no blocks or cards; holds raw values. */
  fallback: string;
}

/** A value for one line: control characters and runs of whitespace folded to one space, at most `max` characters. */
export function clip(value: string, max: number): string {
  const flat = String(value)
    .replace(/[\s\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .trim();
  const chars = [...flat];
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`;
}

/**
 * Lengths of the values of an alert line: with every character escaped at its longest (Slack's `&amp;`, five for one),
 * a line stays within Slack's 3,000 characters of a section.
 */
export const CLIP = {
  project: 100,
  package: 120,
  versions: 80,
  advisory: 60,
  summary: 160,
  fixedVersion: 40,
  teams: 80,
  ref: 100,
} as const;

export function severityCounts(alerts: readonly { severity: Severity }[]): SeverityCounts {
  const counts: SeverityCounts = { critical: 0, high: 0, medium: 0, low: 0 };
  for (const a of alerts) if (a.severity in counts) counts[a.severity]++;
  return counts;
}

/** "1 critical, 2 high, 0 medium, 0 low". */
export const countsText = (c: SeverityCounts): string => SEVERITIES.map((s) => `${c[s]} ${s}`).join(', ');

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function alertLine(a: ChatAlert, ctx: ChatContext, withProject: boolean): ChatAlertLine {
  return {
    severity: a.severity,
    package: clip(a.package, CLIP.package),
    versions: clip(a.installedVersions.join(', '), CLIP.versions),
    advisory: clip(a.advisory, CLIP.advisory),
    summary: a.summary ? clip(a.summary, CLIP.summary) || null : null,
    fixedVersion: a.fixedVersion ? clip(a.fixedVersion, CLIP.fixedVersion) : null,
    teams: a.teams.length ? clip(a.teams.join(', '), CLIP.teams) : null,
    project: withProject ? clip(ctx.projects.get(a.project) ?? a.project, CLIP.project) : null,
    kev: a.kev !== undefined && a.kev !== null,
    url: link(ctx.appUrl, 'alerts', a.id),
  };
}

/** The alerts listed (most severe first, then by id, at most CHAT_MAX_ALERTS) and how many more there were. */
export function listed<A extends { id: string; severity: Severity }>(
  alerts: readonly A[],
): { shown: A[]; more: number } {
  const sorted = [...alerts].sort(
    (a, b) => severityRank(a.severity) - severityRank(b.severity) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const shown = sorted.slice(0, CHAT_MAX_ALERTS);
  return { shown, more: sorted.length - shown.length };
}

const ALERT_VERB = { 'alert.opened': 'opened', 'alert.fixed': 'fixed', 'alert.reopened': 'reopened' } as const;

/** What a chat message about the event says (chat-slack.ts and chat-teams.ts render it). */
export function chatSummary(e: ChatEvent, ctx: ChatContext): ChatSummary {
  const projectName = (id: string, fallback?: string) => clip(ctx.projects.get(id) ?? fallback ?? id, CLIP.project);
  if ('scan' in e) {
    const s = e.scan;
    const project = projectName(s.project, s.target);
    const facts = [
      { label: 'Project', value: project },
      { label: 'Ecosystem', value: clip(s.ecosystem, CLIP.project) },
    ];
    if (s.metadata?.ref) facts.push({ label: 'Branch', value: clip(s.metadata.ref, CLIP.ref) });
    if (s.metadata?.commit) facts.push({ label: 'Commit', value: clip(s.metadata.commit, 40) });
    const completed = e.type === 'scan.completed';
    if (!completed) facts.push({ label: 'Reason', value: clip(s.failureReason ?? 'unknown', CLIP.ref) });
    const counts = completed ? s.findings : null;
    const title = completed ? 'Scan completed' : 'Scan failed';
    const url = link(ctx.appUrl, 'scans', s.id);
    return {
      type: e.type,
      title,
      facts,
      counts,
      countsOf: 'Findings',
      alerts: [],
      more: 0,
      link: url ? { label: 'Open the scan', url } : null,
      fallback: completed
        ? `${title}: ${project} (${s.ecosystem})${counts ? `: ${countsText(counts)}` : ''}`
        : `${title}: ${project} (${s.ecosystem}): ${s.failureReason ?? 'unknown'}`,
    };
  }
  const { shown, more } = listed(e.alerts);
  const counts = severityCounts(e.alerts);
  const n = e.alerts.length;
  if (e.type === 'analysis.expired') {
    const title = `Analysis expired on ${plural(n, 'alert', 'alerts')}`;
    return {
      type: e.type,
      title,
      facts: [],
      counts,
      countsOf: 'Alerts',
      alerts: shown.map((a) => alertLine(a, ctx, true)),
      more,
      link: null,
      fallback: `${title}: ${countsText(counts)}`,
    };
  }
  const title = `${plural(n, 'alert', 'alerts')} ${ALERT_VERB[e.type]}`;
  const project = projectName(e.project);
  const facts = [
    { label: 'Project', value: project },
    { label: 'Ecosystem', value: clip(e.ecosystem, CLIP.project) },
  ];
  if (e.trigger === 'rematch') facts.push({ label: 'Trigger', value: 'newly imported advisories' });
  const base = ctx.appUrl && SERVICE_ID.test(e.project) ? `${ctx.appUrl}/projects/${e.project}/alerts` : null;
  return {
    type: e.type,
    title,
    facts,
    counts,
    countsOf: 'Alerts',
    alerts: shown.map((a) => alertLine(a, ctx, false)),
    more,
    link: base ? { label: "Open the project's alerts", url: base } : null,
    fallback: `${title} in ${project} (${e.ecosystem}): ${countsText(counts)}`,
  };
}
