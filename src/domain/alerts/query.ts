// The alerts list (`GET /v1/alerts`): filters and orders over an organization's alerts, and the alert history's
// order. Pure: the HTTP layer parses the query into an AlertQuery, storage gives the alerts.
import { normalizedName } from '../../shared/package-names';
import { severityRank, type Severity } from '../../shared/types';
import type { AlertEvent, AlertRecord } from './move';
import { ruleFor, type CompiledRule, type Subject } from '../triage/rules';
import { intelOf, NO_INTEL, type EpssEntry, type Intel, type KevEntry } from '../intel/types';
import {
  ANALYSIS_STATES,
  analysisView,
  isExpired,
  suppressesAlert,
  SUPPRESSING_STATES,
  type Analysis,
  type AnalysisView,
} from '../triage/analysis';

export const ALERT_SORTS = ['severity', 'risk', 'firstSeen', 'lastSeen'] as const;
export type AlertSort = (typeof ALERT_SORTS)[number];
export { ANALYSIS_STATES } from '../triage/analysis';

export interface AlertQuery {
  /** The projects in reach (a restricted key's, or the one asked for); undefined: every project. */
  projectIds?: readonly string[];
  ecosystem?: string;
  status: 'open' | 'fixed' | 'all';
  severity?: Severity;
  severityMode: 'at_least' | 'exact';
  /** An analysis state, or `none` (no analysis). Analyses come with triage: until then every alert has none. */
  analysis?: (typeof ANALYSIS_STATES)[number] | 'none';
  suppressed: 'false' | 'true' | 'all';
  team?: string;
  module?: string;
  /** Exact package name, as the ecosystem compares names. */
  package?: string;
  /** Any id of the alert's alias group (case-insensitive). */
  advisory?: string;
  fixable?: boolean;
  kev?: boolean;
  epssMin?: number;
  /** Prefix of the package name or of any advisory id (case-insensitive). */
  q?: string;
  sort: AlertSort;
}

/**
 * The alert as reads see it at a time: the stored record, its analysis in force (with `expired`), and the suppression
 * that follows (a snapshot suppression wins the source; an analysis in a suppressing state suppresses while it has not
 * expired and covers every installed version). KEV and EPSS: the intelligence feeds' entries of its alias group
 * (src/domain/intel/types.ts intelOf), null when a feed has none (or was never imported).
 */
export interface AlertView extends Omit<AlertRecord, 'suppressionSource'> {
  suppressionSource: 'snapshot' | 'analysis' | 'rule' | null;
  analysis: AnalysisView | null;
  ruleId: string | null;
  kev: KevEntry | null;
  epss: EpssEntry | null;
}

/** The stored record behind a view (its own suppression: the snapshot's). */
export const recordOf = (v: AlertView): AlertRecord => {
  const { analysis: _a, ruleId: _r, kev: _k, epss: _e, ...rest } = v;
  const own = v.suppressionSource === 'snapshot';
  return { ...rest, suppressed: own, suppressionSource: own ? 'snapshot' : null };
};

export function viewOf(
  a: AlertRecord,
  {
    analysis = null,
    rules = [],
    now = new Date(),
    intel = NO_INTEL,
    known,
  }: {
    analysis?: Analysis | null;
    rules?: readonly CompiledRule[];
    now?: Date;
    intel?: Intel;
    /** KEV and EPSS already joined (a view made again from another's record keeps them). */
    known?: Pick<AlertView, 'kev' | 'epss'>;
  } = {},
): AlertView {
  // The snapshot's suppression is the record's own; triage's is read live: the alert's own analysis, else the oldest
  // enforce rule in force that matches it.
  const own = a.suppressed && a.suppressionSource === 'snapshot';
  // Object.assign, not a spread: V8 gives the spread's copies of a record a layout that every later read of a
  // property pays for (iterating 50,000 views took 25-70 ms against 1 ms; the alert list and rule previews do).
  const view: AlertView = Object.assign({}, a, {
    suppressed: own,
    suppressionSource: own ? ('snapshot' as const) : null,
    analysis: null,
    ruleId: null,
    kev: null as KevEntry | null,
    epss: null as EpssEntry | null,
  });
  const joined = known ?? intelOf(a.aliases, intel);
  view.kev = joined.kev;
  view.epss = joined.epss;
  if (analysis) view.analysis = analysisView(analysis, now);
  if (analysis && !isExpired(analysis, now)) {
    if (!own && suppressesAlert(analysis, a.installedVersions, now)) {
      view.suppressed = true;
      view.suppressionSource = 'analysis';
    }
    return view;
  }
  const rule = rules.length ? ruleFor(rules, subjectOf(a), now) : null;
  if (rule) {
    view.ruleId = rule.id;
    if (!own && SUPPRESSING_STATES.includes(rule.analysis.state)) {
      view.suppressed = true;
      view.suppressionSource = 'rule';
    }
  }
  return view;
}

