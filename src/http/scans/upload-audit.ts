// Scan uploads in the audit trail (docs/api.md): every accepted upload (a snapshot answered 201, a multipart upload's
// completion answered 201) is a `scan.uploaded` event naming the scan, its project, ecosystem and ref, with the actor.
// The event is written beside the upload's last write (the scan's insert, or the upload's close), never after it, so
// that it adds no round trip to the upload's answer; a replay of an Idempotency-Key (200 with the original scan) and a
// refused upload write none.
import type { Context } from 'koa';
import { recordAudit } from '../../storage/audit';
import type { AuditEventDoc } from '../../storage/documents/service';
import type { ScanDoc } from '../../storage/documents/scans';
import { actorOf } from '../audit/actor';
import { principalOf } from '../auth/authorize';
import type { AppDeps } from '../deps';

/** Delays of the retries of an event whose first write failed (off the response path). */
const RETRIES = [1000, 5000, 30_000];

/** The event of an upload. */
export function uploadEvent(
  ctx: Context,
  scan: Pick<ScanDoc, '_id' | 'orgId' | 'projectId' | 'ecosystem' | 'metadata'>,
): Omit<AuditEventDoc, '_id' | 'at'> {
  const ref = scan.metadata?.ref;
  return {
    orgId: scan.orgId,
    type: 'scan.uploaded',
    actor: actorOf(principalOf(ctx)),
    target: {
      kind: 'scan',
      id: scan._id,
      project: scan.projectId,
      ecosystem: scan.ecosystem,
      ...(ref ? { ref } : {}),
    },
    requestId: ctx.state.requestId ?? null,
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/**
 * An upload's event, its write started at once (beside the upload's last write). Then either `kept` (the upload
 * stands: awaited before the answer; a failed write is logged and retried off the response path, since the event is
 * owed) or `withdrawn` (the upload was undone: its event goes too). Neither rejects.
 */
export class UploadAudit {
  private readonly first: Promise<AuditEventDoc | null>;

  constructor(
    private readonly deps: AppDeps,
    private readonly event: Omit<AuditEventDoc, '_id' | 'at'>,
    private readonly at = new Date(),
  ) {
    this.first = recordAudit(deps.store, event, at).catch((err) => {
      deps.logger.warn({ err, scanId: event.target.id }, 'scan.uploaded audit event not written yet');
      return null;
    });
  }

  /** The upload stands: resolves once the first write is done (or failed, its retries then left running). */
  async kept(): Promise<void> {
    if (!(await this.first)) void this.retry();
  }

  /** The upload was withdrawn (its scan's insert failed and was undone): its event is removed. */
  async withdrawn(): Promise<void> {
    const doc = await this.first;
    if (doc)
      await this.deps.store.c.auditEvents.deleteOne({ _id: doc._id }).catch((err) => {
        this.deps.logger.warn({ err, scanId: this.event.target.id }, 'audit event of a withdrawn upload not removed');
      });
  }

  private async retry(): Promise<void> {
    const { store, logger } = this.deps;
    const scanId = this.event.target.id;
    for (const delay of RETRIES) {
      await sleep(delay);
      try {
        // a write that landed though its answer was lost is not written twice
        const landed = await store.c.auditEvents.findOne(
          { orgId: this.event.orgId, type: this.event.type, 'target.id': scanId },
          { projection: { _id: 1 } },
        );
        if (!landed) await recordAudit(store, this.event, this.at);
        return;
      } catch (err) {
        logger.warn({ err, scanId }, 'scan.uploaded audit event not written yet');
      }
    }
    logger.error({ scanId, event: this.event }, 'scan.uploaded audit event not written');
  }
}
