// A project's alerts as the app shows them: the Alerts view's filters as they live in the URL (a reload, browser Back
// or a shared link shows the same list; defaults are left out), the API query they make, the list's count in words,
// an alert's history events in words, and what each scan of the project opened. Pure: tested in
// test/browser/alerts-logic.test.ts (the analysis filter and events in test/browser/alert-triage-logic.test.ts).
import { ANALYSIS_STATES, deciderText, STATE_LABELS } from './triage';
import type { Alert, AlertEvent, AlertEventType, Analysis, AnalysisState, Severity } from './types';
import { SEVERITIES } from './types';

export const ALERT_STATUSES = ['open', 'fixed', 'all'] as const;
/**
 * The list's orders, the API's default first: `risk` (KEV first, then severity, EPSS, CVSS: docs/intelligence.md),
 * which orders as `severity` while no intelligence feed is imported.
 */
export const ALERT_SORTS = ['risk', 'severity', 'firstSeen', 'lastSeen'] as const;
/** The lowest EPSS scores the filter offers (a URL may hold any other score from 0 to 1). */
export const EPSS_THRESHOLDS = ['0.01', '0.05', '0.1', '0.5', '0.9'] as const;

export interface AlertFilters {
  status: (typeof ALERT_STATUSES)[number];
  severity?: Severity;
  severityMode: 'at_least' | 'exact';
  team?: string;
  module?: string;
  /** Prefix of the package name or of any advisory id (the API's `q`). */
  q?: string;
  suppressed: 'false' | 'true' | 'all';
  /** An analysis state, or `none` (no analysis): the API's `analysis`. */
  analysis?: AnalysisState | 'none';
  /** Only alerts in CISA's KEV catalog (`true`), or only those not in it (`false`): the API's `kev`. */
  kev?: 'true' | 'false';
  /** The lowest EPSS score, 0 to 1, as the URL writes it (the API's `epssMin`). */
  epssMin?: string;
  sort: (typeof ALERT_SORTS)[number];
}

/** An EPSS threshold from the URL: a plain decimal from 0 to 1 (as the API reads it), written shortest ("0.10" is
 * "0.1"); 0 and anything else are no filter. */
function epssThreshold(v: string | undefined): string | undefined {
  const t = v?.trim();
  if (!t || !/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(t)) return undefined;
  return Number(t) > 0 ? String(Number(t)) : undefined;
}

/** The analysis filter's values: every state, and none. */
export const ANALYSIS_FILTERS = [...ANALYSIS_STATES, 'none'] as const;

const pick = <T extends string>(v: string | undefined, allowed: readonly T[], fallback: T): T =>
  allowed.includes(v as T) ? (v as T) : fallback;

export function alertFiltersFromQuery(q: Record<string, string | undefined>): AlertFilters {
  return {
    status: pick(q.status, ALERT_STATUSES, 'open'),
    severity: SEVERITIES.includes(q.severity as Severity) ? (q.severity as Severity) : undefined,
    severityMode: pick(q.severityMode, ['at_least', 'exact'] as const, 'at_least'),
    team: q.team || undefined,
    module: q.module || undefined,
    // an over-long search is the server's to refuse, in words
    q: q.q?.trim() || undefined,
    suppressed: pick(q.suppressed, ['false', 'true', 'all'] as const, 'false'),
    analysis: (ANALYSIS_FILTERS as readonly string[]).includes(q.analysis ?? '')
      ? (q.analysis as AlertFilters['analysis'])
      : undefined,
    kev: q.kev === 'true' || q.kev === 'false' ? q.kev : undefined,
    epssMin: epssThreshold(q.epssMin),
    sort: pick(q.sort, ALERT_SORTS, 'risk'),
  };
}

/** The URL query of a filter set: only what differs from the defaults. */
export function alertFiltersToQuery(f: AlertFilters): Record<string, string | undefined> {
  return {
    status: f.status === 'open' ? undefined : f.status,
    severity: f.severity,
    severityMode: f.severity && f.severityMode === 'exact' ? 'exact' : undefined,
    team: f.team,
    module: f.module,
    q: f.q,
    suppressed: f.suppressed === 'false' ? undefined : f.suppressed,
    analysis: f.analysis,
    kev: f.kev,
    epssMin: f.epssMin,
    sort: f.sort === 'risk' ? undefined : f.sort,
  };
}

