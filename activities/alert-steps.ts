// The two alert steps of a scan (src/domain/alerts): `resolveFindings` before the scan's counts are published (each
// finding's alert and first-seen time, and the analyses in force: src/domain/triage), and `moveScanAlerts` after (the project's alerts of the scan's ecosystem move
// to what the scan found, when the scan is tracked). Both are idempotent: the resolution is a pure function of the
// stored state, and a move is stored as the next state of a chain keyed by sequence number (src/storage/alerts.ts),
// so a retried or concurrent move computes again from what is stored and never applies twice.
import { alertIdsOf, moveAlerts, type AlertRecord, type MoveFinding } from '../src/domain/alerts/move';
import { isTracked } from '../src/domain/alerts/tracked';
import { applyTriage } from '../src/domain/triage/apply';
import { compileRule, ruleInForce } from '../src/domain/triage/rules';
import { orgRules } from '../src/storage/triage-rules';
import { analysisDocsOf, pairAnalyses, writeAnalysis } from '../src/storage/triage';
import type { Logger } from '../src/logger';
import type { Finding } from '../src/shared/types';
import {
  advanceHead,
  headState,
  insertState,
  latestState,
  pairIdOf,
  stateOfScan,
  writeAlertEvents,
  type AlertState,
  type StoredMove,
} from '../src/storage/alerts';
import type { ScanDoc } from '../src/storage/documents/scans';
import type { Store } from '../src/storage/mongo';
import { readModules, readResults } from '../src/storage/results';
import { getScan } from '../src/storage/scans';
import type { AlertWebhookEvent } from '../src/storage/webhooks';
import type { ScanEvents } from '../src/temporal/events';

export interface AlertStepDeps {
  store: Store;
  logger: Logger;
}

/** Whether a scan is tracked by its project (its default branch, read now). */
export async function trackedScan(store: Store, scan: Pick<ScanDoc, 'projectId' | 'metadata'>): Promise<boolean> {
  const project = await store.c.projects.findOne({ _id: scan.projectId }, { projection: { defaultBranch: 1 } });
  return isTracked(scan.metadata?.ref, project?.defaultBranch);
}

/**
 * Starts reading what the resolution needs (the pair's head state, whether the scan is tracked), so that the reads
 * overlap the building of the findings; `apply` then sets `alertId` and `firstSeenAt` on each finding. A finding of an
 * existing alert carries it on any scan; one new to the project carries the alert its tracked scan opens, and null on
 * a branch scan.
 */
export function startResolution(store: Store, scan: ScanDoc) {
  const pairId = pairIdOf(scan.projectId, scan.ecosystem);
  const reads = Promise.all([
    headState(store, pairId),
    trackedScan(store, scan),
    pairAnalyses(store, pairId),
    orgRules(store, scan.orgId),
  ]);
  reads.catch(() => undefined); // awaited by apply
  return {
    /** Whether the scan is tracked by its project (read once, with the resolution). */
    tracked: reads.then(([, tracked]) => tracked),
    /**
     * Sets each finding's alert, then applies triage (the alerts' analyses, then the rules in force); how many
     * findings triage suppressed. `teamOf`: the scan's module teams (v2), for rules' team conditions.
     */
    async apply(
      findings: Finding[],
      teamOf: (module: string) => string | null | undefined = () => null,
      now = new Date(),
    ): Promise<number> {
      const [state, tracked, analyses, rules] = await reads;
      const resolved = alertIdsOf(
        scan.ecosystem,
        state.alerts,
        findings,
        tracked ? { projectId: scan.projectId, at: scan.startedAt.toISOString() } : null,
      );
      for (const f of findings) {
        const r = resolved.get(f.id);
        f.alertId = r?.alertId ?? null;
        f.firstSeenAt = r?.firstSeenAt ?? null;
      }
      const enforced = rules.filter((r) => ruleInForce(r, now));
      if (!analyses.size && !enforced.length) return 0;
      return applyTriage(
        findings,
        {
          analyses,
          rules: enforced.map(compileRule),
          projectId: scan.projectId,
          ecosystem: scan.ecosystem,
          teamOf,
          fixed: new Set(state.alerts.filter((a) => a.status === 'fixed').map((a) => a.id)),
        },
        now,
      );
    },
  };
}

export interface MoveOutcome {
  /** moved: this call (or an earlier attempt) stored the scan's state; skipped: why not. */
  outcome: 'moved' | 'untracked' | 'superseded' | 'not_completed';
  seq?: number;
  opened: number;
  fixed: number;
  reopened: number;
  /** The move's alert ids by change, for the webhook events (empty on a pair's first tracked scan). */
  announce?: Pick<StoredMove, 'opened' | 'fixed' | 'reopened'>;
  /** Who moved: for the webhook events. */
  head?: PairHead;
}

const newer = (a: { startedAt: Date; scanId: string }, b: { startedAt: Date; scanId: string }) =>
  a.startedAt.getTime() > b.startedAt.getTime() ||
  (a.startedAt.getTime() === b.startedAt.getTime() && a.scanId > b.scanId);