/** An alert's facts as triage rules match them. */
const subjects = new WeakMap<AlertRecord, Subject>();

/**
 * An alert's subject, remembered with the alert (a view lives as long as its index): a rule's preview matches every
 * alert of the organization on each request.
 */
export function rememberedSubjectOf(a: AlertRecord): Subject {
  let s = subjects.get(a);
  if (!s) subjects.set(a, (s = subjectOf(a)));
  return s;
}

export const subjectOf = (a: AlertRecord): Subject => ({
  projectId: a.projectId,
  ecosystem: a.ecosystem,
  package: a.package,
  ids: [a.advisory, ...a.aliases],
  severity: a.severity,
  units: a.units ?? [],
});

// The query's package name as each ecosystem compares names: computed once per query, not once per alert.
const packageKeys = new WeakMap<AlertQuery, Map<string, string>>();
function packageKey(q: AlertQuery, ecosystem: string): string {
  let keys = packageKeys.get(q);
  if (!keys) packageKeys.set(q, (keys = new Map()));
  let k = keys.get(ecosystem);
  if (k === undefined) keys.set(ecosystem, (k = normalizedName(ecosystem, q.package!)));
  return k;
}

/** Whether an alert passes every filter of the query. */
export function matchesQuery(a: AlertView, q: AlertQuery): boolean {
  if (a.status === 'merged') return false;
  if (q.projectIds && !q.projectIds.includes(a.projectId)) return false;
  if (q.ecosystem !== undefined && a.ecosystem !== q.ecosystem) return false;
  if (q.status !== 'all' && a.status !== q.status) return false;
  if (q.severity !== undefined) {
    const r = severityRank(a.severity);
    const want = severityRank(q.severity);
    if (q.severityMode === 'exact' ? r !== want : r > want) return false;
  }
  if (q.analysis !== undefined) {
    // an expired analysis matches no analysis filter
    if (a.analysis?.expired) return false;
    if ((a.analysis?.state ?? 'none') !== q.analysis) return false;
  }
  if (q.suppressed !== 'all' && a.suppressed !== (q.suppressed === 'true')) return false;
  if (q.team !== undefined && !a.teams.includes(q.team)) return false;
  if (q.module !== undefined && !a.modules.includes(q.module)) return false;
  if (q.package !== undefined && a.key !== packageKey(q, a.ecosystem)) return false;
  if (q.advisory !== undefined) {
    const want = q.advisory.toUpperCase();
    if (!a.aliases.some((id) => id.toUpperCase() === want) && a.advisory.toUpperCase() !== want) return false;
  }
  if (q.fixable !== undefined && (a.fixedVersion !== null) !== q.fixable) return false;
  if (q.kev !== undefined && (a.kev !== null) !== q.kev) return false;
  if (q.epssMin !== undefined && !(a.epss !== null && a.epss.score >= q.epssMin)) return false;
  if (q.q !== undefined) {
    const p = q.q.toLowerCase();
    const hit =
      a.package.toLowerCase().startsWith(p) ||
      a.key.startsWith(p) ||
      a.advisory.toLowerCase().startsWith(p) ||
      a.aliases.some((id) => id.toLowerCase().startsWith(p));
    if (!hit) return false;
  }
  return true;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const score = (a: AlertView) => a.cvss?.score ?? -1;
const epssOf = (a: AlertView) => a.epss?.score ?? -1;

/**
 * The order of a sort. severity: most severe first, then the highest CVSS score, then the newest firstSeenAt, then
 * id. risk (the default): KEV first, then severity, then the highest EPSS score (none last), then the highest CVSS
 * score, then the newest firstSeenAt, then id. firstSeen and lastSeen: newest first, then id.
 */
export function alertOrder(sort: AlertSort): (a: AlertView, b: AlertView) => number {
  switch (sort) {
    case 'firstSeen':
      return (a, b) => cmp(b.firstSeenAt, a.firstSeenAt) || cmp(a.id, b.id);
    case 'lastSeen':
      return (a, b) => cmp(b.lastSeenAt, a.lastSeenAt) || cmp(a.id, b.id);
    case 'risk':
      return (a, b) =>
        (a.kev === null ? 1 : 0) - (b.kev === null ? 1 : 0) ||
        severityRank(a.severity) - severityRank(b.severity) ||
        epssOf(b) - epssOf(a) ||
        score(b) - score(a) ||
        cmp(b.firstSeenAt, a.firstSeenAt) ||
        cmp(a.id, b.id);
    default:
      return (a, b) =>
        severityRank(a.severity) - severityRank(b.severity) ||
        score(b) - score(a) ||
        cmp(b.firstSeenAt, a.firstSeenAt) ||
        cmp(a.id, b.id);
  }
}

/** A stable key of a query (the cursor binds it: a cursor of another query is refused). */
export function queryKey(q: AlertQuery): string {
  return JSON.stringify([
    q.projectIds ?? null,
    q.ecosystem ?? null,
    q.status,
    q.severity ?? null,
    q.severityMode,
    q.analysis ?? null,
    q.suppressed,
    q.team ?? null,
    q.module ?? null,
    q.package ?? null,
    q.advisory ?? null,
    q.fixable ?? null,
    q.kev ?? null,
    q.epssMin ?? null,
    q.q ?? null,
    q.sort,
  ]);
}

type Dated = AlertEvent & { seq: number };
type Opened = Pick<AlertRecord, 'id' | 'firstSeenAt' | 'firstSeenScanId' | 'openedGeneration'>;

/** The opening of an alert: derived from the alert itself (first seen, by which scan and generation), never stored. */
export const openedEvent = (alert: Opened): Dated => ({
  alertId: alert.id,
  type: 'opened',
  at: alert.firstSeenAt,
  scanId: alert.firstSeenScanId,
  generation: alert.openedGeneration,
  details: {},
  seq: -1,
});

/**
 * Whether the alerts' histories are whole in their records (none has had more events than it keeps inline): then a
 * history read needs nothing else.
 */
export const historyInline = (alerts: ReadonlyArray<Pick<AlertRecord, 'history' | 'historyCount'>>): boolean =>
  alerts.every((a) => (a.historyCount ?? a.history?.length ?? 0) === (a.history?.length ?? 0));

/**
 * An alert's history, newest first: the events of the alert and of the alerts merged into it (moves of one project
 * and ecosystem are numbered in one sequence, so their order is that of seq; an analysis event carries the seq of the
 * move before it and its own later time; a summary of folded events comes before the events it folded), then its
 * opening.
 */
export function historyOf(alert: Opened, events: readonly Dated[]): Dated[] {
  return [...events]
    .sort((a, b) => b.seq - a.seq || cmp(b.at, a.at) || cmp(a.alertId, b.alertId) || cmp(a.type, b.type))
    .concat(openedEvent(alert));
}

/** The events kept in the records of an alert and of the alerts merged into it. */
export const inlineEvents = (alerts: ReadonlyArray<Pick<AlertRecord, 'history'>>): Dated[] =>
  alerts.flatMap((a) => a.history ?? []);

/** The id of a stored history event (src/storage/alerts.ts), and of an alert's summary of folded events. */
export const eventId = (alertId: string, seq: number, type: string) => `${alertId}:${seq}:${type}`;
export const summaryId = (alertId: string) => `${alertId}:summary`;

/** What a `summarised` history event holds: the events folded into it, by type, and the time they span. */
export interface EventSummary {
  events: number;
  byType: Record<string, number>;
  from: string;
  to: string;
}

/** Folds events (oldest first) into a summary, on top of an earlier one. */
export function summariseEvents(
  prior: EventSummary | null,
  events: ReadonlyArray<{ type: string; at: string }>,
): EventSummary {
  const out: EventSummary = prior
    ? { ...prior, byType: { ...prior.byType } }
    : { events: 0, byType: {}, from: events[0]?.at ?? '', to: events[0]?.at ?? '' };
  for (const e of events) {
    out.events++;
    out.byType[e.type] = (out.byType[e.type] ?? 0) + 1;
    if (e.at < out.from || !out.from) out.from = e.at;
    if (e.at > out.to) out.to = e.at;
  }
  return out;
}