/** The query of GET /v1/alerts for a project's list under these filters (status and suppression sent explicitly). */
export function alertApiQuery(project: string, f: AlertFilters): Record<string, string | undefined> {
  return {
    project,
    status: f.status,
    severity: f.severity,
    severityMode: f.severity ? f.severityMode : undefined,
    team: f.team,
    module: f.module,
    q: f.q,
    suppressed: f.suppressed,
    analysis: f.analysis,
    kev: f.kev,
    epssMin: f.epssMin,
    sort: f.sort,
  };
}

/** Whether the filters narrow the list beyond its default (open, not suppressed): an empty list then says so. */
export function alertsNarrowed(f: AlertFilters): boolean {
  return !!(
    f.severity ||
    f.team ||
    f.module ||
    f.q ||
    f.analysis ||
    f.kev ||
    f.epssMin ||
    f.status !== 'open' ||
    f.suppressed !== 'false'
  );
}

/** "3 open alerts", "1 fixed alert loaded so far", "4 suppressed alerts": what the list counts, in words. */
export function alertsCountText(n: number, f: AlertFilters, complete: boolean): string {
  const kind = [f.status === 'all' ? '' : f.status, f.suppressed === 'true' ? 'suppressed' : '']
    .filter(Boolean)
    .join(' ');
  return `${n} ${kind ? `${kind} ` : ''}${n === 1 ? 'alert' : 'alerts'}${complete ? '' : ' loaded so far'}`;
}

/** The teams and the modules the project's alerts name (the filters' choices), sorted. */
export function alertScopes(alerts: readonly Alert[]): { teams: string[]; modules: string[] } {
  const teams = new Set<string>();
  const modules = new Set<string>();
  for (const a of alerts) {
    a.teams.forEach((t) => teams.add(t));
    a.modules.forEach((m) => modules.add(m));
  }
  const sorted = (s: Set<string>) => [...s].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  return { teams: sorted(teams), modules: sorted(modules) };
}

/** Every event type of the API, in words (a type the document gains fails the type-check here). */
export const EVENT_WORDS = {
  opened: 'Opened',
  versions_changed: 'Installed versions changed',
  fixed: 'Fixed',
  reopened: 'Reopened',
  analysis_changed: 'Analysis changed',
  analysis_expired: 'Analysis expired',
  merged: 'Merged',
  summarised: 'Earlier events, summarised',
} as const satisfies Record<AlertEventType, string>;

/** A time as the app writes it (as <When>): `2024-01-01 00:00 UTC`. */
export function utcText(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
}

const versions = (v: unknown): string =>
  Array.isArray(v) && v.length ? v.map(String).join(', ') : 'no version recorded';

/** An analysis of a history event (its `before` or `after`) by its state, in words; none without one. */
const analysisWords = (a: unknown): string => {
  const state = (a as Partial<Analysis> | null)?.state;
  return state && state in STATE_LABELS ? STATE_LABELS[state].toLowerCase() : 'none';
};

/**
 * An event in words: its title, and what changed (the versions from and to, those a fix left behind, when it had been
 * fixed, the alert it merged into). The scan, the time and the advisory generation are shown beside it by the view.
 * `alertId` is the alert shown: an event of an alert merged into it says whose it was.
 */
