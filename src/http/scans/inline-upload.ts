// POST /v1/scans/dependency-snapshots: a slot if large (none left: 503) → stream (10 MB cap) → parse → validate →
// idempotency → project → store snapshot and scan (the audit event beside the scan) → start the workflow → 201. An
// upload answered 201 is never lost: the scan is stored before the answer, and the sweeper starts any queued scan
// whose workflow start did not get through. An upload whose storing failed is answered 503 (database unreachable) or
// 500 and withdrawn (its audit event too), or else left whole for the sweeper.
import type { Context } from 'koa';
import { ApiError, invalidSnapshot } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { ScanDoc } from '../../storage/documents/scans';
import { claimKey, releaseKey } from '../../storage/idempotency';
import { createProject, findProject } from '../../storage/projects';
import { fileScanGroups } from '../../storage/scan-regions';
import { deleteQueuedScan, getScan, insertScan } from '../../storage/scans';
import { deleteSnapshot, putCompressedSnapshot } from '../../storage/snapshots';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { projectRestriction } from '../auth/principal';
import type { AppDeps } from '../deps';
import { presentScan } from '../../presenters/scans';
import { readUploadBody } from './upload-body';
import { UploadSlots } from '../upload-slots';
import { withModules } from './modules';
import { Timing } from '../timing';
import { UploadAudit, uploadEvent } from './upload-audit';

const MAX_IDEMPOTENCY_KEY = 128;

/** The Idempotency-Key header: at most 128 characters, else 422 invalid_idempotency_key. */
export function idempotencyKey(ctx: Context): string | undefined {
  const key = ctx.get('Idempotency-Key');
  if (!key) return undefined;
  if (key.length > MAX_IDEMPOTENCY_KEY) {
    throw new ApiError(422, 'invalid_idempotency_key', `Idempotency-Key: at most ${MAX_IDEMPOTENCY_KEY} characters`);
  }
  return key;
}

/** The project an upload names, reached by the credential; null: a new slug, created once the request commits. */
export async function resolveProject(deps: AppDeps, ctx: Context, ref: string) {
  const p = principalOf(ctx);
  const restriction = projectRestriction(p);
  const unknown = () =>
    new ApiError(422, 'unknown_project', `/project: "${ref}" is not a project this credential may upload to`);
  const found = await findProject(deps.store, p.orgId, ref);
  if (found) {
    if (restriction && !restriction.includes(found._id)) throw unknown();
    return found;
  }
  if (ref.startsWith('prj_') || restriction) throw unknown();
  return null; // a new slug: created once the request is known to commit
}

/** The scan a replayed key points at; waits briefly when a concurrent first request has not stored it yet. */
async function replayedScan(deps: AppDeps, scanId: string): Promise<ScanDoc | null> {
  for (let i = 0; i < 40; i++) {
    const scan = await getScan(deps.store, scanId);
    if (scan) return scan;
    await new Promise((r) => setTimeout(r, 50));
  }
  return null;
}

/**
 * Undoes an upload whose scan insert failed, so that no half-stored upload remains: the scan document goes first
 * (only while still queued: one the sweeper already started is left to its workflow), then the snapshot, unless a
 * scan by that id remains. False when the scan may exist and stays (the database is still unreachable, or it was
 * already started): then it is a whole upload, snapshot and queued scan, which the sweeper starts like any other.
 * A snapshot left without a scan (the insert never landed and the database was away for the clean-up) is never read.
 */
async function withdrawUpload(deps: AppDeps, scanId: string): Promise<boolean> {
  try {
    await deleteQueuedScan(deps.store, scanId);
    if (await deps.store.c.scans.findOne({ _id: scanId }, { projection: { _id: 1 } })) return false;
    await deleteSnapshot(deps.store, scanId).catch(() => undefined);
    return true;
  } catch {
    return false;
  }
}

export function uploadHandler(deps: AppDeps) {
  const slots = deps.uploadSlots ?? new UploadSlots();
  return async (ctx: Context) => {
    let release: (() => void) | undefined;
    try {
      await upload(deps, ctx, () => {
        release = slots.take();
      });
    } finally {
      release?.(); // on every path: stored, refused, failed, aborted mid-body
    }
  };
}

