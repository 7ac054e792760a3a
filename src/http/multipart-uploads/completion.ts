// POST .../uploads/{uploadId}/completion: every part received (else 409 upload_incomplete), then
// the whole graph checked as one document (budgets 413, cross-references 422, hops 413: the upload is then
// rejected), then the paged scan queued. What becomes of the upload is decided once, by the outcome claim
// (storage/uploads.ts): concurrent completions make one scan, a repeated one answers 200 with it, and a completion
// that died between its claim and its scan is finished by the next one, with the claimed scan id. Checking the
// graph is deterministic, so every completion that checks it reaches the same verdict; within this process,
// concurrent completions of one upload share one check, which runs on a thread when the upload is large.
import type { Context } from 'koa';
import { ApiError, type ErrorCode } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { checkUploadHeader, type UploadHeader } from '../../domain/snapshot/parts';
import { checkUpload } from '../../pool/upload-check';
import { scanMetadata, type SnapshotStats } from '../../shared/types';
import { envInt } from '../../config';
import type { ScanDoc } from '../../storage/documents/scans';
import type { UploadDoc } from '../../storage/documents/uploads';
import { isDuplicateKey } from '../../storage/mongo';
import { getScan, insertScan, type NewScan } from '../../storage/scans';
import {
  claimOutcome,
  closeUpload,
  deleteUploadData,
  getUpload,
  listParts,
  readOutcome,
  readPartBytes,
  readUploadRaw,
  uploadStatus,
  type Outcome,
} from '../../storage/uploads';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import type { AppDeps } from '../deps';
import { presentScan } from '../../presenters/scans';
import { UploadAudit, uploadEvent } from '../scans/upload-audit';
import { UploadSlots } from '../upload-slots';
import { notOpen, reachableUpload } from './access';

/**
 * Checks of whole uploads running at once in this process (UPLOADS_MAX_COMPLETIONS): each holds an upload's parsed
 * graph in memory (a few hundred MB at the budgets) and the CPU for seconds; past the count a completion is answered
 * 503 service_unavailable with Retry-After, which clients retry. Completions of one upload share one check.
 */
export const DEFAULT_MAX_COMPLETIONS = 1;

type Verdict = { ok: true; header: UploadHeader; stats: SnapshotStats; bytes: number } | { ok: false; error: ApiError };

/** Parts missing, listed in the message (the first 50, then how many more). */
function incomplete(u: UploadDoc, missing: number[]): ApiError {
  const shown = missing.slice(0, 50).join(', ');
  const more = missing.length > 50 ? ` and ${missing.length - 50} more` : '';
  return new ApiError(
    409,
    'upload_incomplete',
    `upload ${u._id}: ${missing.length} of ${u.parts} parts missing: ${shown}${more}`,
  );
}

/** The whole graph checked, off the event loop when large (pool/upload-check.ts). */
async function check(deps: AppDeps, u: UploadDoc): Promise<Verdict> {
  const raw = await readUploadRaw(deps.store, u._id, u.parts);
  const header = checkUploadHeader(JSON.parse(raw.header.toString('utf8'))); // checked at create: typed here
  const v = await checkUpload(raw.header, raw.parts);
  return v.ok ? { ok: true, header, stats: v.stats, bytes: raw.bytes } : v;
}

/** The scan document of a completed upload. */
function scanOf(u: UploadDoc, scanId: string, stats: SnapshotStats, bytes: number, header: UploadHeader): NewScan {
  return {
    _id: scanId,
    orgId: u.orgId,
    projectId: u.projectId,
    target: u.target,
    ecosystem: u.ecosystem,
    schemaVersion: 2,
    status: 'queued',
    startedAt: new Date(),
    finishedAt: null,
    failureReason: null,
    findings: null,
    suppressed: null,
    nodeCount: stats.nodes,
    graphSize: stats.vertices + stats.edges,
    bodyBytes: bytes,
    metadata: scanMetadata(header.metadata),
    attributionMode: 'paged',
    uploadId: u._id,
    moduleCount: stats.modules,
  };
}

/**
 * The claimed scan, inserted if it is not there yet (by this completion, or after one that died past its claim).
 * Concurrent inserts of the one id: the first lands, the others read it.
 */