export function eventWords(e: AlertEvent, alertId: string): { title: string; detail: string } {
  const d = (e.details ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  switch (e.type) {
    case 'opened':
      parts.push('first seen');
      break;
    case 'versions_changed':
      parts.push(`installed versions ${versions(d.from)} → ${versions(d.to)}`);
      break;
    case 'fixed':
      parts.push(`no longer found; it had ${versions(d.installedVersions)}`);
      break;
    case 'reopened':
      parts.push(
        `found again in ${versions(d.installedVersions)}${typeof d.fixedAt === 'string' ? `; fixed since ${utcText(d.fixedAt)}` : ''}`,
      );
      break;
    case 'merged':
      // on the survivor's page the merged alert is another one: the event is about that one joining this one
      if (e.alertId !== alertId)
        return { title: EVENT_WORDS.merged, detail: `alert ${e.alertId} merged into this one` };
      parts.push(typeof d.mergedInto === 'string' ? `merged into alert ${d.mergedInto}` : 'merged into another alert');
      break;
    case 'analysis_changed': {
      // a triage rule's: {source: rule, ruleId, suppressed, before}
      if (d.source === 'rule') {
        parts.push(
          d.suppressed && typeof d.ruleId === 'string'
            ? `suppressed by triage rule ${d.ruleId}`
            : 'no longer suppressed by a triage rule',
        );
        break;
      }
      // a decision's: {before, after} (the analyses, null for none), the actor, a bulk decision's id; or the
      // analysis cleared when its alert reopened (reason reopened)
      const actor = d.actor as Analysis['updatedBy'] | undefined;
      parts.push(`${analysisWords(d.before)} → ${analysisWords(d.after)}`);
      if (actor?.id) parts.push(`by ${deciderText(actor)}`);
      if (typeof d.bulkId === 'string') parts.push(`in bulk decision ${d.bulkId}`);
      if (d.reason === 'reopened') parts.push('(cleared when the alert reopened)');
      break;
    }
    case 'analysis_expired':
      break;
    case 'summarised': {
      // the oldest events of a long history, folded into one (the service keeps 1,000 per alert)
      const byType = Object.entries((d.byType ?? {}) as Record<string, number>)
        .map(([t, n]) => `${n} ${(EVENT_WORDS[t as AlertEventType] ?? t).toLowerCase()}`)
        .join(', ');
      const span =
        typeof d.from === 'string' && typeof d.to === 'string' ? ` from ${utcText(d.from)} to ${utcText(d.to)}` : '';
      parts.push(`${Number(d.events ?? 0)} earlier events${span}${byType ? `: ${byType}` : ''}`);
      break;
    }
  }
  if (e.alertId !== alertId) parts.push(`(of alert ${e.alertId}, since merged into this one)`);
  return { title: EVENT_WORDS[e.type] ?? e.type, detail: parts.join(' ') };
}

/** A project's open, fixed and suppressed alerts (open and fixed ones without the suppressed, as the list counts). */
export function alertSummary(alerts: readonly Alert[]): { open: number; fixed: number; suppressed: number } {
  const out = { open: 0, fixed: 0, suppressed: 0 };
  for (const a of alerts) {
    if (a.suppressed) out.suppressed++;
    else if (a.status === 'open') out.open++;
    else if (a.status === 'fixed') out.fixed++;
  }
  return out;
}

/** What a scan opened: by the scan itself, and later by a re-match of its snapshot against newer advisories. */
export interface ScanOpened {
  byScan: number;
  byRematch: number;
  /** Alerts this scan fixed (their latest fix: an alert fixed, reopened and fixed again counts at its last fix). */
  fixed: number;
}

/**
 * What each scan opened, from the project's alerts (every status, suppressed ones too), at the cost of the one list
 * read: an alert was opened by the scan it was first seen in (`firstSeenScanId`). Its `firstSeenAt` is that scan's
 * startedAt when the scan itself opened it, and the re-match's time when a newer advisory generation matched against
 * the scan's snapshot opened it later: those are counted apart. Reopenings keep the first sight, so they count where
 * the alert was first opened. A fixed alert names the scan that fixed it (`fixedScanId`): counted there.
 */
export function openedByScan(
  alerts: readonly Pick<Alert, 'firstSeenScanId' | 'firstSeenAt' | 'status' | 'fixedScanId'>[],
  scans: readonly { id: string; startedAt: string }[],
): Map<string, ScanOpened> {
  const started = new Map(scans.map((s) => [s.id, Date.parse(s.startedAt)]));
  const out = new Map<string, ScanOpened>();
  const of = (id: string) => {
    let c = out.get(id);
    if (!c) out.set(id, (c = { byScan: 0, byRematch: 0, fixed: 0 }));
    return c;
  };
  for (const a of alerts) {
    const at = started.get(a.firstSeenScanId);
    if (at !== undefined) {
      if (Date.parse(a.firstSeenAt) === at) of(a.firstSeenScanId).byScan++;
      else of(a.firstSeenScanId).byRematch++;
    }
    if (a.status === 'fixed' && a.fixedScanId && started.has(a.fixedScanId)) of(a.fixedScanId).fixed++;
  }
  return out;
}

/** "opened 2 alerts", "opened none", and what re-matches of its snapshot opened later. */
export function openedText(c: ScanOpened | undefined): string {
  const n = c?.byScan ?? 0;
  const head = n ? `opened ${n} ${n === 1 ? 'alert' : 'alerts'}` : 'opened no alert';
  const later = c?.byRematch ?? 0;
  const fixed = c?.fixed ?? 0;
  const fixes = fixed ? `, fixed ${fixed} ${fixed === 1 ? 'alert' : 'alerts'}` : '';
  return later
    ? `${head}${fixes}; ${later} more later, by newer advisories matched against its snapshot`
    : `${head}${fixes}`;
}