/** `large` takes a slot for a large body (it throws 503 when none is left). */
async function upload(deps: AppDeps, ctx: Context, large: () => void): Promise<void> {
  const timing = new Timing(ctx.state.startedAt);
  timing.mark('auth');
  const principal = principalOf(ctx);
  const key = idempotencyKey(ctx);
  const tooLarge = new ApiError(413, 'snapshot_too_large', `body: larger than ${deps.maxBodyBytes} bytes`);
  if (!ctx.is('application/json')) throw invalidSnapshot('', 'Content-Type must be application/json');
  const raw = await readUploadBody(ctx, deps.maxBodyBytes, tooLarge, large);
  timing.mark('body');
  // A large body moves to a pool thread: `raw` is empty after this; its length is `bytes`.
  const { summary: snapshot, bodyHash, gzipped, bytes } = await deps.uploads.prepare(raw);
  timing.mark('validate');
  const stats = snapshot.stats;
  let project = await resolveProject(deps, ctx, snapshot.project);
  timing.mark('project');

  // The scan's id and startedAt are one instant: the list's order (startedAt, then id) is the ids' order, and the
  // scan is filed by that instant (insertScan), not by when its insert reaches the database.
  const acceptedAt = Date.now();
  const scanId = newId('scn', acceptedAt);
  if (key) {
    const claim = await claimKey(deps.store, principal.orgId, key, bodyHash, scanId);
    if (!claim.claimed) {
      if (claim.existing.bodyHash !== bodyHash) {
        throw new ApiError(409, 'idempotency_conflict', 'Idempotency-Key: already used with a different body');
      }
      const original = await replayedScan(deps, claim.existing.scanId);
      if (original && !(original.status === 'failed' && original.failureReason === 'internal_error')) {
        await recheck(deps, principal);
        ctx.status = 200;
        ctx.body = presentScan(await withModules(deps.store, original));
        return;
      }
      // A key whose scan failed with internal_error is released, so the same body starts anew.
      await releaseKey(deps.store, principal.orgId, key, claim.existing.scanId);
      const again = await claimKey(deps.store, principal.orgId, key, bodyHash, scanId);
      if (!again.claimed)
        throw new ApiError(409, 'idempotency_conflict', 'Idempotency-Key: a concurrent request holds this key');
    }
  }

  let insertFailed = false;
  try {
    timing.mark('idempotency');
    // A credential revoked meanwhile stores nothing. A new project is created only after the re-check; for a known
    // one the re-check runs beside the snapshot's write and the scan's filing, and a refusal removes the snapshot
    // (nothing shows it: the scan document, written last, is what makes an upload visible).
    if (!project) {
      await recheck(deps, principal);
      project = await createProject(deps.store, principal.orgId, snapshot.project);
    }
    const projectId = project._id;
    const stored = Promise.all([
      fileScanGroups(deps.store, principal.orgId, projectId, acceptedAt, scanId),
      putCompressedSnapshot(deps.store, scanId, principal.orgId, gzipped, bytes, bodyHash),
    ]);
    stored.catch(() => undefined); // awaited below
    try {
      await recheck(deps, principal);
    } catch (err) {
      await stored.then(() => deleteSnapshot(deps.store, scanId)).catch(() => undefined);
      throw err;
    }
    timing.mark('recheck');
    const [buckets] = await stored;
    const scan: ScanDoc = {
      _id: scanId,
      orgId: principal.orgId,
      projectId: project._id,
      target: project.slug,
      ecosystem: snapshot.ecosystem,
      schemaVersion: snapshot.schemaVersion,
      status: 'queued',
      startedAt: new Date(acceptedAt),
      finishedAt: null,
      failureReason: null,
      findings: null,
      suppressed: null,
      nodeCount: stats.nodes,
      graphSize: stats.vertices + stats.edges,
      bodyBytes: bytes,
      metadata: snapshot.metadata,
      ...buckets,
    };
    // The upload's audit event is written beside the scan's insert (no round trip of its own before the answer).
    const audit = new UploadAudit(deps, uploadEvent(ctx, scan));
    try {
      await insertScan(deps.store, scan, buckets); // filed above, beside the snapshot's write
    } catch (err) {
      // Not answered 201. The insert may still have landed (the connection dropped after the server applied it):
      // a scan that cannot be withdrawn keeps its snapshot, its idempotency key and its audit event, for the sweeper
      // to process it and for a retry with the same key to find it. Off the response path: the database may be slow
      // to answer.
      insertFailed = true;
      void withdrawUpload(deps, scanId).then(async (withdrawn) => {
        await Promise.all([
          withdrawn ? audit.withdrawn() : audit.kept(),
          withdrawn && key ? releaseKey(deps.store, principal.orgId, key, scanId).catch(() => undefined) : undefined,
        ]);
      });
      throw err;
    }
    await audit.kept();
    timing.mark('store');
    // 201 once the snapshot and the scan are stored. The workflow starts right after, off the
    // response path; a start that does not get through is retried, then left to the sweeper.
    const requestId = ctx.state.requestId;
    void deps.starter.start(scan).then((started) => {
      if (!started) deps.logger.warn({ scanId, requestId }, 'workflow start deferred to the sweeper');
    });
    ctx.status = 201;
    ctx.body = presentScan(scan);
    timing.write(ctx);
  } catch (err) {
    if (key && !insertFailed) await releaseKey(deps.store, principal.orgId, key, scanId).catch(() => undefined);
    throw err;
  }
}
