// Alerts stored as a project's first tracked scan would store them (moveAlerts, then the state and the head), for
// tests of the reads and of triage that need alerts without running the pipeline.
import { moveAlerts, type AlertRecord, type MoveFinding } from '../../src/domain/alerts/move';
import { advanceHead, insertState, pairIdOf } from '../../src/storage/alerts';
import type { Store } from '../../src/storage/mongo';

export async function storeFirstMove(
  store: Store,
  o: {
    orgId: string;
    projectId: string;
    scanId: string;
    findings: MoveFinding[];
    ecosystem?: string;
    teamOf?: (module: string) => string | null;
  },
): Promise<AlertRecord[]> {
  const ecosystem = o.ecosystem ?? 'javascript';
  const at = new Date().toISOString();
  const moved = moveAlerts(
    [],
    o.findings,
    { projectId: o.projectId, ecosystem, scanId: o.scanId, startedAt: at, at, generation: null },
    o.teamOf ?? (() => null),
    true,
  );
  const head = {
    pairId: pairIdOf(o.projectId, ecosystem),
    orgId: o.orgId,
    projectId: o.projectId,
    ecosystem,
    scanId: o.scanId,
    startedAt: new Date(),
    seq: 1,
  };
  await insertState(store, {
    ...head,
    at: new Date(),
    generation: null,
    rematch: false,
    alerts: moved.alerts,
    move: { events: [], opened: [], fixed: [], reopened: [], announce: false },
  });
  await advanceHead(store, { ...head, at: new Date(), open: moved.alerts.filter((a) => a.status === 'open').length });
  return moved.alerts;
}