/** Who a pair's head names: its project and ecosystem, and the tracked scan its state comes from. */
export interface PairHead {
  pairId: string;
  orgId: string;
  projectId: string;
  ecosystem: string;
  scanId: string;
  startedAt: Date;
}

export const headOf = (scan: ScanDoc): PairHead => ({
  pairId: pairIdOf(scan.projectId, scan.ecosystem),
  orgId: scan.orgId,
  projectId: scan.projectId,
  ecosystem: scan.ecosystem,
  scanId: scan._id,
  startedAt: scan.startedAt,
});

/**
 * A `resolved` analysis is cleared when its alert reopens (docs/triage.md): the fix it recorded did not hold. Its
 * history says so (analysis_changed, after: null, reason reopened). Repeating it changes nothing.
 */
async function clearResolvedOnReopen(store: Store, head: PairHead, reopened: readonly string[]): Promise<void> {
  if (!reopened.length) return;
  const docs = await analysisDocsOf(store, reopened);
  for (const d of docs.values())
    if (d.analysis?.state === 'resolved')
      await writeAnalysis(store, {
        orgId: head.orgId,
        projectId: head.projectId,
        ecosystem: head.ecosystem,
        alertId: d.alertId,
        analysis: null,
        details: { reason: 'reopened', scanId: head.scanId },
        at: new Date(),
        // only a resolved analysis is cleared: another decision meanwhile stays
        unlessSame: (before) => before?.state !== 'resolved',
      });
}

/** The side effects of a stored move: its history events, then the head. Repeating them changes nothing. */
export async function finishMove(
  store: Store,
  head: PairHead,
  seq: number,
  move: StoredMove,
  alerts: AlertRecord[],
): Promise<MoveOutcome> {
  await writeAlertEvents(store, head.orgId, seq, move.events);
  await advanceHead(store, {
    ...head,
    seq,
    at: new Date(),
    open: alerts.filter((a) => a.status === 'open').length,
  });
  // after the head, so that the clearing's history event comes after the reopening
  await clearResolvedOnReopen(store, head, move.reopened);
  return {
    outcome: 'moved',
    seq,
    opened: move.opened.length,
    fixed: move.fixed.length,
    reopened: move.reopened.length,
    head,
    ...(move.announce ? { announce: { opened: move.opened, fixed: move.fixed, reopened: move.reopened } } : {}),
  };
}

/**
 * One attempt at a move of the scan's pair: the next state computed from `state` and `findings`, stored under the next
 * seq, then finished (history, head). Null when another move stored that seq first: the caller reads again.
 * `at`: when the move happened; a re-match keeps the tracked scan and comes from a newer generation.
 */
export async function tryMove(
  deps: AlertStepDeps,
  scan: ScanDoc,
  state: AlertState,
  findings: readonly MoveFinding[],
  teams: ReadonlyMap<string, string | null>,
  o: { at: Date; generation: string | null; rematch: boolean; first: boolean },
): Promise<MoveOutcome | null> {
  const seq = state.seq + 1;
  const m = moveAlerts(
    state.alerts,
    findings,
    {
      projectId: scan.projectId,
      ecosystem: scan.ecosystem,
      scanId: scan._id,
      startedAt: scan.startedAt.toISOString(),
      at: o.at.toISOString(),
      generation: o.generation,
      ...(o.rematch ? { rematch: true } : {}),
      seq,
    },
    (module) => teams.get(module),
    o.first,
  );
  const move: StoredMove = {
    events: m.events,
    opened: m.opened,
    fixed: m.fixed,
    reopened: m.reopened,
    announce: !o.first,
  };
  const head = headOf(scan);
  const stored = await insertState(deps.store, {
    ...head,
    seq,
    at: new Date(),
    generation: o.generation,
    rematch: o.rematch,
    alerts: m.alerts,
    move,
  });
  if (!stored) return null;
  await faultPause();
  return finishMove(deps.store, head, seq, move, m.alerts);
}

