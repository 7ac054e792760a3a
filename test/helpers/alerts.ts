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

/** Uploads a snapshot through the API and waits until its scan completed: the scan's id and its project's id. */
export async function uploadCompleted(
  api: { post(url: string): any; get(url: string): any },
  key: string,
  body: object,
  timeoutMs = 90_000,
): Promise<{ scanId: string; projectId: string }> {
  const auth = { Authorization: `Bearer ${key}` };
  const up = await api.post('/v1/scans/dependency-snapshots').set(auth).send(body);
  if (up.status !== 201) throw new Error(`upload: ${up.status} ${JSON.stringify(up.body)}`);
  const scanId: string = up.body.id;
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/v1/scans/${scanId}?wait=10`).set(auth);
    if (res.body.status === 'completed') break;
    if (res.body.status === 'failed' || Date.now() > until) throw new Error(`scan ${scanId}: ${res.body.status}`);
  }
  return { scanId, projectId: up.body.project };
}
