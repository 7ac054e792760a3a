// Multipart upload: create, parts, completion (completion.ts), read. Bodies are read like the single
// upload's (10 MB cap while streaming, a slot for a large one), checked by the pure domain (domain/snapshot/parts*),
// and stored as sent, compressed (storage/uploads.ts). An upload id of another organization or out of the
// credential's project reach is 404, like an id that does not exist.
import Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError, invalidSnapshot, notFound, tooLarge } from '../../domain/errors';
import { newId, sha256Hex } from '../../domain/ids';
import { UPLOAD_BUDGETS, budgetError, checkUploadHeader, inPart } from '../../domain/snapshot/parts';
import { decideLedger } from '../../domain/snapshot/parts-ledger';
import { checkPartOffLoop } from '../../pool/upload-check';
import type { UploadDoc } from '../../storage/documents/uploads';
import { claimKey, releaseKey } from '../../storage/idempotency';
import { createProject } from '../../storage/projects';
import {
  appendLedger,
  deletePart,
  getPartMeta,
  getUpload,
  insertPart,
  insertUpload,
  readOutcome,
  uploadExpiryMs,
  uploadStatus,
  type PartMeta,
} from '../../storage/uploads';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { idempotencyKey, resolveProject } from '../scans/inline-upload';
import { readUploadBody } from '../scans/upload-body';
import { UploadSlots } from '../upload-slots';
import { notOpen, reachableUpload, receivedOf } from './access';
import { completionHandler } from './completion';
import { presentUpload } from '../../presenters/uploads';

const BASE = '/v1/scans/dependency-snapshots/uploads';
/**
 * Upload keys live beside the single upload's, in their own namespace (a newline cannot occur in a header value), so
 * that one client token used on both endpoints never finds the other kind of resource.
 */
const uploadKey = (key: string) => `multipart\n${key}`;

/** `n`: a whole number from 1 to the upload's parts, written plainly; anything else names no part (404). */
function partNumber(ctx: Context, u: UploadDoc): number {
  const raw = String(ctx.params.n);
  const n = /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(n <= u.parts))
    throw notFound(`part ${JSON.stringify(raw.slice(0, 20))} of upload ${u._id} (parts are 1 to ${u.parts})`);
  return n;
}

/** The concurrent first request with this key may not have stored its upload yet: wait for it briefly. */
async function replayedUpload(deps: AppDeps, uploadId: string): Promise<UploadDoc | null> {
  for (let i = 0; i < 40; i++) {
    const u = await getUpload(deps.store, uploadId);
    if (u) return u;
    await new Promise((r) => setTimeout(r, 50));
  }
  return null;
}

function parseJson(raw: Buffer, invalid: () => ApiError): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalid();
  }
}

async function create(deps: AppDeps, ctx: Context, large: () => void): Promise<void> {
  const principal = principalOf(ctx);
  const key = idempotencyKey(ctx);
  if (!ctx.is('application/json')) throw invalidSnapshot('', 'Content-Type must be application/json');
  const raw = await readUploadBody(
    ctx,
    deps.maxBodyBytes,
    tooLarge('', `body: larger than ${deps.maxBodyBytes} bytes`),
    large,
  );
  const header = checkUploadHeader(parseJson(raw, () => invalidSnapshot('', 'body is not valid JSON')));
  let project = await resolveProject(deps, ctx, header.project);
  const bodyHash = sha256Hex(raw);
  const uploadId = newId('upl');
  if (key) {
    // The Idempotency-Key rules of single uploads (docs/api.md), with "identical" meaning the create body's bytes: the
    // parts come later, so a first-party client's key (the SHA-256 of the create body and every part) is what tells two
    // snapshots apart.
    const claim = await claimKey(deps.store, principal.orgId, uploadKey(key), bodyHash, uploadId);
    if (!claim.claimed) {
      if (claim.existing.bodyHash !== bodyHash)
        throw new ApiError(409, 'idempotency_conflict', 'Idempotency-Key: already used with a different body');
      const original = await replayedUpload(deps, claim.existing.scanId);
      const now = new Date();
      if (original && uploadStatus(original, now) !== 'expired') {
        const received = await receivedOf(deps, original);
        await recheck(deps, principal);
        ctx.status = 200;
        ctx.body = presentUpload(original, received, now);
        return;
      }
      // An expired upload can take no part and never complete: its key is released, and the same body starts anew.
      await releaseKey(deps.store, principal.orgId, uploadKey(key), claim.existing.scanId);
      const again = await claimKey(deps.store, principal.orgId, uploadKey(key), bodyHash, uploadId);
      if (!again.claimed)
        throw new ApiError(409, 'idempotency_conflict', 'Idempotency-Key: a concurrent request holds this key');
    }
  }
  try {
    await recheck(deps, principal); // a credential revoked meanwhile stores nothing
    project ??= await createProject(deps.store, principal.orgId, header.project);
    const now = new Date();
    const doc: UploadDoc = {
      _id: uploadId,
      orgId: principal.orgId,
      projectId: project._id,
      target: project.slug,
      ecosystem: header.ecosystem,
      parts: header.parts,
      status: 'open',
      createdAt: now,
      expiresAt: new Date(now.getTime() + uploadExpiryMs()),
      headerSha256: bodyHash,
      headerBytes: raw.length,
      scanId: null,
      rejection: null,
      received: null,
      partsDeleted: false,
    };
    await insertUpload(deps.store, doc, raw);
    ctx.status = 201;
    ctx.body = presentUpload(doc, [], now);
  } catch (err) {
    if (key) await releaseKey(deps.store, principal.orgId, uploadKey(key), uploadId).catch(() => undefined);
    throw err;
  }
}