/** Moves the project's alerts of the scan's ecosystem to what a completed tracked scan found. */
export async function moveScanAlerts(deps: AlertStepDeps, scanId: string): Promise<MoveOutcome> {
  const none = { opened: 0, fixed: 0, reopened: 0 };
  const scan = await getScan(deps.store, scanId);
  if (!scan || scan.status !== 'completed') return { outcome: 'not_completed', ...none };
  const pairId = pairIdOf(scan.projectId, scan.ecosystem);
  // Read side by side: whether the scan is tracked, its findings and modules, and the pair's latest state.
  const reads = Promise.all([
    readResults(deps.store, scanId, scan.resultChunks ?? 1),
    scan.schemaVersion === 2 && (scan.moduleCount ?? 0) > 0 ? readModules(deps.store, scanId) : [],
    latestState(deps.store, pairId),
  ]);
  reads.catch(() => undefined); // awaited below when the scan is tracked
  if (!(await trackedScan(deps.store, scan))) return { outcome: 'untracked', ...none };
  const [findings, modules, firstState] = await reads;
  const teams = new Map(modules.map((m) => [m.path, m.teamName ?? null]));
  const me = { startedAt: scan.startedAt, scanId };
  for (let attempt = 1; ; attempt++) {
    const state = attempt === 1 ? firstState : await latestState(deps.store, pairId);
    if (
      state.scanId === scanId ||
      (state.scanId && state.startedAt && newer({ startedAt: state.startedAt, scanId: state.scanId }, me))
    ) {
      // This scan's move is stored already (a retry), or a newer tracked scan moved the alerts: a late, older scan
      // never overrides it. Either way, finish what a stored move of this scan may have left undone.
      const mine = await stateOfScan(deps.store, pairId, scanId);
      if (mine) return finishMove(deps.store, headOf(scan), mine.seq, mine.move, mine.alerts);
      return { outcome: 'superseded', ...none };
    }
    const first = state.seq === 0;
    const moved = await tryMove(deps, scan, state, findings, teams, {
      at: scan.finishedAt ?? scan.startedAt,
      generation: scan.advisoryGeneration ?? null,
      rematch: false,
      first,
    });
    if (moved) return moved;
    // Another move stored this seq first: read the chain again and compute from its new end.
    deps.logger.debug({ scanId, pairId, seq: state.seq + 1, attempt }, 'alert move raced; computing again');
  }
}

/** Starts the webhook events of a move (one per kind of change it made); a repeat starts none twice. */
export async function announceMove(
  events: ScanEvents | undefined,
  r: Pick<MoveOutcome, 'announce' | 'head' | 'seq'> & { outcome: string },
): Promise<void> {
  if (!events || r.outcome !== 'moved' || !r.announce || !r.head || r.seq === undefined) return;
  const { head, seq } = r;
  const kinds: Array<[AlertWebhookEvent, string[]]> = [
    ['alert.opened', r.announce.opened],
    ['alert.fixed', r.announce.fixed],
    ['alert.reopened', r.announce.reopened],
  ];
  await Promise.all(
    kinds
      .filter(([, ids]) => ids.length > 0)
      .map(([type]) => events.emitAlerts(head.scanId, head.orgId, type, { pairId: head.pairId, seq })),
  );
}

/** What an alert activity returns to its workflow: counts, not the ids (the history stays small). */
export const moveSummary = <R extends MoveOutcome | (Omit<MoveOutcome, 'outcome'> & { outcome: string })>({
  announce: _a,
  head: _h,
  ...rest
}: R) => rest;

/** The upgrade's setting: present once every pair's alerts were built from its latest tracked scan. */
export const ALERT_UPGRADE_SETTING = 'migration:alerts-from-latest-tracked-scans';

/** The upgrade's work list: every (project, ecosystem) with completed scans and no alerts yet. */
export async function upgradePairs(store: Store): Promise<Array<{ projectId: string; ecosystem: string }>> {
  const [scans, heads] = await Promise.all([
    store.c.scans.find({ status: 'completed' }, { projection: { projectId: 1, ecosystem: 1 } }).toArray(),
    store.c.alertSets.find({}, { projection: { _id: 1 } }).toArray(),
  ]);
  const have = new Set(heads.map((h) => h._id));
  const pairs = new Map<string, { projectId: string; ecosystem: string }>();
  for (const s of scans) {
    const id = pairIdOf(s.projectId, s.ecosystem);
    if (!have.has(id)) pairs.set(id, { projectId: s.projectId, ecosystem: s.ecosystem });
  }
  return [...pairs.keys()].sort().map((k) => pairs.get(k)!);
}

/**
 * Upgrade of one pair: its alerts from its latest completed tracked scan (history starts there, nothing announced).
 * A pair that a tracked scan moved meanwhile keeps that newer state (the upgrade's scan is older: superseded).
 */
export async function upgradePair(
  deps: AlertStepDeps,
  projectId: string,
  ecosystem: string,
): Promise<MoveOutcome | { outcome: 'no_tracked_scan' }> {
  const scans = await deps.store.c.scans
    .find({ projectId, ecosystem, status: 'completed' } as never, { projection: { _id: 1, startedAt: 1 } })
    .toArray();
  scans.sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime() || (a._id < b._id ? 1 : -1));
  for (const s of scans) {
    const scan = await getScan(deps.store, s._id);
    if (scan && (await trackedScan(deps.store, scan))) return moveScanAlerts(deps, scan._id);
  }
  return { outcome: 'no_tracked_scan' };
}

/**
 * Fault injection for the kill test (test/integration/alert-kill.test.ts): SCANNER_TEST_ALERT_PAUSE_MS holds a move
 * between storing its state and finishing its side effects, so that a worker can be killed exactly there. Unset in
 * production: no pause.
 */
async function faultPause(): Promise<void> {
  const ms = Number(process.env.SCANNER_TEST_ALERT_PAUSE_MS ?? 0);
  if (ms > 0) await new Promise((r) => setTimeout(r, ms));
}
