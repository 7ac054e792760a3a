// Continuous monitoring: after an advisory import, each (project, ecosystem) with alerts has its latest tracked
// snapshot matched again against the newest generation, and its alerts move as a scan would move them: an advisory
// published since opens alerts, a withdrawn one fixes them, without a new upload. The re-match is a state of the
// pair's chain like any move (src/storage/alerts.ts): it races tracked scans safely, and a repeat finds it done.
import { currentGeneration } from '../src/storage/advisories';
import { latestState, storedMove } from '../src/storage/alerts';
import { getScan } from '../src/storage/scans';
import { finishMove, headOf, tryMove, type AlertStepDeps, type MoveOutcome } from './alert-steps';
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
    const moved = await tryMove(deps, scan, state, findings, teams, {
      at: new Date(),
      generation,
      rematch: true,
      first: false,
    });
    if (moved) return { ...moved, generation };
    deps.logger.debug({ pairId, seq: state.seq + 1, attempt }, 'alert re-match raced; computing again');
  }
}