const presentPart = (p: PartMeta) => ({
  part: { n: p.n, sha256: p.sha256, modules: p.counts.modules, nodes: p.counts.nodes, roots: p.counts.roots },
});

const conflict = (n: number) =>
  new ApiError(409, 'idempotency_conflict', `part ${n}: already received with other bytes`);

async function putPart(deps: AppDeps, ctx: Context, large: () => void): Promise<void> {
  const principal = principalOf(ctx);
  const upload = await reachableUpload(deps, ctx);
  const n = partNumber(ctx, upload);
  if (!ctx.is('application/json')) throw inPart(n, invalidSnapshot('', 'Content-Type must be application/json'));
  if (uploadStatus(upload) !== 'open') throw notOpen(upload);
  const limit = UPLOAD_BUDGETS.partBytes;
  const raw = await readUploadBody(ctx, limit, inPart(n, tooLarge('', `body: larger than ${limit} bytes`)), large);
  const sha256 = sha256Hex(raw);
  const answer = async (status: number, meta: PartMeta) => {
    await recheck(deps, principal);
    ctx.status = status;
    ctx.body = presentPart(meta);
  };
  // The same bytes again: 200, whatever they hold; other bytes for a received part: 409.
  const stored = await getPartMeta(deps.store, upload._id, n);
  if (stored) {
    if (stored.sha256 !== sha256) throw conflict(n);
    return answer(200, stored);
  }
  // Parsed, checked and compressed off the event loop when large; `raw` may be detached from here on.
  const bytes = raw.byteLength;
  const { counts, gzipped } = await checkPartOffLoop(n, raw);
  await recheck(deps, principal); // before the first write
  const ledger = await appendLedger(deps.store, upload._id, { n, sha256, counts });
  const decision = decideLedger(ledger)[ledger.length - 1];
  if (decision.kind === 'refused') throw budgetError(n, decision, true);
  // A duplicate: a concurrent request with this part was counted first; with the same bytes, whichever stores it.
  if (decision.kind === 'duplicate' && decision.of.sha256 !== sha256) throw conflict(n);
  const inserted = await insertPart(deps.store, upload._id, n, gzipped, bytes, sha256, counts);
  if (!inserted) {
    const other = await getPartMeta(deps.store, upload._id, n);
    if (other && other.sha256 !== sha256) throw conflict(n);
  }
  // Rejected or expired while this part was on its way: the cleanup may have run already, so the part goes here.
  const outcome = await readOutcome(deps.store, upload._id);
  if (outcome && outcome.kind !== 'scan') {
    if (inserted) await deletePart(deps.store, upload._id, n);
    throw new ApiError(409, 'upload_not_open', `upload ${upload._id} is ${outcome.kind}, not open`);
  }
  return answer(inserted ? 201 : 200, { n, sha256, bytes, counts });
}

/** Runs `f` with a large-body slot taken on demand (a body above the inline limit), given back on every path. */
function withSlot(
  slots: UploadSlots,
  f: (deps: AppDeps, ctx: Context, large: () => void) => Promise<void>,
  deps: AppDeps,
) {
  return async (ctx: Context) => {
    let release: (() => void) | undefined;
    try {
      await f(deps, ctx, () => {
        release = slots.take();
      });
    } finally {
      release?.();
    }
  };
}

export function uploadRoutes(deps: AppDeps): Router {
  const r = new Router();
  const slots = deps.uploadSlots ?? new UploadSlots();

  r.post(BASE, access(deps, 'POST /v1/scans/dependency-snapshots/uploads'), withSlot(slots, create, deps));

  r.get(`${BASE}/:uploadId`, access(deps, 'GET /v1/scans/dependency-snapshots/uploads/:uploadId'), async (ctx) => {
    const u = await reachableUpload(deps, ctx);
    const received = await receivedOf(deps, u);
    await recheck(deps, principalOf(ctx)); // after the load, just before the answer
    ctx.body = presentUpload(u, received);
  });

  r.put(
    `${BASE}/:uploadId/parts/:n`,
    access(deps, 'PUT /v1/scans/dependency-snapshots/uploads/:uploadId/parts/:n'),
    withSlot(slots, putPart, deps),
  );

  r.post(
    `${BASE}/:uploadId/completion`,
    access(deps, 'POST /v1/scans/dependency-snapshots/uploads/:uploadId/completion'),
    completionHandler(deps),
  );

  return r;
}