async function ensureScan(
  deps: AppDeps,
  u: UploadDoc,
  o: Extract<Outcome, { kind: 'scan' }>,
  known?: UploadHeader,
): Promise<{ scan: ScanDoc; inserted: boolean }> {
  const existing = await getScan(deps.store, o.scanId);
  if (existing) return { scan: existing, inserted: false };
  let header = known;
  if (!header) {
    const raw = await readPartBytes(deps.store, u._id, 0);
    if (!raw) throw new Error(`upload ${u._id}: create body missing`);
    header = checkUploadHeader(JSON.parse(raw.toString('utf8')));
  }
  try {
    return { scan: await insertScan(deps.store, scanOf(u, o.scanId, o.stats, o.bytes, header)), inserted: true };
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const other = await getScan(deps.store, o.scanId);
    if (!other) throw err;
    return { scan: other, inserted: false };
  }
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

export function completionHandler(deps: AppDeps) {
  const slots = new UploadSlots(envInt('UPLOADS_MAX_COMPLETIONS', DEFAULT_MAX_COMPLETIONS, { min: 1 }));
  const checks = new Map<string, Promise<Verdict>>();

  /** One check per upload at a time in this process; a new one takes a slot (503 when none is left). */
  function shared(u: UploadDoc): Promise<Verdict> {
    let p = checks.get(u._id);
    if (!p) {
      const release = slots.take();
      p = check(deps, u).finally(() => {
        release();
        checks.delete(u._id);
      });
      checks.set(u._id, p);
    }
    return p;
  }

  /** Answers what the outcome claim decided. */
  async function answer(ctx: Context, u: UploadDoc, o: Outcome, header?: UploadHeader): Promise<void> {
    if (o.kind === 'expired') throw new ApiError(409, 'upload_not_open', `upload ${u._id} is expired, not open`);
    if (o.kind === 'rejected') {
      // The completion that rejected it recorded its answer; it is repeated (the graph has not changed).
      const r = o.rejection ?? u.rejection ?? (await getUpload(deps.store, u._id))?.rejection;
      if (r) throw new ApiError(r.status, r.code as ErrorCode, r.message);
      throw new ApiError(409, 'upload_not_open', `upload ${u._id} is rejected, not open`);
    }
    const { scan, inserted } = await ensureScan(deps, u, o, header);
    // The completion that stored the scan records the upload in the audit trail, beside the upload's close (a
    // repeated completion, answered 200, records nothing).
    const audit = inserted ? new UploadAudit(deps, uploadEvent(ctx, scan)) : undefined;
    if (u.status !== 'completed')
      await closeUpload(deps.store, u._id, { status: 'completed', scanId: scan._id, received: range(u.parts) });
    await audit?.kept();
    if (inserted) {
      // As the single upload: 201 once the scan is stored; the workflow starts off the response path, and the
      // sweeper starts any queued scan whose start did not get through (paged: true, from attributionMode).
      const requestId = ctx.state.requestId;
      void deps.starter.start(scan).then((started) => {
        if (!started) deps.logger.warn({ scanId: scan._id, requestId }, 'workflow start deferred to the sweeper');
      });
    }
    await recheck(deps, principalOf(ctx));
    ctx.status = inserted ? 201 : 200;
    ctx.body = presentScan(scan);
  }

  return async (ctx: Context) => {
    const principal = principalOf(ctx);
    const u = await reachableUpload(deps, ctx);
    const decided = await readOutcome(deps.store, u._id);
    if (decided) return answer(ctx, u, decided);
    if (uploadStatus(u) !== 'open') throw notOpen(u);
    let verdict: Verdict;
    try {
      const received = new Set((await listParts(deps.store, u._id)).map((p) => p.n));
      const missing = range(u.parts).filter((n) => !received.has(n));
      if (missing.length > 0) throw incomplete(u, missing);
      verdict = await shared(u);
    } catch (err) {
      // A concurrent completion may have decided meanwhile, and a rejection deletes the parts this one was reading:
      // its decision is the answer (never a 500 or an "incomplete" for parts it removed).
      const decidedMeanwhile = await readOutcome(deps.store, u._id);
      if (decidedMeanwhile) return answer(ctx, u, decidedMeanwhile);
      throw err;
    }
    await recheck(deps, principal); // a credential revoked meanwhile decides nothing
    if (!verdict.ok) {
      const e = verdict.error;
      const rejection = { status: e.status, code: e.code, message: e.message };
      const won = await claimOutcome(deps.store, u._id, { kind: 'rejected', rejection });
      if (won.kind === 'rejected') {
        await closeUpload(deps.store, u._id, { status: 'rejected', rejection, received: range(u.parts) });
        // Its parts go now; should that fail, the cleanup deletes them later (partsDeleted stays false).
        await deleteUploadData(deps.store, u._id).catch((err) =>
          deps.logger.warn({ err, uploadId: u._id }, 'parts of a rejected upload not deleted yet'),
        );
        throw e;
      }
      return answer(ctx, u, won);
    }
    const mine: Outcome = { kind: 'scan', scanId: newId('scn'), stats: verdict.stats, bytes: verdict.bytes };
    const won = await claimOutcome(deps.store, u._id, mine);
    return answer(ctx, u, won, verdict.header);
  };
}
