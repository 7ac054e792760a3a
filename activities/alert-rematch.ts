// Continuous monitoring: after an advisory import, each (project, ecosystem) with alerts has its latest tracked
// snapshot matched again against the newest generation, and its alerts move as a scan would move them: an advisory
// published since opens alerts, a withdrawn one fixes them, without a new upload. The re-match is a state of the
// pair's chain like any move (src/storage/alerts.ts): it races tracked scans safely, and a repeat finds it done.
import { moveAlerts } from '../src/domain/alerts/move';
import { currentGeneration } from '../src/storage/advisories';
import { insertState, latestState, storedMove, type StoredMove } from '../src/storage/alerts';
import { getScan } from '../src/storage/scans';
import { finishMove, headOf, type AlertStepDeps, type MoveOutcome } from './alert-steps';
import { findingsAgainst } from './scan-steps';

export interface RematchOutcome extends Omit<MoveOutcome, 'outcome'> {
  outcome: MoveOutcome['outcome'] | 'current' | 'no_generation';
  generation: string | null;
}

/** Re-matches one pair's latest tracked snapshot against the current advisory generation. */
export async function rematchPair(deps: AlertStepDeps, pairId: string): Promise<RematchOutcome> {
  const none = { opened: 0, fixed: 0, reopened: 0 };
  const generation = await currentGeneration(deps.store);
  if (!generation) return { outcome: 'no_generation', generation, ...none };
  for (let attempt = 1; ; attempt++) {
    const state = await latestState(deps.store, pairId);
    if (!state.scanId) return { outcome: 'untracked', generation, ...none };
    const scan = await getScan(deps.store, state.scanId);
    if (!scan || scan.status !== 'completed') return { outcome: 'not_completed', generation, ...none };
    if (state.generation === generation) {
      // Matched with this generation already (the scan itself, or an earlier re-match): finish what it left undone.
      const stored = await storedMove(deps.store, pairId, state.seq);
      if (stored?.rematch)
        return { ...(await finishMove(deps.store, headOf(scan), state.seq, stored.move, state.alerts)), generation };
      return { outcome: 'current', generation, ...none };
    }
    const { findings, modules } = await findingsAgainst(deps, scan._id, generation);
    const teams = new Map(modules.map((m) => [m.path, m.teamName ?? null]));
    const at = new Date();
    const m = moveAlerts(
      state.alerts,
      findings,
      {
        projectId: scan.projectId,
        ecosystem: scan.ecosystem,
        scanId: scan._id,
        startedAt: scan.startedAt.toISOString(),
        at: at.toISOString(),
        generation,
        rematch: true,
        seq: state.seq + 1,
      },
      (module) => teams.get(module),
      false,
    );
    const move: StoredMove = {
      events: m.events,
      opened: m.opened,
      fixed: m.fixed,
      reopened: m.reopened,
      announce: true,
    };
    const seq = state.seq + 1;
    const stored = await insertState(deps.store, {
      ...headOf(scan),
      seq,
      at,
      generation,
      rematch: true,
      alerts: m.alerts,
      move,
    });
    if (stored) return { ...(await finishMove(deps.store, headOf(scan), seq, move, m.alerts)), generation };
    deps.logger.debug({ pairId, seq, attempt }, 'alert re-match raced; computing again');
  }
}
