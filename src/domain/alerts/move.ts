// Moving a project's alerts of one ecosystem with a completed tracked scan (or a re-match of its snapshot): which
// alerts open, stay open, change versions, are fixed, reopen or merge, and the history events that say so. Pure and
// deterministic: the same state and findings always give the same next state and events, so a retried or replayed
// move, or a second worker racing the first, computes exactly what the first one did. The caller stores the result
// (src/storage/alerts.ts) and serialises the moves of one (project, ecosystem).
import { createHash } from 'node:crypto';
import { normalizedName } from '../../shared/package-names';
import { severityRank, type Cvss, type Finding, type Severity } from '../../shared/types';
import { resolveAlerts, type AlertIdentity } from './identity';
import { unitsOf, type Unit } from '../triage/rules';

export type AlertStatus = 'open' | 'fixed' | 'merged';
export type AlertEventType =
  | 'opened'
  | 'fixed'
  | 'reopened'
  | 'versions_changed'
  | 'analysis_changed'
  | 'analysis_expired'
  | 'merged'
  /** Older events folded into one, past the history's cap (details: EventSummary, src/domain/alerts/query.ts). */
  | 'summarised';

/** One alert as stored in its (project, ecosystem) state. */
export interface AlertRecord {
  id: string;
  projectId: string;
  ecosystem: string;
  /** The package name as the latest scan gave it; `key` is the name as the ecosystem compares names. */
  package: string;
  key: string;
  /** The display id (as findings' `cve`) and every id of its alias group. */
  advisory: string;
  aliases: string[];
  severity: Severity;
  cvss: Cvss | null;
  summary: string;
  publishedAt: string | null;
  /** Every installed version of the package the advisory affects, in the latest scan that had the alert. */
  installedVersions: string[];
  fixedVersion: string | null;
  status: AlertStatus;
  firstSeenAt: string;
  firstSeenScanId: string;
  lastSeenAt: string;
  lastSeenScanId: string;
  fixedAt: string | null;
  /** The tracked scan whose move (or the re-match of whose snapshot) fixed the alert; null while open. */
  fixedScanId?: string | null;
  /** The advisory generation of the scan or re-match that opened the alert. */
  openedGeneration: string | null;
  /** Introducing modules (v2) in the latest scan that had the alert, and their teams. */
  modules: string[];
  teams: string[];
  /**
   * Every finding of the alert suppressed in the latest scan that had it, and by what as that scan was processed (the
   * snapshot's suppressions win; triage's are read live: src/domain/alerts/query.ts viewOf).
   */
  suppressed: boolean;
  suppressionSource: 'snapshot' | 'analysis' | 'rule' | null;
  /**
   * The attributions of its findings in the introduced view (origin module, team, context, relationship), in the latest
   * scan that had it; [] for v1 and paged scans; absent on alerts stored before triage rules.
   */
  units?: Unit[];
  /** Set when merged into another alert. */
  mergedInto?: string;
  /**
   * The alert's newest history events (at most INLINE_HISTORY, oldest first), kept in the state so that a history read
   * needs no other read; every event is also stored on its own (src/storage/alerts.ts), where a longer history is read.
   */
  history?: Array<AlertEvent & { seq: number }>;
  /** How many events the alert has had in all (beyond `history` when more than INLINE_HISTORY). */
  historyCount?: number;
}

/** History events kept in each alert record (the store keeps up to 1,000 per alert, older ones summarised). */
export const INLINE_HISTORY = 100;

/** One history event, as stored and served (`opened` is derived from the alert itself, never stored). */
export interface AlertEvent {
  alertId: string;
  type: AlertEventType;
  at: string;
  scanId?: string;
  generation?: string | null;
  details: Record<string, unknown>;
}

/** What moves the alerts: a completed tracked scan, or the re-match of its snapshot against a newer generation. */
export interface AlertMoveSource {
  projectId: string;
  ecosystem: string;
  scanId: string;
  /** The tracked scan's startedAt (ISO): its place in the order of tracked scans. */
  startedAt: string;
  /** When this move happened (the scan's finishedAt, or the re-match's time). */
  at: string;
  generation: string | null;
  /** Set on a re-match: the move keeps the tracked scan but comes from a new advisory generation. */
  rematch?: boolean;
  /** The sequence number the move's state is stored under: its events are referenced from the alerts by it. */
  seq?: number;
}

/** A finding as a move reads it, with the teams of its modules (v2). */
export type MoveFinding = Pick<
  Finding,
  | 'id'
  | 'package'
  | 'installedVersion'
  | 'fixedVersion'
  | 'severity'
  | 'cve'
  | 'aliases'
  | 'summary'
  | 'publishedAt'
  | 'suppressed'
  | 'suppressionSource'
  | 'attributions'
  | 'cvss'
>;

export interface AlertMove {
  alerts: AlertRecord[];
  events: AlertEvent[];
  /** Alert ids by the change that the move's webhook events name (none on a first tracked scan). */
  opened: string[];
  fixed: string[];
  reopened: string[];
  /** Each finding's alert id. */
  alertOf: Map<string, string>;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A new alert's id: derived from what it is, so that a retry names it the same; `taken` ids are avoided. */
export function newAlertId(
  projectId: string,
  ecosystem: string,
  pkg: string,
  advisory: string,
  taken: ReadonlySet<string>,
): string {
  for (let n = 0; ; n++) {
    const h = createHash('sha256').update(`${projectId}\0${ecosystem}\0${pkg}\0${advisory}\0${n}`).digest('hex');
    const id = `alr_${h.slice(0, 24)}`;
    if (!taken.has(id)) return id;
  }
}

export const identityOf = (a: AlertRecord): AlertIdentity => ({
  id: a.id,
  package: a.key,
  advisory: a.advisory,
  ids: a.aliases,
  firstSeenAt: a.firstSeenAt,
});

/** Resolves findings to the alerts of a state without moving it (a branch scan: no alert opens, null for new). */
export function alertIdsOf(
  ecosystem: string,
  alerts: readonly AlertRecord[],
  findings: ReadonlyArray<Pick<Finding, 'id' | 'package' | 'cve' | 'aliases'>>,
  open: { projectId: string; at: string } | null,
): Map<string, { alertId: string | null; firstSeenAt: string | null }> {
  const live = alerts.filter((a) => a.status !== 'merged');
  const taken = new Set(alerts.map((a) => a.id));
  const fresh = new Set<string>();
  const r = resolveAlerts(
    ecosystem,
    live.map(identityOf),
    findings.map((f) => ({ key: f.id, package: f.package, advisory: f.cve, ids: f.aliases ?? [f.cve] })),
    (pkg, advisory) => {
      const id = newAlertId(open?.projectId ?? '', ecosystem, pkg, advisory, taken);
      taken.add(id);
      fresh.add(id);
      return id;
    },
    open?.at ?? '',
  );
  const byId = new Map(live.map((a) => [a.id, a]));
  const out = new Map<string, { alertId: string | null; firstSeenAt: string | null }>();
  for (const [key, id] of r.alertOf) {
    if (fresh.has(id))
      out.set(key, open ? { alertId: id, firstSeenAt: open.at } : { alertId: null, firstSeenAt: null });
    else out.set(key, { alertId: id, firstSeenAt: byId.get(id)?.firstSeenAt ?? null });
  }
  return out;
}

const sortedUnique = (xs: Iterable<string>) => [...new Set(xs)].sort(cmp);

/** The introduced-view units of an alert's findings, each once (triage rules' conditions read them). */
function unitsOfAll(list: readonly MoveFinding[], teamOf: (module: string) => string | null | undefined): Unit[] {
  const seen = new Map<string, Unit>();
  for (const f of list) for (const u of unitsOf(f.attributions, teamOf)) seen.set(u.join('\0'), u);
  return [...seen.keys()].sort(cmp).map((k) => seen.get(k)!);
}

/** Introducing modules of a finding (v2): its attributions' origins, or the attributed module itself. */
function introducing(f: MoveFinding): string[] {
  const out: string[] = [];
  for (const a of f.attributions ?? []) {
    if (a.origins?.length) for (const o of a.origins) out.push(o.module);
    else out.push(a.module);
  }
  return out;
}

/**
 * The next state of one (project, ecosystem) after `source`. `previous` is the current state's alerts (every status);
 * `teamOf` gives a module's team. A first move (no previous alerts and no earlier tracked scan) announces nothing.
 */
export function moveAlerts(
  previous: readonly AlertRecord[],
  findings: readonly MoveFinding[],
  source: AlertMoveSource,
  teamOf: (module: string) => string | null | undefined,
  first: boolean,
): AlertMove {
  const { ecosystem, projectId } = source;
  const taken = new Set(previous.map((a) => a.id));
  const live = previous.filter((a) => a.status !== 'merged');
  // An alert a re-match opens was first seen then, not when its scan was uploaded.
  const openedAt = source.rematch ? source.at : source.startedAt;
  const r = resolveAlerts(
    ecosystem,
    live.map(identityOf),
    findings.map((f) => ({ key: f.id, package: f.package, advisory: f.cve, ids: f.aliases ?? [f.cve] })),
    (pkg, advisory) => {
      const id = newAlertId(projectId, ecosystem, pkg, advisory, taken);
      taken.add(id);
      return id;
    },
    openedAt,
  );

  const byAlert = new Map<string, MoveFinding[]>();
  for (const f of findings) {
    const id = r.alertOf.get(f.id)!;
    const list = byAlert.get(id) ?? [];
    list.push(f);
    byAlert.set(id, list);
  }
  const regroup = new Map(r.regrouped.map((g) => [g.id, g]));
  const mergedInto = new Map(r.merged.map((m) => [m.id, m.mergedInto]));
  const openedById = new Map(r.opened.map((o) => [o.id, o]));
  const stamp = { at: source.at, scanId: source.scanId, generation: source.generation };

  const events: AlertEvent[] = [];
  const out = { opened: [] as string[], fixed: [] as string[], reopened: [] as string[] };
  const next: AlertRecord[] = [];

  const fromFindings = (id: string, list: MoveFinding[], base: AlertRecord | undefined): AlertRecord => {
    const group = regroup.get(id);
    const opened = openedById.get(id);
    const advisory = group?.advisory ?? opened?.advisory ?? base!.advisory;
    // The finding that speaks for the alert: the display id's, then the most severe, then the highest version.
    const ordered = [...list].sort(
      (a, b) =>
        Number(b.cve === advisory) - Number(a.cve === advisory) ||
        severityRank(a.severity) - severityRank(b.severity) ||
        cmp(a.installedVersion, b.installedVersion) ||
        cmp(a.id, b.id),
    );
    const lead = ordered[0];
    const modules = sortedUnique(list.flatMap(introducing));
    // Suppressed when every finding is; the source as processed (a snapshot's wins), read live by viewOf for triage.
    const allSuppressed = list.every((f) => f.suppressed);
    const suppressedBy = !allSuppressed
      ? null
      : list.some((f) => (f.suppressionSource ?? 'snapshot') === 'snapshot')
        ? ('snapshot' as const)
        : list.some((f) => f.suppressionSource === 'analysis')
          ? ('analysis' as const)
          : ('rule' as const);
    return {
      id,
      projectId,
      ecosystem,
      package: lead.package,
      key: normalizedName(ecosystem, lead.package),
      advisory,
      aliases: group?.ids ?? opened?.ids ?? base!.aliases,
      severity: [...list].sort((a, b) => severityRank(a.severity) - severityRank(b.severity))[0].severity,
      cvss: lead.cvss ?? null,
      summary: lead.summary,
      publishedAt: lead.publishedAt,
      installedVersions: sortedUnique(list.map((f) => f.installedVersion)),
      fixedVersion: lead.fixedVersion,
      status: 'open',
      firstSeenAt: base?.firstSeenAt ?? openedAt,
      firstSeenScanId: base?.firstSeenScanId ?? source.scanId,
      lastSeenAt: source.startedAt,
      lastSeenScanId: source.scanId,
      fixedAt: null,
      fixedScanId: null,
      openedGeneration: base ? base.openedGeneration : source.generation,
      modules,
      teams: sortedUnique(modules.map((m) => teamOf(m)).filter((t): t is string => !!t)),
      suppressed: allSuppressed,
      suppressionSource: suppressedBy,
      // what triage rules' attribution conditions read (src/domain/triage/rules.ts)
      units: unitsOfAll(list, teamOf),
    };
  };

  for (const a of previous) {
    if (a.status === 'merged') {
      next.push(a);
      continue;
    }
    const into = mergedInto.get(a.id);
    if (into) {
      next.push({ ...a, status: 'merged', mergedInto: into });
      events.push({ alertId: a.id, type: 'merged', ...stamp, details: { mergedInto: into } });
      continue;
    }
    const list = byAlert.get(a.id);
    if (!list) {
      if (a.status === 'open') {
        next.push({ ...a, status: 'fixed', fixedAt: source.at, fixedScanId: source.scanId });
        events.push({ alertId: a.id, type: 'fixed', ...stamp, details: { installedVersions: a.installedVersions } });
        out.fixed.push(a.id);
      } else next.push(a);
      continue;
    }
    const moved = fromFindings(a.id, list, a);
    if (a.status === 'fixed') {
      events.push({
        alertId: a.id,
        type: 'reopened',
        ...stamp,
        details: { installedVersions: moved.installedVersions, fixedAt: a.fixedAt },
      });
      out.reopened.push(a.id);
    } else if (moved.installedVersions.join('\0') !== a.installedVersions.join('\0')) {
      events.push({
        alertId: a.id,
        type: 'versions_changed',
        ...stamp,
        details: { from: a.installedVersions, to: moved.installedVersions },
      });
    }
    next.push(moved);
  }
  for (const o of r.opened) {
    next.push(fromFindings(o.id, byAlert.get(o.id)!, undefined));
    if (!first) out.opened.push(o.id);
  }
  next.sort((a, b) => cmp(a.id, b.id));
  events.sort((a, b) => cmp(a.alertId, b.alertId) || cmp(a.type, b.type));
  // Each alert keeps its newest events (a record built from findings starts without them).
  const before = new Map(previous.map((a) => [a.id, a]));
  const added = new Map<string, Array<AlertEvent & { seq: number }>>();
  for (const e of events) added.set(e.alertId, [...(added.get(e.alertId) ?? []), { ...e, seq: source.seq ?? 0 }]);
  for (let i = 0; i < next.length; i++) {
    const prior = before.get(next[i].id);
    const fresh = added.get(next[i].id) ?? [];
    const history = [...(prior?.history ?? []), ...fresh];
    const { history: _h, historyCount: _c, ...rest } = next[i];
    next[i] = history.length
      ? {
          ...rest,
          history: history.slice(-INLINE_HISTORY),
          historyCount: (prior?.historyCount ?? prior?.history?.length ?? 0) + fresh.length,
        }
      : rest;
  }
  return { alerts: next, events, ...out, alertOf: r.alertOf };
}
